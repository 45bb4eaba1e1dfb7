#if !canImport(Darwin)
import Crypto
import Foundation
import SwiftASN1
import TouchstoneAppAttestFormat

/// What `SecCertificate` reads of a DER X.509 certificate (RFC 5280), over swift-asn1: its
/// names, serial number, validity, public key and the extensions the keychain derives
/// attributes from. Any key type and signature algorithm is read; the signature is not
/// checked (as `SecCertificateCreateWithData` does not: trust is `SecTrust`'s job).
struct X509Certificate: Sendable {
    /// One attribute of a name (`CN=…`): its OID in dotted form and its text.
    struct NameAttribute: Sendable, Equatable {
        let oid: String
        let value: String
    }

    /// The whole certificate.
    let der: Data
    /// The version field: 0 for v1 (absent), 1 for v2, 2 for v3.
    let version: Int
    /// The serial number's INTEGER content bytes.
    let serialNumber: Data
    /// The issuer's and subject's `Name`, DER (the SEQUENCE with its header).
    let issuer: Data
    let subject: Data
    /// The two names as iOS normalizes them (``normalizedName(_:)``, the whole SEQUENCE), once;
    /// nil for a name that cannot be normalized.
    let normalizedIssuer: Data?
    let normalizedSubject: Data?
    /// The issuer's and subject's attributes, in order.
    let issuerAttributes: [NameAttribute]
    let subjectAttributes: [NameAttribute]
    let notBefore: Date
    let notAfter: Date
    /// The `SubjectPublicKeyInfo`, DER.
    let subjectPublicKeyInfo: Data
    /// The key's algorithm OID and, for EC keys, its curve's OID.
    let keyAlgorithm: String
    let keyParameters: String?
    /// The `subjectPublicKey` bits: PKCS#1 `RSAPublicKey` for RSA, the X9.63 point for EC.
    let subjectPublicKey: Data
    /// The subjectKeyIdentifier extension's value, when present.
    let subjectKeyIdentifier: Data?
    /// The subjectAltName extension's rfc822Name and dNSName entries.
    let alternativeEmails: [String]
    let alternativeDNSNames: [String]
    /// What a trust evaluation reads (``TrustExtensions``) and the signature it checks.
    let trust: TrustExtensions
    /// The signed part (`tbsCertificate`), DER, its issuer's signature algorithm OID and the
    /// signature's bits.
    let signedBytes: Data
    let signatureAlgorithm: String
    let signature: Data

    static let commonName = "2.5.4.3"
    static let emailAddress = "1.2.840.113549.1.9.1"
    static let organization = "2.5.4.10"
    static let organizationalUnit = "2.5.4.11"
    static let descriptionAttribute = "2.5.4.13"
    static let rsaEncryption = "1.2.840.113549.1.1.1"
    static let ecPublicKey = "1.2.840.10045.2.1"

    /// Why a certificate could not be read.
    struct Invalid: Error {
        let reason: String
    }

