import CommonCrypto
import TouchstoneOpenSSL

/// The ciphers CommonCrypto keeps from before AES — DES, triple DES, CAST (CAST5), Blowfish and
/// RC4 — through the system's OpenSSL 3 (``LibCrypto``, opened with dlopen the first time one is
/// used; its legacy provider holds all but triple DES). swift-crypto offers none of them. RC2 is
/// not among them (our limit: kCCUnimplemented): CommonCrypto runs it with as many effective
/// key bits as the key has, which no independent implementation at hand checks.
enum LegacyCiphers {
    /// One 8-byte block of DES, triple DES, CAST or Blowfish, each direction keyed once.
    struct Block: BlockFunction {
        let blockSize = 8
        fileprivate let encryptor: LibCrypto.Cipher
        fileprivate let decryptor: LibCrypto.Cipher

        func permute(_ block: [UInt8], forward: Bool) -> [UInt8] {
            (forward ? encryptor : decryptor).update(block)
        }
    }

    /// The key lengths CommonCrypto takes for each algorithm (CommonCryptor.c's ccIsValidKeySize).
    private static func acceptsKey(of length: Int, for algorithm: Int) -> Bool {
        switch algorithm {
        case kCCAlgorithmDES: length == kCCKeySizeDES
        case kCCAlgorithm3DES: length == kCCKeySize3DES
        case kCCAlgorithmCAST: (kCCKeySizeMinCAST...kCCKeySizeMaxCAST).contains(length)
        case kCCAlgorithmRC4: (kCCKeySizeMinRC4...kCCKeySizeMaxRC4).contains(length)
        case kCCAlgorithmBlowfish: (kCCKeySizeMinBlowfish...kCCKeySizeMaxBlowfish).contains(length)
        default: false
        }
    }

    /// The block function of `algorithm` (DES, triple DES, CAST, Blowfish) under `key`:
    /// kCCKeySizeError for a key CommonCrypto refuses, kCCUnimplemented for RC2 or without
    /// OpenSSL.
    static func block(algorithm: Int, key: UnsafeRawBufferPointer) -> Result<any BlockFunction, CCFailure> {
        let name: String
        switch algorithm {
        case kCCAlgorithmDES: name = "DES-ECB"
        case kCCAlgorithm3DES: name = "DES-EDE3-ECB"
        case kCCAlgorithmCAST: name = "CAST5-ECB"
        case kCCAlgorithmBlowfish: name = "BF-ECB"
        default: return .failure(.unimplemented)
        }
        guard acceptsKey(of: key.count, for: algorithm) else { return .failure(.keySize) }
        guard case let .success(openssl) = LibCrypto.shared,
              let encryptor = LibCrypto.Cipher(name, key: key, encrypting: true, in: openssl),
              let decryptor = LibCrypto.Cipher(name, key: key, encrypting: false, in: openssl)
        else { return .failure(.unimplemented) }
        return .success(Block(encryptor: encryptor, decryptor: decryptor))
    }

    /// RC4 under `key` (its stream is its own inverse): kCCKeySizeError for a key CommonCrypto
    /// refuses, kCCUnimplemented without OpenSSL.
    static func rc4(key: UnsafeRawBufferPointer) -> Result<LibCrypto.Cipher, CCFailure> {
        guard acceptsKey(of: key.count, for: kCCAlgorithmRC4) else { return .failure(.keySize) }
        guard case let .success(openssl) = LibCrypto.shared,
              let stream = LibCrypto.Cipher("RC4", key: key, encrypting: true, in: openssl)
        else { return .failure(.unimplemented) }
        return .success(stream)
    }
}
