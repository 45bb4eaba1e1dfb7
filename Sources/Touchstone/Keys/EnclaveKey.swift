import Crypto
import Foundation

/// A private key of the simulated Secure Enclave: a P-256 key generated inside the device,
/// stored only sealed (AES-GCM under a key derived from the device secret), never exported or
/// imported, and usable only through ``KeyStore`` — which runs its access control's
/// evaluation first, exactly as a keychain item's (REFERENCE §10).
///
/// This value is a handle: it carries the public key, the key's attributes and its sealed
/// private half, which only this device can open.
///
/// ```swift
/// let access = try AccessControl(.whenPasscodeSetThisDeviceOnly, flags: [.privateKeyUsage, .biometryCurrentSet])
/// let key = try authenticator.keys.create(accessControl: access, tag: Data("login".utf8))
/// let signature = try await authenticator.keys.sign(challenge, with: key, reason: "Sign in")
/// // the server verifies `signature` (DER) with `key.publicKeyData` (65-byte X9.63)
/// ```
public struct EnclaveKey: Sendable, Hashable, Codable, CustomStringConvertible, ProtectedRecord {
    /// The app the key belongs to.
    public let appID: String
    /// The public key, X9.63 uncompressed (`04 || X || Y`, 65 bytes) — what
    /// `SecKeyCopyExternalRepresentation` gives for the public key.
    public let publicKeyData: Data
    /// `kSecAttrApplicationTag`, when given.
    public let applicationTag: Data?
    /// `kSecAttrLabel`, when given.
    public let label: String?
    /// The accessibility class of the private key.
    public let accessibility: Accessibility
    /// The access-control flags (usually `privateKeyUsage` plus constraints).
    public let flags: AccessControlFlags
    /// Whether the key is stored (`kSecAttrIsPermanent`); otherwise it lives only in this handle.
    public let isPermanent: Bool
    /// When the key was made (device time).
    public let creationDate: Timestamp
    /// The enrolled-set hash the key is bound to (biometryCurrentSet only).
    let enrolledSetHash: Data?
    /// The device's enrollment-change count at creation (biometryCurrentSet only).
    let enrollmentSequence: Int?
    /// The private key, AES-GCM sealed (nonce, ciphertext, tag) under the device key, over
    /// ``sealedAttributes`` (set by ``KeyStore`` once the other fields are final).
    var sealedPrivateKey: Data
    /// True for a software key (made without `kSecAttrTokenIDSecureEnclave`, or imported);
    /// nil (absent from records) for a Secure Enclave key.
    let software: Bool?
    /// `kSecAttrApplicationLabel` given when the key was stored, replacing the default.
    let storedApplicationLabel: Data?
    /// True when the key's item synchronizes (`kSecAttrSynchronizable`); nil (absent from
    /// records) when it does not.
    let synchronizable: Bool?

    /// Whether the key's keychain item synchronizes (`kSecAttrSynchronizable` true when it was
    /// stored): part of the item's primary key, and a lookup that does not name it does not
    /// find such a key, as on iOS.
    public var isSynchronizable: Bool { synchronizable ?? false }

    /// Whether this is a software key: made outside the Secure Enclave (`SecKeyCreateRandomKey`
    /// without `kSecAttrTokenIDSecureEnclave`) or imported (`SecKeyCreateWithData` with
    /// `kSecAttrKeyClassPrivate`). It is sealed at rest and protected by its access control like
    /// an enclave key, but its private bytes can be exported (``KeyStore/exportPrivateKey(_:context:reason:)``).
    public var isSoftware: Bool { software ?? false }

    /// The key's access control.
    public var accessControl: AccessControl { AccessControl(validated: accessibility, flags: flags) }

    /// `kSecAttrApplicationLabel`: the SHA-1 of the public key, as Apple computes it for EC keys,
    /// unless the app gave its own when storing the key.
    public var applicationLabel: Data { storedApplicationLabel ?? publicKeyHash }

    /// The SHA-1 of the public key.
    var publicKeyHash: Data { Data(Insecure.SHA1.hash(data: publicKeyData)) }

