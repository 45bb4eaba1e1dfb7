#if !canImport(Darwin)
import _CryptoExtras
import Crypto
import Foundation
import Touchstone

/// An RSA key of `SecKeyCreateRandomKey` or `SecKeyCreateWithData`, over swift-crypto's RSA
/// (BoringSSL). Its bytes are PKCS#1, as on iOS: `RSAPublicKey` for a public key and
/// `RSAPrivateKey` for a private one.
///
/// Our limits: an RSA key is an ``InMemoryKey``, and of Apple's RSA algorithms it
/// supports the message signatures (PKCS#1 v1.5 and PSS with SHA-1, SHA-256, SHA-384, SHA-512)
/// and PKCS#1 v1.5, OAEP-SHA-1 and OAEP-SHA-256 encryption: swift-crypto has neither SHA-224
/// nor a raw RSA operation, which the digest, raw, other OAEP and AES-GCM forms need.
struct RSAKey: InMemoryKey {
    /// The private half; nil for a public key.
    let privateKey: _RSA.Signing.PrivateKey?
    /// The public half.
    let publicKey: _RSA.Signing.PublicKey

    /// The sizes made and read here: iOS takes 512 to 8192 bits (SecRSAKey.c); below 1024,
    /// which BoringSSL refuses, is our limit.
    static let bitSizes = 1024...8192

    /// `SecKeyCreateRandomKey`'s RSA key pair, of the parameters' `kSecAttrKeySizeInBits`
    /// (required).
    static func generate(_ parameters: [String: Any]) throws -> RSAKey {
        // As iOS (SecRSAKey.c): a missing size, or one outside 512...8192, is errSecKeySizeNotAllowed.
        guard let bits = parameters[kSecAttrKeySizeInBits as String].flatMap(KeyQuery.integer), (512...8192).contains(bits) else {
            throw SecKeyCall.Failure(errSecKeySizeNotAllowed, "an RSA key's kSecAttrKeySizeInBits is 512 to 8192 (2048 is usual)")
        }
        return try generate(bits: bits)
    }

    /// A new key pair of `bits` (a multiple of 128 here: BoringSSL's rule).
    static func generate(bits: Int) throws -> RSAKey {
        guard bitSizes.contains(bits), bits % 128 == 0 else {
            throw SecKeyCall.Failure(errSecParam, "RSA keys are made here with 1024 to 8192 bits, a multiple of 128 (2048 is usual), not \(bits)")
        }
        do {
            let key = try _RSA.Signing.PrivateKey(unsafeKeySize: _RSA.Signing.KeySize(bitCount: bits))
            return RSAKey(privateKey: key, publicKey: key.publicKey)
        } catch {
            throw SecKeyCall.Failure(errSecParam, "no RSA key of \(bits) bits could be made")
        }
    }

    /// A public key from its PKCS#1 `RSAPublicKey` DER; a private key from its PKCS#1
    /// `RSAPrivateKey` DER. As on iOS (SecRSAKey.c), other encodings — X.509
    /// `SubjectPublicKeyInfo`, PKCS#8 — are errSecParam: strip the header as iOS code does.
    /// A key whose modulus is not a whole number of bytes is refused too (swift-crypto's
    /// encryption keys need one).
    init(pkcs1 data: Data, isPrivate: Bool) throws {
        do {
            if isPrivate {
                let key = try _RSA.Signing.PrivateKey(unsafeDERRepresentation: data)
                self.init(privateKey: key, publicKey: key.publicKey)
            } else {
                self.init(privateKey: nil, publicKey: try _RSA.Signing.PublicKey(unsafeDERRepresentation: data))
            }
        } catch {
            throw SecKeyCall.Failure(errSecParam, "not an RSA \(isPrivate ? "private" : "public") key in PKCS#1 DER")
        }
        // swift-crypto's parsers also take PKCS#8 and SubjectPublicKeyInfo: only bytes that are
        // the key's own PKCS#1 encoding are PKCS#1.
        guard (privateKey?.derRepresentation ?? publicKey.pkcs1DERRepresentation) == data else {
            throw SecKeyCall.Failure(errSecParam, "an RSA key is PKCS#1 DER (RSAPublicKey or RSAPrivateKey), not X.509 SubjectPublicKeyInfo or PKCS#8")
        }
        guard Self.bitSizes.contains(bits), bits % 8 == 0 else {
            throw SecKeyCall.Failure(errSecParam, "RSA keys are read here with 1024 to 8192 bits, a whole number of bytes, not \(bits)")
        }
    }

