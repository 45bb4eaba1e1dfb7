#if !canImport(Darwin)
import Foundation
import SwiftASN1
import TouchstoneAppAttestFormat

/// The extensions of a certificate that a trust evaluation (``SecTrust``) reads, as RFC 5280
/// §4.2.1 defines them: basicConstraints, keyUsage, extKeyUsage, the subjectAltName's IP
/// addresses, and which extensions are critical.
struct TrustExtensions: Sendable {
    /// basicConstraints' cA flag; false when the extension is absent.
    var isCA = false
    /// basicConstraints' pathLenConstraint, when given.
    var pathLength: Int?
    /// Whether the certificate has a basicConstraints extension at all.
    var hasBasicConstraints = false
    /// keyUsage's bits, the first named bit (digitalSignature) as 0x80 of the first byte; nil
    /// when the extension is absent.
    var keyUsage: [UInt8]?
    /// extKeyUsage's purposes, dotted OIDs; nil when the extension is absent.
    var extendedKeyUsage: [String]?
    /// The subjectAltName's iPAddress entries: 4 bytes (IPv4) or 16 (IPv6), read with its
    /// other names (`X509Certificate.alternativeNames`).
    var ipAddresses: [Data] = []
    /// The OIDs of the critical extensions.
    var critical: [String] = []

    static let basicConstraints = "2.5.29.19"
    static let keyUsageOID = "2.5.29.15"
    static let extendedKeyUsageOID = "2.5.29.37"
    static let subjectAltName = "2.5.29.17"
    static let subjectKeyIdentifier = "2.5.29.14"
    static let authorityKeyIdentifier = "2.5.29.35"
    /// id-kp-serverAuth and id-kp-clientAuth (RFC 5280 §4.2.1.12), anyExtendedKeyUsage.
    static let serverAuth = "1.3.6.1.5.5.7.3.1"
    static let clientAuth = "1.3.6.1.5.5.7.3.2"
    static let anyExtendedKeyUsage = "2.5.29.37.0"
    /// Server Gated Cryptography (Netscape's and Microsoft's), which the SSL policy takes for
    /// server authentication.
    static let netscapeSGC = "2.16.840.1.113730.4.1"
    static let microsoftSGC = "1.3.6.1.4.1.311.10.3.3"
    /// The extensions an evaluation understands: a critical extension outside these fails it
    /// (RFC 5280 §4.2). Those Apple parses but no check here reads (certificate policies and
    /// their mappings and constraints, inhibitAnyPolicy, issuerAltName, CRL distribution points,
    /// authority information access) are taken as read; name constraints are not (our limit:
    /// a critical nameConstraints extension, as on any name-constrained CA, fails the chain).
    static let understood: Set<String> = [
        basicConstraints, keyUsageOID, extendedKeyUsageOID, subjectAltName, subjectKeyIdentifier, authorityKeyIdentifier,
        "2.5.29.32", "2.5.29.33", "2.5.29.36", "2.5.29.54", "2.5.29.18", "2.5.29.31", "1.3.6.1.5.5.7.1.1",
    ]

    /// Reads extension `oid` (with `value`, the extnValue's content) when it is one of these.
    mutating func read(_ oid: String, critical isCritical: Bool, value: [UInt8]) throws {
        if isCritical { critical.append(oid) }
        switch oid {
        case Self.basicConstraints:
            hasBasicConstraints = true
            (isCA, pathLength) = try Certificate.Extension.readBasicConstraints(value)
        case Self.keyUsageOID:
            keyUsage = try Certificate.Extension.readKeyUsage(value)
        case Self.extendedKeyUsageOID:
            extendedKeyUsage = try DER.sequence(of: ASN1ObjectIdentifier.self, identifier: .sequence, rootNode: DER.parse(value))
                .map(\.description)
        default:
            break
        }
    }

    /// Whether keyUsage allows `bit` (0: digitalSignature, 2: keyEncipherment, 5: keyCertSign),
    /// true when the extension is absent.
    func allows(keyUsageBit bit: Int) -> Bool {
        guard let keyUsage else { return true }
        let byte = bit / 8
        return byte < keyUsage.count && keyUsage[byte] & (0x80 >> UInt8(bit % 8)) != 0
    }
}
#endif
