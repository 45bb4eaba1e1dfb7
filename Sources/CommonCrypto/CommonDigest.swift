import Crypto
import Foundation
import Touchstone

// Apple's `CommonDigest.h`: one-shot digests and their streaming contexts, on swift-crypto's
// hash functions (SHA-224 on Touchstone's own, which swift-crypto does not offer). The lengths
// are `Int32`, as Swift imports the header's macros.

/// A length as the digest functions take it.
public typealias CC_LONG = UInt32

/// MD5's digest length in bytes.
public let CC_MD5_DIGEST_LENGTH: Int32 = 16
/// MD5's block size in bytes.
public let CC_MD5_BLOCK_BYTES: Int32 = 64
/// SHA-1's digest length in bytes.
public let CC_SHA1_DIGEST_LENGTH: Int32 = 20
/// SHA-1's block size in bytes.
public let CC_SHA1_BLOCK_BYTES: Int32 = 64
/// SHA-224's digest length in bytes.
public let CC_SHA224_DIGEST_LENGTH: Int32 = 28
/// SHA-224's block size in bytes.
public let CC_SHA224_BLOCK_BYTES: Int32 = 64
/// SHA-256's digest length in bytes.
public let CC_SHA256_DIGEST_LENGTH: Int32 = 32
/// SHA-256's block size in bytes.
public let CC_SHA256_BLOCK_BYTES: Int32 = 64
/// SHA-384's digest length in bytes.
public let CC_SHA384_DIGEST_LENGTH: Int32 = 48
/// SHA-384's block size in bytes.
public let CC_SHA384_BLOCK_BYTES: Int32 = 128
/// SHA-512's digest length in bytes.
public let CC_SHA512_DIGEST_LENGTH: Int32 = 64
/// SHA-512's block size in bytes.
public let CC_SHA512_BLOCK_BYTES: Int32 = 128

/// A digest in progress, whichever function family's context holds it.
enum DigestState: Sendable {
    case md5(Insecure.MD5)
    case sha1(Insecure.SHA1)
    /// SHA-224 is computed at the end over everything given.
    case sha224(Data)
    case sha256(SHA256)
    case sha384(SHA384)
    case sha512(SHA512)

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .md5(var hasher): hasher.update(bufferPointer: bytes); self = .md5(hasher)
        case .sha1(var hasher): hasher.update(bufferPointer: bytes); self = .sha1(hasher)
        case .sha224(var message): message.append(contentsOf: bytes); self = .sha224(message)
        case .sha256(var hasher): hasher.update(bufferPointer: bytes); self = .sha256(hasher)
        case .sha384(var hasher): hasher.update(bufferPointer: bytes); self = .sha384(hasher)
        case .sha512(var hasher): hasher.update(bufferPointer: bytes); self = .sha512(hasher)
        }
    }

    func finalize() -> [UInt8] {
        switch self {
        case .md5(let hasher): Array(hasher.finalize())
        case .sha1(let hasher): Array(hasher.finalize())
        case .sha224(let message): Array(SHA224.hash(message))
        case .sha256(let hasher): Array(hasher.finalize())
        case .sha384(let hasher): Array(hasher.finalize())
        case .sha512(let hasher): Array(hasher.finalize())
        }
    }
}

/// Starts `state`, adds `bytes` and writes the digest to `md`, returning `md` as the C
/// functions do.
private func digest(
    _ state: DigestState, _ data: UnsafeRawPointer?, _ length: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?
) -> UnsafeMutablePointer<UInt8>? {
    var state = state
    state.update(rawBytes(data, Int(length)))
    copyBytes(state.finalize(), to: md)
    return md
}

/// The MD5 digest of `len` bytes at `data`, written to `md` (16 bytes), which is returned.
/// Deprecated on iOS 13 and later: MD5 is broken for security uses.
@available(iOS, deprecated: 13.0)
@discardableResult
public func CC_MD5(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    digest(.md5(Insecure.MD5()), data, len, md)
}

