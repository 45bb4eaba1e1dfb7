#if !canImport(Darwin)
import _CryptoExtras
import BigInt
import Crypto
import Foundation
import Touchstone

// RSA's two primitives on their own (RFC 8017 §5.1, §5.2) and the encodings Apple's digest,
// raw and OAEP-SHA-384/512 forms put around them (RFC 8017 §7.1, §8.1, §9). swift-crypto
// does the message signatures and the PKCS#1, OAEP-SHA-1 and OAEP-SHA-256 encryptions itself
// (`SecKey+RSA.swift`); it offers no way to sign a digest it did not hash, nor OAEP with
// SHA-384 or SHA-512, so those forms are built here from:
// - the private operation (RSADP / RSASP1, c^d mod n): BoringSSL's, through swift-crypto's
//   blind-signing key, whose blind signature is exactly that operation on a block;
// - the public operation (RSAEP / RSAVP1, m^e mod n): BigInt's modular power. It handles
//   public values only (the key's n and e, a signature, a padded message), so it needs no
//   constant-time arithmetic.

extension RSAKey {
    /// The private operation on `block` (exactly ``blockSize`` bytes, as a number below the
    /// modulus): the signature of an encoded message, or the encoded message of a ciphertext.
    func privateOperation(_ block: Data) throws -> Data {
        guard let privateKey else { throw SecKeyCall.Failure(errSecParam, "a public key has no private operation") }
        guard block.count == blockSize else {
            throw SecKeyCall.Failure(errSecParam, "an RSA block of this \(bits)-bit key is \(blockSize) bytes, not \(block.count)")
        }
        do {
            let raw = try _RSA.BlindSigning.PrivateKey(
                unsafeDERRepresentation: privateKey.derRepresentation, parameters: .RSABSSA_SHA384_PSS_Deterministic)
            return try raw.blindSignature(for: block).rawRepresentation
        } catch {
            throw SecKeyCall.Failure(errSecParam, "the RSA private operation refused the input (is it below the key's modulus?): \(error)")
        }
    }

    /// The public operation on `block` (exactly ``blockSize`` bytes, as a number below the
    /// modulus), left-padded with zeros to ``blockSize`` bytes.
    func publicOperation(_ block: Data) throws -> Data {
        guard block.count == blockSize else {
            throw SecKeyCall.Failure(errSecParam, "an RSA block of this \(bits)-bit key is \(blockSize) bytes, not \(block.count)")
        }
        guard let numbers = try? publicKey.getKeyPrimitives() else {
            throw SecKeyCall.Failure(errSecParam, "this RSA key's modulus cannot be read")
        }
        let modulus = BigUInt(numbers.modulus)
        let value = BigUInt(block)
        guard value < modulus else { throw SecKeyCall.Failure(errSecParam, "the RSA input is not below the key's modulus") }
        let result = value.power(BigUInt(numbers.publicExponent), modulus: modulus).serialize()
        return Data(count: blockSize - result.count) + result
    }
}

extension RSAKey {
    /// The AES key size of `…AESGCM` for this key, as SecKey.h says: 256 bits for a modulus of
    /// 4096 bits or more, 128 below.
    var sessionKeyBytes: Int { bits >= 4096 ? 32 : 16 }

    /// The IV of `…AESGCM`, as SecKey.h says: 16 zero bytes (each message has a fresh key).
    static let aesGCMNonce = Data(count: 16)

    /// `…OAEPSHA…AESGCM` encryption, as SecKey.h describes it: a fresh AES key wrapped to this
    /// key with OAEP and `hash`, then `plaintext` sealed with it, the PKCS#1 public key as the
    /// authenticated data: wrapped key (a block) || ciphertext || 16-byte tag.
    func sealAESGCM(_ plaintext: Data, _ hash: ECIES.Hash) throws -> Data {
        let session = SymmetricKey(size: SymmetricKeySize(bitCount: sessionKeyBytes * 8))
        let wrapped = try session.withUnsafeBytes { try encrypt(Data($0), oaep: hash) }
        do {
            let box = try AES.GCM.seal(plaintext, using: session, nonce: AES.GCM.Nonce(data: Self.aesGCMNonce),
                                       authenticating: publicKeyData)
            return wrapped + box.ciphertext + box.tag
        } catch {
            throw SecKeyCall.Failure(errSecParam, "AES-GCM sealing failed")
        }
    }

