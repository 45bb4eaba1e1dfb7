import CommonCrypto
import Foundation

// CommonRandom.h.

/// Fills `count` bytes at `bytes` from the system's generator (`getrandom(2)`). kCCParamError
/// when `bytes` is missing and `count` is not 0.
@_cdecl("CCRandomGenerateBytes")
public func ccRandomGenerateBytes(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> CCRNGStatus {
    guard count > 0 else { return CCRNGStatus(kCCSuccess) }
    guard let bytes else { return CCRNGStatus(kCCParamError) }
    var generator = SystemRandomNumberGenerator()
    var offset = 0
    while offset < count {
        let word = generator.next()
        for index in 0..<min(8, count - offset) {
            bytes.storeBytes(of: UInt8(truncatingIfNeeded: word >> (8 * index)), toByteOffset: offset + index, as: UInt8.self)
        }
        offset += 8
    }
    return CCRNGStatus(kCCSuccess)
}
