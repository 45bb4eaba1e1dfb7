#if !canImport(Darwin)
import Foundation
import Touchstone

// The pointer-and-length key calls Apple deprecated in iOS 15 (`SecKeyRawSign`,
// `SecKeyRawVerify`, `SecKeyEncrypt`, `SecKeyDecrypt`), still in wrappers' iOS branches. As in
// Apple's Security, each picks a `SecKeyAlgorithm` from its padding and runs the modern call.

/// The padding a legacy key call names (deprecated by Apple; use ``SecKeyAlgorithm``).
public struct SecPadding: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    /// A padding from its `kSecPadding…` value.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// PKCS #1 padding; for an EC key, an X9.62 (DER) signature of the digest given.
    public static let PKCS1 = SecPadding(rawValue: 1)
    /// OAEP (RSA encryption only).
    public static let OAEP = SecPadding(rawValue: 2)
    /// For an EC key: the raw `r || s` signature (RFC 4754).
    public static let sigRaw = SecPadding(rawValue: 0x4000)
    /// The data signed is an MD2 digest (RSA only).
    public static let PKCS1MD2 = SecPadding(rawValue: 0x8000)
    /// The data signed is an MD5 digest (RSA only).
    public static let PKCS1MD5 = SecPadding(rawValue: 0x8001)
    /// The data signed is a SHA-1 digest (RSA only).
    public static let PKCS1SHA1 = SecPadding(rawValue: 0x8002)
    /// The data signed is a SHA-224 digest (RSA only).
    public static let PKCS1SHA224 = SecPadding(rawValue: 0x8003)
    /// The data signed is a SHA-256 digest (RSA only).
    public static let PKCS1SHA256 = SecPadding(rawValue: 0x8004)
    /// The data signed is a SHA-384 digest (RSA only).
    public static let PKCS1SHA384 = SecPadding(rawValue: 0x8005)
    /// The data signed is a SHA-512 digest (RSA only).
    public static let PKCS1SHA512 = SecPadding(rawValue: 0x8006)

    /// The signature algorithm Apple's Security picks for an EC key (`SecKey.m`): `sigRaw` is
    /// RFC 4754's r || s over the digest as given;
    /// `PKCS1` with a digest of a known hash's length names that hash; anything else (even no
    /// padding) is X9.62 over the digest as given, as Apple keeps for compatibility.
    func ecSignatureAlgorithm(digestLength: Int) -> SecKeyAlgorithm {
        if self == .sigRaw { return .ecdsaSignatureDigestRFC4754 }
        if self == .PKCS1 {
            switch digestLength {
            case 20: return .ecdsaSignatureDigestX962SHA1
            case 28: return .ecdsaSignatureDigestX962SHA224
            case 32: return .ecdsaSignatureDigestX962SHA256
            case 48: return .ecdsaSignatureDigestX962SHA384
            case 64: return .ecdsaSignatureDigestX962SHA512
            default: break
            }
        }
        return .ecdsaSignatureDigestX962
    }

    /// The signature algorithm Apple's Security picks for an RSA key (`SecKey.c`, iOS): no
    /// padding is raw RSA, `.PKCS1` PKCS#1 v1.5 around the bytes given (a `DigestInfo`), and
    /// `.PKCS1SHA1`…`.PKCS1SHA512` PKCS#1 v1.5 over a digest of that hash; nil (errSecParam)
    /// for the others.
    var rsaSignatureAlgorithm: SecKeyAlgorithm? {
        switch self {
        case []: .rsaSignatureRaw
        case .PKCS1: .rsaSignatureDigestPKCS1v15Raw
        case .PKCS1SHA1: .rsaSignatureDigestPKCS1v15SHA1
        case .PKCS1SHA224: .rsaSignatureDigestPKCS1v15SHA224
        case .PKCS1SHA256: .rsaSignatureDigestPKCS1v15SHA256
        case .PKCS1SHA384: .rsaSignatureDigestPKCS1v15SHA384
        case .PKCS1SHA512: .rsaSignatureDigestPKCS1v15SHA512
        default: nil
        }
    }

    /// The encryption algorithm Apple's Security picks for an RSA key (`SecKey.c`): no padding
    /// is raw RSA, `.PKCS1` PKCS#1 v1.5, `.OAEP` OAEP with SHA-1; nil for the others.
    var rsaEncryptionAlgorithm: SecKeyAlgorithm? {
        switch self {
        case []: .rsaEncryptionRaw
        case .PKCS1: .rsaEncryptionPKCS1
        case .OAEP: .rsaEncryptionOAEPSHA1
        default: nil
        }
    }
}

