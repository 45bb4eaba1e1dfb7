import CommonCrypto
import Foundation

// CommonSymmetricKeywrap.h: AES key wrap (RFC 3394) with CommonCrypto's argument checks and
// statuses (`CommonSymmetricKeywrap.c`), on swift-crypto's AES block function so that any
// 8-byte IV works as it does there.

/// The length of a key of `rawKeyLen` bytes once wrapped: 8 bytes more.
@_cdecl("CCSymmetricWrappedSize")
public func ccSymmetricWrappedSize(_ algorithm: CCWrappingAlgorithm, _ rawKeyLen: Int) -> Int {
    rawKeyLen &+ 8  // size_t arithmetic, as CommonCrypto's
}

/// The length of a wrapped key of `wrappedKeyLen` bytes once unwrapped: 8 bytes fewer, and 0
/// for less than 8 bytes (corecrypto's `ccwrap_unwrapped_size`, which CommonCrypto calls: a
/// caller may size a buffer with it before finding the input too short).
@_cdecl("CCSymmetricUnwrappedSize")
public func ccSymmetricUnwrappedSize(_ algorithm: CCWrappingAlgorithm, _ wrappedKeyLen: Int) -> Int {
    // Compared as the size_t it is: 2^63 bytes or more is long enough.
    UInt(bitPattern: wrappedKeyLen) < 8 ? 0 : wrappedKeyLen &- 8
}

/// Wraps `rawKeyLen` bytes of key with a 16-, 24- or 32-byte key-encryption key. `iv` (nil
/// means `CCrfc3394_iv`) needs at least 8 bytes; the key at least 16, a multiple of 8.
/// `wrappedKeyLen` holds the room in `wrappedKey` and gets the length written. kCCParamError,
/// with the output cleared and its length 0, for anything else.
@_cdecl("CCSymmetricKeyWrap")
public func ccSymmetricKeyWrap(
    _ algorithm: CCWrappingAlgorithm, _ iv: UnsafePointer<UInt8>?, _ ivLen: Int,
    _ kek: UnsafePointer<UInt8>?, _ kekLen: Int, _ rawKey: UnsafePointer<UInt8>?, _ rawKeyLen: Int,
    _ wrappedKey: UnsafeMutablePointer<UInt8>?, _ wrappedKeyLen: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let wrappedKeyLen else { return Int32(kCCParamError) }
    let given = wrappedKeyLen.pointee
    let room = availableRoom(given)
    guard let wrapping = KeyWrap(kek: kek, length: kekLen), let wrappedKey,
          UInt(bitPattern: room) >= UInt(bitPattern: ccSymmetricWrappedSize(algorithm, rawKeyLen)), iv == nil || ivLen >= 8,
          rawKeyLen >= 16, rawKeyLen % 8 == 0, let rawKey
    else {
        // CommonCrypto clears the room it was given; a room of 2^63 bytes or more is no real
        // buffer (CommonCrypto would fault clearing it), so only what the wrap would write is.
        let cleared = given >= 0 ? given : max(0, ccSymmetricWrappedSize(algorithm, rawKeyLen))
        if let wrappedKey, cleared > 0 { wrappedKey.update(repeating: 0, count: cleared) }
        wrappedKeyLen.pointee = 0
        return Int32(kCCParamError)
    }
    let initial = Array(UnsafeBufferPointer(start: iv ?? CCrfc3394_iv, count: 8))
    let wrapped = wrapping.wrap(Array(UnsafeBufferPointer(start: rawKey, count: rawKeyLen)), iv: initial)
    wrappedKey.update(from: wrapped, count: wrapped.count)
    wrappedKeyLen.pointee = wrapped.count
    return Int32(kCCSuccess)
}

