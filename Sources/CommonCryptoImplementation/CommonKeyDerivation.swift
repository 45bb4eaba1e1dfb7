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

/// The rounds `CCCalibratePBKDF` times, and the fewest it ever answers (CommonCrypto's
/// `ROUNDMEASURE` and `CC_MIN_PBKDF2_ITERATIONS`).
private let calibrationRounds: UInt64 = 100_000
private let minimumCalibratedRounds: UInt64 = 10_000

/// The PBKDF2 rounds that take about `msec` milliseconds on this machine for these lengths and
/// `prf`, as CommonCrypto's `CommonKeyDerivation.c` finds them: it times 100,000 rounds over a
/// password of `passwordLen` 'a's (one when zero) and a salt of `saltLen` counting bytes, and
/// scales that to `msec`, never answering fewer than 10,000. Returns `UInt32.max` (C's -1)
/// for an empty output, a salt over 132 bytes, an algorithm other than kCCPBKDF2 or an unknown
/// `prf`. Where C's arithmetic wraps (`msec` × 100,000 in 32 bits) or divides by zero (a
/// measurement under a millisecond), this one computes in 64 bits, counts at least one
/// millisecond and answers at most `UInt32.max - 1` (our rule). Our limit: a password or an
/// output over 1 MiB is `UInt32.max` (CommonCrypto would spend minutes deriving it).
@_cdecl("CCCalibratePBKDF")
public func ccCalibratePBKDF(
    _ algorithm: CCPBKDFAlgorithm, _ passwordLen: Int, _ saltLen: Int, _ prf: CCPseudoRandomAlgorithm,
    _ derivedKeyLen: Int, _ msec: UInt32
) -> UInt32 {
    let failure = UInt32.max
    let largest = 1 << 20
    guard derivedKeyLen > 0, derivedKeyLen <= largest, saltLen >= 0, saltLen <= 132, passwordLen >= 0, passwordLen <= largest,
          Int(algorithm) == kCCPBKDF2 else { return failure }
    let password = [CChar](repeating: CChar(UInt8(ascii: "a")), count: max(passwordLen, 1))
    let salt = (0..<max(saltLen, 1)).map { UInt8(truncatingIfNeeded: $0) }
    var derived = [UInt8](repeating: 0, count: derivedKeyLen)
    var elapsed = Duration.zero
    for _ in 0..<5 where elapsed == .zero {
        let clock = ContinuousClock()
        let start = clock.now
        let status = ccKeyDerivationPBKDF(algorithm, password, password.count, salt, saltLen, prf, UInt32(calibrationRounds),
                                          &derived, derivedKeyLen)
        guard status == Int32(kCCSuccess) else { return failure }
        elapsed = clock.now - start
    }
    guard elapsed > .zero else { return UInt32(minimumCalibratedRounds) }
    let milliseconds = max(UInt64(elapsed.components.seconds) * 1_000 + UInt64(elapsed.components.attoseconds / 1_000_000_000_000_000), 1)
    let rounds = max(minimumCalibratedRounds, UInt64(msec) * calibrationRounds / milliseconds)
    return UInt32(min(rounds, UInt64(UInt32.max - 1)))
}
