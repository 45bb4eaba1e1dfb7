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

/// The room a caller's `size_t` gives, as these `@_cdecl` functions read it (a `size_t` is an
/// `Int` here, so one of 2^63 or more is negative): such a room is more than any buffer, and
/// C callers pass `SIZE_MAX` to mean "room enough", so it reads as `Int.max`. Without this a
/// comparison with the room needed would call `SIZE_MAX` too small.
func availableRoom(_ size: Int) -> Int {
    size < 0 ? .max : size
}
