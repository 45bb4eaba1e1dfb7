import Crypto
import Foundation

/// Apple's `kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM` for P-256, byte
/// for byte, so data encrypted on an iPhone opens here and the other way round:
///
/// - output: ephemeral public key (X9.63 uncompressed, 65 bytes) || ciphertext || GCM tag (16);
/// - shared secret: ECDH (cofactor 1 on P-256, so the cofactor variant equals the standard one)
///   between the ephemeral key and the recipient;
/// - KDF: ANSI X9.63 with SHA-256 over the shared secret, shared info = the ephemeral public
///   key, 32 bytes: the first 16 are the AES-128 key, the last 16 the GCM IV ("VariableIV").
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

    /// One of Apple's ECIES forms for P-256: the X9.63 KDF's hash, and where the AES-GCM IV
    /// comes from. Both forms put the ephemeral public key (65 bytes) before the ciphertext and
    /// the 16-byte tag after it, and use no associated data.
    public struct Variant: Sendable, Hashable {
        /// The KDF's hash.
        public let hash: Hash
        /// True for the "VariableIV" form (iOS 11 on): the KDF gives 32 bytes, the AES-128 key
        /// then the 16-byte IV. False for the iOS 10 form: the KDF gives the 16-byte key and the
        /// IV is 16 zero bytes.
        public let variableIV: Bool

        /// A form; see ``hash`` and ``variableIV``.
        public init(hash: Hash, variableIV: Bool) {
            self.hash = hash
            self.variableIV = variableIV
        }

        /// `…VariableIVX963SHA256AESGCM`, the form this type's functions use by default.
        public static let variableIVSHA256 = Variant(hash: .sha256, variableIV: true)
    }

    /// The bytes of one ciphertext.
    struct Parts {
        let ephemeralPublicKey: Data
        let ciphertext: Data
        let tag: Data
    }

    /// Encrypts `plaintext` to the P-256 public key `recipient` (65-byte X9.63). Needs no
    /// authentication (it uses only the public key). errSecParam for a malformed key.
    public static func seal(_ plaintext: Data, to recipient: Data, variant: Variant = .variableIVSHA256) throws -> Data {
        let peer = try publicKey(recipient)
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let ephemeralPublic = ephemeral.publicKey.x963Representation
        let secret: Data
        do {
            secret = try ephemeral.sharedSecretFromKeyAgreement(with: peer).withUnsafeBytes { Data($0) }
        } catch {
            throw KeychainError(.invalidParameter, message: "key agreement failed")
        }
        let (key, iv) = derive(secret, sharedInfo: ephemeralPublic, variant: variant)
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: try AES.GCM.Nonce(data: iv))
            return ephemeralPublic + box.ciphertext + box.tag
        } catch {
            throw KeychainError(.invalidParameter, message: "encryption failed")
        }
    }

    /// Splits a ciphertext; errSecParam when it is too short or its key is not on the curve.
    static func split(_ data: Data) throws -> Parts {
        let bytes = Data(data)
        guard bytes.count >= 65 + 16 else {
            throw KeychainError(.invalidParameter, message: "an ECIES ciphertext is at least 81 bytes")
        }
        let ephemeral = bytes.prefix(65)
        _ = try publicKey(ephemeral)
        return Parts(ephemeralPublicKey: Data(ephemeral), ciphertext: Data(bytes.dropFirst(65).dropLast(16)),
                     tag: Data(bytes.suffix(16)))
    }

    /// Opens `parts` with the recipient's private key; errSecParam when the tag does not match
    /// (wrong key or altered data), with the text of Apple's ECIES adaptor (`SecKeyAdaptors.m`).
    static func open(_ parts: Parts, privateKey: P256.Signing.PrivateKey, variant: Variant) throws -> Data {
        let secret = try agree(privateKey, try publicKey(parts.ephemeralPublicKey))
        let (key, iv) = derive(secret, sharedInfo: parts.ephemeralPublicKey, variant: variant)
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

    private static func derive(_ secret: Data, sharedInfo: Data, variant: Variant) -> (SymmetricKey, Data) {
        guard variant.variableIV else {
            return (SymmetricKey(data: x963KDF(secret, sharedInfo: sharedInfo, count: 16, hash: variant.hash)), Data(count: 16))
        }
        let material = x963KDF(secret, sharedInfo: sharedInfo, count: 32, hash: variant.hash)
        return (SymmetricKey(data: material.prefix(16)), Data(material.suffix(16)))
    }
}
