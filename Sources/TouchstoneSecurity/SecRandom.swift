#if !canImport(Darwin)
/// `SecRandom.h`: cryptographically secure random bytes.

/// An opaque random-number generator reference, as `SecRandomRef` is; the only one is
/// ``kSecRandomDefault``.
public final class SecRandom: @unchecked Sendable {
    private init() {}
}

/// `SecRandomRef`.
public typealias SecRandomRef = SecRandom

/// The default generator: the system's (here `getrandom(2)`, through Swift's
/// `SystemRandomNumberGenerator`). Apple's constant is a null reference too.
public let kSecRandomDefault: SecRandomRef? = nil

/// Fills `count` bytes at `bytes` with cryptographically secure random bytes from the system;
/// `errSecSuccess`, or `errSecParam` for a negative count. `rnd` must be ``kSecRandomDefault``
/// (nil), as on iOS.
///
/// ```swift
/// var key = [UInt8](repeating: 0, count: 32)
/// let status = SecRandomCopyBytes(kSecRandomDefault, key.count, &key)
/// ```
@discardableResult
public func SecRandomCopyBytes(_ rnd: SecRandomRef?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    var generator = SystemRandomNumberGenerator()
    let width = MemoryLayout<UInt64>.size
    var offset = 0
    while count - offset >= width {
        bytes.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)  // unaligned stores are allowed
        offset += width
    }
    var last = generator.next()
    while offset < count {
        bytes.storeBytes(of: UInt8(truncatingIfNeeded: last), toByteOffset: offset, as: UInt8.self)
        last >>= 8
        offset += 1
    }
    return errSecSuccess
}
#endif
