#if !canImport(Darwin)
import Foundation
// The kSec* keys and values of key dictionaries (`SecKeyCreateRandomKey`, `kSecClassKey`
// queries, `SecKeyCopyAttributes`) with Apple's string values, and `SecKeyAlgorithm`.

/// The key type (`kSecAttrKeyTypeECSECPrimeRandom`...). Apple's value is `"type"`, the same
/// string as `kSecAttrType`.
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// Elliptic-curve keys on the NIST prime curves (P-256 in the Secure Enclave).
nonisolated(unsafe) public let kSecAttrKeyTypeECSECPrimeRandom: CFString = "73"
/// The older name of ``kSecAttrKeyTypeECSECPrimeRandom`` (the same value).
nonisolated(unsafe) public let kSecAttrKeyTypeEC: CFString = "73"
/// RSA keys: not available in the Secure Enclave (`errSecParam` here).
nonisolated(unsafe) public let kSecAttrKeyTypeRSA: CFString = "42"
/// The key size in bits (256 for Secure Enclave keys), an `Int` or `NSNumber`.
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// The effective key size in bits (returned by `SecKeyCopyAttributes`).
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// The key class: ``kSecAttrKeyClassPublic`` or ``kSecAttrKeyClassPrivate``.
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// A public key.
nonisolated(unsafe) public let kSecAttrKeyClassPublic: CFString = "0"
/// A private key.
nonisolated(unsafe) public let kSecAttrKeyClassPrivate: CFString = "1"
/// A symmetric key: a `kSecClassKey` item of this class keeps the `kSecValueData` bytes it is
/// added with (no `SecKey` is made of them, as on iOS).
nonisolated(unsafe) public let kSecAttrKeyClassSymmetric: CFString = "2"
/// The application label of a key (`Data`): for EC keys the SHA-1 of the public key.
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// Whether a new key is stored in the keychain (`Bool`; default false).
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// Which token holds the key: ``kSecAttrTokenIDSecureEnclave``.
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"
/// The Secure Enclave (simulated by the Touchstone device).
nonisolated(unsafe) public let kSecAttrTokenIDSecureEnclave: CFString = "com.apple.setoken"
/// The attributes of the private half of a new key pair (a dictionary).
nonisolated(unsafe) public let kSecPrivateKeyAttrs: CFString = "private"
/// The attributes of the public half of a new key pair (a dictionary; accepted, ignored).
nonisolated(unsafe) public let kSecPublicKeyAttrs: CFString = "public"
/// Whether the key can sign (returned by `SecKeyCopyAttributes`).
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// Whether the key can verify.
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// Whether the key can encrypt.
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// Whether the key can decrypt.
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// Whether the key can derive (key exchange).
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// Whether the key's bytes can be exported (false for Secure Enclave private keys).
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// Whether the key is sensitive (true for Secure Enclave private keys).
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// `SecKeyCopyKeyExchangeResult` parameter: the number of bytes to derive (`Int`).
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterRequestedSize: CFString = "requestedSize"
/// `SecKeyCopyKeyExchangeResult` parameter: the KDF's shared info (`Data`).
nonisolated(unsafe) public let kSecKeyKeyExchangeParameterSharedInfo: CFString = "sharedInfo"

/// A key of `SecKeyCopyKeyExchangeResult`'s parameters, as iOS Swift spells them:
/// `[SecKeyKeyExchangeParameter.requestedSize.rawValue: 32] as CFDictionary`.
public struct SecKeyKeyExchangeParameter: RawRepresentable, Hashable, Sendable {
    /// Apple's key string, e.g. `"requestedSize"`.
    public let identifier: String

    /// The parameter named `rawValue`.
    public init(rawValue: CFString) { identifier = rawValue as String }

    /// The key as a `CFString`, for the parameters dictionary.
    public var rawValue: CFString { NSString(string: identifier) }

    /// The number of bytes to derive (`Int`): `kSecKeyKeyExchangeParameterRequestedSize`.
    public static let requestedSize = SecKeyKeyExchangeParameter(rawValue: kSecKeyKeyExchangeParameterRequestedSize)
    /// The KDF's shared info (`Data`): `kSecKeyKeyExchangeParameterSharedInfo`.
    public static let sharedInfo = SecKeyKeyExchangeParameter(rawValue: kSecKeyKeyExchangeParameterSharedInfo)
}

/// What a key is used for, in `SecKeyIsAlgorithmSupported`.
public enum SecKeyOperationType: Int, Sendable {
    /// Making a signature (private key).
    case sign = 0
    /// Checking a signature (public key).
    case verify = 1
    /// Encrypting (public key).
    case encrypt = 2
    /// Decrypting (private key).
    case decrypt = 3
    /// Key exchange (private key).
    case keyExchange = 4
}

/// A key algorithm (`SecKeyAlgorithm`): every one of Apple's SecKey.h, with Apple's
/// identifiers. Touchstone supports, for P-256 keys: ECDSA over a message (SHA-1, SHA-224,
/// SHA-256, SHA-384, SHA-512) or a given digest, as X9.62 DER or RFC 4754 r ‖ s; ECIES with the
/// X9.63 KDF (the same hashes) and AES-GCM, both the variable-IV form and the iOS 10 form with an
/// all-zero IV, standard or cofactor (the same on P-256); ECDH key exchange, raw or with the X9.63
/// KDF. P-384 and P-521 keys sign, encrypt (ECIES with AES-256) and exchange keys the same ways;
/// `.ecdsaSignatureRFC4754` is Apple's older name of `.ecdsaSignatureDigestRFC4754`. RSA keys
/// take every RSA algorithm (PKCS#1 v1.5, PSS, OAEP, raw, OAEP then AES-GCM) their size allows.
/// Others are reported as unsupported (`SecKeyIsAlgorithmSupported` false, errSecParam).
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable {
    /// Apple's identifier, e.g. `"algid:sign:ECDSA:message-X962:SHA256"`.
    public let identifier: String

    /// The algorithm with identifier `rawValue`.
    public init(rawValue: CFString) { identifier = rawValue as String }

    /// The identifier as a `CFString`.
    public var rawValue: CFString { NSString(string: identifier) }

    init(_ identifier: String) { self.identifier = identifier }
}

#endif
