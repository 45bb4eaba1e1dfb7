import CommonCrypto
import Crypto
import Foundation
import Touchstone

// CommonHMAC.h's functions, on swift-crypto's `HMAC` (HMAC-SHA-224 over Touchstone's SHA-224,
// RFC 2104's construction written out).

/// An HMAC in progress, by digest.
enum HMACState: Sendable {
    case md5(HMAC<Insecure.MD5>)
    case sha1(HMAC<Insecure.SHA1>)
    /// HMAC-SHA-224 (RFC 2104 written out): the inner digest in progress, and the key block
    /// for the outer one.
    case sha224(inner: SHA224.Hasher, keyBlock: [UInt8])
    case sha256(HMAC<SHA256>)
    case sha384(HMAC<SHA384>)
    case sha512(HMAC<SHA512>)

    /// The state for `algorithm` keyed with `key`, or nil for an algorithm CommonCrypto does not
    /// name (its `CCHmacInit` then leaves the context as it was).
    init?(_ algorithm: CCHmacAlgorithm, key: UnsafeRawBufferPointer) {
        let symmetricKey = SymmetricKey(data: key)
        switch Int(algorithm) {
        case kCCHmacAlgMD5: self = .md5(HMAC(key: symmetricKey))
        case kCCHmacAlgSHA1: self = .sha1(HMAC(key: symmetricKey))
        case kCCHmacAlgSHA224:
            let keyBlock = Self.sha224KeyBlock(key)
            var inner = SHA224.Hasher()
            keyBlock.map { $0 ^ 0x36 }.withUnsafeBytes { inner.update($0) }
            self = .sha224(inner: inner, keyBlock: keyBlock)
        case kCCHmacAlgSHA256: self = .sha256(HMAC(key: symmetricKey))
        case kCCHmacAlgSHA384: self = .sha384(HMAC(key: symmetricKey))
        case kCCHmacAlgSHA512: self = .sha512(HMAC(key: symmetricKey))
        default: return nil
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        switch self {
        case .md5(var mac): mac.update(data: bytes); self = .md5(mac)
        case .sha1(var mac): mac.update(data: bytes); self = .sha1(mac)
        case .sha224(var inner, let keyBlock): inner.update(bytes); self = .sha224(inner: inner, keyBlock: keyBlock)
        case .sha256(var mac): mac.update(data: bytes); self = .sha256(mac)
        case .sha384(var mac): mac.update(data: bytes); self = .sha384(mac)
        case .sha512(var mac): mac.update(data: bytes); self = .sha512(mac)
        }
    }

    func finalize() -> [UInt8] {
        switch self {
        case .md5(let mac): Array(mac.finalize())
        case .sha1(let mac): Array(mac.finalize())
        case .sha224(let inner, let keyBlock):
            // RFC 2104: H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ message)).
            Array(SHA224.hash(Data(keyBlock.map { $0 ^ 0x5C }) + inner.finalize()))
        case .sha256(let mac): Array(mac.finalize())
        case .sha384(let mac): Array(mac.finalize())
        case .sha512(let mac): Array(mac.finalize())
        }
    }

    /// RFC 2104's key block for SHA-224 (64-byte blocks): the key, hashed first when longer,
    /// padded with zeros.
    private static func sha224KeyBlock(_ key: UnsafeRawBufferPointer) -> [UInt8] {
        let blockSize = 64
        var block = key.count > blockSize ? Array(SHA224.hash(Data(key))) : Array(key)
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        return block
    }
}

/// The HMACs of the contexts in progress.
private let hmacs = ContextHandles<HMACState>()

@_cdecl("CCHmacInit")
public func ccHmacInit(_ ctx: UnsafeMutableRawPointer?, _ algorithm: CCHmacAlgorithm, _ key: UnsafeRawPointer?, _ keyLength: Int) {
    guard let ctx else { return }
    // CommonCrypto clears the context first, so an algorithm it does not name ends what the
    // context held.
    guard let state = HMACState(algorithm, key: rawBytes(key, keyLength)) else {
        hmacs.clear(ctx)
        return
    }
    hmacs.start(ctx, with: state)
}

@_cdecl("CCHmacUpdate")
public func ccHmacUpdate(_ ctx: UnsafeMutableRawPointer?, _ data: UnsafeRawPointer?, _ dataLength: Int) {
    guard let ctx else { return }
    let bytes = rawBytes(data, dataLength)
    // A context never started has no key: an HMAC-SHA-1 with an empty one, as a zeroed C
    // context's first algorithm.
    hmacs.update(ctx, fresh: .sha1(HMAC(key: SymmetricKey(data: Data())))) { $0.update(bytes) }
}

@_cdecl("CCHmacFinal")
public func ccHmacFinal(_ ctx: UnsafeMutableRawPointer?, _ macOut: UnsafeMutableRawPointer?) {
    guard let ctx else { return }
    let state = hmacs.finish(ctx, fresh: .sha1(HMAC(key: SymmetricKey(data: Data()))))
    copyBytes(state.finalize(), to: macOut)
}

@_cdecl("CCHmac")
public func ccHmac(
    _ algorithm: CCHmacAlgorithm, _ key: UnsafeRawPointer?, _ keyLength: Int,
    _ data: UnsafeRawPointer?, _ dataLength: Int, _ macOut: UnsafeMutableRawPointer?
) {
    // An algorithm CommonCrypto does not name writes nothing.
    guard var state = HMACState(algorithm, key: rawBytes(key, keyLength)) else { return }
    state.update(rawBytes(data, dataLength))
    copyBytes(state.finalize(), to: macOut)
}
