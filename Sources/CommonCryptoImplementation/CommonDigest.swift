import CommonCrypto
import Crypto
import Foundation
import Touchstone

// CommonDigest.h's functions, on swift-crypto's hash functions (SHA-224, MD2 and MD4 on
// Touchstone's own, which swift-crypto does not offer).

/// A digest in progress.
enum DigestState: Sendable {
    case md2(MD2)
    case md4(MD4)
    case md5(Insecure.MD5)
    case sha1(Insecure.SHA1)
    case sha224(SHA224.Hasher)
    case sha256(SHA256)
    case sha384(SHA384)
    case sha512(SHA512)

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .md2(var hasher): hasher.update(bytes); self = .md2(hasher)
        case .md4(var hasher): hasher.update(bytes); self = .md4(hasher)
        case .md5(var hasher): hasher.update(bufferPointer: bytes); self = .md5(hasher)
        case .sha1(var hasher): hasher.update(bufferPointer: bytes); self = .sha1(hasher)
        case .sha224(var hasher): hasher.update(bytes); self = .sha224(hasher)
        case .sha256(var hasher): hasher.update(bufferPointer: bytes); self = .sha256(hasher)
        case .sha384(var hasher): hasher.update(bufferPointer: bytes); self = .sha384(hasher)
        case .sha512(var hasher): hasher.update(bufferPointer: bytes); self = .sha512(hasher)
        }
    }

    func finalize() -> [UInt8] {
        switch self {
        case .md2(let hasher): hasher.finalize()
        case .md4(let hasher): hasher.finalize()
        case .md5(let hasher): Array(hasher.finalize())
        case .sha1(let hasher): Array(hasher.finalize())
        case .sha224(let hasher): Array(hasher.finalize())
        case .sha256(let hasher): Array(hasher.finalize())
        case .sha384(let hasher): Array(hasher.finalize())
        case .sha512(let hasher): Array(hasher.finalize())
        }
    }
}

/// The digests of the contexts in progress. The contexts come as raw pointers: Swift cannot
/// declare a C function taking a pointer to an imported C struct without Objective-C interop,
/// and the pointer is the same either way.
private let digests = ContextHandles<DigestState>()

/// A one-shot digest: `len` bytes at `data` into `md`, which is returned.
private func digest(
    _ state: DigestState, _ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?
) -> UnsafeMutablePointer<UInt8>? {
    var state = state
    state.update(rawBytes(data, Int(len)))
    copyBytes(state.finalize(), to: md)
    return md
}

private func start(_ context: UnsafeMutableRawPointer?, _ state: DigestState) -> Int32 {
    guard let context else { return 0 }
    digests.start(context, with: state)
    return 1
}

private func update(_ context: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG, fresh: DigestState) -> Int32 {
    guard let context else { return 0 }
    let bytes = rawBytes(data, Int(len))
    digests.update(context, fresh: fresh) { $0.update(bytes) }
    return 1
}

private func finish(_ md: UnsafeMutablePointer<UInt8>?, _ context: UnsafeMutableRawPointer?, fresh: DigestState) -> Int32 {
    guard let context else { return 0 }
    copyBytes(digests.finish(context, fresh: fresh).finalize(), to: md)
    return 1
}

@_cdecl("CC_MD2")
public func ccMD2(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
    digest(.md2(MD2()), data, len, md)
}
@_cdecl("CC_MD2_Init")
public func ccMD2Init(_ c: UnsafeMutableRawPointer?) -> Int32 { start(c, .md2(MD2())) }
@_cdecl("CC_MD2_Update")
public func ccMD2Update(_ c: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .md2(MD2()))
}
@_cdecl("CC_MD2_Final")
public func ccMD2Final(_ md: UnsafeMutablePointer<UInt8>?, _ c: UnsafeMutableRawPointer?) -> Int32 {
    finish(md, c, fresh: .md2(MD2()))
}

@_cdecl("CC_MD4")
public func ccMD4(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
    digest(.md4(MD4()), data, len, md)
}
@_cdecl("CC_MD4_Init")
public func ccMD4Init(_ c: UnsafeMutableRawPointer?) -> Int32 { start(c, .md4(MD4())) }
@_cdecl("CC_MD4_Update")
public func ccMD4Update(_ c: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .md4(MD4()))
}
@_cdecl("CC_MD4_Final")
public func ccMD4Final(_ md: UnsafeMutablePointer<UInt8>?, _ c: UnsafeMutableRawPointer?) -> Int32 {
    finish(md, c, fresh: .md4(MD4()))
}

