import CommonCrypto
import Foundation
import Touchstone

// CommonRandom.h.

/// Fills `count` bytes at `bytes` from the system's generator (`getrandom(2)`). kCCParamError
/// when `bytes` is missing and `count` is not 0.
@_cdecl("CCRandomGenerateBytes")
public func ccRandomGenerateBytes(_ bytes: UnsafeMutableRawPointer?, _ count: Int) -> CCRNGStatus {
    guard count != 0 else { return CCRNGStatus(kCCSuccess) }
    // A count of 2^63 or more (negative as an Int) is no real buffer: refused, not ignored.
    guard let bytes, count > 0 else { return CCRNGStatus(kCCParamError) }
    copyBytes(RandomSource.system.bytes(count), to: bytes)
    return CCRNGStatus(kCCSuccess)
}
