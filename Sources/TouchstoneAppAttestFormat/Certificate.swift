import Crypto
import Foundation
import SwiftASN1

/// The X.509 v3 certificates App Attest uses (RFC 5280), written and read with swift-asn1:
/// ECDSA P-256 and P-384 keys, ecdsa-with-SHA256/384 signatures, names of UTF8String
/// attributes, and the extensions of an App Attest chain (basicConstraints, keyUsage, the
/// key identifiers, the nonce).
///
/// Why not swift-certificates: its `X509` module compiles Apple-only code under
/// `#if canImport(Security)`, and in this package that finds Touchstone's own `Security` module,
/// so it does not build beside it. This is the subset App Attest needs; the chain check
/// (``CertificateChain``) is RFC 5280's path validation for that subset, and the tests run an
/// independent verifier (pyattest, over pyca/cryptography and pyhanko) on the same bytes.
public struct Certificate: Sendable, Equatable {
    /// The certificate's DER bytes.
    public let derEncoded: Data
    /// The serial number's bytes.
    public let serialNumber: [UInt8]
    /// The issuer name's DER bytes.
    public let issuer: [UInt8]
    /// The subject name's DER bytes.
    public let subject: [UInt8]
    /// The start of the validity period.
    public let notBefore: Date
    /// The end of the validity period.
    public let notAfter: Date
    /// The subject's public key.
    public let publicKey: PublicKey
    /// The extensions, in order.
    public let extensions: [Extension]
    /// The signed part's DER bytes.
    let tbsBytes: [UInt8]
    /// The issuer's signature algorithm.
    let signatureAlgorithm: SignatureAlgorithm
    /// The issuer's DER ECDSA signature over ``tbsBytes``.
    let signature: [UInt8]

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derEncoded == rhs.derEncoded }

    /// A certificate's public key: an EC point on P-256 or P-384.
    public struct PublicKey: Sendable, Equatable {
        /// The curves read and written.
        public enum Curve: Sendable, Equatable {
            case p256, p384
        }

        /// The key's curve.
        public let curve: Curve
        /// The subjectPublicKey bits: the X9.63 uncompressed point.
        public let x963Representation: Data

        /// A P-256 key.
        public init(_ key: P256.Signing.PublicKey) {
            curve = .p256
            x963Representation = key.x963Representation
        }

        /// A P-384 key.
        public init(_ key: P384.Signing.PublicKey) {
            curve = .p384
            x963Representation = key.x963Representation
        }

        /// The key as swift-crypto's P-256 key, or nil for a P-384 key.
        public var p256: P256.Signing.PublicKey? {
            curve == .p256 ? try? P256.Signing.PublicKey(x963Representation: x963Representation) : nil
        }

        /// The SubjectPublicKeyInfo's DER bytes.
        public var derRepresentation: Data {
            switch curve {
            case .p256: (try? P256.Signing.PublicKey(x963Representation: x963Representation))?.derRepresentation ?? Data()
            case .p384: (try? P384.Signing.PublicKey(x963Representation: x963Representation))?.derRepresentation ?? Data()
            }
        }

        /// Whether `signature` (DER ECDSA) over `bytes` verifies under this key with `algorithm`.
        func isValidSignature(_ signature: [UInt8], for bytes: [UInt8], algorithm: SignatureAlgorithm) -> Bool {
            switch curve {
            case .p256:
                guard let key = try? P256.Signing.PublicKey(x963Representation: x963Representation),
                      let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
                return algorithm == .ecdsaWithSHA256
                    ? key.isValidSignature(parsed, for: SHA256.hash(data: bytes))
                    : key.isValidSignature(parsed, for: SHA384.hash(data: bytes))
            case .p384:
                guard let key = try? P384.Signing.PublicKey(x963Representation: x963Representation),
                      let parsed = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
                return algorithm == .ecdsaWithSHA256
                    ? key.isValidSignature(parsed, for: SHA256.hash(data: bytes))
                    : key.isValidSignature(parsed, for: SHA384.hash(data: bytes))
            }
        }
    }

    /// A private key that signs certificates.
    public enum SigningKey {
        case p256(P256.Signing.PrivateKey)
        case p384(P384.Signing.PrivateKey)

        /// Its public half.
        public var publicKey: PublicKey {
            switch self {
            case let .p256(key): PublicKey(key.publicKey)
            case let .p384(key): PublicKey(key.publicKey)
            }
        }

        func sign(_ bytes: [UInt8], algorithm: SignatureAlgorithm) throws -> [UInt8] {
            switch (self, algorithm) {
            case let (.p256(key), .ecdsaWithSHA256): [UInt8](try key.signature(for: SHA256.hash(data: bytes)).derRepresentation)
            case let (.p256(key), .ecdsaWithSHA384): [UInt8](try key.signature(for: SHA384.hash(data: bytes)).derRepresentation)
            case let (.p384(key), .ecdsaWithSHA256): [UInt8](try key.signature(for: SHA256.hash(data: bytes)).derRepresentation)
            case let (.p384(key), .ecdsaWithSHA384): [UInt8](try key.signature(for: SHA384.hash(data: bytes)).derRepresentation)
            }
        }
    }

    /// The signature algorithms App Attest chains use.
    public enum SignatureAlgorithm: Sendable, Equatable {
        /// ecdsa-with-SHA256 (1.2.840.10045.4.3.2).
        case ecdsaWithSHA256
        /// ecdsa-with-SHA384 (1.2.840.10045.4.3.3).
        case ecdsaWithSHA384

        var oid: ASN1ObjectIdentifier {
            switch self {
            case .ecdsaWithSHA256: [1, 2, 840, 10045, 4, 3, 2]
            case .ecdsaWithSHA384: [1, 2, 840, 10045, 4, 3, 3]
            }
        }

        init?(oid: ASN1ObjectIdentifier) {
            switch oid {
            case Self.ecdsaWithSHA256.oid: self = .ecdsaWithSHA256
            case Self.ecdsaWithSHA384.oid: self = .ecdsaWithSHA384
            default: return nil
            }
        }
    }

    /// One extension.
    public struct Extension: Sendable, Equatable {
        /// The OID's arcs.
        public var oid: [UInt]
        /// Whether a verifier that does not know it must refuse the certificate.
        public var critical: Bool
        /// The extnValue's contents (DER of the extension's own type).
        public var value: [UInt8]

        /// An extension.
        public init(oid: [UInt], critical: Bool, value: [UInt8]) {
            self.oid = oid
            self.critical = critical
            self.value = value
        }

        static let basicConstraintsOID: [UInt] = [2, 5, 29, 19]
        static let keyUsageOID: [UInt] = [2, 5, 29, 15]
        static let subjectKeyIdentifierOID: [UInt] = [2, 5, 29, 14]
        static let authorityKeyIdentifierOID: [UInt] = [2, 5, 29, 35]

        /// basicConstraints, critical: a CA (with an optional path length) or not.
        public static func basicConstraints(certificateAuthority: Bool, pathLength: Int? = nil) throws -> Extension {
            var coder = DER.Serializer()
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                if certificateAuthority {
                    try coder.serialize(true)
                    if let pathLength { try coder.serialize(pathLength) }
                }
            }
            return Extension(oid: basicConstraintsOID, critical: true, value: coder.serializedBytes)
        }

        /// keyUsage, critical, with the named bits (digitalSignature 0, keyCertSign 5, cRLSign 6).
        public static func keyUsage(digitalSignature: Bool = false, keyCertSign: Bool = false, cRLSign: Bool = false) throws -> Extension {
            var bits: UInt8 = 0
            if digitalSignature { bits |= 0x80 }
            if keyCertSign { bits |= 0x04 }
            if cRLSign { bits |= 0x02 }
            var coder = DER.Serializer()
            try coder.serialize(ASN1BitString(bytes: [bits][...], paddingBits: bits == 0 ? 0 : bits.trailingZeroBitCount))
            return Extension(oid: keyUsageOID, critical: true, value: coder.serializedBytes)
        }

        /// A basicConstraints value read (RFC 5280 §4.2.1.9): cA (false when absent) and the
        /// pathLenConstraint, when given. (Security's trust evaluation reads it too.)
        package static func readBasicConstraints(_ value: [UInt8]) throws -> (isCA: Bool, pathLength: Int?) {
            try DER.sequence(try DER.parse(value), identifier: .sequence) { nodes in
                var isCA = false
                var next = nodes.next()
                if let flag = next, flag.identifier == .boolean {
                    isCA = try Bool(derEncoded: flag)
                    next = nodes.next()
                }
                return (isCA, try next.map { try Int(derEncoded: $0) })
            }
        }

        /// A keyUsage value's bits (RFC 5280 §4.2.1.3): digitalSignature is 0x80 of the first
        /// byte, keyCertSign 0x04.
        package static func readKeyUsage(_ value: [UInt8]) throws -> [UInt8] {
            Array(try ASN1BitString(derEncoded: try DER.parse(value)).bytes)
        }

        /// subjectKeyIdentifier: SHA-1 of the subject's public key bits (RFC 5280 §4.2.1.2).
        public static func subjectKeyIdentifier(_ key: PublicKey) throws -> Extension {
            var coder = DER.Serializer()
            try coder.serialize(ASN1OctetString(contentBytes: Certificate.keyIdentifier(key)[...]))
            return Extension(oid: subjectKeyIdentifierOID, critical: false, value: coder.serializedBytes)
        }

        /// authorityKeyIdentifier: the issuer's key identifier.
        public static func authorityKeyIdentifier(_ issuerKey: PublicKey) throws -> Extension {
            var coder = DER.Serializer()
            coder.appendConstructedNode(identifier: .sequence) { coder in
                coder.appendPrimitiveNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { bytes in
                    bytes.append(contentsOf: Certificate.keyIdentifier(issuerKey))
                }
            }
            return Extension(oid: authorityKeyIdentifierOID, critical: false, value: coder.serializedBytes)
        }
    }

    /// A name of UTF8String attributes, each in its own RDN: organization (O), organizational
    /// unit (OU) and common name (CN), in that order, as DER.
    public static func name(commonName: String, organizationalUnit: String? = nil, organization: String? = nil) throws -> [UInt8] {
        var coder = DER.Serializer()
        let attributes: [([UInt], String)] = [
            organization.map { ([2, 5, 4, 10], $0) }, organizationalUnit.map { ([2, 5, 4, 11], $0) }, ([2, 5, 4, 3], commonName),
        ].compactMap { $0 }
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            for (oid, value) in attributes {
                try coder.appendConstructedNode(identifier: .set) { coder in
                    try coder.appendConstructedNode(identifier: .sequence) { coder in
                        try coder.serialize(ASN1ObjectIdentifier(elements: oid))
                        try coder.serialize(ASN1UTF8String(value))
                    }
                }
            }
        }
        return coder.serializedBytes
    }

    /// The value of the extension `oid`, or nil.
    public func extensionValue(_ oid: [UInt]) -> [UInt8]? {
        extensions.first { $0.oid == oid }?.value
    }

    /// Makes and signs a certificate.
    public static func make(
        serialNumber: [UInt8], issuer: [UInt8], subject: [UInt8], notBefore: Date, notAfter: Date,
        publicKey: PublicKey, extensions: [Extension], signatureAlgorithm: SignatureAlgorithm, issuerKey: SigningKey
    ) throws -> Certificate {
        var tbs = DER.Serializer()
        try tbs.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { coder in try coder.serialize(2) }
            try coder.serialize(serialNumber[...])
            try algorithmIdentifier(signatureAlgorithm, into: &coder)
            coder.serializeRawBytes(issuer)
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                try time(notBefore, into: &coder)
                try time(notAfter, into: &coder)
            }
            coder.serializeRawBytes(subject)
            coder.serializeRawBytes(publicKey.derRepresentation)
            if !extensions.isEmpty {
                try coder.serialize(explicitlyTaggedWithTagNumber: 3, tagClass: .contextSpecific) { coder in
                    try coder.appendConstructedNode(identifier: .sequence) { coder in
                        for item in extensions {
                            try coder.appendConstructedNode(identifier: .sequence) { coder in
                                try coder.serialize(ASN1ObjectIdentifier(elements: item.oid))
                                if item.critical { try coder.serialize(true) }
                                try coder.serialize(ASN1OctetString(contentBytes: item.value[...]))
                            }
                        }
                    }
                }
            }
        }
        let tbsBytes = tbs.serializedBytes
        let signature = try issuerKey.sign(tbsBytes, algorithm: signatureAlgorithm)
        var certificate = DER.Serializer()
        try certificate.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(tbsBytes)
            try algorithmIdentifier(signatureAlgorithm, into: &coder)
            try coder.serialize(ASN1BitString(bytes: signature[...]))
        }
        return try Certificate(derEncoded: Data(certificate.serializedBytes))
    }

    /// Reads a DER certificate.
    public init(derEncoded data: Data) throws(AppAttestFormatError) {
        do {
            let root = try DER.parse([UInt8](data))
            var parsed: (tbs: [UInt8], algorithm: SignatureAlgorithm, signature: [UInt8])?
            try DER.sequence(root, identifier: .sequence) { nodes in
                guard let tbs = nodes.next(), let algorithm = nodes.next(), let signature = nodes.next(), nodes.next() == nil else {
                    throw AppAttestFormatError("a certificate is a SEQUENCE of three parts")
                }
                let bits = try ASN1BitString(derEncoded: signature)
                guard bits.paddingBits == 0 else { throw AppAttestFormatError("the signature has padding bits") }
                parsed = ([UInt8](tbs.encodedBytes), try Self.algorithm(algorithm), [UInt8](bits.bytes))
            }
            guard let parsed else { throw AppAttestFormatError("a certificate is a SEQUENCE of three parts") }
            var fields: (serial: [UInt8], issuer: [UInt8], subject: [UInt8], notBefore: Date, notAfter: Date, key: PublicKey, extensions: [Extension])?
            try DER.sequence(try DER.parse(parsed.tbs), identifier: .sequence) { nodes in
                let version = try DER.optionalExplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) { try Int(derEncoded: $0) }
                guard version == 2 else { throw AppAttestFormatError("only version 3 certificates are read") }
                guard let serial = nodes.next(), let algorithm = nodes.next(), let issuer = nodes.next(), let validity = nodes.next(),
                      let subject = nodes.next(), let key = nodes.next()
                else { throw AppAttestFormatError("the signed part of a certificate lacks a field") }
                guard try Self.algorithm(algorithm) == parsed.algorithm else {
                    throw AppAttestFormatError("the inner and outer signature algorithms differ")
                }
                let serialBytes = try ArraySlice<UInt8>(derEncoded: serial)
                let dates = try DER.sequence(validity, identifier: .sequence) { nodes in
                    guard let start = nodes.next(), let end = nodes.next(), nodes.next() == nil else {
                        throw AppAttestFormatError("validity is two times")
                    }
                    return (try Self.validityDate(start), try Self.validityDate(end))
                }
                let publicKey = try Self.publicKey([UInt8](key.encodedBytes))
                var extensions: [Extension] = []
                while let node = nodes.next() {
                    guard node.identifier == ASN1Identifier(tagWithNumber: 3, tagClass: .contextSpecific) else { continue }
                    extensions = try DER.explicitlyTagged(node, tagNumber: 3, tagClass: .contextSpecific) { node in
                        try DER.sequence(of: ExtensionNode.self, identifier: .sequence, rootNode: node).map(\.value)
                    }
                }
                fields = ([UInt8](serialBytes), [UInt8](issuer.encodedBytes), [UInt8](subject.encodedBytes), dates.0, dates.1, publicKey, extensions)
            }
            guard let fields else { throw AppAttestFormatError("the signed part of a certificate is empty") }
            derEncoded = data
            serialNumber = fields.serial
            issuer = fields.issuer
            subject = fields.subject
            notBefore = fields.notBefore
            notAfter = fields.notAfter
            publicKey = fields.key
            extensions = fields.extensions
            tbsBytes = parsed.tbs
            signatureAlgorithm = parsed.algorithm
            signature = parsed.signature
        } catch let error as AppAttestFormatError {
            throw error
        } catch {
            throw AppAttestFormatError("not a DER certificate App Attest uses: \(error)")
        }
    }

    /// The certificate in PEM (`-----BEGIN CERTIFICATE-----`).
    public var pem: String {
        PEMDocument(type: "CERTIFICATE", derBytes: [UInt8](derEncoded)).pemString + "\n"
    }

    /// The certificates in PEM text, in order.
    public static func certificates(pem text: String) throws(AppAttestFormatError) -> [Certificate] {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: text)
        } catch {
            throw AppAttestFormatError("not PEM text: \(error)")
        }
        var certificates: [Certificate] = []
        for document in documents where document.discriminator == "CERTIFICATE" {
            certificates.append(try Certificate(derEncoded: Data(document.derBytes)))
        }
        guard !certificates.isEmpty else { throw AppAttestFormatError("the PEM text holds no CERTIFICATE") }
        return certificates
    }

    // MARK: Parts

    /// RFC 5280's key identifier: SHA-1 of the subjectPublicKey bits.
    static func keyIdentifier(_ key: PublicKey) -> [UInt8] {
        [UInt8](Insecure.SHA1.hash(data: key.x963Representation))
    }

    private struct ExtensionNode: DERParseable {
        let value: Extension
        init(derEncoded node: ASN1Node) throws {
            value = try DER.sequence(node, identifier: .sequence) { nodes in
                guard let oidNode = nodes.next() else { throw AppAttestFormatError("an extension lacks its OID") }
                let oid = try ASN1ObjectIdentifier(derEncoded: oidNode)
                var next = nodes.next()
                var critical = false
                if let node = next, node.identifier == .boolean {
                    critical = try Bool(derEncoded: node)
                    next = nodes.next()
                }
                guard let valueNode = next, nodes.next() == nil else { throw AppAttestFormatError("an extension lacks its value") }
                return Extension(oid: Array(oid.oidComponents), critical: critical,
                                 value: [UInt8](try ASN1OctetString(derEncoded: valueNode).bytes))
            }
        }
    }

    private static func algorithmIdentifier(_ algorithm: SignatureAlgorithm, into coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in try coder.serialize(algorithm.oid) }
    }

    private static func algorithm(_ node: ASN1Node) throws -> SignatureAlgorithm {
        try DER.sequence(node, identifier: .sequence) { nodes in
            guard let oidNode = nodes.next() else { throw AppAttestFormatError("an algorithm identifier lacks its OID") }
            let oid = try ASN1ObjectIdentifier(derEncoded: oidNode)
            _ = nodes.next()   // ECDSA's parameters are absent; tolerate a NULL
            guard let algorithm = SignatureAlgorithm(oid: oid) else {
                throw AppAttestFormatError("the signature algorithm \(oid) is not ecdsa-with-SHA256 or ecdsa-with-SHA384")
            }
            return algorithm
        }
    }

    private static func publicKey(_ spki: [UInt8]) throws -> PublicKey {
        if let key = try? P256.Signing.PublicKey(derRepresentation: spki) { return PublicKey(key) }
        if let key = try? P384.Signing.PublicKey(derRepresentation: spki) { return PublicKey(key) }
        throw AppAttestFormatError("the subject public key is not an EC P-256 or P-384 key")
    }

    private static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar
    }()

    /// UTCTime through 2049, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5), whole seconds.
    private static func time(_ date: Date, into coder: inout DER.Serializer) throws {
        let parts = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let (year, month, day) = (parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
        let (hour, minute, second) = (parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        if (1950 ..< 2050).contains(year) {
            try coder.serialize(UTCTime(year: year, month: month, day: day, hours: hour, minutes: minute, seconds: second))
        } else {
            try coder.serialize(GeneralizedTime(year: year, month: month, day: day, hours: hour, minutes: minute, seconds: second, fractionalSeconds: 0))
        }
    }

    /// The date of an X.509 validity time (UTCTime or GeneralizedTime), whole seconds; the
    /// `Security` module's certificates read theirs with it too.
    package static func validityDate(_ node: ASN1Node) throws -> Date {
        let parts: DateComponents
        if node.identifier == .utcTime {
            let time = try UTCTime(derEncoded: node)
            parts = DateComponents(year: time.year, month: time.month, day: time.day, hour: time.hours, minute: time.minutes, second: time.seconds)
        } else {
            let time = try GeneralizedTime(derEncoded: node)
            parts = DateComponents(year: time.year, month: time.month, day: time.day, hour: time.hours, minute: time.minutes, second: time.seconds)
        }
        guard let date = utc.date(from: parts) else { throw AppAttestFormatError("a validity time is not a date") }
        return date
    }
}