extension SecKey {
    /// The signature algorithm a legacy call with `padding` runs for this key, as Apple's
    /// `SecKey.c` picks it; nil (errSecParam) when the padding has none for an RSA key.
    func legacySignatureAlgorithm(_ padding: SecPadding, digestLength: Int) -> SecKeyAlgorithm? {
        inMemoryKey is RSAKey ? padding.rsaSignatureAlgorithm : padding.ecSignatureAlgorithm(digestLength: digestLength)
    }
}

/// The status a legacy TLS-era call returns where the modern one fails with
/// `errSecVerifyFailed`: a signature that does not verify.
public let errSSLCrypto: OSStatus = -9809

/// Signs the digest `dataToSign` with a private key (deprecated by Apple: use
/// ``SecKeyCreateSignature(_:_:_:_:)``, which this runs, prompt and all). For an EC key, with
/// `.PKCS1` (the usual choice) the signature is DER X9.62; `.sigRaw` gives RFC 4754's r || s
/// (`.ecdsaSignatureDigestRFC4754`, as Apple's `SecKey.m` maps it). For an RSA key, `.PKCS1SHA256` and its kin sign a digest
/// of that hash, `.PKCS1` a `DigestInfo` given whole, no padding a raw block. The signature is written to `sig` and its length to `sigLen`,
/// which holds the buffer's size on entry: a buffer too small is `errSecParam`.
public func SecKeyRawSign(_ key: SecKey, _ padding: SecPadding, _ dataToSign: UnsafePointer<UInt8>, _ dataToSignLen: Int,
                          _ sig: UnsafeMutablePointer<UInt8>, _ sigLen: UnsafeMutablePointer<Int>) -> OSStatus {
    guard dataToSignLen >= 0, let algorithm = key.legacySignatureAlgorithm(padding, digestLength: dataToSignLen) else { return errSecParam }
    var error: Unmanaged<CFError>?
    guard let signature = SecKeyCreateSignature(key, algorithm, Data(bytes: dataToSign, count: dataToSignLen) as CFData, &error) else {
        return legacyStatus(error)
    }
    return copyLegacyOutput(Data(referencing: signature), to: sig, length: sigLen)
}

/// Checks a signature made by ``SecKeyRawSign(_:_:_:_:_:_:)`` over the digest `signedData`
/// with a public key (deprecated by Apple: use ``SecKeyVerifySignature(_:_:_:_:_:)``).
/// `errSecSuccess` when it verifies; `errSSLCrypto` (-9809) when it does not, as Apple's
/// published `SecKey.c` maps `errSecVerifyFailed` for the legacy calls.
public func SecKeyRawVerify(_ key: SecKey, _ padding: SecPadding, _ signedData: UnsafePointer<UInt8>, _ signedDataLen: Int,
                            _ sig: UnsafePointer<UInt8>, _ sigLen: Int) -> OSStatus {
    guard signedDataLen >= 0, sigLen >= 0, let algorithm = key.legacySignatureAlgorithm(padding, digestLength: signedDataLen) else {
        return errSecParam
    }
    var error: Unmanaged<CFError>?
    let verified = SecKeyVerifySignature(key, algorithm, Data(bytes: signedData, count: signedDataLen) as CFData,
                                         Data(bytes: sig, count: sigLen) as CFData, &error)
    if verified { return errSecSuccess }
    let status = legacyStatus(error)
    return status == errSecVerifyFailed ? errSSLCrypto : status
}

