import TouchstoneAppAttestFormat
import Crypto
import Foundation
import Touchstone

/// The device's App Attest test certificate authority: a root and an intermediate, P-384, in
/// place of Apple's App Attestation Root CA and App Attestation CA 1 (REFERENCE §12: never
/// Apple's root, never a private key in the repository).
///
/// Both private keys are derived from the device secret (HKDF-SHA256), so they exist only on
/// this device and change when it is erased. The certificates are made on first use, valid
/// from a day before the wall-clock present for 20 years, and stored with the device
/// (`appattest/ca`), so a server configured with the root keeps trusting the device across
/// processes. Certificate dates follow the wall clock even on a device with a virtual clock:
/// verifiers check them against theirs.
struct TestCertificateAuthority {
    let root: Certificate
    let intermediate: Certificate
    let intermediateKey: P384.Signing.PrivateKey

    /// The record the certificates are kept in.
    static let recordKey = RecordKey(AppAttestService.namespace, "ca")
    private static let lifetime: TimeInterval = 20 * 365 * 86_400

    private struct Stored: Codable {
        var root: Data
        var intermediate: Data
    }

    /// The device's authority: the stored certificates, or new ones stored now.
    static func device(_ device: Device) throws -> TestCertificateAuthority {
        let rootKey = try key(device, "root")
        let intermediateKey = try key(device, "intermediate")
        if let stored = try device.storage.read(recordKey) {
            guard let record = try? JSONDecoder().decode(Stored.self, from: stored.value),
                  let root = try? Certificate(derEncoded: record.root),
                  let intermediate = try? Certificate(derEncoded: record.intermediate),
                  root.publicKey == Certificate.PublicKey(rootKey.publicKey), intermediate.publicKey == Certificate.PublicKey(intermediateKey.publicKey)
            else {
                throw AppAttestError(.unknownSystemFailure, "the stored App Attest certificates (appattest/ca) are damaged or belong to another device; run `touchstone store check`")
            }
            return TestCertificateAuthority(root: root, intermediate: intermediate, intermediateKey: intermediateKey)
        }
        let made = try make(rootKey: rootKey, intermediateKey: intermediateKey, name: "Touchstone App Attest Test", serials: device.random)
        let record = Record(key: recordKey, value: try JSONEncoder().encode(Stored(root: made.root.derEncoded, intermediate: made.intermediate.derEncoded)))
        // Two processes may make them at once: the first stored pair wins, and both use it.
        let kept = try device.storage.transaction { transaction -> Data in
            if let existing = try transaction.read(recordKey) { return existing.value }
            transaction.put(record)
            return record.value
        }
        guard kept == record.value else { return try self.device(device) }
        return made
    }

    /// A root and intermediate no server trusts: what a tampered device chains to.
    static func unknown(_ device: Device) throws -> TestCertificateAuthority {
        try make(rootKey: try key(device, "unknown-root"), intermediateKey: try key(device, "unknown-intermediate"),
                 name: "Touchstone Unknown", serials: device.random)
    }

    private static func make(
        rootKey: P384.Signing.PrivateKey, intermediateKey: P384.Signing.PrivateKey, name: String, serials: RandomSource
    ) throws -> TestCertificateAuthority {
        let now = Date()
        let rootName = try Certificate.name(commonName: "\(name) Root CA", organization: "Touchstone")
        let intermediateName = try Certificate.name(commonName: "\(name) CA 1", organization: "Touchstone")
        let root = try Certificate.make(
            serialNumber: serial(serials), issuer: rootName, subject: rootName, notBefore: now - 86_400, notAfter: now + lifetime,
            publicKey: Certificate.PublicKey(rootKey.publicKey),
            extensions: [
                try .basicConstraints(certificateAuthority: true), try .keyUsage(keyCertSign: true, cRLSign: true),
                try .subjectKeyIdentifier(Certificate.PublicKey(rootKey.publicKey)),
            ],
            signatureAlgorithm: .ecdsaWithSHA384, issuerKey: .p384(rootKey))
        let intermediate = try Certificate.make(
            serialNumber: serial(serials), issuer: rootName, subject: intermediateName, notBefore: now - 86_400,
            notAfter: now + lifetime, publicKey: Certificate.PublicKey(intermediateKey.publicKey),
            extensions: [
                try .basicConstraints(certificateAuthority: true, pathLength: 0), try .keyUsage(keyCertSign: true, cRLSign: true),
                try .subjectKeyIdentifier(Certificate.PublicKey(intermediateKey.publicKey)), try .authorityKeyIdentifier(Certificate.PublicKey(rootKey.publicKey)),
            ],
            signatureAlgorithm: .ecdsaWithSHA384, issuerKey: .p384(rootKey))
        return TestCertificateAuthority(root: root, intermediate: intermediate, intermediateKey: intermediateKey)
    }

    /// A credential certificate for `publicKey` carrying `nonce` in 1.2.840.113635.100.8.2
    /// (not critical), valid from five minutes before the wall-clock present for 90 days (never
    /// past the intermediate), signed by the intermediate with ECDSA SHA-256, as Apple's are.
    func credentialCertificate(for publicKey: P256.Signing.PublicKey, keyID: Data, nonce: Data, serials: RandomSource) throws -> Certificate {
        let now = Date()
        let subject = try Certificate.name(
            commonName: keyID.map { String(format: "%02x", $0) }.joined(), organizationalUnit: "AAA Certification",
            organization: "Touchstone")
        return try Certificate.make(
            serialNumber: Self.serial(serials), issuer: intermediate.subject, subject: subject, notBefore: now - 300,
            notAfter: min(now + 90 * 86_400, intermediate.notAfter), publicKey: Certificate.PublicKey(publicKey),
            extensions: [
                try .basicConstraints(certificateAuthority: false), try .keyUsage(digitalSignature: true),
                try .authorityKeyIdentifier(Certificate.PublicKey(intermediateKey.publicKey)),
                Certificate.Extension(oid: AppAttestDerivation.nonceExtensionOID, critical: false,
                                      value: AppAttestDerivation.nonceExtensionValue(nonce)),
            ],
            signatureAlgorithm: .ecdsaWithSHA256, issuerKey: .p384(intermediateKey))
    }

    /// A P-384 key derived from the device secret for `role`.
    private static func key(_ device: Device, _ role: String) throws -> P384.Signing.PrivateKey {
        // A 48-byte string is a valid scalar unless it is zero or not below the order (odds
        // about 2^-190); another counter value gives another string.
        for attempt in 0 ..< 8 {
            let bytes = try device.derivedKey(salt: "touchstone.appattest.ca.v1", info: Data("\(role).\(attempt)".utf8), byteCount: 48)
            if let key = try? P384.Signing.PrivateKey(rawRepresentation: bytes.withUnsafeBytes { Data($0) }) { return key }
        }
        throw AppAttestError(.unknownSystemFailure, "no P-384 key could be derived for the App Attest \(role)")
    }

    /// A positive 16-byte serial number.
    private static func serial(_ random: RandomSource) -> [UInt8] {
        var bytes = [UInt8](random.bytes(16))
        bytes[0] = bytes[0] & 0x7F | 0x01
        return bytes
    }
}
