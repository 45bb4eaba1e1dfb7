import Crypto
import Foundation
import Hummingbird
import LoginServer
import Testing

/// A user with a bound key, ready for fingerprint logins.
struct EnrolledDevice: Sendable {
    let profileID: String
    let sessionToken: String
    let deviceID: String
    let key: P256Key

    static func make(_ client: Client, username: String = "ada") async throws -> EnrolledDevice {
        let profileID = try await client.register(username)
        let token = try await client.signIn(username)
        let key = P256Key()
        let deviceID = try await client.bindKey(key, token: token)
        return EnrolledDevice(profileID: profileID, sessionToken: token, deviceID: deviceID, key: key)
    }
}

@Suite("Challenge-response and token logins", .timeLimit(.minutes(2)))
struct LoginTests {
    @Test("a signed challenge logs the device's account in and marks the device used", arguments: Backend.available)
    func signatureLogin(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            let device = try await EnrolledDevice.make(client)
            let challengeReply = try await client.send(.post, "/v1/challenges", json: ["deviceID": device.deviceID])
            #expect(challengeReply.status == .ok)
            let challenge = try #require(challengeReply.string("challenge"))
            #expect(Data(base64Encoded: challenge)?.count == 32)
            #expect(challengeReply.string("expiresAt").flatMap(ISO8601DateFormatter().date(from:)) == server.clock.now().addingTimeInterval(60))

            let reply = try await client.login(device.deviceID, challenge: challenge, signature: try device.key.sign(challenge))
            #expect(reply.status == .ok)
            #expect(reply.string("profileID") == device.profileID)
            let token = try #require(reply.string("token"))
            let list = try await client.send(.get, "/v1/devices", token: token)
            #expect(list.status == .ok)
            let devices = try #require(list.json["devices"] as? [[String: Any]])
            #expect(devices.first?["lastUsedAt"] is String)
        }
    }

    @Test("a challenge is single use: a replay is 401", arguments: Backend.available)
    func replay(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let device = try await EnrolledDevice.make(client)
            let challenge = try await client.challenge(device.deviceID)
            let signature = try device.key.sign(challenge)
            #expect(try await client.login(device.deviceID, challenge: challenge, signature: signature).status == .ok)
            let replayed = try await client.login(device.deviceID, challenge: challenge, signature: signature)
            #expect(replayed.status == .unauthorized)
            #expect(replayed.errorCode == "login_failed")
        }
    }

    @Test("a challenge expires after 60 s on the clock", arguments: Backend.available)
    func expiry(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            let device = try await EnrolledDevice.make(client)
            let early = try await client.challenge(device.deviceID)
            server.clock.advance(by: .seconds(59))
            #expect(try await client.login(device.deviceID, challenge: early, signature: try device.key.sign(early)).status == .ok)
            let late = try await client.challenge(device.deviceID)
            server.clock.advance(by: .seconds(60))
            #expect(try await client.login(device.deviceID, challenge: late, signature: try device.key.sign(late)).status == .unauthorized)
        }
    }

    @Test("of concurrent logins with one challenge exactly one wins", arguments: Backend.available)
    func concurrentDoubleUse(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let device = try await EnrolledDevice.make(client)
            let challenge = try await client.challenge(device.deviceID)
            let signature = try device.key.sign(challenge)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.login(device.deviceID, challenge: challenge, signature: signature).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 1)
            #expect(statuses.filter { $0 == .unauthorized }.count == 7)
        }
    }

    @Test("a device deleted while its logins run: the deletion is 204, each login 200 or 401, and no session of the device survives",
          arguments: Backend.available)
    func deletionRacingLogins(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            // Twelve rounds: without the lock order, a deadlock showed in about half of the runs.
            for round in 0..<12 {
                // The logins that lose the race are failures of this address: let the last
                // round's age out of the window, so the rate limit does not answer instead.
                server.clock.advance(by: .seconds(3_600))
                let device = try await EnrolledDevice.make(client, username: "racer\(round)")
                var signed: [(challenge: String, signature: String)] = []
                for _ in 0..<16 {
                    let challenge = try await client.challenge(device.deviceID)
                    signed.append((challenge, try device.key.sign(challenge)))
                }
                enum Outcome: Sendable { case login(HTTPResponse.Status, String?), deletion(HTTPResponse.Status) }
                let outcomes = try await withThrowingTaskGroup(of: Outcome.self) { group in
                    for (index, pair) in signed.enumerated() {
                        group.addTask {
                            let reply = try await client.login(device.deviceID, challenge: pair.challenge, signature: pair.signature)
                            return .login(reply.status, reply.string("token"))
                        }
                        if index == signed.count / 2 {
                            group.addTask {
                                .deletion(try await client.send(.delete, "/v1/devices/\(device.deviceID)", token: device.sessionToken).status)
                            }
                        }
                    }
                    return try await group.reduce(into: [Outcome]()) { $0.append($1) }
                }
                var sessions: [String] = []
                for outcome in outcomes {
                    switch outcome {
                    case let .deletion(status):
                        #expect(status == .noContent, "round \(round): the deletion")
                    case let .login(status, token):
                        #expect(status == .ok || status == .unauthorized, "round \(round): a login got \(status)")
                        if status == .ok, let token { sessions.append(token) }
                    }
                }
                for session in sessions {
                    #expect(try await client.send(.get, "/v1/devices", token: session).status == .unauthorized,
                            "round \(round): a session of the deleted device still works")
                }
            }
        }
    }

    @Test("another key, an invented challenge, another device's challenge: all 401", arguments: Backend.available)
    func wrongKeyAndInventedChallenge(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let ada = try await EnrolledDevice.make(client, username: "ada")
            let bob = try await EnrolledDevice.make(client, username: "bob")

            let challenge = try await client.challenge(ada.deviceID)
            let byOtherKey = try P256Key().sign(challenge)
            #expect(try await client.login(ada.deviceID, challenge: challenge, signature: byOtherKey).status == .unauthorized)

            let invented = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            #expect(try await client.login(ada.deviceID, challenge: invented, signature: try ada.key.sign(invented)).status == .unauthorized)

            // Bob's challenge signed with Bob's key does not log in as Ada's device.
            let bobs = try await client.challenge(bob.deviceID)
            #expect(try await client.login(ada.deviceID, challenge: bobs, signature: try bob.key.sign(bobs)).status == .unauthorized)
            // An unknown device.
            #expect(try await client.login(UUID().uuidString, challenge: bobs, signature: try bob.key.sign(bobs)).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/challenges", json: ["deviceID": UUID().uuidString]).status == .notFound)
        }
    }

    @Test("forged, truncated and raw signatures are 401, and burn the challenge", arguments: Backend.available)
    func forgedSignatures(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let device = try await EnrolledDevice.make(client)
            let probe = try await client.challenge(device.deviceID)
            let der = try #require(Data(base64Encoded: try device.key.sign(probe)))
            var flipped = der
            flipped[flipped.count - 1] ^= 0x01
            let raw = try device.key.privateKey.signature(for: Data(base64Encoded: probe) ?? Data()).rawRepresentation
            for forged in [Data(der.prefix(der.count - 1)), Data(der.prefix(8)), Data(), flipped, raw, Data(count: 72)] {
                let challenge = try await client.challenge(device.deviceID)
                let reply = try await client.login(device.deviceID, challenge: challenge, signature: forged.base64EncodedString())
                #expect(reply.status == .unauthorized)
                // The failed attempt consumed the challenge: the right signature no longer works.
                #expect(try await client.login(device.deviceID, challenge: challenge, signature: try device.key.sign(challenge)).status == .unauthorized)
            }
            #expect(try await client.login(device.deviceID, challenge: probe, signature: der.base64EncodedString()).status == .ok)
            // Not base64 at all is a malformed request.
            #expect(try await client.login(device.deviceID, challenge: probe, signature: "***").status == .badRequest)
        }
    }

    @Test("a revoked device cannot log in, even with a challenge issued before", arguments: Backend.available)
    func revokedDevice(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let device = try await EnrolledDevice.make(client)
            let challenge = try await client.challenge(device.deviceID)
            #expect(try await client.send(.delete, "/v1/devices/\(device.deviceID)", token: device.sessionToken).status == .noContent)
            #expect(try await client.login(device.deviceID, challenge: challenge, signature: try device.key.sign(challenge)).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/challenges", json: ["deviceID": device.deviceID]).status == .notFound)
        }
    }

    @Test("a bound device token logs in; an unknown or revoked one is 401", arguments: Backend.available)
    func tokenLogin(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let profileID = try await client.register("ada")
            let session = try await client.signIn("ada")
            let deviceToken = Data((0..<48).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            let bind = try await client.send(.post, "/v1/devices", json: ["kind": "token", "deviceToken": deviceToken, "name": "tablet"], token: session)
            #expect(bind.status == .created)
            let deviceID = try #require(bind.string("deviceID"))

            let login = try await client.send(.post, "/v1/logins/token", json: ["deviceToken": deviceToken])
            #expect(login.status == .ok)
            #expect(login.string("profileID") == profileID)
            // One token, one spelling: extra padding (which Foundation's decoder accepts) is not
            // the token.
            #expect(Data(base64Encoded: deviceToken + "====") != nil)
            #expect(try await client.send(.post, "/v1/logins/token", json: ["deviceToken": deviceToken + "===="]).status == .badRequest)
            // A name with a bidi override or a control character is refused.
            for name in ["\u{202E}evil", "tab\nlet"] {
                let other = Data((0..<48).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                let refused = try await client.send(.post, "/v1/devices", json: ["kind": "token", "deviceToken": other, "name": name], token: session)
                #expect(refused.status == .badRequest)
                #expect(refused.errorCode == "invalid_name")
            }
            // A token device has no key: no challenges for it.
            #expect(try await client.send(.post, "/v1/challenges", json: ["deviceID": deviceID]).status == .notFound)

            #expect(try await client.send(.delete, "/v1/devices/\(deviceID)", token: session).status == .noContent)
            #expect(try await client.send(.post, "/v1/logins/token", json: ["deviceToken": deviceToken]).status == .unauthorized)
        }
    }

    @Test("guessing device tokens gets 401s, then 429 after 100 from one address", arguments: Backend.available)
    func tokenGuessing(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            let session = try await client.register("ada")
            _ = session
            let token = try await client.signIn("ada")
            let real = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            #expect(try await client.send(.post, "/v1/devices", json: ["kind": "token", "deviceToken": real], token: token).status == .created)
            for _ in 0..<100 {
                let guess = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                let reply = try await client.send(.post, "/v1/logins/token", json: ["deviceToken": guess])
                #expect(reply.status == .unauthorized)
            }
            let blocked = try await client.send(.post, "/v1/logins/token", json: ["deviceToken": real])
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.header("Retry-After") != nil)
            server.clock.advance(by: .seconds(601))
            #expect(try await client.send(.post, "/v1/logins/token", json: ["deviceToken": real]).status == .ok)
        }
    }
}