/// The SHA-1 digest of `len` bytes at `data`, written to `md` (20 bytes), which is returned.
@discardableResult
public func CC_SHA1(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    digest(.sha1(Insecure.SHA1()), data, len, md)
}

/// The SHA-224 digest of `len` bytes at `data`, written to `md` (28 bytes), which is returned.
@discardableResult
public func CC_SHA224(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    digest(.sha224(Data()), data, len, md)
}

/// The SHA-256 digest of `len` bytes at `data`, written to `md` (32 bytes), which is returned.
@discardableResult
public func CC_SHA256(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    digest(.sha256(SHA256()), data, len, md)
}

/// The SHA-384 digest of `len` bytes at `data`, written to `md` (48 bytes), which is returned.
@discardableResult
public func CC_SHA384(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    digest(.sha384(SHA384()), data, len, md)
}

/// The SHA-512 digest of `len` bytes at `data`, written to `md` (64 bytes), which is returned.
@discardableResult
public func CC_SHA512(_ data: UnsafeRawPointer!, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>!) -> UnsafeMutablePointer<UInt8>! {
    digest(.sha512(SHA512()), data, len, md)
}

// MARK: - Streaming contexts

/// An MD5 digest in progress (`CC_MD5_Init`, `CC_MD5_Update`, `CC_MD5_Final`).
public struct CC_MD5_CTX: Sendable {
    var state: DigestState?
    /// An empty context; `CC_MD5_Init` starts it.
    public init() {}
}

/// A SHA-1 digest in progress (`CC_SHA1_Init`, `CC_SHA1_Update`, `CC_SHA1_Final`).
public struct CC_SHA1_CTX: Sendable {
    var state: DigestState?
    /// An empty context; `CC_SHA1_Init` starts it.
    public init() {}
}

/// A SHA-224 or SHA-256 digest in progress: as in C, the `CC_SHA224_…` and `CC_SHA256_…`
/// functions share this context.
public struct CC_SHA256_CTX: Sendable {
    var state: DigestState?
    /// An empty context; `CC_SHA256_Init` or `CC_SHA224_Init` starts it.
    public init() {}
}

/// A SHA-384 or SHA-512 digest in progress: as in C, the `CC_SHA384_…` and `CC_SHA512_…`
/// functions share this context.
public struct CC_SHA512_CTX: Sendable {
    var state: DigestState?
    /// An empty context; `CC_SHA512_Init` or `CC_SHA384_Init` starts it.
    public init() {}
}

/// The three steps every context type takes, written once.
protocol DigestContext {
    var state: DigestState? { get set }
}

extension CC_MD5_CTX: DigestContext {}
extension CC_SHA1_CTX: DigestContext {}
extension CC_SHA256_CTX: DigestContext {}
extension CC_SHA512_CTX: DigestContext {}

private func start<Context: DigestContext>(_ context: UnsafeMutablePointer<Context>?, _ state: DigestState) -> Int32 {
    context?.pointee.state = state
    return 1
}

/// Adds bytes; a context that was never started starts as `fresh` (C would hash from a
/// zeroed state, a wrong digest no caller wants).
private func update<Context: DigestContext>(
    _ context: UnsafeMutablePointer<Context>?, _ data: UnsafeRawPointer?, _ length: CC_LONG, fresh: DigestState
) -> Int32 {
    guard let context else { return 0 }
    var state = context.pointee.state ?? fresh
    state.update(rawBytes(data, Int(length)))
    context.pointee.state = state
    return 1
}

private func finish<Context: DigestContext>(
    _ md: UnsafeMutablePointer<UInt8>?, _ context: UnsafeMutablePointer<Context>?, fresh: DigestState
) -> Int32 {
    guard let context else { return 0 }
    copyBytes((context.pointee.state ?? fresh).finalize(), to: md)
    context.pointee.state = nil
    return 1
}

