import Foundation
@testable import LoginServer
import Testing

/// Changing the password and signing out everywhere: what a user does after losing a phone or
/// a password.
@Suite("Password change and sign out everywhere", .timeLimit(.minutes(2)))
struct PasswordChangeTests {
    @Test("PUT /v1/accounts/password: 204, the new password signs in and the old does not; every other session ends, this one stays",
          arguments: Backend.available)
    func changeEndsOtherSessions(_ backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            try await client.register("ada")
            let here = try await client.signIn("ada", "correct horse battery")
            let elsewhere = try await client.signIn("ada", "correct horse battery")
            let change = try await client.send(.put, "/v1/accounts/password",
                                               json: ["currentPassword": "correct horse battery", "newPassword": "battery staple horse"],
                                               token: here)
            #expect(change.status == .noContent)
            #expect(try await client.send(.get, "/v1/devices", token: here).status == .ok, "the session that changed it stays")
            #expect(try await client.send(.get, "/v1/devices", token: elsewhere).status == .unauthorized, "every other session ended")
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"]).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "battery staple horse"]).status == .ok)
        }
    }

    @Test("a password change needs the session, the right current password (a failure counted as a login's) and a new password that passes the rules",
          arguments: Backend.available)
    func changeIsChecked(_ backend: Backend) async throws {
        let server = try await TestServer.make(backend) { $0.accountFailureLimit = 2 }
        try await server.run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada", "correct horse battery")
            let body: [String: any Sendable] = ["currentPassword": "correct horse battery", "newPassword": "battery staple horse"]
            #expect(try await client.send(.put, "/v1/accounts/password", json: body).status == .unauthorized)
            let weak = try await client.send(.put, "/v1/accounts/password",
                                             json: ["currentPassword": "correct horse battery", "newPassword": "ada"], token: token)
            #expect(weak.status == .badRequest)
            #expect(weak.errorCode == "weak_password")
            for _ in 0..<2 {
                let wrong = try await client.send(.put, "/v1/accounts/password",
                                                  json: ["currentPassword": "wrong password", "newPassword": "battery staple horse"], token: token)
                #expect(wrong.status == .unauthorized)
                #expect(wrong.errorCode == "invalid_credentials")
            }
            // The account's failure limit (2 here) is reached: even the right password waits.
            #expect(try await client.send(.put, "/v1/accounts/password", json: body, token: token).status == .tooManyRequests)
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"]).status == .tooManyRequests)
        }
    }

    @Test("DELETE /v1/accounts/sessions signs out everywhere: every session of the account ends, this one too; another account's stays",
          arguments: Backend.available)
    func signOutEverywhere(_ backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            try await client.register("ada")
            try await client.register("bob")
            let first = try await client.signIn("ada", "correct horse battery")
            let second = try await client.signIn("ada", "correct horse battery")
            let bob = try await client.signIn("bob", "correct horse battery")
            #expect(try await client.send(.delete, "/v1/accounts/sessions", token: first).status == .noContent)
            #expect(try await client.send(.get, "/v1/devices", token: first).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/devices", token: second).status == .unauthorized)
            #expect(try await client.send(.get, "/v1/devices", token: bob).status == .ok)
            #expect(try await client.send(.delete, "/v1/accounts/sessions").status == .unauthorized)
        }
    }

    @Test("a password session is stored only while the password checked is still the account's: after a change, the old hash stores none",
          arguments: Backend.available)
    func passwordSessionNeedsTheCheckedHash(_ backend: Backend) async throws {
        let database = try await TestDatabase.make(backend)
        try await database.withRepository { repository in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            try await repository.createAccount(AccountRecord(profileID: "p1", username: "ada", passwordHash: "old", createdAt: now))
            let later = now.addingTimeInterval(3600)
            #expect(try await repository.createPasswordSession(tokenHash: [1], profileID: "p1", expiresAt: later, now: now, passwordHash: "old"))
            #expect(try await repository.changePassword(profileID: "p1", from: "old", to: "new", keeping: [9]))
            #expect(try await repository.sessionProfile(tokenHash: [1], now: now) == nil, "the change ended the session")
            // A login that checked the old password before the change comes back after it.
            #expect(try await !repository.createPasswordSession(tokenHash: [2], profileID: "p1", expiresAt: later, now: now, passwordHash: "old"))
            #expect(try await repository.sessionProfile(tokenHash: [2], now: now) == nil)
            #expect(try await repository.createPasswordSession(tokenHash: [3], profileID: "p1", expiresAt: later, now: now, passwordHash: "new"))
            #expect(try await !repository.changePassword(profileID: "p1", from: "old", to: "newer", keeping: [3]), "a stale change loses")
        }
    }

    @Test("of two password changes made at once with one current password, one wins and the other is 409 password_changed or 401",
          arguments: Backend.available)
    func concurrentChanges(_ backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        let statuses = try await server.run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada", "correct horse battery")
            return try await withThrowingTaskGroup(of: Int.self) { group in
                for new in ["battery staple horse", "staple horse battery"] {
                    group.addTask {
                        try await client.send(.put, "/v1/accounts/password",
                                              json: ["currentPassword": "correct horse battery", "newPassword": new], token: token).status.code
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(statuses.filter { $0 == 204 }.count == 1, "\(statuses)")
        #expect(statuses.allSatisfy { [204, 409, 401].contains($0) }, "\(statuses)")
    }
}
