import Crypto
import Foundation

/// The App Attest environment an attestation was made for: it picks the aaguid (REFERENCE §12).
public enum AppAttestEnvironment: String, Sendable, Codable, CaseIterable {
    /// aaguid `appattestdevelop`.
    case development
    /// aaguid `appattest` followed by seven zero bytes.
    case production

    /// The 16-byte aaguid of attestations in this environment.
    public var aaguid: Data {
        switch self {
        case .development: Data("appattestdevelop".utf8)
        case .production: Data("appattest".utf8) + Data(repeating: 0, count: 7)
        }
    }

    /// The environment whose aaguid is `aaguid`, or nil.
    public init?(aaguid: Data) {
        guard let environment = Self.allCases.first(where: { $0.aaguid == aaguid }) else { return nil }
        self = environment
    }
}

/// Why bytes are not in one of App Attest's formats.
public struct AppAttestFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// The values App Attest derives, as Apple's documentation defines them (REFERENCE §12).
public enum AppAttestDerivation {
    /// The OID of the credential certificate's nonce extension: 1.2.840.113635.100.8.2.
    public static let nonceExtensionOID: [UInt] = [1, 2, 840, 113_635, 100, 8, 2]

    /// The key id: SHA-256 of the public key in X9.63 uncompressed form (65 bytes).
    public static func keyID(of publicKey: P256.Signing.PublicKey) -> Data {
        Data(SHA256.hash(data: publicKey.x963Representation))
    }

    /// The rpIdHash: SHA-256 of the App ID (`<team id>.<bundle id>`).
    public static func rpIDHash(appID: String) -> Data {
        Data(SHA256.hash(data: Data(appID.utf8)))
    }

    /// The nonce: SHA-256 of the authenticator data followed by the client data hash.
    public static func nonce(authenticatorData: Data, clientDataHash: Data) -> Data {
        Data(SHA256.hash(data: authenticatorData + clientDataHash))
    }

    /// The nonce extension's value: a DER SEQUENCE holding one `[1]`-tagged OCTET STRING
    /// with the 32-byte nonce (`30 24 A1 22 04 20` then the nonce).
    public static func nonceExtensionValue(_ nonce: Data) -> [UInt8] {
        [0x30, 0x24, 0xA1, 0x22, 0x04, 0x20] + [UInt8](nonce)
    }
}

/// Authenticator data in WebAuthn's layout (WebAuthn §6.1), as App Attest writes it: rpIdHash
/// (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ in an attestation, the attested credential
/// data: aaguid (16) ‖ credentialId length (2) ‖ credentialId ‖ COSE_Key. Devices set the AT flag
/// in assertions too, which carry no credential data (recorded iOS 14 assertions: flags 0x40,
/// 37 bytes), and newer ones may append a CBOR map of extensions after either without setting
/// the ED flag (Apple's 2026 sample attestation in "Attestation Object Validation Guide"); the
/// reader takes both, so the layout is given, not read from the flags.
public struct AuthenticatorData: Sendable, Equatable {
    /// The flag "attested credential data included" (AT, bit 6).
    public static let attestedCredentialDataFlag: UInt8 = 0x40

    /// Which object the bytes come from, which decides what follows the counter.
    public enum Layout: Sendable {
        /// An attestation's: the attested credential data, then maybe an extension map.
        case attestation
        /// An assertion's: maybe an extension map, whatever the AT flag says.
        case assertion
    }

    /// SHA-256 of the App ID.
    public var rpIDHash: Data
    /// The flags byte.
    public var flags: UInt8
    /// The signature counter: 0 in an attestation, then one more with every assertion.
    public var counter: UInt32
    /// The attested credential data (attestations only).
    public var credential: AttestedCredential?
    /// The CBOR map a device may append after the rest (`apple_bundle_version_01`...), kept as
    /// read; nil when there is none. Touchstone's devices write none.
    public var extensions: CBOR?

    /// The credential an attestation introduces.
    public struct AttestedCredential: Sendable, Equatable {
        /// The environment's aaguid (16 bytes).
        public var aaguid: Data
        /// The credential id: the key id's 32 bytes.
        public var credentialID: Data
        /// The public key (X9.63, 65 bytes), from its COSE_Key (EC2, ES256, P-256).
        public var publicKey: Data