    private init(privateKey: _RSA.Signing.PrivateKey?, publicKey: _RSA.Signing.PublicKey) {
        self.privateKey = privateKey
        self.publicKey = publicKey
    }

    var keyType: CFString { kSecAttrKeyTypeRSA }
    var isPrivate: Bool { privateKey != nil }

    /// The public half alone.
    var publicOnly: any InMemoryKey { RSAKey(privateKey: nil, publicKey: publicKey) }

    /// The public key's PKCS#1 `RSAPublicKey` DER, what `SecKeyCopyExternalRepresentation`
    /// gives for it (and what `kSecAttrApplicationLabel` hashes).
    var publicKeyData: Data { publicKey.pkcs1DERRepresentation }

    /// `SecKeyCopyExternalRepresentation`: PKCS#1 `RSAPrivateKey` for a private key.
    var externalRepresentation: Data { privateKey?.derRepresentation ?? publicKeyData }

    /// The modulus size in bits.
    var bits: Int { publicKey.keySizeInBits }

    /// `SecKeyGetBlockSize`: the modulus size in bytes.
    var blockSize: Int { (bits + 7) / 8 }

    /// Whether the key can do `operation` with `algorithm`.
    func supports(_ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
        switch operation {
        case .sign: privateKey != nil && algorithm.rsaSignature != nil
        case .verify: algorithm.rsaSignature != nil
        case .encrypt: algorithm.rsaEncryption != nil
        case .decrypt: privateKey != nil && algorithm.rsaEncryption != nil
        case .keyExchange: false
        }
    }

    /// `SecKeyCreateSignature`: the signature of `message` (errSecParam for a public key or an
    /// unsupported algorithm).
    func signature(of message: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        guard let privateKey else { throw SecKeyCall.Failure(errSecParam, "a public key cannot sign") }
        guard let form = algorithm.rsaSignature else { throw Self.unsupported(algorithm) }
        do {
            return try form.hash.withDigest(of: message) { digest in
                try privateKey.signature(for: digest, padding: form.padding).rawRepresentation
            }
        } catch {
            // e.g. PSS with SHA-512 needs a modulus of at least 130 bytes.
            throw SecKeyCall.Failure(errSecParam, "this \(bits)-bit key cannot make a \(algorithm.identifier) signature")
        }
    }

    /// `SecKeyVerifySignature`: whether `signature` signs `message`.
    func isValidSignature(_ signature: Data, for message: Data, _ algorithm: SecKeyAlgorithm) throws -> Bool {
        guard let form = algorithm.rsaSignature else { throw Self.unsupported(algorithm) }
        let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
        return form.hash.withDigest(of: message) { digest in
            publicKey.isValidSignature(parsed, for: digest, padding: form.padding)
        }
    }

    /// `SecKeyCreateEncryptedData`: `plaintext` encrypted to the public key; errSecParam when
    /// it is longer than the padding allows.
    func encrypt(_ plaintext: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        guard let padding = algorithm.rsaEncryption?.padding else { throw Self.unsupported(algorithm) }
        guard let key = try? _RSA.Encryption.PublicKey(unsafeDERRepresentation: publicKeyData) else {
            throw SecKeyCall.Failure(errSecParam, "this key cannot encrypt")
        }
        guard plaintext.count <= key.maximumEncryptSize(with: padding) else {
            throw SecKeyCall.Failure(errSecParam, "\(plaintext.count) bytes are more than \(key.maximumEncryptSize(with: padding)) this key and padding can encrypt")
        }
        do {
            return try key.encrypt(plaintext, padding: padding)
        } catch {
            throw SecKeyCall.Failure(errSecParam, "RSA encryption failed")
        }
    }