    /// Reads the certificate `bytes` start with; bytes after it are ignored, as iOS ignores them.
    init(der bytes: Data) throws {
        var parser = [UInt8](bytes)
        guard let length = Self.firstElementLength(parser) else { throw Invalid(reason: "not a DER SEQUENCE") }
        parser.removeLast(parser.count - length)
        let der = Data(parser)
        let root = try DER.parse(parser)
        let (tbs, signatureAlgorithm, signature) = try DER.sequence(root, identifier: .sequence) { nodes in
            guard let tbs = nodes.next(), let algorithm = nodes.next(), let signature = nodes.next(), nodes.next() == nil else {
                throw Invalid(reason: "a certificate is a SEQUENCE of three parts")
            }
            let oid = try DER.sequence(algorithm, identifier: .sequence) { fields in
                guard let oid = fields.next() else { throw Invalid(reason: "the signature algorithm lacks its OID") }
                while fields.next() != nil {}  // its parameters (RSA's NULL) are not read
                return try ASN1ObjectIdentifier(derEncoded: oid).description
            }
            return (tbs, oid, Data(try ASN1BitString(derEncoded: signature).bytes))
        }
        self = try DER.sequence(tbs, identifier: .sequence) { nodes in
            // As Apple's SecCertificateParse: an explicit version is 1 (v2) or 2 (v3).
            let explicit = try DER.optionalExplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { try Int(derEncoded: $0) }
            if let explicit, !(1...2).contains(explicit) { throw Invalid(reason: "an explicit version is 1 (v2) or 2 (v3)") }
            let version = explicit ?? 0
            guard let serial = nodes.next(), nodes.next() != nil, let issuer = nodes.next(), let validity = nodes.next(),
                  let subject = nodes.next(), let key = nodes.next() else { throw Invalid(reason: "the signed part lacks a field") }
            // The serial number's content bytes as they are (a leading zero kept, a negative
            // number allowed), 1 to 37 of them, as Apple reads it.
            guard serial.identifier == .integer, case let .primitive(serialBytes) = serial.content, (1...37).contains(serialBytes.count) else {
                throw Invalid(reason: "the serial number is not an INTEGER of 1 to 37 bytes")
            }
            let dates = try DER.sequence(validity, identifier: .sequence) { nodes in
                guard let start = nodes.next(), let end = nodes.next() else { throw Invalid(reason: "validity is two times") }
                return (try Certificate.validityDate(start), try Certificate.validityDate(end))
            }
            let (algorithm, parameters, bits) = try Self.publicKey(key)
            var keyIdentifier: Data?
            var emails: [String] = []
            var dnsNames: [String] = []
            var trust = TrustExtensions()
            // issuerUniqueID [1] and subjectUniqueID [2] may come first; extensions are [3].
            while let node = nodes.next() {
                guard node.identifier == ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific) else { continue }
                try DER.explicitlyTagged(node, tagNumber: 3, tagClass: .contextSpecific) { extensions in
                    try DER.sequence(extensions, identifier: .sequence) { list in
                        var count = 0
                        while let item = list.next() {
                            count += 1
                            let (oid, critical, value) = try Self.extensionValue(item)
                            // As Apple's: a known extension that does not read fails the
                            // certificate only when it is critical; otherwise it is left out.
                            do {
                                if oid == TrustExtensions.subjectKeyIdentifier { keyIdentifier = Data(try ASN1OctetString(derEncoded: try DER.parse(value)).bytes) }
                                if oid == TrustExtensions.subjectAltName { (emails, dnsNames, trust.ipAddresses) = try Self.alternativeNames(value) }
                                try trust.read(oid, critical: critical, value: value)
                            } catch where !critical {
                                continue
                            }
                        }
                        guard count > 0 else { throw Invalid(reason: "the extensions list is empty") }
                    }
                }
            }
            return X509Certificate(
                der: der, version: version, serialNumber: Data(serialBytes),
                issuer: Data(issuer.encodedBytes), subject: Data(subject.encodedBytes),
                issuerAttributes: try Self.attributes(issuer), subjectAttributes: try Self.attributes(subject), notBefore: dates.0, notAfter: dates.1,
                subjectPublicKeyInfo: Data(key.encodedBytes), keyAlgorithm: algorithm, keyParameters: parameters,
                subjectPublicKey: bits, subjectKeyIdentifier: keyIdentifier, alternativeEmails: emails,
                alternativeDNSNames: dnsNames, trust: trust, signedBytes: Data(tbs.encodedBytes),
                signatureAlgorithm: signatureAlgorithm, signature: signature)
        }
    }

    private init(der: Data, version: Int, serialNumber: Data, issuer: Data, subject: Data, issuerAttributes: [NameAttribute], subjectAttributes: [NameAttribute],
                 notBefore: Date, notAfter: Date, subjectPublicKeyInfo: Data, keyAlgorithm: String, keyParameters: String?,
                 subjectPublicKey: Data, subjectKeyIdentifier: Data?, alternativeEmails: [String], alternativeDNSNames: [String],
                 trust: TrustExtensions, signedBytes: Data, signatureAlgorithm: String, signature: Data) {
        self.der = der
        self.version = version
        self.serialNumber = serialNumber
        self.issuer = issuer
        self.subject = subject
        normalizedIssuer = try? Self.normalizedName(issuer)
        normalizedSubject = try? Self.normalizedName(subject)
        self.issuerAttributes = issuerAttributes
        self.subjectAttributes = subjectAttributes
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.subjectPublicKeyInfo = subjectPublicKeyInfo
        self.keyAlgorithm = keyAlgorithm
        self.keyParameters = keyParameters
        self.subjectPublicKey = subjectPublicKey
        self.subjectKeyIdentifier = subjectKeyIdentifier
        self.alternativeEmails = alternativeEmails
        self.alternativeDNSNames = alternativeDNSNames
        self.trust = trust
        self.signedBytes = signedBytes
        self.signatureAlgorithm = signatureAlgorithm
        self.signature = signature
    }

    /// The names a chain is built by: normalized, or as they are when they cannot be.
    var chainIssuer: Data { normalizedIssuer ?? issuer }
    var chainSubject: Data { normalizedSubject ?? subject }

    /// The sizes of the named curves of EC keys (P-256, P-384, P-521).
    static let curveBits = ["1.2.840.10045.3.1.7": 256, "1.3.132.0.34": 384, "1.3.132.0.35": 521]

    /// The key's size in bits and whether it is RSA, read from the certificate itself (so a
    /// key too small for `SecKey` to take is still measured): an RSA modulus's bit length, a
    /// named curve's size (another curve's from its point's length); nil for another kind of key.
    var keySize: (size: Int, rsa: Bool)? {
        switch keyAlgorithm {
        case Self.rsaEncryption: RSAKey.modulusBits(subjectPublicKey, isPrivate: false).map { ($0, true) }
        case Self.ecPublicKey: (keyParameters.flatMap { Self.curveBits[$0] } ?? (subjectPublicKey.count - 1) / 2 * 8, false)
        default: nil
        }
    }

    /// `name` (a DER `Name`) as Apple's `SecCertificate.c` normalizes it for the keychain and
    /// `SecCertificateCopyNormalized…Sequence`: in each PrintableString value, a–z upper-cased,
    /// runs of spaces and tabs made one space, leading and trailing ones removed; every other
    /// value, and the order of the parts, byte for byte. The whole SEQUENCE, header included.
    static func normalizedName(_ name: Data) throws -> Data {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { rdns in
            try DER.sequence(try DER.parse([UInt8](name)), identifier: .sequence) { nodes in
                while let rdn = nodes.next() {
                    guard case let .constructed(set) = rdn.content, rdn.identifier == .set else {
                        throw Invalid(reason: "a name's part is not a SET")
                    }
                    try rdns.appendConstructedNode(identifier: .set) { members in
                        for attribute in set {
                            try members.appendConstructedNode(identifier: .sequence) { pair in
                                try DER.sequence(attribute, identifier: .sequence) { parts in
                                    guard let type = parts.next(), let value = parts.next() else { throw Invalid(reason: "a name attribute lacks a part") }
                                    pair.serializeRawBytes(type.encodedBytes)
                                    if value.identifier == .printableString, case let .primitive(bytes) = value.content {
                                        pair.appendPrimitiveNode(identifier: .printableString) { $0.append(contentsOf: normalized(bytes)) }
                                    } else {
                                        pair.serializeRawBytes(value.encodedBytes)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return Data(serializer.serializedBytes)
    }

    /// A PrintableString's bytes normalized (``normalizedName(_:)``).
    private static func normalized(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        var pendingSpace = false
        for byte in bytes {
            if byte == 0x20 || byte == 0x09 {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(0x20) }
            pendingSpace = false
            out.append((0x61...0x7A).contains(byte) ? byte - 0x20 : byte)
        }
        return out
    }

    /// The content of a DER element (its bytes after the tag and length).
    static func content(_ element: Data) -> Data {
        guard let node = try? DER.parse([UInt8](element)), case let .constructed(nodes) = node.content else { return Data() }
        return Data(nodes.flatMap(\.encodedBytes))
    }

    /// The subject's values of one attribute type, in order.
    func subjectValues(_ oid: String) -> [String] {
        subjectAttributes.filter { $0.oid == oid }.map(\.value)
    }

    /// The e-mail addresses as iOS lists them: the subjectAltName's rfc822Name entries, then
    /// the subject's emailAddress attributes (duplicates kept).
    var emailAddresses: [String] { alternativeEmails + subjectValues(Self.emailAddress) }

    /// The length of the DER element `bytes` start with (header and content), when it is a
    /// SEQUENCE whose length fits in them.
    private static func firstElementLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2, bytes[0] == 0x30 else { return nil }
        let first = Int(bytes[1])
        if first < 0x80 { return 2 + first <= bytes.count ? 2 + first : nil }
        let lengthBytes = first & 0x7F
        guard (1...4).contains(lengthBytes), bytes.count >= 2 + lengthBytes else { return nil }
        let length = bytes[2 ..< 2 + lengthBytes].reduce(0) { $0 << 8 | Int($1) }
        guard length >= 0, length <= bytes.count - 2 - lengthBytes else { return nil }
        return 2 + lengthBytes + length
    }

    // MARK: Parts

    /// A `Name`'s attributes in order (every RDN of the SEQUENCE, every attribute of a SET).
    private static func attributes(_ name: ASN1Node) throws -> [NameAttribute] {
        var found: [NameAttribute] = []
        try DER.sequence(name, identifier: .sequence) { rdns in
            while let rdn = rdns.next() {
                guard case let .constructed(set) = rdn.content, rdn.identifier == .set else {
                    throw Invalid(reason: "a name's part is not a SET")
                }
                for attribute in set {
                    try DER.sequence(attribute, identifier: .sequence) { parts in
                        guard let type = parts.next(), let value = parts.next() else { throw Invalid(reason: "a name attribute lacks a part") }
                        found.append(NameAttribute(oid: try ASN1ObjectIdentifier(derEncoded: type).description, value: text(value)))
                    }
                }
            }
        }
        return found
    }

    /// A directory string's text (UTF8String, PrintableString, IA5String, TeletexString read
    /// as Latin-1, BMPString as UTF-16).
    private static func text(_ node: ASN1Node) -> String {
        guard case let .primitive(bytes) = node.content else { return "" }
        switch node.identifier {
        case .bmpString: return String(decoding: stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map {
            UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
        }, as: UTF16.self)
        case .teletexString: return String(bytes.map { Character(Unicode.Scalar($0)) })
        default: return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The key's algorithm OID, its parameters' OID (an EC curve) and its bits.
    private static func publicKey(_ node: ASN1Node) throws -> (String, String?, Data) {
        try DER.sequence(node, identifier: .sequence) { parts in
            guard let algorithm = parts.next(), let bits = parts.next() else { throw Invalid(reason: "the public key lacks a part") }
            let (oid, parameters) = try DER.sequence(algorithm, identifier: .sequence) { fields in
                guard let oid = fields.next() else { throw Invalid(reason: "the key algorithm lacks its OID") }
                let parameters = fields.next().flatMap { try? ASN1ObjectIdentifier(derEncoded: $0).description }
                return (try ASN1ObjectIdentifier(derEncoded: oid).description, parameters)
            }
            return (oid, parameters, Data(try ASN1BitString(derEncoded: bits).bytes))
        }
    }

    /// An extension's OID, whether it is critical, and its value's bytes.
    private static func extensionValue(_ node: ASN1Node) throws -> (String, Bool, [UInt8]) {
        try DER.sequence(node, identifier: .sequence) { parts in
            guard let oid = parts.next() else { throw Invalid(reason: "an extension lacks its OID") }
            var value = parts.next()
            var critical = false
            if let flag = value, flag.identifier == .boolean {
                critical = try Bool(derEncoded: flag)
                value = parts.next()
            }
            guard let value else { throw Invalid(reason: "an extension lacks its value") }
            return (try ASN1ObjectIdentifier(derEncoded: oid).description, critical, [UInt8](try ASN1OctetString(derEncoded: value).bytes))
        }
    }

    /// The rfc822Name ([1]), dNSName ([2]) and iPAddress ([7]) entries of a subjectAltName value.
    private static func alternativeNames(_ value: [UInt8]) throws -> ([String], [String], [Data]) {
        try DER.sequence(try DER.parse(value), identifier: .sequence) { names in
            var (emails, dnsNames, addresses): ([String], [String], [Data]) = ([], [], [])
            while let name = names.next() {
                guard case let .primitive(bytes) = name.content, name.identifier.tagClass == .contextSpecific else { continue }
                switch name.identifier.tagNumber {
                case 1: emails.append(String(decoding: bytes, as: UTF8.self))
                case 2: dnsNames.append(String(decoding: bytes, as: UTF8.self))
                case 7: addresses.append(Data(bytes))
                default: break
                }
            }
            return (emails, dnsNames, addresses)
        }
    }
}
#endif