        /// A credential.
        public init(aaguid: Data, credentialID: Data, publicKey: P256.Signing.PublicKey) {
            self.aaguid = aaguid
            self.credentialID = credentialID
            self.publicKey = publicKey.x963Representation
        }
    }

    /// Authenticator data with these fields.
    public init(rpIDHash: Data, flags: UInt8, counter: UInt32, credential: AttestedCredential? = nil) {
        self.rpIDHash = rpIDHash
        self.flags = flags
        self.counter = counter
        self.credential = credential
    }

    /// The bytes.
    public var encoded: Data {
        var data = rpIDHash
        data.append(flags)
        withUnsafeBytes(of: counter.bigEndian) { data.append(contentsOf: $0) }
        if let credential {
            data.append(credential.aaguid)
            withUnsafeBytes(of: UInt16(truncatingIfNeeded: credential.credentialID.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(credential.credentialID)
            data.append(Self.coseKey(x963: credential.publicKey).encoded)
        }
        if let extensions { data.append(extensions.encoded) }
        return data
    }

    /// Reads the authenticator data of an attestation or an assertion (see ``Layout``): after
    /// the counter, an attestation's attested credential data, then in either a CBOR map of
    /// extensions if anything follows.
    public init(parsing data: Data, as layout: Layout) throws(AppAttestFormatError) {
        let bytes = [UInt8](data)
        guard bytes.count >= 37 else {
            throw AppAttestFormatError("authenticator data is at least 37 bytes, not \(bytes.count)")
        }
        rpIDHash = Data(bytes[0 ..< 32])
        flags = bytes[32]
        counter = bytes[33 ..< 37].reduce(0) { $0 << 8 | UInt32($1) }
        var rest = 37
        switch layout {
        case .assertion:
            credential = nil
        case .attestation:
            guard bytes.count >= 55 else { throw AppAttestFormatError("the attested credential data is cut short") }
            let aaguid = Data(bytes[37 ..< 53])
            let idLength = Int(bytes[53]) << 8 | Int(bytes[54])
            guard bytes.count - 55 >= idLength else { throw AppAttestFormatError("the credential id runs past the end") }
            let credentialID = Data(bytes[55 ..< 55 + idLength])
            let key: (value: CBOR, length: Int)
            do {
                key = try CBOR.decodingPrefix(of: Data(bytes[(55 + idLength)...]))
            } catch {
                throw AppAttestFormatError("the credential public key is not a CBOR value: \(error)")
            }
            credential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: try Self.publicKey(fromCOSE: key.value))
            rest = 55 + idLength + key.length
        }
        guard rest < bytes.count else {
            extensions = nil
            return
        }
        do {
            extensions = try CBOR(decoding: Data(bytes[rest...]))
        } catch {
            throw AppAttestFormatError("the \(bytes.count - rest) bytes after the \(layout == .attestation ? "credential public key" : "counter") are not one CBOR value: \(error)")
        }
        guard case .map = extensions else {
            throw AppAttestFormatError("the bytes after the \(layout == .attestation ? "credential public key" : "counter") are not a CBOR map of extensions")
        }
    }

    /// A P-256 public key as a COSE_Key: kty 2 (EC2), alg -7 (ES256), crv 1 (P-256), x, y.
    public static func coseKey(_ key: P256.Signing.PublicKey) -> CBOR {
        coseKey(x963: key.x963Representation)
    }

    private static func coseKey(x963 point: Data) -> CBOR {
        .map([
            (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
            (.int(-2), .bytes(point.dropFirst().prefix(32))), (.int(-3), .bytes(point.suffix(32))),
        ])
    }

    /// The P-256 key of a COSE_Key; fails unless it is EC2, ES256, P-256 with a point on the curve.
    public static func publicKey(fromCOSE key: CBOR) throws(AppAttestFormatError) -> P256.Signing.PublicKey {
        guard key[.int(1)] == .int(2), key[.int(3)] == .int(-7), key[.int(-1)] == .int(1),
              let x = key[.int(-2)]?.bytesValue, let y = key[.int(-3)]?.bytesValue, x.count == 32, y.count == 32
        else { throw AppAttestFormatError("the credential public key is not a COSE EC2 P-256 ES256 key") }
        do {
            return try P256.Signing.PublicKey(x963Representation: Data([0x04]) + x + y)
        } catch {
            throw AppAttestFormatError("the credential public key is not a point on P-256")
        }
    }
}

/// An attestation object: CBOR `{fmt: "apple-appattest", attStmt: {x5c, receipt}, authData}`.
public struct AttestationObject: Sendable, Equatable {
    /// The format App Attest writes.
    public static let format = "apple-appattest"

    /// The certificates, leaf (the credential certificate) first, DER.
    public var certificates: [Data]
    /// The receipt (opaque bytes).
    public var receipt: Data
    /// The authenticator data.
    public var authenticatorData: Data

    /// An attestation object with these parts.
    public init(certificates: [Data], receipt: Data, authenticatorData: Data) {
        self.certificates = certificates
        self.receipt = receipt
        self.authenticatorData = authenticatorData
    }

    /// The CBOR bytes, keys in deterministic order (`fmt`, `attStmt`, `authData`).
    public var encoded: Data {
        CBOR.map([
            (.text("fmt"), .text(Self.format)),
            (.text("attStmt"), .map([
                (.text("x5c"), .array(certificates.map(CBOR.bytes))),
                (.text("receipt"), .bytes(receipt)),
            ])),
            (.text("authData"), .bytes(authenticatorData)),
        ]).encoded
    }

    /// Reads an attestation object; fails unless `fmt` is `apple-appattest` and every part is
    /// of its type.
    public init(decoding data: Data) throws(AppAttestFormatError) {
        let value: CBOR
        do {
            value = try CBOR(decoding: data)
        } catch {
            throw AppAttestFormatError("the attestation object is not CBOR: \(error)")
        }
        guard value[.text("fmt")]?.textValue == Self.format else {
            throw AppAttestFormatError("the attestation's fmt is not \"\(Self.format)\"")
        }
        guard let statement = value[.text("attStmt")], case let .array(chain)? = statement[.text("x5c")],
              let receipt = statement[.text("receipt")]?.bytesValue,
              let authenticatorData = value[.text("authData")]?.bytesValue
        else { throw AppAttestFormatError("the attestation lacks attStmt.x5c, attStmt.receipt or authData") }
        let certificates = chain.compactMap(\.bytesValue)
        guard certificates.count == chain.count, !certificates.isEmpty else {
            throw AppAttestFormatError("attStmt.x5c is not a non-empty array of byte strings")
        }
        self.init(certificates: certificates, receipt: receipt, authenticatorData: authenticatorData)
    }
}

/// An assertion: CBOR `{signature, authenticatorData}`.
public struct AssertionObject: Sendable, Equatable {
    /// DER ECDSA P-256 signature over SHA-256 of the nonce.
    public var signature: Data
    /// The authenticator data (37 bytes: rpIdHash, flags, counter).
    public var authenticatorData: Data

    /// An assertion with these parts.
    public init(signature: Data, authenticatorData: Data) {
        self.signature = signature
        self.authenticatorData = authenticatorData
    }

    /// The CBOR bytes, keys in deterministic order (`signature`, `authenticatorData`).
    public var encoded: Data {
        CBOR.map([(.text("signature"), .bytes(signature)), (.text("authenticatorData"), .bytes(authenticatorData))]).encoded
    }

    /// Reads an assertion.
    public init(decoding data: Data) throws(AppAttestFormatError) {
        let value: CBOR
        do {
            value = try CBOR(decoding: data)
        } catch {
            throw AppAttestFormatError("the assertion is not CBOR: \(error)")
        }
        guard let signature = value[.text("signature")]?.bytesValue,
              let authenticatorData = value[.text("authenticatorData")]?.bytesValue
        else { throw AppAttestFormatError("the assertion lacks signature or authenticatorData") }
        self.init(signature: signature, authenticatorData: authenticatorData)
    }
}
