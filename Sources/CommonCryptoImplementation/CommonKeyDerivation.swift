import CommonCrypto
import Crypto
import _CryptoExtras
import Foundation

// CommonKeyDerivation.h's PBKDF2 (RFC 8018) on swift-crypto's, with CommonCrypto's argument
// checks (`CommonKeyDerivation.c`).

/// Derives `derivedKeyLen` bytes into `derivedKey` from `passwordLen` bytes of password and
/// `saltLen` bytes of salt, with `rounds` iterations of `prf`. Returns kCCParamError for an
/// algorithm other than kCCPBKDF2, an unknown `prf`, a missing password or output, an empty
/// output, zero rounds, or a missing salt with a length.
@_cdecl("CCKeyDerivationPBKDF")
public func ccKeyDerivationPBKDF(
    _ algorithm: CCPBKDFAlgorithm, _ password: UnsafePointer<CChar>?, _ passwordLen: Int,
    _ salt: UnsafePointer<UInt8>?, _ saltLen: Int, _ prf: CCPseudoRandomAlgorithm, _ rounds: UInt32,
    _ derivedKey: UnsafeMutablePointer<UInt8>?, _ derivedKeyLen: Int
) -> Int32 {
    let failure = Int32(kCCParamError)
    guard Int(algorithm) == kCCPBKDF2 else { return failure }
    let function: KDF.Insecure.PBKDF2.HashFunction
    switch Int(prf) {
    case kCCPRFHmacAlgSHA1: function = .insecureSHA1
    case kCCPRFHmacAlgSHA224: function = .insecureSHA224
    case kCCPRFHmacAlgSHA256: function = .sha256
    case kCCPRFHmacAlgSHA384: function = .sha384
    case kCCPRFHmacAlgSHA512: function = .sha512
    default: return failure
    }
    guard let password, let derivedKey, derivedKeyLen > 0, rounds > 0, passwordLen >= 0, saltLen >= 0 else {
        return failure
    }
    guard salt != nil || saltLen == 0 else { return failure }
    do {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: nonEmptyStorage(rawBytes(UnsafeRawPointer(password), passwordLen)),
            salt: nonEmptyStorage(rawBytes(salt.map { UnsafeRawPointer($0) }, saltLen)),
            using: function, outputByteCount: derivedKeyLen, unsafeUncheckedRounds: Int(rounds)
        )
        key.withUnsafeBytes { copyBytes($0, to: UnsafeMutableRawPointer(derivedKey)) }
        return Int32(kCCSuccess)
    } catch {
        return failure
    }
}

/// `bytes` in storage whose address is never nil, even when empty: swift-crypto's PBKDF2
/// force-unwraps the address of the password and the salt, and an empty buffer has none.
private func nonEmptyStorage(_ bytes: UnsafeRawBufferPointer) -> ArraySlice<UInt8> {
    let storage = [UInt8](bytes) + [0]
    return storage[0..<bytes.count]
}
