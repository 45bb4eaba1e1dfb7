#if !canImport(Darwin)
import _CryptoExtras
import Crypto
import Foundation
import SwiftASN1
import Touchstone

/// An RSA key of `SecKeyCreateRandomKey` or `SecKeyCreateWithData`, over swift-crypto's RSA
/// (BoringSSL). Its bytes are PKCS#1, as on iOS: `RSAPublicKey` for a public key and
/// `RSAPrivateKey` for a private one.
///
/// It does every RSA algorithm of Apple's: swift-crypto signs messages and encrypts with
/// PKCS#1 v1.5, OAEP-SHA-1 and OAEP-SHA-256; the digest, raw, SHA-224, OAEP-SHA-384/512 and
/// OAEP-then-AES-GCM forms are built in `SecKey+RSARaw.swift`. An RSA key is an ``InMemoryKey``: used in memory, its stored item guarded by its access control.
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

    /// A public key from its PKCS#1 `RSAPublicKey` DER, or from the X.509
    /// `SubjectPublicKeyInfo` that wraps one (``publicKeyInfoContents(_:)``); a private key from
    /// its PKCS#1 `RSAPrivateKey` DER. Other encodings (PKCS#8) are errSecParam, as on iOS. A
    /// key of fewer than 1024 bits, or whose modulus is not a whole number of bytes, is refused
    /// too (our limits: BoringSSL reads no smaller key, swift-crypto's encryption keys need
    /// whole bytes), with a message that says so.
    init(pkcs1 encoded: Data, isPrivate: Bool) throws {
        let data = isPrivate ? encoded : Self.publicKeyInfoContents(encoded) ?? encoded
        do {
            if isPrivate {
                let key = try _RSA.Signing.PrivateKey(unsafeDERRepresentation: data)
                self.init(privateKey: key, publicKey: key.publicKey)
            } else {
                self.init(privateKey: nil, publicKey: try _RSA.Signing.PublicKey(unsafeDERRepresentation: data))
            }
        } catch {
            // BoringSSL reads no key under 1024 bits: name the size when that is why.
            if let bits = Self.modulusBits(data, isPrivate: isPrivate), !Self.bitSizes.contains(bits) { throw Self.unreadableSize(bits) }
            throw SecKeyCall.Failure(errSecParam, "not an RSA \(isPrivate ? "private" : "public") key in PKCS#1 DER")
        }
        // swift-crypto's parsers also take PKCS#8 and SubjectPublicKeyInfo: only bytes that are
        // the key's own PKCS#1 encoding are PKCS#1.
        guard (privateKey?.derRepresentation ?? publicKey.pkcs1DERRepresentation) == data else {
            throw SecKeyCall.Failure(errSecParam, "an RSA key is PKCS#1 DER (RSAPublicKey or RSAPrivateKey), not X.509 SubjectPublicKeyInfo or PKCS#8")
        }
        guard Self.bitSizes.contains(bits), bits % 8 == 0 else { throw Self.unreadableSize(bits) }
    }

    private static func unreadableSize(_ bits: Int) -> SecKeyCall.Failure {
        SecKeyCall.Failure(errSecParam, "RSA keys are read here with 1024 to 8192 bits, a whole number of bytes, not \(bits)")
    }

    /// The `RSAPublicKey` an X.509 `SubjectPublicKeyInfo` holds; nil when `data` is not one.
    /// iOS reads that form first: `SecRSAPublicKeyInit` (SecRSAKey.c) imports with corecrypto's
    /// `ccrsa_import_pub`, which tries X.509 (an algorithm identifier with NULL parameters,
    /// whose OID it does not check) before PKCS#1.
    static func publicKeyInfoContents(_ data: Data) -> Data? {
        struct NotPublicKeyInfo: Error {}
        guard let node = try? DER.parse(Array(data)) else { return nil }
        return try? DER.sequence(node, identifier: .sequence) { parts in
            guard let algorithm = parts.next(), let bits = parts.next(), parts.next() == nil else { throw NotPublicKeyInfo() }
            try DER.sequence(algorithm, identifier: .sequence) { fields in
                guard fields.next()?.identifier == .objectIdentifier, fields.next()?.identifier == .null,
                      fields.next() == nil else { throw NotPublicKeyInfo() }
            }
            return Data(try ASN1BitString(derEncoded: bits).bytes)
        }
    }

    /// The modulus size of PKCS#1 DER (`RSAPublicKey`: the first integer; `RSAPrivateKey`: the
    /// second, after the version); nil when the bytes are not that shape.
    static func modulusBits(_ data: Data, isPrivate: Bool) -> Int? {
        guard let node = try? DER.parse(Array(data)), case let .constructed(fields) = node.content else { return nil }
        var integers = fields.makeIterator()
        if isPrivate { _ = integers.next() }
        guard let modulus = integers.next(), modulus.identifier == .integer, case let .primitive(bytes) = modulus.content,
              let first = bytes.first(where: { $0 != 0 }) else { return nil }
        let leading = bytes.prefix { $0 == 0 }.count
        return (bytes.count - leading) * 8 - first.leadingZeroBitCount
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
        case .sign:
            guard isPrivate, let form = algorithm.rsaSignature else { return false }
            return isLargeEnough(toSign: form)
        // As Apple's adaptors: a private key verifies through its private operation (so no
        // signature verifies) and does not encrypt.
        case .verify:
            return algorithm.rsaSignature != nil
        case .encrypt, .decrypt:
            // The public key encrypts, the private key decrypts.
            guard isPrivate == (operation == .decrypt), let form = algorithm.rsaEncryption else { return false }
            return isLargeEnough(toPad: form)
        case .keyExchange:
            return false
        }
    }

    /// Whether this key is large enough to sign in `form`, as Apple's adaptor checks
    /// (`SecKeyAdaptors.m`, `SecKeyRSACopyEMSASignature`): PSS needs a modulus of at least
    /// 2 × 8 × the hash's length + 9 bits (1,033 for SHA-512). Verifying has no such check.
    private func isLargeEnough(toSign form: SecKeyAlgorithm.RSASignatureForm) -> Bool {
        switch form {
        case let .message(hash, pss), let .digest(hash, pss):
            return !pss || bits >= 16 * hash.byteCount + 9
        case .pkcs1v15Raw, .raw:
            return true
        }
    }

    /// Whether this key's block holds the padding of `form`, as Apple's adaptors check
    /// (`SecKeyRSACopyEncryptedWithPadding`, `…DecryptedWithPadding`): OAEP needs 2 × the
    /// hash's length + 2 bytes (130 for SHA-512, more than a 1,024-bit key's 128), PKCS#1 v1.5
    /// 11.
    private func isLargeEnough(toPad form: SecKeyAlgorithm.RSAEncryptionForm) -> Bool {
        switch form {
        case let .oaep(hash), let .oaepAESGCM(hash):
            return blockSize >= 2 * hash.byteCount + 2
        case .pkcs1:
            return blockSize >= 11
        case .raw:
            return true
        }
    }

    /// `SecKeyCreateSignature`: the signature of `message` (a message, a digest or a block,
    /// as the algorithm says); errSecParam for a public key, an unsupported algorithm or an
    /// input of the wrong length.
    func signature(of message: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        guard let privateKey else { throw SecKeyCall.Failure(errSecParam, "a public key cannot sign") }
        let block: Data?
        switch algorithm.rsaSignature {
        case nil:
            throw Self.unsupported(algorithm)
        case let .message(hash, pss):
            let signed: Data?
            do {
                signed = try hash.withDigest(of: message) { digest in
                    try privateKey.signature(for: digest, padding: pss ? .PSS : .insecurePKCS1v1_5).rawRepresentation
                }
            } catch {
                // e.g. PSS with SHA-512 needs a modulus of at least 1034 bits.
                throw SecKeyCall.Failure(errSecParam, "this \(bits)-bit key cannot make a \(algorithm.identifier) signature")
            }
            if let signed { return signed }
            // SHA-224, which swift-crypto does not sign: the digest form over our SHA-224.
            block = try digestBlock(hash.digest(message), hash, pss: pss, algorithm)
        case let .digest(hash, pss):
            block = try digestBlock(message, hash, pss: pss, algorithm)
        case .pkcs1v15Raw:
            block = RSAEncoding.pkcs1v15SignatureBlock(message, length: blockSize)
        case .raw:
            block = try rawBlock(message)
        }
        guard let block else {
            throw SecKeyCall.Failure(errSecParam, "this \(bits)-bit key cannot make a \(algorithm.identifier) signature of \(message.count) bytes")
        }
        return try privateOperation(block)
    }

    /// `SecKeyVerifySignature`: whether `signature` signs `message` (a message, a digest or a
    /// block, as the algorithm says). The inputs are checked as for signing; a signature that
    /// is not a block below the modulus does not verify. The signature is opened as Apple's
    /// verify adaptor opens it (``opened(_:)``), so with a private key only the public-key
    /// encryption of the expected block verifies, never a signature.
    func isValidSignature(_ signature: Data, for message: Data, _ algorithm: SecKeyAlgorithm) throws -> Bool {
        switch algorithm.rsaSignature {
        case nil:
            throw Self.unsupported(algorithm)
        case let .message(hash, pss):
            if privateKey == nil {
                // swift-crypto's check, for the hashes it signs with.
                let parsed = _RSA.Signing.RSASignature(rawRepresentation: signature)
                let valid = hash.withDigest(of: message) { digest in
                    publicKey.isValidSignature(parsed, for: digest, padding: pss ? .PSS : .insecurePKCS1v1_5)
                }
                if let valid { return valid }
            }
            return try digestSignatureVerifies(signature, hash.digest(message), hash, pss: pss, algorithm)
        case let .digest(hash, pss):
            return try digestSignatureVerifies(signature, message, hash, pss: pss, algorithm)
        case .pkcs1v15Raw:
            return opens(signature, to: RSAEncoding.pkcs1v15SignatureBlock(message, length: blockSize))
        case .raw:
            // As Apple's: the block loses all its leading zeros, then equals the input exactly
            // (so an input starting with a zero byte never verifies).
            guard let block = opened(signature) else { return false }
            return Data(block.drop { $0 == 0 }) == message
        }
    }

    /// The block a signature opens to, as Apple's verify adaptor gets it: the key's raw
    /// decryption (`SecKeyAdaptors.m`), which is the public operation for a public key and the
    /// private one for a private key (`SecRSAKey.c`); nil when the signature is no block of
    /// this key.
    private func opened(_ signature: Data) -> Data? {
        try? (privateKey == nil ? publicOperation(signature) : privateOperation(signature))
    }

    /// The block a digest form signs: PSS (the digest checked for length) or PKCS#1 v1.5 of
    /// the digest's `DigestInfo`; nil when it does not fit this key.
    private func digestBlock(_ digest: Data, _ hash: ECIES.Hash, pss: Bool, _ algorithm: SecKeyAlgorithm) throws -> Data? {
        pss ? try RSAEncoding.pssBlock(digest: checkedDigest(digest, hash, algorithm), hash, modulusBits: bits)
            : pkcs1v15Block(digestInfoOf: digest, hash)
    }

    /// Whether `signature` is a digest form's signature of `digest` (the reverse of
    /// ``digestBlock(_:_:pss:_:)``).
    private func digestSignatureVerifies(_ signature: Data, _ digest: Data, _ hash: ECIES.Hash, pss: Bool,
                                         _ algorithm: SecKeyAlgorithm) throws -> Bool {
        guard pss else { return opens(signature, to: pkcs1v15Block(digestInfoOf: digest, hash)) }
        let checked = try checkedDigest(digest, hash, algorithm)
        guard let block = opened(signature) else { return false }
        return RSAEncoding.pssVerifies(block, digest: checked, hash, modulusBits: bits)
    }

    /// The PKCS#1 v1.5 block of the `DigestInfo` of `digest` as a `hash` digest; nil when it
    /// does not fit.
    private func pkcs1v15Block(digestInfoOf digest: Data, _ hash: ECIES.Hash) -> Data? {
        RSAEncoding.digestInfo(digest, hash).flatMap { RSAEncoding.pkcs1v15SignatureBlock($0, length: blockSize) }
    }

    /// Whether `signature` opens (``opened(_:)``) to `expected`.
    private func opens(_ signature: Data, to expected: Data?) -> Bool {
        guard let expected, let block = opened(signature) else { return false }
        return block == expected
    }

    /// A digest given to a `…DigestPSS…` algorithm: exactly the hash's length (errSecParam
    /// otherwise: Apple's PSS encoding has no defined result for another length). The
    /// PKCS#1 v1.5 digest forms take any length, as Apple's do.
    private func checkedDigest(_ digest: Data, _ hash: ECIES.Hash, _ algorithm: SecKeyAlgorithm) throws -> Data {
        guard digest.count == hash.byteCount else {
            throw SecKeyCall.Failure(errSecParam, "\(algorithm.identifier) signs a \(hash.byteCount)-byte digest, not \(digest.count) bytes")
        }
        return digest
    }

    /// `SecKeyCreateEncryptedData`: `plaintext` encrypted to the public key; errSecParam when
    /// it is longer than the padding allows.
    func encrypt(_ plaintext: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        switch algorithm.rsaEncryption {
        case .pkcs1: try encrypt(plaintext, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        case let .oaep(hash): try encrypt(plaintext, oaep: hash)
        case .raw: try publicOperation(rawBlock(plaintext))
        case let .oaepAESGCM(hash): try sealAESGCM(plaintext, hash)
        case nil: throw Self.unsupported(algorithm)
        }
    }

    /// `SecKeyCreateDecryptedData`: the plaintext of `ciphertext`; errSecParam "RSAdecrypt wrong
    /// input" when it does not open, as iOS reports it.
    func decrypt(_ ciphertext: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        guard privateKey != nil else { throw SecKeyCall.Failure(errSecParam, "a public key cannot decrypt") }
        switch algorithm.rsaEncryption {
        case .pkcs1: return try decrypt(ciphertext, padding: ._WEAK_AND_INSECURE_PKCS_V1_5)
        case let .oaep(hash): return try decrypt(ciphertext, oaep: hash)
        case .raw: return try privateOperation(rawBlock(ciphertext))
        case let .oaepAESGCM(hash): return try openAESGCM(ciphertext, hash)
        case nil: throw Self.unsupported(algorithm)
        }
    }

    /// OAEP with `hash` and MGF1 with the same hash, no label: swift-crypto's for SHA-1 and
    /// SHA-256, encoded here (``RSAEncoding``) for SHA-224, SHA-384 and SHA-512, which it lacks.
    func encrypt(_ plaintext: Data, oaep hash: ECIES.Hash) throws -> Data {
        switch hash {
        case .sha1: return try encrypt(plaintext, padding: .PKCS1_OAEP)
        case .sha256: return try encrypt(plaintext, padding: .PKCS1_OAEP_SHA256)
        case .sha224, .sha384, .sha512:
            try checkFits(plaintext, capacity: RSAEncoding.oaepCapacity(hash, length: blockSize))
            return try publicOperation(RSAEncoding.oaepBlock(plaintext, hash, length: blockSize))
        }
    }

    /// The reverse of ``encrypt(_:oaep:)``.
    func decrypt(_ ciphertext: Data, oaep hash: ECIES.Hash) throws -> Data {
        switch hash {
        case .sha1: return try decrypt(ciphertext, padding: .PKCS1_OAEP)
        case .sha256: return try decrypt(ciphertext, padding: .PKCS1_OAEP_SHA256)
        case .sha224, .sha384, .sha512:
            guard let block = try? privateOperation(ciphertext), let plaintext = RSAEncoding.oaepMessage(block, hash) else {
                throw Self.wrongInput
            }
            return plaintext
        }
    }

    /// iOS's error for a ciphertext that does not decrypt.
    private static let wrongInput = SecKeyCall.Failure(errSecParam, "RSAdecrypt wrong input (err -27)")

    /// swift-crypto's encryption with `padding`.
    private func encrypt(_ plaintext: Data, padding: _RSA.Encryption.Padding) throws -> Data {
        guard let key = try? _RSA.Encryption.PublicKey(unsafeDERRepresentation: publicKeyData) else {
            throw SecKeyCall.Failure(errSecParam, "this key cannot encrypt")
        }
        try checkFits(plaintext, capacity: key.maximumEncryptSize(with: padding))
        do {
            return try key.encrypt(plaintext, padding: padding)
        } catch {
            throw SecKeyCall.Failure(errSecParam, "RSA encryption failed")
        }
    }

    /// swift-crypto's decryption with `padding`.
    private func decrypt(_ ciphertext: Data, padding: _RSA.Encryption.Padding) throws -> Data {
        guard let privateKey else { throw SecKeyCall.Failure(errSecParam, "a public key cannot decrypt") }
        do {
            return try _RSA.Encryption.PrivateKey(unsafeDERRepresentation: privateKey.derRepresentation)
                .decrypt(ciphertext, padding: padding)
        } catch {
            throw Self.wrongInput
        }
    }

    /// errSecParam when `plaintext` is longer than `capacity`.
    private func checkFits(_ plaintext: Data, capacity: Int) throws {
        guard plaintext.count <= capacity else {
            throw SecKeyCall.Failure(errSecParam, "\(plaintext.count) bytes are more than \(capacity) this key and padding can encrypt")
        }
    }

    /// The block of `…SignatureRaw` and `…EncryptionRaw`: the input left-padded with zeros to
    /// the key's size, as Apple's code reads it as a number (errSecParam when it is longer;
    /// SecKey.h asks for a whole block when signing, and the code takes shorter input too).
    private func rawBlock(_ input: Data) throws -> Data {
        guard input.count <= blockSize else {
            throw SecKeyCall.Failure(errSecParam, "a raw RSA input of this \(bits)-bit key is at most \(blockSize) bytes, not \(input.count)")
        }
        return Data(count: blockSize - input.count) + input
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
    /// What a supported RSA signature algorithm signs, and how.
    enum RSASignatureForm {
        /// A message, hashed and padded by swift-crypto (by ``RSAEncoding`` for SHA-224):
        /// PKCS#1 v1.5 or PSS (salt as long as the hash, as Apple's).
        case message(ECIES.Hash, pss: Bool)
        /// A digest of this hash the caller made, in a PKCS#1 v1.5 `DigestInfo` block or PSS.
        case digest(ECIES.Hash, pss: Bool)
        /// `…DigestPKCS1v15Raw`: the caller's bytes in a PKCS#1 v1.5 block as they are.
        case pkcs1v15Raw
        /// `…SignatureRaw`: the caller's block, no padding.
        case raw
    }

    /// How a supported RSA encryption algorithm pads.
    enum RSAEncryptionForm {
        /// PKCS#1 v1.5.
        case pkcs1
        /// OAEP with this hash (MGF1 with the same hash, no label).
        case oaep(ECIES.Hash)
        /// `…EncryptionRaw`: the caller's block, no padding.
        case raw
        /// `…OAEPSHA…AESGCM`: an AES key wrapped with OAEP, the data sealed with AES-GCM.
        case oaepAESGCM(ECIES.Hash)
    }

    /// The form of a supported RSA signature algorithm (`algid:sign:RSA:message-PKCS1v15:SHA256`,
    /// `algid:sign:RSA:digest-PSS:SHA256:SHA256:32`, `algid:sign:RSA:raw`...); nil for any
    /// other.
    var rsaSignature: RSASignatureForm? {
        let parts = identifier.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "algid", parts[1] == "sign", parts[2] == "RSA" else { return nil }
        switch (parts[3], parts.count) {
        case ("raw", 4): return .raw
        case ("digest-PKCS1v15", 4): return .pkcs1v15Raw
        default: break
        }
        guard parts.count >= 5, let hash = ECIES.Hash(appleName: parts[4]) else { return nil }
        switch (parts[3], parts.count) {
        case ("message-PKCS1v15", 5): return .message(hash, pss: false)
        // PSS names its MGF1 hash and salt length too: Apple's are the hash and its length
        // (SHA-224's identifiers say 24, a slip in Apple's strings: its code salts with 28).
        case ("message-PSS", 7) where parts[5] == parts[4] && Int(parts[6]) == hash.pssSaltInIdentifier: return .message(hash, pss: true)
        case ("digest-PKCS1v15", 5): return .digest(hash, pss: false)
        case ("digest-PSS", 7) where parts[5] == parts[4] && Int(parts[6]) == hash.pssSaltInIdentifier: return .digest(hash, pss: true)
        default: return nil
        }
    }

    /// The form of a supported RSA encryption algorithm (`algid:encrypt:RSA:PKCS1`,
    /// `…:OAEP:SHA512`, `…:OAEP:SHA256:AESGCM`, `…:raw`); nil for any other.
    var rsaEncryption: RSAEncryptionForm? {
        let parts = identifier.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[0] == "algid", parts[1] == "encrypt", parts[2] == "RSA" else { return nil }
        switch (parts[3], parts.count) {
        case ("raw", 4): return .raw
        case ("PKCS1", 4): return .pkcs1
        case ("OAEP", 5): return ECIES.Hash(appleName: parts[4]).map { .oaep($0) }
        case ("OAEP", 6) where parts[5] == "AESGCM": return ECIES.Hash(appleName: parts[4]).map { .oaepAESGCM($0) }
        default: return nil
        }
    }
}

extension ECIES.Hash {
    /// Runs `body` with this hash's swift-crypto digest of `message` (RSA signing needs the
    /// digest's own type); nil for SHA-224, which swift-crypto does not offer.
    func withDigest<T>(of message: Data, _ body: (any Digest) throws -> T) rethrows -> T? {
        switch self {
        case .sha1: try body(Insecure.SHA1.hash(data: message))
        case .sha224: nil
        case .sha256: try body(SHA256.hash(data: message))
        case .sha384: try body(SHA384.hash(data: message))
        case .sha512: try body(SHA512.hash(data: message))
        }
    }

    /// The salt length Apple's PSS identifiers name for this hash: its length, but 24 for
    /// SHA-224 (`…PSSSHA224` is "…:SHA224:SHA224:24" in Apple's strings, while its code, as
    /// Apple's own tests check, salts with the hash's 28 bytes).
    var pssSaltInIdentifier: Int { self == .sha224 ? 24 : byteCount }
}
#endif
