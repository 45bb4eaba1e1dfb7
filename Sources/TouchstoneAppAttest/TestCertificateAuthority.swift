import TouchstoneAppAttestFormat
import Crypto
import Foundation
import Touchstone

/// The device's App Attest test certificate authority: a root and an intermediate, P-384, in
/// place of Apple's App Attestation Root CA and App Attestation CA 1 (REFERENCE §12: never
/// Apple's root, never a private key in the repository).
///
/// Both keys come from the system's CSPRNG, whatever the device's seed (a seed is reproducible
/// by anyone, so a key derived from it would be public). The root's private key signs the
/// intermediate once and is then dropped: it exists nowhere. The intermediate's is stored with
/// the certificates (`appattest/ca`), sealed with AES-GCM under a key derived from the device
/// secret, so a server configured with the root keeps trusting the device across processes.
/// The certificates are valid from a day before the wall-clock present for 20 years: verifiers
/// check dates against their own clock, even for a device on a virtual clock.
struct TestCertificateAuthority {
    let root: Certificate
    let intermediate: Certificate
    let intermediateKey: P384.Signing.PrivateKey

    /// The record the certificates are kept in.
    static let recordKey = RecordKey(AppAttestService.namespace, "ca")
    private static let lifetime: TimeInterval = 20 * 365 * 86_400
    private static let sealingSalt = "touchstone.appattest.ca.v2"

    private struct Stored: Codable {
        var root: Data
        var intermediate: Data
        var sealedIntermediateKey: Data
    }

    /// The device's authority: the stored one, or a new one stored now.
    static func device(_ device: Device) throws -> TestCertificateAuthority {
        let sealing = try device.derivedKey(salt: sealingSalt, info: Data("intermediate".utf8))
        if let stored = try device.storage.read(recordKey) {
            return try open(stored, sealing: sealing)
        }
        let made = try make(name: "Touchstone App Attest Test")
        guard let sealed = try AES.GCM.seal(made.intermediateKey.rawRepresentation, using: sealing,
                                            authenticating: made.intermediate.derEncoded).combined
        else { throw AppAttestError(.unknownSystemFailure, "sealing the App Attest CA key failed") }
        let value = try JSONEncoder().encode(Stored(root: made.root.derEncoded, intermediate: made.intermediate.derEncoded,
                                                    sealedIntermediateKey: sealed))
        // Two processes may make one at once: the first stored wins, and both use it.
        let kept = try device.storage.transaction { transaction -> Record in
            if let existing = try transaction.read(recordKey) { return existing }
            let record = Record(key: recordKey, value: value)
            transaction.put(record)
            return record
        }
        return kept.value == value ? made : try open(kept, sealing: sealing)
    }

    /// The stored authority; a damaged record, or one another device sealed, is reported.
    private static func open(_ record: Record, sealing: SymmetricKey) throws -> TestCertificateAuthority {
        guard let stored = try? JSONDecoder().decode(Stored.self, from: record.value),
              let root = try? Certificate(derEncoded: stored.root),
              let intermediate = try? Certificate(derEncoded: stored.intermediate),
              let box = try? AES.GCM.SealedBox(combined: stored.sealedIntermediateKey),
              let scalar = try? AES.GCM.open(box, using: sealing, authenticating: stored.intermediate),
              let key = try? P384.Signing.PrivateKey(rawRepresentation: scalar),
              intermediate.publicKey == Certificate.PublicKey(key.publicKey)
        else {
            throw AppAttestError(.unknownSystemFailure, "the stored App Attest certificates (appattest/ca) are damaged or belong to another device; run `touchstone store check`")
        }
        return TestCertificateAuthority(root: root, intermediate: intermediate, intermediateKey: key)
    }

    /// A root and intermediate no server trusts: what a tampered device chains to.
    static func unknown() throws -> TestCertificateAuthority {
        try make(name: "Touchstone Unknown")
    }

    /// A new root and intermediate; the root's private key is not kept.
    private static func make(name: String) throws -> TestCertificateAuthority {
        let rootKey = P384.Signing.PrivateKey()
        let intermediateKey = P384.Signing.PrivateKey()
        let now = Date()
        let rootName = try Certificate.name(commonName: "\(name) Root CA", organization: "Touchstone")
        let intermediateName = try Certificate.name(commonName: "\(name) CA 1", organization: "Touchstone")
        let root = try Certificate.make(
            serialNumber: serial(), issuer: rootName, subject: rootName, notBefore: now - 86_400, notAfter: now + lifetime,
            publicKey: Certificate.PublicKey(rootKey.publicKey),
            extensions: [
                try .basicConstraints(certificateAuthority: true), try .keyUsage(keyCertSign: true, cRLSign: true),
                try .subjectKeyIdentifier(Certificate.PublicKey(rootKey.publicKey)),
            ],
            signatureAlgorithm: .ecdsaWithSHA384, issuerKey: .p384(rootKey))
        let intermediate = try Certificate.make(
            serialNumber: serial(), issuer: rootName, subject: intermediateName, notBefore: now - 86_400,
            notAfter: now + lifetime, publicKey: Certificate.PublicKey(intermediateKey.publicKey),
            extensions: [
                try .basicConstraints(certificateAuthority: true, pathLength: 0), try .keyUsage(keyCertSign: true, cRLSign: true),
                try .subjectKeyIdentifier(Certificate.PublicKey(intermediateKey.publicKey)),
                try .authorityKeyIdentifier(Certificate.PublicKey(rootKey.publicKey)),
            ],
            signatureAlgorithm: .ecdsaWithSHA384, issuerKey: .p384(rootKey))
        return TestCertificateAuthority(root: root, intermediate: intermediate, intermediateKey: intermediateKey)
    }

    /// A credential certificate for `publicKey` carrying `nonce` in 1.2.840.113635.100.8.2
    /// (not critical), valid from five minutes before the wall-clock present for 90 days (never
    /// past the intermediate), signed by the intermediate with ECDSA SHA-256, as Apple's are.
    func credentialCertificate(for publicKey: P256.Signing.PublicKey, keyID: Data, nonce: Data) throws -> Certificate {
        let now = Date()
        let subject = try Certificate.name(
            commonName: keyID.map { String(format: "%02x", $0) }.joined(), organizationalUnit: "AAA Certification",
            organization: "Touchstone")
        return try Certificate.make(
            serialNumber: Self.serial(), issuer: intermediate.subject, subject: subject, notBefore: now - 300,
            notAfter: min(now + 90 * 86_400, intermediate.notAfter), publicKey: Certificate.PublicKey(publicKey),
            extensions: [
                try .basicConstraints(certificateAuthority: false), try .keyUsage(digitalSignature: true),
                try .authorityKeyIdentifier(Certificate.PublicKey(intermediateKey.publicKey)),
                Certificate.Extension(oid: AppAttestDerivation.nonceExtensionOID, critical: false,
                                      value: AppAttestDerivation.nonceExtensionValue(nonce)),
            ],
            signatureAlgorithm: .ecdsaWithSHA256, issuerKey: .p384(intermediateKey))
    }

    /// A positive 16-byte serial number.
    private static func serial() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0 ..< 16).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
        bytes[0] = bytes[0] & 0x7F | 0x01
        return bytes
    }
}
