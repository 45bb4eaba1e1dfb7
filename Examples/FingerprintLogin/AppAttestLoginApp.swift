// The App Attest variant of seed 003 (issue 36, docs/APP-ATTEST.md): instead of binding a bare
// public key, the app binds an App Attest key whose attestation the server verifies (the key
// lives in this device's Secure Enclave, in a genuine copy of the app), and logs in with
// assertions whose counter the server checks. iOS code: DeviceCheck and CryptoKit.

import CryptoKit
import DeviceCheck
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension LoginServer {
    /// A one-use binding challenge for the session's account.
    func attestChallenge(token: String) async throws -> Data {
        let answer = try await call("POST", "v1/devices/attest-challenges", bearer: token)
        guard let challenge = Data(base64Encoded: answer["challenge"] as? String ?? ""), challenge.count == 32 else {
            throw ServerError.http(status: 200, code: "bad_answer", message: "the binding challenge is not base64 of 32 bytes")
        }
        return challenge
    }

    /// Binds an attested App Attest key; the device's ID.
    func bind(keyID: String, attestation: Data, challenge: Data, name: String, token: String) async throws -> String {
        let answer = try await call("POST", "v1/devices", [
            "kind": "appattest", "keyID": keyID, "attestation": attestation.base64EncodedString(),
            "challenge": challenge.base64EncodedString(), "name": name,
        ], bearer: token)
        return answer["deviceID"] as? String ?? ""
    }

    /// The assertion login: the profile signed in.
    func login(deviceID: String, challenge: Data, assertion: Data) async throws -> String {
        let answer = try await call("POST", "v1/logins", ["deviceID": deviceID, "challenge": challenge.base64EncodedString(),
                                                          "assertion": assertion.base64EncodedString()])
        return answer["profileID"] as? String ?? ""
    }
}

/// What the App Attest variant remembers: the key id and the binding, in a plain keychain item.
struct AttestedBinding: Codable {
    var profileID: String
    var deviceID: String
    var keyID: String

    static let account = "app-attest"
    /// A key made but not attested yet (the attestation service was unavailable): the next
    /// try attests the same key, as Apple advises.
    static let pendingAccount = "app-attest-pending"

    static func load() -> AttestedBinding? { loadRecord(account) }
    func save() { saveRecord(self, Self.account) }
}

final class AttestedLoginApp {
    let server: LoginServer

    init(server: LoginServer) { self.server = server }

    /// After a password login: a new App Attest key, attested over the server's challenge, bound.
    func enable(username: String, password: String) async {
        let service = DCAppAttestService.shared
        guard service.isSupported else {
            print("enable-attest: App Attest is not supported on this device; keep the password")
            return
        }
        guard let session = await passwordSignIn(server, username, password) else { return }
        do {
            let pending: String? = loadRecord(AttestedBinding.pendingAccount)
            let keyID: String
            if let pending {
                keyID = pending
            } else {
                keyID = try await service.generateKey()
            }
            saveRecord(keyID, AttestedBinding.pendingAccount)
            let challenge = try await server.attestChallenge(token: session.token)
            let attestation = try await service.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
            let deviceID = try await server.bind(keyID: keyID, attestation: attestation, challenge: challenge,
                                                 name: "App Attest", token: session.token)
            AttestedBinding(profileID: session.profileID, deviceID: deviceID, keyID: keyID).save()
            removeRecord(AttestedBinding.pendingAccount)
            print("enable-attest: ok (the server verified the attestation and bound the key\(pending == nil ? "" : " made on the last try"))")
        } catch DCError.serverUnavailable {
            print("enable-attest: Apple's attestation service is unavailable; try again later (with the same key)")
        } catch DCError.invalidKey {
            // The pending key is gone or attested already: start over with a new one.
            removeRecord(AttestedBinding.pendingAccount)
            print("enable-attest: the key cannot be attested; try again with a new key")
        } catch {
            print("enable-attest: \(describe(error))")
        }
    }

    /// An assertion over the server's challenge logs in.
    func login() async {
        guard let binding = AttestedBinding.load() else {
            print("login-attest: not enabled; enable-attest first")
            return
        }
        do {
            let challenge = try await server.challenge(deviceID: binding.deviceID)
            let assertion = try await DCAppAttestService.shared.generateAssertion(binding.keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
            let profileID = try await server.login(deviceID: binding.deviceID, challenge: challenge, assertion: assertion)
            print("login-attest: ok" + (profileID == binding.profileID ? " (the bound account)" : " (another account!)"))
        } catch {
            print("login-attest: \(describe(error))")
        }
    }
}