/// Encrypts with an RSA public key (deprecated by Apple: use
/// ``SecKeyCreateEncryptedData(_:_:_:_:)``, which this runs): `.PKCS1` is
/// `.rsaEncryptionPKCS1`, `.OAEP` is `.rsaEncryptionOAEPSHA1`, no padding (`[]`) is
/// `.rsaEncryptionRaw`; other paddings and EC keys, for which Apple's call has no padding to
/// offer, are `errSecParam`. The ciphertext is written to `cipherText` and its length to `cipherTextLen`,
/// which holds the buffer's size on entry: a buffer too small is `errSecParam`.
public func SecKeyEncrypt(_ key: SecKey, _ padding: SecPadding, _ plainText: UnsafePointer<UInt8>, _ plainTextLen: Int,
                          _ cipherText: UnsafeMutablePointer<UInt8>, _ cipherTextLen: UnsafeMutablePointer<Int>) -> OSStatus {
    guard key.inMemoryKey is RSAKey, plainTextLen >= 0, let algorithm = padding.rsaEncryptionAlgorithm else { return errSecParam }
    var error: Unmanaged<CFError>?
    guard let result = SecKeyCreateEncryptedData(key, algorithm, Data(bytes: plainText, count: plainTextLen) as CFData, &error) else {
        return legacyStatus(error)
    }
    return copyLegacyOutput(Data(referencing: result), to: cipherText, length: cipherTextLen)
}

/// Decrypts with an RSA private key (deprecated by Apple: use
/// ``SecKeyCreateDecryptedData(_:_:_:_:)``, which this runs); paddings and buffers as
/// ``SecKeyEncrypt(_:_:_:_:_:_:)``. With no padding the block's leading zeros are taken off,
/// as Apple's call does.
public func SecKeyDecrypt(_ key: SecKey, _ padding: SecPadding, _ cipherText: UnsafePointer<UInt8>, _ cipherTextLen: Int,
                          _ plainText: UnsafeMutablePointer<UInt8>, _ plainTextLen: UnsafeMutablePointer<Int>) -> OSStatus {
    guard key.inMemoryKey is RSAKey, cipherTextLen >= 0, let algorithm = padding.rsaEncryptionAlgorithm else { return errSecParam }
    var error: Unmanaged<CFError>?
    guard let result = SecKeyCreateDecryptedData(key, algorithm, Data(bytes: cipherText, count: cipherTextLen) as CFData, &error) else {
        return legacyStatus(error)
    }
    var plain = Data(referencing: result)
    // Raw RSA gives a whole block: as Apple's call does, the leading zeros are taken off.
    if algorithm == .rsaEncryptionRaw { plain = Data(plain.drop { $0 == 0 }) }
    return copyLegacyOutput(plain, to: plainText, length: plainTextLen)
}

/// Copies a legacy call's result into the caller's buffer, whose size `length` holds on entry
/// (`errSecParam` when it does not fit), and writes the result's length back.
private func copyLegacyOutput(_ bytes: Data, to buffer: UnsafeMutablePointer<UInt8>, length: UnsafeMutablePointer<Int>) -> OSStatus {
    guard bytes.count <= length.pointee else { return errSecParam }
    bytes.copyBytes(to: buffer, count: bytes.count)
    length.pointee = bytes.count
    return errSecSuccess
}

/// The `OSStatus` of a failed modern key call, as Apple's `SecErrorGetOSStatus` gives it: its
/// code in `NSOSStatusErrorDomain`; for a failed prompt (an LAError) `errSecUserCanceled` when
/// the user cancelled, `errSecInteractionNotAllowed` when the context may not prompt,
/// `errSecParam` for a parameter error (-1001) and `errSecAuthFailed` for the rest.
func legacyStatus(_ error: Unmanaged<CFError>?) -> OSStatus {
    guard let failure = error?.takeRetainedValue() else { return errSecParam }
    if failure.domain == NSOSStatusErrorDomain { return OSStatus(truncatingIfNeeded: failure.code) }
    guard failure.domain == "com.apple.LocalAuthentication" else { return errSecInternal }
    switch failure.code {
    case AuthenticationError.Code.userCancel.rawValue: return errSecUserCanceled
    case AuthenticationError.Code.notInteractive.rawValue: return errSecInteractionNotAllowed
    case -1001: return errSecParam  // LocalAuthentication's parameter error, which Touchstone never raises
    default: return errSecAuthFailed
    }
}
#endif