/// Starts an MD5 digest. Returns 1.
@available(iOS, deprecated: 13.0)
@discardableResult
public func CC_MD5_Init(_ c: UnsafeMutablePointer<CC_MD5_CTX>!) -> Int32 { start(c, .md5(Insecure.MD5())) }
/// Adds `len` bytes at `data` to an MD5 digest. Returns 1.
@available(iOS, deprecated: 13.0)
@discardableResult
public func CC_MD5_Update(_ c: UnsafeMutablePointer<CC_MD5_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .md5(Insecure.MD5()))
}
/// Writes the MD5 digest to `md` (16 bytes). Returns 1.
@available(iOS, deprecated: 13.0)
@discardableResult
public func CC_MD5_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_MD5_CTX>!) -> Int32 {
    finish(md, c, fresh: .md5(Insecure.MD5()))
}

/// Starts a SHA-1 digest. Returns 1.
@discardableResult
public func CC_SHA1_Init(_ c: UnsafeMutablePointer<CC_SHA1_CTX>!) -> Int32 { start(c, .sha1(Insecure.SHA1())) }
/// Adds `len` bytes at `data` to a SHA-1 digest. Returns 1.
@discardableResult
public func CC_SHA1_Update(_ c: UnsafeMutablePointer<CC_SHA1_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha1(Insecure.SHA1()))
}
/// Writes the SHA-1 digest to `md` (20 bytes). Returns 1.
@discardableResult
public func CC_SHA1_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA1_CTX>!) -> Int32 {
    finish(md, c, fresh: .sha1(Insecure.SHA1()))
}

/// Starts a SHA-224 digest. Returns 1.
@discardableResult
public func CC_SHA224_Init(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 { start(c, .sha224(Data())) }
/// Adds `len` bytes at `data` to a SHA-224 digest. Returns 1.
@discardableResult
public func CC_SHA224_Update(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha224(Data()))
}
/// Writes the SHA-224 digest to `md` (28 bytes). Returns 1.
@discardableResult
public func CC_SHA224_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 {
    finish(md, c, fresh: .sha224(Data()))
}

/// Starts a SHA-256 digest. Returns 1.
@discardableResult
public func CC_SHA256_Init(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 { start(c, .sha256(SHA256())) }
/// Adds `len` bytes at `data` to a SHA-256 digest. Returns 1.
@discardableResult
public func CC_SHA256_Update(_ c: UnsafeMutablePointer<CC_SHA256_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha256(SHA256()))
}
/// Writes the SHA-256 digest to `md` (32 bytes). Returns 1.
@discardableResult
public func CC_SHA256_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA256_CTX>!) -> Int32 {
    finish(md, c, fresh: .sha256(SHA256()))
}

/// Starts a SHA-384 digest. Returns 1.
@discardableResult
public func CC_SHA384_Init(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 { start(c, .sha384(SHA384())) }
/// Adds `len` bytes at `data` to a SHA-384 digest. Returns 1.
@discardableResult
public func CC_SHA384_Update(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha384(SHA384()))
}
/// Writes the SHA-384 digest to `md` (48 bytes). Returns 1.
@discardableResult
public func CC_SHA384_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 {
    finish(md, c, fresh: .sha384(SHA384()))
}

/// Starts a SHA-512 digest. Returns 1.
@discardableResult
public func CC_SHA512_Init(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 { start(c, .sha512(SHA512())) }
/// Adds `len` bytes at `data` to a SHA-512 digest. Returns 1.
@discardableResult
public func CC_SHA512_Update(_ c: UnsafeMutablePointer<CC_SHA512_CTX>!, _ data: UnsafeRawPointer!, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha512(SHA512()))
}
/// Writes the SHA-512 digest to `md` (64 bytes). Returns 1.
@discardableResult
public func CC_SHA512_Final(_ md: UnsafeMutablePointer<UInt8>!, _ c: UnsafeMutablePointer<CC_SHA512_CTX>!) -> Int32 {
    finish(md, c, fresh: .sha512(SHA512()))
}