@_cdecl("CC_MD5")
public func ccMD5(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
    digest(.md5(Insecure.MD5()), data, len, md)
}
@_cdecl("CC_MD5_Init")
public func ccMD5Init(_ c: UnsafeMutableRawPointer?) -> Int32 { start(c, .md5(Insecure.MD5())) }
@_cdecl("CC_MD5_Update")
public func ccMD5Update(_ c: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .md5(Insecure.MD5()))
}
@_cdecl("CC_MD5_Final")
public func ccMD5Final(_ md: UnsafeMutablePointer<UInt8>?, _ c: UnsafeMutableRawPointer?) -> Int32 {
    finish(md, c, fresh: .md5(Insecure.MD5()))
}

@_cdecl("CC_SHA1")
public func ccSHA1(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
    digest(.sha1(Insecure.SHA1()), data, len, md)
}
@_cdecl("CC_SHA1_Init")
public func ccSHA1Init(_ c: UnsafeMutableRawPointer?) -> Int32 { start(c, .sha1(Insecure.SHA1())) }
@_cdecl("CC_SHA1_Update")
public func ccSHA1Update(_ c: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha1(Insecure.SHA1()))
}
@_cdecl("CC_SHA1_Final")
public func ccSHA1Final(_ md: UnsafeMutablePointer<UInt8>?, _ c: UnsafeMutableRawPointer?) -> Int32 {
    finish(md, c, fresh: .sha1(Insecure.SHA1()))
}

@_cdecl("CC_SHA224")
public func ccSHA224(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
    digest(.sha224(SHA224.Hasher()), data, len, md)
}
@_cdecl("CC_SHA224_Init")
public func ccSHA224Init(_ c: UnsafeMutableRawPointer?) -> Int32 { start(c, .sha224(SHA224.Hasher())) }
@_cdecl("CC_SHA224_Update")
public func ccSHA224Update(_ c: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha224(SHA224.Hasher()))
}
@_cdecl("CC_SHA224_Final")
public func ccSHA224Final(_ md: UnsafeMutablePointer<UInt8>?, _ c: UnsafeMutableRawPointer?) -> Int32 {
    finish(md, c, fresh: .sha224(SHA224.Hasher()))
}

@_cdecl("CC_SHA256")
public func ccSHA256(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
    digest(.sha256(SHA256()), data, len, md)
}
@_cdecl("CC_SHA256_Init")
public func ccSHA256Init(_ c: UnsafeMutableRawPointer?) -> Int32 { start(c, .sha256(SHA256())) }
@_cdecl("CC_SHA256_Update")
public func ccSHA256Update(_ c: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha256(SHA256()))
}
@_cdecl("CC_SHA256_Final")
public func ccSHA256Final(_ md: UnsafeMutablePointer<UInt8>?, _ c: UnsafeMutableRawPointer?) -> Int32 {
    finish(md, c, fresh: .sha256(SHA256()))
}

@_cdecl("CC_SHA384")
public func ccSHA384(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
    digest(.sha384(SHA384()), data, len, md)
}
@_cdecl("CC_SHA384_Init")
public func ccSHA384Init(_ c: UnsafeMutableRawPointer?) -> Int32 { start(c, .sha384(SHA384())) }
@_cdecl("CC_SHA384_Update")
public func ccSHA384Update(_ c: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha384(SHA384()))
}
@_cdecl("CC_SHA384_Final")
public func ccSHA384Final(_ md: UnsafeMutablePointer<UInt8>?, _ c: UnsafeMutableRawPointer?) -> Int32 {
    finish(md, c, fresh: .sha384(SHA384()))
}

@_cdecl("CC_SHA512")
public func ccSHA512(_ data: UnsafeRawPointer?, _ len: CC_LONG, _ md: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>? {
    digest(.sha512(SHA512()), data, len, md)
}
@_cdecl("CC_SHA512_Init")
public func ccSHA512Init(_ c: UnsafeMutableRawPointer?) -> Int32 { start(c, .sha512(SHA512())) }
@_cdecl("CC_SHA512_Update")
public func ccSHA512Update(_ c: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ len: CC_LONG) -> Int32 {
    update(c, data, len, fresh: .sha512(SHA512()))
}
@_cdecl("CC_SHA512_Final")
public func ccSHA512Final(_ md: UnsafeMutablePointer<UInt8>?, _ c: UnsafeMutableRawPointer?) -> Int32 {
    finish(md, c, fresh: .sha512(SHA512()))
}