    /// The reverse of ``sealAESGCM(_:_:)``: errSecParam "RSAdecrypt wrong input" when the
    /// key does not unwrap, errSecParam when the data does not open.
    func openAESGCM(_ ciphertext: Data, _ hash: ECIES.Hash) throws -> Data {
        guard ciphertext.count >= blockSize + 16 else {
            throw SecKeyCall.Failure(errSecParam, "an RSA AES-GCM ciphertext of this key is at least \(blockSize + 16) bytes")
        }
        let session = try decrypt(ciphertext.prefix(blockSize), oaep: hash)
        guard session.count == sessionKeyBytes else { throw SecKeyCall.Failure(errSecParam, "RSAdecrypt wrong input (err -27)") }
        do {
            let sealed = ciphertext.dropFirst(blockSize)
            let box = try AES.GCM.SealedBox(nonce: AES.GCM.Nonce(data: Self.aesGCMNonce),
                                            ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
            return try AES.GCM.open(box, using: SymmetricKey(data: session), authenticating: publicKeyData)
        } catch {
            throw SecKeyCall.Failure(errSecParam, "the AES-GCM data does not open with the unwrapped key")
        }
    }
}

/// The encodings around the RSA primitives (RFC 8017), for the forms swift-crypto cannot do.
enum RSAEncoding {
    /// The DER `DigestInfo` of `digest` as a digest of `hash` (RFC 8017 §9.2): the hash's
    /// `AlgorithmIdentifier` and the bytes in an OCTET STRING. As Apple's `ccrsa` encoding, the
    /// bytes are taken at any length; nil when the whole would not fit a short DER length
    /// (127 bytes or more), which Apple refuses too.
    static func digestInfo(_ digest: Data, _ hash: ECIES.Hash) -> Data? {
        let algorithm: [UInt8] = switch hash {
        case .sha1: [0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A, 0x05, 0x00]
        case .sha224: [0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04, 0x05, 0x00]
        case .sha256: [0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00]
        case .sha384: [0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00]
        case .sha512: [0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00]
        }
        let contentLength = algorithm.count + 2 + digest.count
        guard contentLength + 2 < 127 else { return nil }
        return Data([0x30, UInt8(contentLength)] + algorithm + [0x04, UInt8(digest.count)]) + digest
    }

    /// EMSA-PKCS1-v1_5's block of `length` bytes around `payload` (a `DigestInfo`, or for
    /// Apple's `…DigestPKCS1v15Raw` whatever the caller gives): 00 01 FF…FF 00 payload, with
    /// at least 8 bytes of FF; nil when `payload` is too long for that.
    static func pkcs1v15SignatureBlock(_ payload: Data, length: Int) -> Data? {
        guard payload.count <= length - 11 else { return nil }
        return Data([0x00, 0x01]) + Data(repeating: 0xFF, count: length - payload.count - 3) + Data([0x00]) + payload
    }

    /// MGF1 with `hash` (RFC 8017 §B.2.1): `length` bytes of mask from `seed`.
    static func mgf1(_ seed: Data, length: Int, _ hash: ECIES.Hash) -> Data {
        var mask = Data()
        var counter: UInt32 = 0
        while mask.count < length {
            mask += hash.digest(seed + withUnsafeBytes(of: counter.bigEndian) { Data($0) })
            counter += 1
        }
        return mask.prefix(length)
    }

    private static func xor(_ a: Data, _ b: Data) -> Data {
        Data(zip(a, b).map { $0 ^ $1 })
    }

    /// EMSA-PSS-ENCODE of the digest `mHash` (RFC 8017 §9.1.1) with a random salt as long as
    /// the hash (Apple's salt) and MGF1 with the same hash, for a modulus of `modulusBits`:
    /// the block the private operation signs, ``RSAKey/blockSize`` bytes long. Nil when the
    /// key is too small for the hash (PSS with SHA-512 needs at least 1034 bits).
    static func pssBlock(digest mHash: Data, _ hash: ECIES.Hash, modulusBits: Int) -> Data? {
        let hashLength = mHash.count
        let emBits = modulusBits - 1
        let emLength = (emBits + 7) / 8
        guard emLength >= 2 * hashLength + 2 else { return nil }
        let salt = Data((0..<hashLength).map { _ in UInt8.random(in: .min ... .max) })
        let h = hash.digest(Data(count: 8) + mHash + salt)
        let db = Data(count: emLength - 2 * hashLength - 2) + Data([0x01]) + salt
        var maskedDB = xor(db, mgf1(h, length: db.count, hash))
        maskedDB[maskedDB.startIndex] &= 0xFF >> (8 * emLength - emBits)
        let encoded = maskedDB + h + Data([0xBC])
        // The block is the key's size; EM is a byte shorter when the modulus is 8k + 1 bits.
        return Data(count: (modulusBits + 7) / 8 - emLength) + encoded
    }

