import Crypto
import Foundation

/// Apple's ECIES (`kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM` and
/// its relatives) for P-256, P-384 and P-521, byte for byte, so data encrypted on an iPhone
/// opens here and the other way round (`SecKeyAdaptors.m`):
///
/// - output: ephemeral public key (X9.63 uncompressed: 65, 97 or 133 bytes) || ciphertext ||
///   GCM tag (16);
/// - shared secret: ECDH between the ephemeral key and the recipient (cofactor 1 on these
///   curves, so the cofactor variant equals the standard one);
/// - KDF: ANSI X9.63 over the shared secret, shared info = the ephemeral public key. It gives
///   the AES key — 16 bytes (AES-128) for P-256, 32 (AES-256) for the larger curves, as Apple
///   picks by key size — then, in the "VariableIV" forms, the 16-byte GCM IV (16 zero bytes in
///   the iOS 10 forms).
///
/// ```swift
/// let box = try ECIES.seal(Data("secret".utf8), to: key.publicKeyData)
/// let plain = try await authenticator.keys.decrypt(box, with: key, reason: "Unlock")
/// ```
public enum ECIES {
    /// The hash of the X9.63 KDF (and of ECDSA and RSA signatures and RSA's OAEP): SHA-1 and
    /// the SHA-2 functions. swift-crypto computes all but SHA-224, which it does not offer
    /// (Touchstone's own FIPS 180-4 implementation).
    public enum Hash: Sendable, Hashable, CaseIterable {
        /// SHA-1 (20 bytes).
        case sha1
        /// SHA-224 (28 bytes).
        case sha224
        /// SHA-256 (32 bytes).
        case sha256
        /// SHA-384 (48 bytes).
        case sha384
        /// SHA-512 (64 bytes).
        case sha512

        /// The hash of `data`.
        public func digest(_ data: Data) -> Data {
            switch self {
            case .sha1: Data(Insecure.SHA1.hash(data: data))
            case .sha224: SHA224.hash(data)
            case .sha256: Data(SHA256.hash(data: data))
            case .sha384: Data(SHA384.hash(data: data))
            case .sha512: Data(SHA512.hash(data: data))
            }
        }
    }

    /// One of Apple's ECIES forms: the X9.63 KDF's hash, and where the AES-GCM IV comes from.
    /// Both forms put the ephemeral public key before the ciphertext and the 16-byte tag after
    /// it, and use no associated data.
    public struct Variant: Sendable, Hashable {
        /// The KDF's hash.
        public let hash: Hash
        /// True for the "VariableIV" form (iOS 11 on): the KDF gives the AES key then the
        /// 16-byte IV. False for the iOS 10 form: the KDF gives the key alone and the IV is 16
        /// zero bytes.
        public let variableIV: Bool

        /// A form; see ``hash`` and ``variableIV``.
        public init(hash: Hash, variableIV: Bool) {
            self.hash = hash
            self.variableIV = variableIV
        }

        /// `…VariableIVX963SHA256AESGCM`, the form this type's functions use by default.
        public static let variableIVSHA256 = Variant(hash: .sha256, variableIV: true)
    }

    /// The curves Apple's ECIES takes here, known by the length of their X9.63 public keys
    /// (`04 || X || Y`), the raw value.
    package enum Curve: Int, Sendable {
        case p256 = 65, p384 = 97, p521 = 133

        /// The curve of an X9.63 public key of `length` bytes (65, 97 or 133).
        package init(publicKeyLength length: Int) throws {
            guard let curve = Curve(rawValue: length) else {
                throw KeychainError(.invalidParameter, message: "an ECIES public key is X9.63: 65, 97 or 133 bytes (P-256, P-384, P-521), not \(length)")
            }
            self = curve
        }

        /// "P-256", "P-384" or "P-521".
        var name: String {
            switch self {
            case .p256: "P-256"
            case .p384: "P-384"
            case .p521: "P-521"
            }
        }

        /// The length of the curve's X9.63 public keys.
        var publicKeyLength: Int { rawValue }

        /// The AES key's length, as Apple's adaptor works it out from the public key's
        /// coordinates (`SecKeyAdaptors.m`, `SecKeyECIESKeyExchangeKDFX963CopyResult`): AES-128
        /// for keys of at most 256 bits, AES-256 above.
        var aesKeyByteCount: Int { (rawValue - 1) / 2 * 8 > 256 ? 32 : 16 }

        /// Checks that `data` is a point of this curve in X9.63 form; errSecParam otherwise.
        func validate(_ data: Data) throws {
            do {
                switch self {
                case .p256: _ = try P256.KeyAgreement.PublicKey(x963Representation: data)
                case .p384: _ = try P384.KeyAgreement.PublicKey(x963Representation: data)
                case .p521: _ = try P521.KeyAgreement.PublicKey(x963Representation: data)
                }
            } catch {
                throw KeychainError(.invalidParameter, message: "not a \(name) public key in X9.63 form")
            }
        }

        /// A fresh ephemeral key's X9.63 public key and its ECDH secret with `peer`.
        func ephemeralAgreement(with peer: Data) throws -> (publicKey: Data, secret: Data) {
            do {
                switch self {
                case .p256:
                    let ephemeral = P256.KeyAgreement.PrivateKey()
                    let secret = try ephemeral.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
                    return (ephemeral.publicKey.x963Representation, secret.withUnsafeBytes { Data($0) })
                case .p384:
                    let ephemeral = P384.KeyAgreement.PrivateKey()
                    let secret = try ephemeral.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
                    return (ephemeral.publicKey.x963Representation, secret.withUnsafeBytes { Data($0) })
                case .p521:
                    let ephemeral = P521.KeyAgreement.PrivateKey()
                    let secret = try ephemeral.sharedSecretFromKeyAgreement(with: .init(x963Representation: peer))
                    return (ephemeral.publicKey.x963Representation, secret.withUnsafeBytes { Data($0) })
                }
            } catch {
                throw KeychainError(.invalidParameter, message: "not a \(name) public key in X9.63 form")
            }
        }
    }