/// Unwraps `wrappedKeyLen` bytes with the key-encryption key, checking the result against `iv`
/// and then against `CCrfc3394_iv`, as CommonCrypto does. `rawKeyLen` holds the room in
/// `rawKey` and gets the length written. kCCDecodeError when neither IV matches (the wrong key,
/// or damaged data); kCCParamError for a bad key-encryption key, IV or room. On failure the
/// output is cleared and its length is 0.
@_cdecl("CCSymmetricKeyUnwrap")
public func ccSymmetricKeyUnwrap(
    _ algorithm: CCWrappingAlgorithm, _ iv: UnsafePointer<UInt8>?, _ ivLen: Int,
    _ kek: UnsafePointer<UInt8>?, _ kekLen: Int, _ wrappedKey: UnsafePointer<UInt8>?, _ wrappedKeyLen: Int,
    _ rawKey: UnsafeMutablePointer<UInt8>?, _ rawKeyLen: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let rawKeyLen else { return Int32(kCCParamError) }
    let room = availableRoom(rawKeyLen.pointee)
    rawKeyLen.pointee = 0
    // A wrapped key of 2^63 bytes or more (negative here) is no real buffer: with a room of
    // SIZE_MAX it would pass the room check and clear that much.
    guard wrappedKeyLen >= 0 else { return Int32(kCCParamError) }
    guard let wrapping = KeyWrap(kek: kek, length: kekLen), let rawKey,
          UInt(bitPattern: room) >= UInt(bitPattern: ccSymmetricUnwrappedSize(algorithm, wrappedKeyLen)), iv == nil || ivLen >= 8
    else { return Int32(kCCParamError) }
    // The input is copied first: `rawKey` may be `wrappedKey` itself (CommonCrypto unwraps
    // into scratch space for that reason).
    guard let wrappedKey, wrappedKeyLen >= 24, wrappedKeyLen % 8 == 0 else {
        rawKey.update(repeating: 0, count: min(room, max(wrappedKeyLen &- 8, 0)))
        return Int32(kCCDecodeError)
    }
    let wrapped = Array(UnsafeBufferPointer(start: wrappedKey, count: wrappedKeyLen))
    rawKey.update(repeating: 0, count: min(room, wrappedKeyLen - 8))
    for candidate in [iv, CCrfc3394_iv] {
        guard let candidate else { continue }
        if let key = wrapping.unwrap(wrapped, iv: Array(UnsafeBufferPointer(start: candidate, count: 8))) {
            rawKey.update(from: key, count: key.count)
            rawKeyLen.pointee = key.count
            return Int32(kCCSuccess)
        }
    }
    return Int32(kCCDecodeError)
}

/// RFC 3394's wrapping: six passes over the key's 64-bit halves, each AES-encrypting the
/// integrity value with one of them.
private struct KeyWrap {
    private let aes: AESBlock

    init?(kek: UnsafePointer<UInt8>?, length: Int) {
        guard let kek, let aes = AESBlock(key: UnsafeRawBufferPointer(start: kek, count: max(length, 0))) else { return nil }
        self.aes = aes
    }

    private func permute(_ block: [UInt8], forward: Bool) -> [UInt8] {
        aes.permute(block, forward: forward)
    }

    private static func counter(_ t: Int) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(t) >> (8 * (7 - $0))) }
    }

    func wrap(_ plain: [UInt8], iv: [UInt8]) -> [UInt8] {
        var a = iv
        var r = stride(from: 0, to: plain.count, by: 8).map { Array(plain[$0..<$0 + 8]) }
        for j in 0..<6 {
            for i in r.indices {
                let b = permute(a + r[i], forward: true)
                a = zip(b.prefix(8), Self.counter(r.count * j + i + 1)).map { $0 ^ $1 }
                r[i] = Array(b.suffix(8))
            }
        }
        return a + r.flatMap { $0 }
    }

    func unwrap(_ wrapped: [UInt8], iv: [UInt8]) -> [UInt8]? {
        var a = Array(wrapped.prefix(8))
        var r = stride(from: 8, to: wrapped.count, by: 8).map { Array(wrapped[$0..<$0 + 8]) }
        for j in (0..<6).reversed() {
            for i in r.indices.reversed() {
                let t = Self.counter(r.count * j + i + 1)
                let b = permute(zip(a, t).map { $0 ^ $1 } + r[i], forward: false)
                a = Array(b.prefix(8))
                r[i] = Array(b.suffix(8))
            }
        }
        return a == iv ? r.flatMap { $0 } : nil
    }
}