    /// EMSA-PSS-VERIFY (RFC 8017 §9.1.2): whether `block`, the public operation on a
    /// signature, encodes the digest `mHash` with a salt as long as the hash.
    static func pssVerifies(_ block: Data, digest mHash: Data, _ hash: ECIES.Hash, modulusBits: Int) -> Bool {
        let hashLength = mHash.count
        let emBits = modulusBits - 1
        let emLength = (emBits + 7) / 8
        let leading = block.count - emLength
        guard emLength >= 2 * hashLength + 2, leading >= 0, block.prefix(leading).allSatisfy({ $0 == 0 }) else { return false }
        let encoded = Data(block.dropFirst(leading))
        guard encoded.last == 0xBC else { return false }
        let maskedDB = encoded.prefix(emLength - hashLength - 1)
        let h = encoded.dropFirst(maskedDB.count).prefix(hashLength)
        let topBits: UInt8 = ~(0xFF >> (8 * emLength - emBits))
        guard let first = maskedDB.first, first & topBits == 0 else { return false }
        var db = xor(maskedDB, mgf1(Data(h), length: maskedDB.count, hash))
        db[db.startIndex] &= ~topBits
        let zeros = emLength - 2 * hashLength - 2
        guard db.prefix(zeros).allSatisfy({ $0 == 0 }), db[db.startIndex + zeros] == 0x01 else { return false }
        let salt = db.suffix(hashLength)
        return hash.digest(Data(count: 8) + mHash + salt) == Data(h)
    }

    /// The longest message OAEP with `hash` takes in a block of `length` bytes.
    static func oaepCapacity(_ hash: ECIES.Hash, length: Int) -> Int {
        length - 2 * hash.byteCount - 2
    }

    /// EME-OAEP encoding of `message` (RFC 8017 §7.1.1) with an empty label and MGF1 with
    /// `hash`: the block of `length` bytes the public operation encrypts. The caller checks
    /// the message fits (``oaepCapacity(_:length:)``).
    static func oaepBlock(_ message: Data, _ hash: ECIES.Hash, length: Int) -> Data {
        let hashLength = hash.byteCount
        let db = hash.digest(Data()) + Data(count: length - message.count - 2 * hashLength - 2) + Data([0x01]) + message
        let seed = Data((0..<hashLength).map { _ in UInt8.random(in: .min ... .max) })
        let maskedDB = xor(db, mgf1(seed, length: db.count, hash))
        let maskedSeed = xor(seed, mgf1(maskedDB, length: hashLength, hash))
        return Data([0x00]) + maskedSeed + maskedDB
    }

    /// EME-OAEP decoding (RFC 8017 §7.1.2): the message in `block`, or nil when it is not an
    /// OAEP encoding with `hash` and an empty label. All checks give the one answer, nil, so
    /// the caller's error does not say which failed.
    static func oaepMessage(_ block: Data, _ hash: ECIES.Hash) -> Data? {
        let hashLength = hash.byteCount
        guard block.count >= 2 * hashLength + 2 else { return nil }
        let bytes = [UInt8](block)
        let maskedSeed = Data(bytes[1...hashLength])
        let maskedDB = Data(bytes[(hashLength + 1)...])
        let seed = xor(maskedSeed, mgf1(maskedDB, length: hashLength, hash))
        let db = [UInt8](xor(maskedDB, mgf1(seed, length: maskedDB.count, hash)))
        var bad = bytes[0] != 0
        bad = (Data(db[..<hashLength]) != hash.digest(Data())) || bad
        // The first 0x01 after the label hash, with only zeros before it.
        var separator: Int?
        for index in hashLength..<db.count where separator == nil {
            if db[index] == 0x01 { separator = index } else if db[index] != 0 { bad = true }
        }
        guard let separator, !bad else { return nil }
        return Data(db[(separator + 1)...])
    }
}

extension ECIES.Hash {
    /// The digest's length in bytes.
    var byteCount: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }
}
#endif
