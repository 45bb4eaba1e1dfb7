// The ```swift examples of the App Attest modules' doc comments (Sources/DeviceCheck,
// Sources/TouchstoneAppAttest, Sources/TouchstoneAppAttestFormat), compiled in the context they
// assume. The lines between the markers must stay identical to the comments; DocumentationTests
// checks it.

import CryptoKit
import DeviceCheck
import Foundation
import Touchstone
import TouchstoneAppAttest
import TouchstoneAppAttestFormat

/// Stands for the app sending bytes to its server.
private func send(_ data: Data) { _ = data }

enum AppAttestExamples {
    // Sources/TouchstoneAppAttest/AppAttestService.swift
    static func service(_ authenticator: Authenticator, challenge: Data, request: Data) throws -> (Data, Data, String) {
        let appAttest = authenticator.appAttest
        let keyID = try appAttest.generateKey()
        let attestation = try appAttest.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
        let assertion = try appAttest.generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: request)))
        let rootPEM = try appAttest.testRootPEM()   // what a server under test trusts
        return (attestation, assertion, rootPEM)
    }

    // Sources/TouchstoneAppAttestFormat/AppAttestVerifier.swift
    static func verifier(rootPEM: String, attestation: Data, assertion: Data, keyID: Data, challenge: Data, challenge2: Data) throws -> UInt32 {
        let verifier = try AppAttestVerifier(appID: "TOUCHSTONE.com.example.app", environment: .development, trustedRootsPEM: [rootPEM])
        let key = try verifier.verifyAttestation(attestation, keyID: keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
        // store key.publicKey, key.counter (0), key.receipt
        let counter = try verifier.verifyAssertion(assertion, clientDataHash: Data(SHA256.hash(data: challenge2)),
                                                   publicKey: key.publicKey, previousCounter: key.counter)
        return counter
    }

    // Sources/DeviceCheck/DCAppAttestService.swift
    static func deviceCheck(challenge: Data, request: Data) async throws {
        let service = DCAppAttestService.shared
        guard service.isSupported else { return }
        let keyID = try await service.generateKey()
        let attestation = try await service.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
        let assertion = try await service.generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: request)))
        send(attestation + assertion)
    }

    // Sources/DeviceCheck/DCError.swift
    static func errors(keyID: String, hash: Data) async throws {
        do {
            let attestation = try await DCAppAttestService.shared.attestKey(keyID, clientDataHash: hash)
            send(attestation)
        } catch DCError.serverUnavailable {
            // retry later with the same key
        } catch let error as DCError where error.code == .invalidKey {
            // make a new key
        }
    }
}
