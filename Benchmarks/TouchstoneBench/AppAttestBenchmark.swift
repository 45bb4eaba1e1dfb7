import Crypto
import Foundation
import TouchstoneAppAttest
import TouchstoneAppAttestFormat
import TouchstoneBuiltins

/// `touchstone-bench appattest`: the cost of an App Attest attestation (a new key's credential
/// certificate signed by the device's P-384 CA, CBOR) and of an assertion (the counter stored,
/// the key unsealed, P-256 ECDSA, CBOR) on an in-memory device, beside a bare P-256 signature
/// (and, for the attestation, a bare P-384 signature: the certificate's) in the same run. Also
/// the verifier's time for each, as a server pays it.
func runAppAttestBenchmark(iterations: Int = 2_000, rounds: Int = 3) throws {
    let (authenticator, _) = try makeEnrolledBenchDevice()
    let appAttest = authenticator.appAttest
    let clientDataHash = Data(SHA256.hash(data: Data("server-challenge-0123456789abcdef".utf8)))
    let verifier = try AppAttestVerifier(appID: appAttest.appID, environment: .development, trustedRootsPEM: [appAttest.testRootPEM()])
    let attestKeys = try (0 ..< iterations / 4).map { _ in try appAttest.generateKey() }
    let keyID = try appAttest.generateKey()
    let attestation = try appAttest.attestKey(keyID, clientDataHash: clientDataHash)
    let keyBytes = Data(base64Encoded: keyID) ?? Data()
    let attested = try verifier.verifyAttestation(attestation, keyID: keyBytes, clientDataHash: clientDataHash)
    let bare256 = P256.Signing.PrivateKey()
    let bare384 = P384.Signing.PrivateKey()

    func measure(_ count: Int, _ body: () throws -> Void) throws -> Double {
        var best = Duration.seconds(1_000)
        for _ in 0 ..< rounds {
            best = min(best, try ContinuousClock().measure { for _ in 0 ..< count { try body() } })
        }
        return best.seconds / Double(count) * 1e9
    }

    var next = attestKeys.makeIterator()
    let attest = try ContinuousClock().measure {
        while let key = next.next() { _ = try appAttest.attestKey(key, clientDataHash: clientDataHash) }
    }.seconds / Double(attestKeys.count) * 1e9
    let assert = try measure(iterations) { _ = try appAttest.generateAssertion(keyID, clientDataHash: clientDataHash) }
    let sign256 = try measure(iterations) { _ = try bare256.signature(for: clientDataHash).derRepresentation }
    let sign384 = try measure(iterations) { _ = try bare384.signature(for: clientDataHash).derRepresentation }
    let verifyAttestation = try measure(iterations / 4) {
        _ = try verifier.verifyAttestation(attestation, keyID: keyBytes, clientDataHash: clientDataHash)
    }
    let assertion = try appAttest.generateAssertion(keyID, clientDataHash: clientDataHash)
    let verifyAssertion = try measure(iterations) {
        _ = try verifier.verifyAssertion(assertion, clientDataHash: clientDataHash, publicKey: attested.publicKey, previousCounter: 0)
    }
    report("appattest.attest.latency", attest, "ns")
    report("appattest.assert.latency", assert, "ns")
    report("appattest.bare-p256-sign.latency", sign256, "ns")
    report("appattest.bare-p384-sign.latency", sign384, "ns")
    report("appattest.verify-attestation.latency", verifyAttestation, "ns")
    report("appattest.verify-assertion.latency", verifyAssertion, "ns")
    report("appattest.attest.ratio-to-p384-sign", attest / sign384, "x")
    report("appattest.assert.ratio-to-p256-sign", assert / sign256, "x")
}
