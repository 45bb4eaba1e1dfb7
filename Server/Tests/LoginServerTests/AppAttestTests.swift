import Crypto
import Foundation
import Hummingbird
@testable import LoginServer
import Testing
import TouchstoneAppAttestFormat

/// App Attest devices (issue 36): binding challenges, attestation refusals and counters that
/// only grow, on both backends. (A real device's attestation and assertions against a running
/// server: scripts/server-test.sh's app-attest transcript, on SQLite and PostgreSQL.)
@Suite("App Attest devices", .timeLimit(.minutes(2)))
struct AppAttestTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A verifier trusting a root no device chains to (what a server is configured with).
    static func verifier() throws -> AppAttestVerifier {
        let key = P384.Signing.PrivateKey()
        let name = try Certificate.name(commonName: "Test Root")
        let root = try Certificate.make(
            serialNumber: [1], issuer: name, subject: name, notBefore: Date() - 60, notAfter: Date() + 3600,
            publicKey: Certificate.PublicKey(key.publicKey), extensions: [try .basicConstraints(certificateAuthority: true)],
            signatureAlgorithm: .ecdsaWithSHA384, issuerKey: .p384(key))
        return AppAttestVerifier(appID: "TOUCHSTONE.com.example.app", environment: .production, trustedRoots: [root])
    }

    @Test("an App Attest device's counter only grows: a repeated or lower counter spends the challenge and opens no session; of eight logins at once with one counter, one wins",
          arguments: Backend.available)
    func counterOnlyGrows(_ backend: Backend) async throws {
        let database = try await TestDatabase.make(backend)
        try await database.withRepository { repository in
            let now = Self.now
            try await repository.createAccount(AccountRecord(profileID: "p1", username: "ada", passwordHash: "h", createdAt: now))
            try await repository.createDevice(DeviceRecord(
                deviceID: "d1", profileID: "p1", kind: .appattest, name: "phone", credentialHash: [1],
                publicKey: [UInt8](repeating: 4, count: 65), createdAt: now, lastUsedAt: nil, signCount: 0))
            #expect(try await repository.device(id: "d1")?.signCount == 0)
            @Sendable func challenge(_ number: UInt8) async throws -> [UInt8] {
                let hash = [number, 1]
                #expect(try await repository.createChallenge(hash: hash, deviceID: "d1", expiresAt: now + 60, now: now, requestedBy: "a"))
                return hash
            }
            @Sendable func login(_ hash: [UInt8], _ counter: UInt32) async throws -> String? {
                try await repository.redeemChallenge(hash: hash, deviceID: "d1", now: now, sessionTokenHash: hash + [2],
                                                     sessionExpiresAt: now + 3600, signCount: counter)
            }
            #expect(try await login(challenge(1), 1) == "p1")
            let repeated = try await challenge(2)
            #expect(try await login(repeated, 1) == nil)
            #expect(try await repository.consumeChallenge(hash: repeated, deviceID: "d1", now: now) == nil, "the refused login spent its challenge")
            #expect(try await login(challenge(3), 0) == nil)
            #expect(try await login(challenge(4), 5) == "p1")
            #expect(try await repository.device(id: "d1")?.signCount == 5)
            var hashes: [[UInt8]] = []
            for number in UInt8(10) ..< 18 { hashes.append(try await challenge(number)) }
            let winners = try await withThrowingTaskGroup(of: String?.self) { group in
                for hash in hashes { group.addTask { try await login(hash, 6) } }
                return try await group.reduce(into: 0) { count, profile in count += profile == nil ? 0 : 1 }
            }
            #expect(winners == 1)
            #expect(try await repository.device(id: "d1")?.signCount == 6)
        }
    }

    @Test("a binding challenge is used once, by the account that asked for it, before it expires", arguments: Backend.available)
    func bindingChallengesAreOneUse(_ backend: Backend) async throws {
        let database = try await TestDatabase.make(backend)
        try await database.withRepository { repository in
            let now = Self.now
            for profile in ["p1", "p2"] {
                try await repository.createAccount(AccountRecord(profileID: profile, username: profile, passwordHash: "h", createdAt: now))
            }
            try await repository.createAttestChallenge(hash: [1], profileID: "p1", expiresAt: now + 60, now: now)
            #expect(try await !repository.consumeAttestChallenge(hash: [1], profileID: "p2", now: now))
            #expect(try await !repository.consumeAttestChallenge(hash: [1], profileID: "p1", now: now + 60))
            #expect(try await repository.consumeAttestChallenge(hash: [1], profileID: "p1", now: now + 59))
            #expect(try await !repository.consumeAttestChallenge(hash: [1], profileID: "p1", now: now))
        }
    }

    @Test("binding an appattest device: refused without --app-attest-root, with a forged attestation (the challenge spent), a reused or another account's challenge, or missing fields",
          arguments: Backend.available)
    func bindingRefusals(_ backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada")
            let refused = try await client.send(.post, "/v1/devices/attest-challenges", token: token)
            #expect(refused.status == .badRequest)
            #expect(refused.errorCode == "app_attest_not_configured")
        }
        let verifier = try Self.verifier()
        try await TestServer.make(backend) { $0.appAttest = verifier }.run { client in
            try await client.register("ada")
            try await client.register("bob")
            let token = try await client.signIn("ada")
            let bob = try await client.signIn("bob")
            #expect(try await client.send(.post, "/v1/devices/attest-challenges").status == .unauthorized)
            let answer = try await client.send(.post, "/v1/devices/attest-challenges", token: token)
            #expect(answer.status == .ok)
            let challenge = try #require(answer.json["challenge"] as? String)
            let keyID = Data(repeating: 7, count: 32).base64EncodedString()
            let forged = CBOR.map([(.text("fmt"), .text("apple-appattest"))]).encoded.base64EncodedString()
            var body: [String: any Sendable] = ["kind": "appattest", "keyID": keyID, "attestation": forged, "challenge": challenge, "name": "phone"]
            let stolen = try await client.send(.post, "/v1/devices", json: body, token: bob)
            #expect(stolen.errorCode == "invalid_challenge", "another account's challenge")
            let bad = try await client.send(.post, "/v1/devices", json: body, token: token)
            #expect(bad.status == .badRequest)
            #expect(bad.errorCode == "invalid_attestation")
            let again = try await client.send(.post, "/v1/devices", json: body, token: token)
            #expect(again.errorCode == "invalid_challenge", "the challenge was spent by the refused attestation")
            body["attestation"] = nil
            #expect(try await client.send(.post, "/v1/devices", json: body, token: token).errorCode == "malformed_request")
            let devices = try await client.send(.get, "/v1/devices", token: token)
            #expect((devices.json["devices"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("--require-app-attest refuses key and token bindings (app_attest_required)", arguments: Backend.available)
    func requiredAttestation(_ backend: Backend) async throws {
        let verifier = try Self.verifier()
        try await TestServer.make(backend) { $0.appAttest = verifier; $0.requireAppAttest = true }.run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada")
            for body: [String: any Sendable] in [
                ["kind": "key", "publicKey": P256Key().publicKeyBase64],
                ["kind": "token", "deviceToken": Data(repeating: 9, count: 32).base64EncodedString()],
            ] {
                let reply = try await client.send(.post, "/v1/devices", json: body, token: token)
                #expect(reply.status == .badRequest)
                #expect(reply.errorCode == "app_attest_required")
            }
            #expect(try await client.send(.post, "/v1/devices/attest-challenges", token: token).status == .ok)
        }
    }

    @Test("a login gives a signature or an assertion, not both or neither", arguments: Backend.available)
    func loginNeedsOneProof(_ backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let challenge = Data(repeating: 1, count: 32).base64EncodedString()
            for body: [String: any Sendable] in [
                ["deviceID": UUID().uuidString, "challenge": challenge],
                ["deviceID": UUID().uuidString, "challenge": challenge, "signature": challenge, "assertion": challenge],
            ] {
                let reply = try await client.send(.post, "/v1/logins", json: body)
                #expect(reply.status == .badRequest)
                #expect(reply.errorCode == "malformed_request")
            }
        }
    }
}
