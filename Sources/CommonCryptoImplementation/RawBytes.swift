import Foundation

/// The bytes a C-style argument pair names: `count` bytes at `pointer`, none when either is
/// absent (a `NULL` pointer with length 0 is how C callers pass "no data").
func rawBytes(_ pointer: UnsafeRawPointer?, _ count: Int) -> UnsafeRawBufferPointer {
    guard let pointer, count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
    return UnsafeRawBufferPointer(start: pointer, count: count)
}

/// Copies `bytes` to `destination` (nothing when it is absent: C's caller would crash there).
func copyBytes<Bytes: Collection<UInt8>>(_ bytes: Bytes, to destination: UnsafeMutableRawPointer?) {
    guard let destination else { return }
    UnsafeMutableRawBufferPointer(start: destination, count: bytes.count).copyBytes(from: bytes)
}