    /// `SecKeyCreateDecryptedData`: the plaintext of `ciphertext`; errSecParam "RSAdecrypt wrong
    /// input" when it does not open, as iOS reports it.
    func decrypt(_ ciphertext: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        guard let privateKey else { throw SecKeyCall.Failure(errSecParam, "a public key cannot decrypt") }
        guard let padding = algorithm.rsaEncryption?.padding else { throw Self.unsupported(algorithm) }
        do {
            return try _RSA.Encryption.PrivateKey(unsafeDERRepresentation: privateKey.derRepresentation)
                .decrypt(ciphertext, padding: padding)
        } catch {
            throw SecKeyCall.Failure(errSecParam, "RSAdecrypt wrong input (err -27)")
        }
    }

    /// RSA keys exchange no keys (errSecParam).
    func sharedSecret(with peer: Data) throws -> Data {
        throw SecKeyCall.Failure(errSecParam, "RSA keys do not exchange keys")
    }

    private static func unsupported(_ algorithm: SecKeyAlgorithm) -> SecKeyCall.Failure {
        unsupported(algorithm, kind: "RSA")
    }
}

extension SecKeyAlgorithm {
    /// A supported RSA signature: a message hashed with `hash`, padded as PKCS#1 v1.5 or PSS
    /// (salt as long as the hash, as Apple's).
    struct RSASignatureForm {
        let hash: ECIES.Hash
        let padding: _RSA.Signing.Padding
    }

    /// A supported RSA encryption padding.
    struct RSAEncryptionForm {
        let padding: _RSA.Encryption.Padding
    }

    /// The form of a supported RSA signature algorithm (`algid:sign:RSA:message-PKCS1v15:SHA256`,
    /// `algid:sign:RSA:message-PSS:SHA256:SHA256:32`...); nil for any other.
    var rsaSignature: RSASignatureForm? {
        let parts = identifier.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 5, parts[0] == "algid", parts[1] == "sign", parts[2] == "RSA" else { return nil }
        let hash: ECIES.Hash
        switch parts[4] {
        case "SHA1": hash = .sha1
        case "SHA256": hash = .sha256
        case "SHA384": hash = .sha384
        case "SHA512": hash = .sha512
        default: return nil
        }
        switch (parts[3], parts.count) {
        case ("message-PKCS1v15", 5): return RSASignatureForm(hash: hash, padding: .insecurePKCS1v1_5)
        case ("message-PSS", 7): return RSASignatureForm(hash: hash, padding: .PSS)
        default: return nil
        }
    }

    /// The padding of a supported RSA encryption algorithm (`algid:encrypt:RSA:PKCS1`,
    /// `…:OAEP:SHA1`, `…:OAEP:SHA256`); nil for any other.
    var rsaEncryption: RSAEncryptionForm? {
        switch identifier {
        case "algid:encrypt:RSA:PKCS1": RSAEncryptionForm(padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        case "algid:encrypt:RSA:OAEP:SHA1": RSAEncryptionForm(padding: .PKCS1_OAEP)
        case "algid:encrypt:RSA:OAEP:SHA256": RSAEncryptionForm(padding: .PKCS1_OAEP_SHA256)
        default: nil
        }
    }
}

extension ECIES.Hash {
    /// Runs `body` with this hash's swift-crypto digest of `message` (RSA signing needs the
    /// digest's own type).
    func withDigest<T>(of message: Data, _ body: (any Digest) throws -> T) rethrows -> T {
        switch self {
        case .sha1: try body(Insecure.SHA1.hash(data: message))
        case .sha256: try body(SHA256.hash(data: message))
        case .sha384: try body(SHA384.hash(data: message))
        case .sha512: try body(SHA512.hash(data: message))
        }
    }
}
#endif