    /// The key's identifier: the SHA-1 of the public key in lowercase hex.
    public var id: String { publicKeyHash.hexString }

    /// The public key as swift-crypto's signing key, to verify signatures.
    public var signingPublicKey: P256.Signing.PublicKey {
        get throws { try P256.Signing.PublicKey(x963Representation: publicKeyData) }
    }

    /// Whether `signature` (DER ECDSA) is this key's signature over SHA-256 of `message`
    /// (`SecKeyVerifySignature` with `.ecdsaSignatureMessageX962SHA256`); needs no authentication.
    public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
        guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature),
              let publicKey = try? signingPublicKey else { return false }
        return publicKey.isValidSignature(parsed, for: message)
    }

    /// `key 1a2b… tag=login label=Login whenUnlocked [privateKeyUsage|biometryCurrentSet]`.
    public var description: String {
        var text = "key \(id.prefix(16))"
        if let applicationTag { text += " tag=\(String(data: applicationTag, encoding: .utf8) ?? applicationTag.hexString)" }
        if let label { text += " label=\(label)" }
        return text + " \(accessControl)" + (isSoftware ? " software" : "") + (isPermanent ? "" : " ephemeral")
    }

    /// Equal when they are the same key (same public key, same app).
    public static func == (lhs: EnclaveKey, rhs: EnclaveKey) -> Bool {
        lhs.appID == rhs.appID && lhs.publicKeyData == rhs.publicKeyData
    }

    /// Hashes the app and public key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(appID)
        hasher.combine(publicKeyData)
    }

    init(appID: String, publicKeyData: Data, applicationTag: Data?, label: String?, accessibility: Accessibility,
         flags: AccessControlFlags, isPermanent: Bool, creationDate: Timestamp, enrolledSetHash: Data?,
         enrollmentSequence: Int?, sealedPrivateKey: Data, isSoftware: Bool = false, applicationLabel: Data? = nil,
         isSynchronizable: Bool = false) {
        self.appID = appID
        self.publicKeyData = publicKeyData
        self.applicationTag = applicationTag
        self.label = label
        self.accessibility = accessibility
        self.flags = flags
        self.isPermanent = isPermanent
        self.creationDate = creationDate
        self.enrolledSetHash = enrolledSetHash
        self.enrollmentSequence = enrollmentSequence
        self.sealedPrivateKey = sealedPrivateKey
        software = isSoftware ? true : nil
        storedApplicationLabel = applicationLabel
        synchronizable = isSynchronizable ? true : nil
    }

    /// What the seal of the private key authenticates besides it (``KeyStore``): the app, the
    /// public key and every attribute that decides how the key may be used — accessibility,
    /// access-control flags, whether it is stored, whether it is a software key, and the
    /// enrolled set it is bound to. A key's handle travels outside the device (CryptoKit's
    /// `dataRepresentation`, which the app keeps where it likes), and on iOS the Secure Enclave
    /// binds these to the key: an edited handle does not open.
    var sealedAttributes: Data {
        let fields = [
            "touchstone.key.v2", appID, accessibility.rawValue, String(flags.rawValue), isPermanent ? "permanent" : "memory",
            isSoftware ? "software" : "enclave", enrolledSetHash?.hexString ?? "-", enrollmentSequence.map(String.init) ?? "-",
        ]
        return Data(fields.joined(separator: "\u{0}").utf8) + [0] + publicKeyData
    }
}

/// A digest given as bytes (`…DigestX962…` algorithms), so swift-crypto can sign and verify
/// it without hashing again. swift-crypto's ECDSA reads only the bytes (BoringSSL cuts a digest
/// longer than the order), so one type serves every length; `byteCount` is nominal.
struct RawDigest: Digest {
    static var byteCount: Int { 32 }
    let bytes: Data

    /// nil unless `bytes` is 1 to 64 bytes long (up to a SHA-512 digest).
    init?(_ bytes: Data) {
        guard (1...64).contains(bytes.count) else { return nil }
        self.bytes = bytes
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    func makeIterator() -> Data.Iterator { bytes.makeIterator() }

    var description: String { "RawDigest(\(bytes.count) bytes)" }
}
