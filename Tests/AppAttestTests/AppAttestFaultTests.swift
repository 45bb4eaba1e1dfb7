import TouchstoneAppAttestFormat
import Crypto
import DeviceCheck
import Foundation
import Security
import Testing
import Touchstone
import TouchstoneAppAttest
import TouchstoneTesting

/// The faults a test asks for (issue 36), and `DeviceCheck`'s Apple-shaped API on them.
@Suite struct AppAttestFaultTests {
    let clientDataHash = Data(SHA256.hash(data: Data("challenge".utf8)))

    @Test func unsupportedMakesIsSupportedFalseAndEveryCallFeatureUnsupported() async throws {
        let device = try TestDevice()
        try device.authenticator.appAttest.updateFaults { $0.unsupported = true }
        await device.asDefaultDevice {
            #expect(!DCAppAttestService.shared.isSupported)
            #expect(!DCDevice.current.isSupported)
            let error = await #expect(throws: DCError.self) { try await DCAppAttestService.shared.generateKey() }
            #expect(error?.code == .featureUnsupported)
            #expect(error?.localizedDescription.contains("unsupported") == true)
        }
        do {
            _ = try await device.asDefaultDevice { try await DCAppAttestService.shared.generateKey() }
            Issue.record("generateKey succeeded")
        } catch DCError.featureUnsupported {
            // Apple's catch pattern matches.
        }
        try device.authenticator.appAttest.updateFaults { $0 = AppAttestFaults() }
        #expect(device.authenticator.appAttest.isSupported)
    }

    @Test func serverUnavailableFailsOnceAndTheSameKeyAttestsOnRetry() async throws {
        let device = try TestDevice()
        try device.authenticator.appAttest.updateFaults { $0.serverUnavailable = 1 }
        let service = DCAppAttestService.shared
        let keyID = try await device.asDefaultDevice { try await service.generateKey() }
        do {
            _ = try await device.asDefaultDevice { try await service.attestKey(keyID, clientDataHash: clientDataHash) }
            Issue.record("attested despite the fault")
        } catch let error as NSError {
            #expect(error.domain == "com.apple.devicecheck.error")
            #expect(error.code == 4)
        }
        let attestation = try await device.asDefaultDevice { try await service.attestKey(keyID, clientDataHash: clientDataHash) }
        let verifier = try AppAttestVerifier(appID: device.authenticator.appAttest.appID, environment: .development, trustedRootsPEM: [device.authenticator.appAttest.testRootPEM()])
        #expect(failedStep { _ = try verifier.verifyAttestation(attestation, keyID: try #require(AppAttestVerifier.keyID(base64: keyID)), clientDataHash: clientDataHash) } == nil)
        #expect(try device.authenticator.appAttest.faults().isEmpty)
    }

    @Test func unknownRootChainsTheAttestationToARootNoServerTrusts() throws {
        let device = try TestDevice()
        let appAttest = device.authenticator.appAttest
        try appAttest.updateFaults { $0.unknownRoot = 1 }
        let keyID = try appAttest.generateKey()
        let attestation = try appAttest.attestKey(keyID, clientDataHash: clientDataHash)
        let verifier = try AppAttestVerifier(appID: appAttest.appID, environment: .development, trustedRootsPEM: [appAttest.testRootPEM()])
        let id = try #require(AppAttestVerifier.keyID(base64: keyID))
        #expect(failedStep { _ = try verifier.verifyAttestation(attestation, keyID: id, clientDataHash: clientDataHash) } == .untrustedChain)
    }

    @Test func clonedKeyRepeatsTheCounterAndBadSignatureFailsTheSignature() throws {
        let device = try TestDevice()
        let appAttest = device.authenticator.appAttest
        let keyID = try appAttest.generateKey()
        let verifier = try AppAttestVerifier(appID: appAttest.appID, environment: .development, trustedRootsPEM: [appAttest.testRootPEM()])
        let key = try verifier.verifyAttestation(
            try appAttest.attestKey(keyID, clientDataHash: clientDataHash), keyID: try #require(AppAttestVerifier.keyID(base64: keyID)),
            clientDataHash: clientDataHash)
        let counter = try verifier.verifyAssertion(
            try appAttest.generateAssertion(keyID, clientDataHash: clientDataHash), clientDataHash: clientDataHash,
            publicKey: key.publicKey, previousCounter: key.counter)
        try appAttest.updateFaults { $0.repeatedCounter = 1 }
        let cloned = try appAttest.generateAssertion(keyID, clientDataHash: clientDataHash)
        #expect(failedStep { _ = try verifier.verifyAssertion(cloned, clientDataHash: clientDataHash, publicKey: key.publicKey, previousCounter: counter) } == .counterMismatch)
        try appAttest.updateFaults { $0.badSignature = 1 }
        let bogus = try appAttest.generateAssertion(keyID, clientDataHash: clientDataHash)
        #expect(failedStep { _ = try verifier.verifyAssertion(bogus, clientDataHash: clientDataHash, publicKey: key.publicKey, previousCounter: counter) } == .badSignature)
        // Faults used up: the next assertion is good, its counter above every earlier one.
        let good = try appAttest.generateAssertion(keyID, clientDataHash: clientDataHash)
        #expect(try verifier.verifyAssertion(good, clientDataHash: clientDataHash, publicKey: key.publicKey, previousCounter: counter) == 3)
    }

    @Test func faultCountsAreRangeChecked() throws {
        let device = try TestDevice()
        #expect(failedCode { try device.authenticator.appAttest.updateFaults { $0.serverUnavailable = -1 } } == .unknownSystemFailure)
        #expect(failedCode { try device.authenticator.appAttest.updateFaults { $0.badSignature = AppAttestFaults.maximumCount + 1 } } == .unknownSystemFailure)
        #expect(try device.authenticator.appAttest.faults().isEmpty)
    }

    @Test func completionHandlersDeliverResultsAndDCErrors() async throws {
        let device = try TestDevice()
        let service = DCAppAttestService.shared
        let keyID: String = try await withCheckedThrowingContinuation { continuation in
            LocalAuthenticationSystem.withAuthenticator(device.authenticator) {
                service.generateKey { keyID, error in
                    if let keyID { continuation.resume(returning: keyID) } else { continuation.resume(throwing: error ?? DCError(.unknownSystemFailure)) }
                }
            }
        }
        let error: (any Error)? = await withCheckedContinuation { continuation in
            LocalAuthenticationSystem.withAuthenticator(device.authenticator) {
                service.generateAssertion(keyID, clientDataHash: clientDataHash) { _, error in continuation.resume(returning: error) }
            }
        }
        #expect((error as? DCError)?.code == .invalidKey)
        #expect(DCError.Code.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
        let token = try await device.asDefaultDevice { try await DCDevice.current.generateToken() }
        #expect(try CBOR(decoding: token)[.text("appID")] == .text("TOUCHSTONE.com.example.app"))
    }

    @Test func compositionRefusesABadTeamIDOrEnvironmentByName() throws {
        #expect(throws: ConfigurationError.self) { try Composition.parse(Data(#"{"teamID": "short"}"#.utf8)) }
        do {
            _ = try Composition.parse(Data(#"{"appAttestEnvironment": "staging"}"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("appAttestEnvironment"))
        }
        let parsed = try Composition.parse(Data(#"{"teamID": "ABCDE12345", "appAttestEnvironment": "production"}"#.utf8))
        #expect(parsed.teamID == "ABCDE12345" && parsed.appAttestEnvironment == .production)
        #expect(try Composition.parse(Data(parsed.jsonString().utf8)) == parsed)
    }
}
