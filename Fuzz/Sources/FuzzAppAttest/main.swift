// libFuzzer target: App Attest objects as a server receives them. The input is an attestation
// object, an assertion, raw CBOR or authenticator data (the first byte chooses), checked by
// `AppAttestVerifier` against a real test device's root and key, so mutations of a valid
// object reach every step of the verification.
import Crypto
import Foundation
import FuzzSupport
import TouchstoneAppAttest
import TouchstoneAppAttestFormat
import TouchstoneTesting

/// A device with an attested key, and a verifier that trusts its root.
struct Fixture {
    let verifier: AppAttestVerifier
    let keyID: Data
    let publicKey: Data
    let clientDataHash = Data(SHA256.hash(data: Data("fuzz challenge".utf8)))
    let attestation: Data
    let assertion: Data
    /// The time the fixture's certificates are valid at.
    let now = Date()

    init() throws {
        let device = try TestDevice()
        let appAttest = device.authenticator.appAttest
        let keyIDText = try appAttest.generateKey()
        attestation = try appAttest.attestKey(keyIDText, clientDataHash: clientDataHash)
        assertion = try appAttest.generateAssertion(keyIDText, clientDataHash: clientDataHash)
        verifier = try AppAttestVerifier(appID: appAttest.appID, environment: appAttest.environment,
                                         trustedRootsPEM: [appAttest.testRootPEM()])
        keyID = AppAttestVerifier.keyID(base64: keyIDText) ?? Data()
        publicKey = try verifier.verifyAttestation(attestation, keyID: keyID, clientDataHash: clientDataHash, now: now).publicKey
    }
}

let fixture: Fixture
do {
    fixture = try Fixture()
} catch {
    fatalError("the fuzz fixture could not be made: \(error)")
}
writeSeedsIfAsked {
    [Data([0]) + fixture.attestation, Data([1]) + fixture.assertion, Data([2]) + fixture.attestation,
     Data([3]) + ((try? AttestationObject(decoding: fixture.attestation).authenticatorData) ?? Data())]
}

fuzz { input in
    let mode = input.byte() % 4
    let bytes = input.rest()
    switch mode {
    case 0:
        _ = try? fixture.verifier.verifyAttestation(bytes, keyID: fixture.keyID, clientDataHash: fixture.clientDataHash, now: fixture.now)
    case 1:
        _ = try? fixture.verifier.verifyAssertion(bytes, clientDataHash: fixture.clientDataHash, publicKey: fixture.publicKey, previousCounter: 0)
    case 2:
        // A value read is written in the deterministic encoding (the reader also accepts
        // longer heads than needed), which reads back as the same value.
        if let value = try? CBOR(decoding: bytes) {
            precondition((try? CBOR(decoding: value.encoded)) == value, "CBOR written did not read back as the same value")
        }
    default:
        for layout in [AuthenticatorData.Layout.attestation, .assertion] {
            if let data = try? AuthenticatorData(parsing: bytes, as: layout) {
                _ = data.encoded
            }
        }
    }
}
