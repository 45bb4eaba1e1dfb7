import Foundation
import Hummingbird
import LoginServer
import Testing

@Suite("Accounts and password sessions", .timeLimit(.minutes(2)))
struct AccountAndSessionTests {
    @Test("health answers 200 once the database is migrated", arguments: Backend.available)
    func health(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let reply = try await client.send(.get, "/health")
            #expect(reply.status == .ok)
            #expect(reply.string("status") == "ok")
        }
    }

    @Test("an account is created once; the username cannot be taken twice", arguments: Backend.available)
    func createAccount(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let profileID = try await client.register("ada")
            #expect(!profileID.isEmpty)
            let again = try await client.send(.post, "/v1/accounts", json: ["username": "ada", "password": "another password"])
            #expect(again.status == .conflict)
            #expect(again.errorCode == "username_taken")
        }
    }

    /// The one-scalar string of `value` (empty for a value that is no scalar).
    static func scalar(_ value: UInt32) -> String {
        Unicode.Scalar(value).map { String($0) } ?? ""
    }

    @Test("a U+0000 in any string field is 400 before the database sees it (SQLite cut the string there, PostgreSQL refused it)",
          arguments: Backend.available)
    func nulInStringsIs400(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let device = try await EnrolledDevice.make(client)
            for (path, body) in [
                ("/v1/accounts", #"{"username":"ada\u0000x","password":"correct horse battery"}"#),
                ("/v1/sessions", #"{"username":"ada\u0000x","password":"correct horse battery"}"#),
                ("/v1/challenges", #"{"deviceID":"\#(device.deviceID)\u0000x"}"#),
                ("/v1/logins/token", #"{"deviceToken":"AAAA\u0000"}"#),
            ] {
                let reply = try await client.send(.post, path, raw: body)
                #expect(reply.status == .badRequest, "\(path): \(reply.status)")
                #expect(reply.errorCode == "malformed_request", "\(path)")
            }
            // The same body in UTF-16 (which JSONDecoder would convert, escaped NUL and all): bodies
            // are UTF-8.
            let text16 = #"{"username":"ada\u0000x","password":"correct horse battery"}"#
            let utf16 = Array(text16.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
            let reply16 = try await client.send(.post, "/v1/sessions", bytes: utf16)
            #expect(reply16.status == .badRequest)
            #expect(reply16.errorCode == "malformed_request")
            // An escaped backslash before "u0000" is text, not a NUL.
            let text = try await client.send(.post, "/v1/sessions", raw: #"{"username":"ada\\u0000","password":"correct horse battery"}"#)
            #expect(text.status == .unauthorized)
            let named = try await client.send(.post, "/v1/devices", raw: #"{"kind":"token","deviceToken":"\#(Data(repeating: 7, count: 32).base64EncodedString())","name":"tab\u0000let"}"#,
                                              token: device.sessionToken)
            #expect(named.status == .badRequest)
        }
    }

    @Test("empty, over-long and padded usernames and weak passwords are 400", arguments: Backend.available)
    func rejectsBadAccounts(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let refusedNames = [
                "", String(repeating: "a", count: 65),
                // Names that show as nothing, or as another name: Hangul fillers, a blank Braille
                // cell, variation selectors, the combining grapheme joiner, private use,
                // noncharacters (which cannot be written as literals), a lone combining mark.
                "\u{3164}", "bob\u{3164}", "bob\u{115F}", "\u{2800}", "bo\u{034F}b", "\u{FE0F}", "bob\u{E0100}", "\u{E000}",
                Self.scalar(0xFDD0), "bo" + Self.scalar(0x10FFFF) + "b", "\u{0301}",
                " ada",
            ]
            for (username, password, code) in refusedNames.map({ ($0, "correct horse battery", "invalid_username") }) + [
                ("ada", "short", "weak_password"),
                ("ada", "aaaaaaaaaaaa", "weak_password"),
                ("adalovelace", "adalovelace", "weak_password"),
                // Judged as hashed (NFKC): the full-width username, and one letter in three forms.
                ("adalovelace", "\u{FF41}\u{FF44}\u{FF41}\u{FF4C}\u{FF4F}\u{FF56}\u{FF45}\u{FF4C}\u{FF41}\u{FF43}\u{FF45}", "weak_password"),
                ("ada", "a\u{FF41}\u{24D0}aaaaa", "weak_password"),
            ] {
                let reply = try await client.send(.post, "/v1/accounts", json: ["username": username, "password": password])
                #expect(reply.status == .badRequest, "\(username) / \(password)")
                #expect(reply.errorCode == code)
            }
        }
    }

    @Test("a password login returns a bearer token with an expiry and the profile", arguments: Backend.available)
    func passwordLogin(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            let profileID = try await client.register("ada")
            let reply = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"])
            #expect(reply.status == .ok)
            #expect(reply.string("profileID") == profileID)
            let token = try #require(reply.string("token"))
            #expect(Data(base64Encoded: token)?.count == 32)
            let expiresAt = try #require(reply.string("expiresAt"))
            #expect(ISO8601DateFormatter().date(from: expiresAt) == server.clock.now().addingTimeInterval(3600))
            let devices = try await client.send(.get, "/v1/devices", token: token)
            #expect(devices.status == .ok)
        }
    }

    @Test("a wrong password and an unknown user get the same 401", arguments: Backend.available)
    func sameAnswerForUnknownUser(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("ada")
            let wrong = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "wrong password"])
            let unknown = try await client.send(.post, "/v1/sessions", json: ["username": "bob", "password": "wrong password"])
            #expect(wrong.status == .unauthorized)
            #expect(unknown.status == .unauthorized)
            #expect(wrong.body == unknown.body)
        }
    }

    @Test("sessions expire on the clock", arguments: Backend.available)
    func sessionExpiry(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada")
            server.clock.advance(by: .seconds(3599))
            #expect(try await client.send(.get, "/v1/devices", token: token).status == .ok)
            server.clock.advance(by: .seconds(1))
            let expired = try await client.send(.get, "/v1/devices", token: token)
            #expect(expired.status == .unauthorized)
            #expect(expired.errorCode == "unauthorized")
        }
    }

    @Test("ten failures lock the account for ten minutes with Retry-After, even for the right password", arguments: Backend.available)
    func accountRateLimit(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            try await client.register("ada")
            try await client.register("bob")
            for attempt in 1...10 {
                let reply = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "guess \(attempt)"])
                #expect(reply.status == .unauthorized)
                server.clock.advance(by: .seconds(1))
            }
            let locked = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"])
            #expect(locked.status == .tooManyRequests)
            #expect(locked.errorCode == "rate_limited")
            // The first failure was 10 s ago: it leaves the 600 s window in 590 s.
            #expect(locked.header("Retry-After") == "590")
            // Another account from the same address is not locked out.
            _ = try await client.signIn("bob")
            server.clock.advance(by: .seconds(590))
            _ = try await client.signIn("ada")
        }
    }

    @Test("one address is limited at 100 failures across accounts, not at 10", arguments: Backend.available)
    func addressRateLimit(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            try await client.register("ada")
            for attempt in 0..<100 {
                let reply = try await client.send(.post, "/v1/sessions", json: ["username": "user\(attempt % 20)", "password": "guess"])
                #expect(reply.status == .unauthorized, "attempt \(attempt)")
            }
            let blocked = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"])
            #expect(blocked.status == .tooManyRequests)
            #expect(Int(blocked.header("Retry-After") ?? "") == 600)
            server.clock.advance(by: .seconds(600))
            _ = try await client.signIn("ada")
        }
    }

    @Test("DELETE /v1/sessions signs out: 204, then the token is 401; another session of the account still works",
          arguments: Backend.available)
    func signOut(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("sam")
            let first = try await client.signIn("sam")
            let second = try await client.signIn("sam")
            #expect(try await client.send(.delete, "/v1/sessions", token: first).status == .noContent)
            #expect(try await client.send(.get, "/v1/devices", token: first).status == .unauthorized)
            #expect(try await client.send(.delete, "/v1/sessions", token: first).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/devices", token: second).status == .ok)
            #expect(try await client.send(.delete, "/v1/sessions").status == .unauthorized)
        }
    }

    @Test("usernames are stored in NFC: e + accent and é are one account (and one password); bidi overrides and zero-width characters are refused",
          arguments: Backend.available)
    func usernamesAreNormalized(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("Ren\u{E9}e")
            let decomposed = try await client.send(.post, "/v1/accounts", json: ["username": "Rene\u{301}e", "password": "correct horse battery"])
            #expect(decomposed.status == .conflict && decomposed.errorCode == "username_taken")
            // Signing in with either form reaches the account.
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "Rene\u{301}e", "password": "correct horse battery"]).status == .ok)
            for spoof in ["admin\u{202E}nimda", "ad\u{200B}min", "\u{2066}bob\u{2069}"] {
                let reply = try await client.send(.post, "/v1/accounts", json: ["username": spoof, "password": "correct horse battery"])
                #expect(reply.errorCode == "invalid_username", "\(spoof.unicodeScalars.map { String($0.value, radix: 16) })")
            }
            // Passwords too are one whichever way an accent is typed (NFKC).
            #expect(try await client.send(.post, "/v1/accounts", json: ["username": "zoe", "password": "p\u{E4}ssw\u{F6}rd-42"]).status == .created)
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "zoe", "password": "pa\u{308}sswo\u{308}rd-42"]).status == .ok)
            // Case is kept and matters (our rule).
            #expect(try await client.send(.post, "/v1/accounts", json: ["username": "RENEE", "password": "correct horse battery"]).status == .created)
        }
    }
}