    /// The bytes of one ciphertext.
    package struct Parts {
        let curve: Curve
        let ephemeralPublicKey: Data
        let ciphertext: Data
        let tag: Data
    }

    /// Encrypts `plaintext` to `recipient`, a P-256, P-384 or P-521 public key in X9.63 form
    /// (65, 97 or 133 bytes). Needs no authentication (it uses only the public key).
    /// errSecParam for a malformed key.
    public static func seal(_ plaintext: Data, to recipient: Data, variant: Variant = .variableIVSHA256) throws -> Data {
        let curve = try Curve(publicKeyLength: recipient.count)
        let (ephemeralPublic, secret) = try curve.ephemeralAgreement(with: recipient)
        let (key, iv) = derive(secret, sharedInfo: ephemeralPublic, curve: curve, variant: variant)
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: try AES.GCM.Nonce(data: iv))
            return ephemeralPublic + box.ciphertext + box.tag
        } catch {
            throw KeychainError(.invalidParameter, message: "encryption failed")
        }
    }

    /// Splits a ciphertext for a key of `curve`; errSecParam when it is too short or its
    /// ephemeral key is not on the curve.
    package static func split(_ data: Data, curve: Curve = .p256) throws -> Parts {
        let bytes = Data(data)
        let keyLength = curve.publicKeyLength
        guard bytes.count >= keyLength + 16 else {
            throw KeychainError(.invalidParameter, message: "an ECIES ciphertext for a \(curve.name) key is at least \(keyLength + 16) bytes")
        }
        let ephemeral = Data(bytes.prefix(keyLength))
        try curve.validate(ephemeral)
        return Parts(curve: curve, ephemeralPublicKey: ephemeral, ciphertext: Data(bytes.dropFirst(keyLength).dropLast(16)),
                     tag: Data(bytes.suffix(16)))
    }

    /// Opens `parts` with the recipient's P-256 private key (see ``open(_:variant:agree:)``).
    static func open(_ parts: Parts, privateKey: P256.Signing.PrivateKey, variant: Variant) throws -> Data {
        try open(parts, variant: variant) { try agree(privateKey, try publicKey($0)) }
    }

    /// Opens `parts`; `agree` gives the recipient's ECDH secret with the ephemeral public key it
    /// is handed. errSecParam when the tag does not match (wrong key or altered data), with the
    /// text of Apple's ECIES adaptor (`SecKeyAdaptors.m`).
    package static func open(_ parts: Parts, variant: Variant, agree: (Data) throws -> Data) throws -> Data {
        let secret = try agree(parts.ephemeralPublicKey)
        let (key, iv) = derive(secret, sharedInfo: parts.ephemeralPublicKey, curve: parts.curve, variant: variant)
        do {
            let box = try AES.GCM.SealedBox(nonce: try AES.GCM.Nonce(data: iv), ciphertext: parts.ciphertext, tag: parts.tag)
            return try AES.GCM.open(box, using: key)
        } catch {
            throw KeychainError(.invalidParameter, message: "ECIES: Failed to aes-gcm decrypt data (the ciphertext does not open with this key: wrong key or altered data)")
        }
    }

    /// The raw ECDH shared secret (32 bytes).
    static func agree(_ privateKey: P256.Signing.PrivateKey, _ peer: P256.KeyAgreement.PublicKey) throws -> Data {
        do {
            let agreement = try P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey.rawRepresentation)
            return try agreement.sharedSecretFromKeyAgreement(with: peer).withUnsafeBytes { Data($0) }
        } catch {
            throw KeychainError(.invalidParameter, message: "key agreement failed")
        }
    }

    /// A P-256 public key from its 65-byte X9.63 form; errSecParam otherwise.
    static func publicKey(_ data: Data) throws -> P256.KeyAgreement.PublicKey {
        do {
            return try P256.KeyAgreement.PublicKey(x963Representation: data)
        } catch {
            throw KeychainError(.invalidParameter, message: "not a P-256 public key in X9.63 form")
        }
    }

    /// ANSI X9.63 KDF: `H(Z || counter32be || sharedInfo)` for counters 1, 2, …, cut to `count`
    /// bytes (`hash` defaults to SHA-256). Callers bound `count` (the keychain API to 64 KiB),
    /// far below the 2³² blocks at which the counter would wrap.
    public static func x963KDF(_ secret: Data, sharedInfo: Data, count: Int, hash: Hash = .sha256) -> Data {
        var output = Data()
        var counter: UInt32 = 1
        while output.count < count {
            output.append(hash.digest(secret + withUnsafeBytes(of: counter.bigEndian) { Data($0) } + sharedInfo))
            counter &+= 1
        }
        return output.prefix(count)
    }

    /// The AES key and the GCM IV of `variant` for a key of `curve`.
    private static func derive(_ secret: Data, sharedInfo: Data, curve: Curve, variant: Variant) -> (SymmetricKey, Data) {
        let keyLength = curve.aesKeyByteCount
        guard variant.variableIV else {
            return (SymmetricKey(data: x963KDF(secret, sharedInfo: sharedInfo, count: keyLength, hash: variant.hash)), Data(count: 16))
        }
        let material = x963KDF(secret, sharedInfo: sharedInfo, count: keyLength + 16, hash: variant.hash)
        return (SymmetricKey(data: material.prefix(keyLength)), Data(material.suffix(16)))
    }
}
