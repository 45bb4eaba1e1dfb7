// The status codes of Apple's CommonCrypto (`CommonCryptoError.h`). As Swift imports the
// header's anonymous enum, each constant is an `Int` and the functions return `Int32`:
// `status == kCCSuccess` compares them across integer types.

/// The status most CommonCrypto functions return.
public typealias CCStatus = Int32

/// The status `CCCrypt` and the `CCCryptor…` functions return.
public typealias CCCryptorStatus = Int32

/// The operation completed normally.
public let kCCSuccess = 0
/// An argument is invalid: an unknown algorithm, option or mode, a missing pointer, a length
/// out of range.
public let kCCParamError = -4300
/// The output buffer is too small; where the function says, the length it needs is returned.
public let kCCBufferTooSmall = -4301
/// Memory could not be allocated.
public let kCCMemoryFailure = -4302
/// The input is not a whole number of blocks, with no padding to make it one.
public let kCCAlignmentError = -4303
/// The input did not decode or decrypt: an AES key-wrap integrity check failed.
public let kCCDecodeError = -4304
/// The algorithm or mode is not implemented (here: every cipher but AES, see `CCCrypt`).
public let kCCUnimplemented = -4305
/// An output length overflowed.
public let kCCOverflow = -4306
/// The random number generator failed.
public let kCCRNGFailure = -4307
/// An unspecified failure.
public let kCCUnspecifiedError = -4308
/// The functions were called out of order.
public let kCCCallSequenceError = -4309
/// The key's length is not one the algorithm accepts.
public let kCCKeySizeError = -4310
/// The key is not valid.
public let kCCInvalidKey = -4311
