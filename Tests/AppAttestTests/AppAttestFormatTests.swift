import TouchstoneAppAttestFormat
import Crypto
import DeviceCheck
import Foundation
import Testing
import Touchstone
import TouchstoneAppAttest
import TouchstoneTesting

/// REFERENCE §12: the formats App Attest writes, byte for byte, checked by our verifier.
@Suite struct AppAttestFormatTests {
    let challenge = Data("one-time server challenge".utf8)
    var clientDataHash: Data { Data(SHA256.hash(data: challenge)) }

    func verifier(_ device: TestDevice, appID: String? = nil, environment: AppAttestEnvironment = .development) throws -> AppAttestVerifier {
        try AppAttestVerifier(appID: appID ?? device.authenticator.appAttest.appID, environment: environment,
                              trustedRootsPEM: [device.authenticator.appAttest.testRootPEM()])
    }

    func attested(_ device: TestDevice) throws -> (keyID: String, attestation: Data) {
        let appAttest = device.authenticator.appAttest
        let keyID = try appAttest.generateKey()
        return (keyID, try appAttest.attestKey(keyID, clientDataHash: clientDataHash))
    }

    @Test func keyIDIsBase64OfSHA256OfTheX963PublicKey() throws {
        let device = try TestDevice()
        let (keyID, attestation) = try attested(device)
        let key = try verifier(device).verifyAttestation(attestation, keyID: try #require(AppAttestVerifier.keyID(base64: keyID)), clientDataHash: clientDataHash)
        #expect(key.publicKey.count == 65 && key.publicKey.first == 0x04)
        #expect(Data(SHA256.hash(data: key.publicKey)).base64EncodedString() == keyID)
    }

    @Test func attestationObjectIsCBORWithFmtAttStmtAndAuthDataInDeterministicOrder() throws {
        let device = try TestDevice()
        let (_, attestation) = try attested(device)
        guard case let .map(pairs) = try CBOR(decoding: attestation) else { Issue.record("not a map"); return }
        #expect(pairs.map(\.key) == [.text("fmt"), .text("attStmt"), .text("authData")])
        #expect(pairs[0].value == .text("apple-appattest"))
        guard case let .map(statement) = pairs[1].value, case let .array(chain) = statement[0].value else { Issue.record("no attStmt"); return }
        #expect(statement.map(\.key) == [.text("x5c"), .text("receipt")])
        #expect(chain.count == 2)
        #expect(CBOR.map(pairs).encoded == attestation)
    }

    @Test func authDataHoldsRPIDHashCounterZeroAAGUIDAndKeyIDAsCredentialID() throws {
        let device = try TestDevice()
        let (keyID, attestation) = try attested(device)
        let bytes = [UInt8](try AttestationObject(decoding: attestation).authenticatorData)
        #expect(Data(bytes[0 ..< 32]) == Data(SHA256.hash(data: Data("TOUCHSTONE.com.example.app".utf8))))
        #expect(bytes[32] == 0x40)
        #expect(bytes[33 ..< 37].allSatisfy { $0 == 0 })
        #expect(Data(bytes[37 ..< 53]) == Data("appattestdevelop".utf8))
        #expect(bytes[53] == 0 && bytes[54] == 32)
        #expect(Data(bytes[55 ..< 87]).base64EncodedString() == keyID)
        let cose = try CBOR(decoding: Data(bytes[87...]))
        #expect(cose[.int(1)] == .int(2) && cose[.int(3)] == .int(-7) && cose[.int(-1)] == .int(1))
    }

    @Test func productionEnvironmentUsesAppattestAndSevenZeroBytes() throws {
        var composition = Composition()
        composition.appAttestEnvironment = .production
        composition.teamID = "ABCDE12345"
        let device = try TestDevice(composition: composition)
        let (keyID, attestation) = try attested(device)
        let data = try AttestationObject(decoding: attestation).authenticatorData
        #expect(data[37 ..< 53] == Data("appattest".utf8) + Data(repeating: 0, count: 7))
        let id = try #require(AppAttestVerifier.keyID(base64: keyID))
        #expect(failedStep { _ = try verifier(device).verifyAttestation(attestation, keyID: id, clientDataHash: clientDataHash) } == .environmentMismatch)
        let key = try verifier(device, environment: .production).verifyAttestation(attestation, keyID: id, clientDataHash: clientDataHash)
        #expect(key.counter == 0)
        #expect(device.authenticator.appAttest.appID == "ABCDE12345.com.example.app")
    }

    @Test func credentialCertificateCarriesTheNonceIn1_2_840_113635_100_8_2() throws {
        let device = try TestDevice()
        let (_, attestation) = try attested(device)
        let object = try AttestationObject(decoding: attestation)
        let certificate = try Certificate(derEncoded: object.certificates[0])
        let value = try #require(certificate.extensionValue([1, 2, 840, 113_635, 100, 8, 2]))
        let nonce = Data(SHA256.hash(data: object.authenticatorData + clientDataHash))
        #expect(value == [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + [UInt8](nonce))
        #expect(certificate.extensions.first { $0.oid == [1, 2, 840, 113_635, 100, 8, 2] }?.critical == false)
    }

    @Test func attestationFailsForAnotherAppIDAnotherChallengeOrAnotherRoot() throws {
        let device = try TestDevice()
        let (keyID, attestation) = try attested(device)
        let id = try #require(AppAttestVerifier.keyID(base64: keyID))
        func step(_ verifier: AppAttestVerifier, _ hash: Data) -> AppAttestVerificationError.Step? {
            do { _ = try verifier.verifyAttestation(attestation, keyID: id, clientDataHash: hash); return nil }
            catch { return error.step }
        }
        #expect(step(try verifier(device), clientDataHash) == nil)
        #expect(step(try verifier(device, appID: "TOUCHSTONE.com.example.other"), clientDataHash) == .appIDMismatch)
        #expect(step(try verifier(device), Data(SHA256.hash(data: Data("another challenge".utf8)))) == .nonceMismatch)
        let other = try TestDevice(seed: 8)
        #expect(try other.authenticator.appAttest.testRootPEM() != device.authenticator.appAttest.testRootPEM())
        #expect(step(try verifier(other, appID: device.authenticator.appAttest.appID), clientDataHash) == .untrustedChain)
    }

    @Test func keysAndTheTestRootComeFromTheSystemCSPRNGWhateverTheSeed() throws {
        // A seed is public (TestDevice's default is 7): keys derived from it could be rebuilt.
        let first = try TestDevice(seed: 7).authenticator.appAttest
        let second = try TestDevice(seed: 7).authenticator.appAttest
        #expect(try first.testRootPEM() != second.testRootPEM())
        let (one, two) = (try first.generateKey(), try second.generateKey())
        #expect(one != two)
    }

    @Test func assertionCountersIncreaseByOneFromOne() throws {
        let device = try TestDevice()
        let (keyID, attestation) = try attested(device)
        let verifier = try verifier(device)
        let key = try verifier.verifyAttestation(attestation, keyID: try #require(AppAttestVerifier.keyID(base64: keyID)), clientDataHash: clientDataHash)
        var counter = key.counter
        for expected in UInt32(1) ... 5 {
            let request = Data(SHA256.hash(data: Data("request \(expected)".utf8)))
            let assertion = try device.authenticator.appAttest.generateAssertion(keyID, clientDataHash: request)
            counter = try verifier.verifyAssertion(assertion, clientDataHash: request, publicKey: key.publicKey, previousCounter: counter)
            #expect(counter == expected)
            #expect(try AssertionObject(decoding: assertion).authenticatorData.count == 37)
        }
        let stale = try device.authenticator.appAttest.generateAssertion(keyID, clientDataHash: clientDataHash)
        #expect(failedStep { _ = try verifier.verifyAssertion(stale, clientDataHash: clientDataHash, publicKey: key.publicKey, previousCounter: 6) } == .counterMismatch)
    }

    @Test func assertionCountersContinueAcrossAuthenticatorsOnOneStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appattest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = PluginSelection("storage.encrypted-file", options: [
            "path": directory.appendingPathComponent("device.store").path, "key-file": directory.appendingPathComponent("device.key").path,
        ])
        let first = try TestDevice(storage: storage)
        let keyID = try first.authenticator.appAttest.generateKey()
        _ = try first.authenticator.appAttest.attestKey(keyID, clientDataHash: clientDataHash)
        _ = try first.authenticator.appAttest.generateAssertion(keyID, clientDataHash: clientDataHash)
        let second = try TestDevice(storage: storage)
        #expect(try second.authenticator.appAttest.testRootPEM() == first.authenticator.appAttest.testRootPEM())
        let assertion = try second.authenticator.appAttest.generateAssertion(keyID, clientDataHash: clientDataHash)
        #expect(try AuthenticatorData(parsing: AssertionObject(decoding: assertion).authenticatorData, as: .assertion).counter == 2)
        #expect(try second.authenticator.appAttest.keys().map(\.counter) == [2])
    }

    @Test func keysArePerApp() throws {
        let device = try TestDevice()
        let keyID = try device.authenticator.appAttest.generateKey()
        let other = device.authenticator.forApp("com.example.other").appAttest
        #expect(failedCode { _ = try other.attestKey(keyID, clientDataHash: clientDataHash) } == .invalidKey)
        #expect(try other.keys().isEmpty)
        #expect(try device.authenticator.appAttest.keys().map(\.id) == [keyID])
        // App Attest keys are not keychain keys.
        #expect(try device.authenticator.keys.keys().isEmpty)
    }

    @Test func attestingTwiceOrAssertingBeforeAttestingIsInvalidKey() throws {
        let device = try TestDevice()
        let appAttest = device.authenticator.appAttest
        let keyID = try appAttest.generateKey()
        #expect(failedCode { _ = try appAttest.generateAssertion(keyID, clientDataHash: clientDataHash) } == .invalidKey)
        #expect(failedCode { _ = try appAttest.attestKey(keyID, clientDataHash: clientDataHash) } == nil)
        #expect(failedCode { _ = try appAttest.attestKey(keyID, clientDataHash: clientDataHash) } == .invalidKey)
        #expect(failedCode { _ = try appAttest.attestKey("not base64!", clientDataHash: clientDataHash) } == .invalidInput)
        #expect(failedCode { _ = try appAttest.attestKey(Data(repeating: 1, count: 32).base64EncodedString(), clientDataHash: clientDataHash) } == .invalidKey)
    }
}

/// The step at which `body` failed verification, or nil when it passed (any other error fails the test).
func failedStep(_ body: () throws -> Void) -> AppAttestVerificationError.Step? {
    do {
        try body()
        return nil
    } catch let error as AppAttestVerificationError {
        return error.step
    } catch {
        Issue.record("not a verification error: \(error)")
        return nil
    }
}

/// The App Attest error code `body` failed with, or nil when it succeeded.
func failedCode(_ body: () throws -> Void) -> AppAttestError.Code? {
    do {
        try body()
        return nil
    } catch let error as AppAttestError {
        return error.code
    } catch {
        Issue.record("not an App Attest error: \(error)")
        return nil
    }
}
