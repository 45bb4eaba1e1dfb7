#if !canImport(Darwin)
import Foundation

// Every public `SecKeyAlgorithm` of Apple's SecKey.h, with Apple's identifiers (generated from
// one table, so the member and the C name always carry the same value). Which of them a key
// can use is decided from the identifier: `SecKeyAlgorithm+Support.swift` for EC keys,
// `SecKey+RSA.swift` for RSA keys.

extension SecKeyAlgorithm {
    /// RSA raw signature.
    public static let rsaSignatureRaw = SecKeyAlgorithm("algid:sign:RSA:raw")
    /// RSA PKCS#1 v1.5 signature of raw data.
    public static let rsaSignatureDigestPKCS1v15Raw = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15")
    /// RSA PKCS#1 v1.5 signature of a SHA1 digest.
    public static let rsaSignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA1")
    /// RSA PKCS#1 v1.5 signature of a SHA224 digest.
    public static let rsaSignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA224")
    /// RSA PKCS#1 v1.5 signature of a SHA256 digest.
    public static let rsaSignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA256")
    /// RSA PKCS#1 v1.5 signature of a SHA384 digest.
    public static let rsaSignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA384")
    /// RSA PKCS#1 v1.5 signature of a SHA512 digest.
    public static let rsaSignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PKCS1v15:SHA512")
    /// RSA PKCS#1 v1.5 signature over the SHA1 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA1")
    /// RSA PKCS#1 v1.5 signature over the SHA224 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA224")
    /// RSA PKCS#1 v1.5 signature over the SHA256 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA256")
    /// RSA PKCS#1 v1.5 signature over the SHA384 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA384")
    /// RSA PKCS#1 v1.5 signature over the SHA512 of a message.
    public static let rsaSignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PKCS1v15:SHA512")
    /// RSA PSS signature of a SHA1 digest.
    public static let rsaSignatureDigestPSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA1:SHA1:20")
    /// RSA PSS signature of a SHA224 digest.
    public static let rsaSignatureDigestPSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA224:SHA224:24")
    /// RSA PSS signature of a SHA256 digest.
    public static let rsaSignatureDigestPSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA256:SHA256:32")
    /// RSA PSS signature of a SHA384 digest.
    public static let rsaSignatureDigestPSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA384:SHA384:48")
    /// RSA PSS signature of a SHA512 digest.
    public static let rsaSignatureDigestPSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:digest-PSS:SHA512:SHA512:64")
    /// RSA PSS signature over the SHA1 of a message.
    public static let rsaSignatureMessagePSSSHA1 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA1:SHA1:20")
    /// RSA PSS signature over the SHA224 of a message.
    public static let rsaSignatureMessagePSSSHA224 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA224:SHA224:24")
    /// RSA PSS signature over the SHA256 of a message.
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA256:SHA256:32")
    /// RSA PSS signature over the SHA384 of a message.
    public static let rsaSignatureMessagePSSSHA384 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA384:SHA384:48")
    /// RSA PSS signature over the SHA512 of a message.
    public static let rsaSignatureMessagePSSSHA512 = SecKeyAlgorithm("algid:sign:RSA:message-PSS:SHA512:SHA512:64")
    /// ECDSA with a raw r || s signature.
    public static let ecdsaSignatureRFC4754 = SecKeyAlgorithm("algid:sign:ECDSA:RFC4754")
    /// ECDSA over a digest of any length (1 to 64 bytes); DER signature.
    public static let ecdsaSignatureDigestX962 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962")
    /// ECDSA over a given SHA1 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA1")
    /// ECDSA over a given SHA224 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA224")
    /// ECDSA over a given SHA256 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA256")
    /// ECDSA over a given SHA384 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA384")
    /// ECDSA over a given SHA512 digest; DER signature.
    public static let ecdsaSignatureDigestX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-X962:SHA512")
    /// ECDSA over the SHA1 of a message; DER signature.
    public static let ecdsaSignatureMessageX962SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA1")
    /// ECDSA over the SHA-224 of a message.
    public static let ecdsaSignatureMessageX962SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA224")
    /// ECDSA over the SHA256 of a message; DER signature.
    public static let ecdsaSignatureMessageX962SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA256")
    /// ECDSA over the SHA384 of a message; DER signature.
    public static let ecdsaSignatureMessageX962SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA384")
    /// ECDSA over the SHA512 of a message; DER signature.
    public static let ecdsaSignatureMessageX962SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-X962:SHA512")
    /// ECDSA over a digest of any length (1 to 64 bytes); raw r || s signature (iOS 17).
    public static let ecdsaSignatureDigestRFC4754 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754")
    /// ECDSA over a given SHA1 digest; raw r || s signature (iOS 17).
    public static let ecdsaSignatureDigestRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA1")
    /// ECDSA over a given SHA224 digest; raw r || s signature (iOS 17).
    public static let ecdsaSignatureDigestRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA224")
    /// ECDSA over a given SHA256 digest; raw r || s signature (iOS 17).
    public static let ecdsaSignatureDigestRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA256")
    /// ECDSA over a given SHA384 digest; raw r || s signature (iOS 17).
    public static let ecdsaSignatureDigestRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA384")
    /// ECDSA over a given SHA512 digest; raw r || s signature (iOS 17).
    public static let ecdsaSignatureDigestRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:digest-RFC4754:SHA512")
    /// ECDSA over the SHA1 of a message; raw r || s signature (iOS 17).
    public static let ecdsaSignatureMessageRFC4754SHA1 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA1")
    /// ECDSA over the SHA-224 of a message, raw r || s (iOS 17).
    public static let ecdsaSignatureMessageRFC4754SHA224 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA224")
    /// ECDSA over the SHA256 of a message; raw r || s signature (iOS 17).
    public static let ecdsaSignatureMessageRFC4754SHA256 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA256")
    /// ECDSA over the SHA384 of a message; raw r || s signature (iOS 17).
    public static let ecdsaSignatureMessageRFC4754SHA384 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA384")
    /// ECDSA over the SHA512 of a message; raw r || s signature (iOS 17).
    public static let ecdsaSignatureMessageRFC4754SHA512 = SecKeyAlgorithm("algid:sign:ECDSA:message-RFC4754:SHA512")
    /// RSA raw encryption.
    public static let rsaEncryptionRaw = SecKeyAlgorithm("algid:encrypt:RSA:raw")
    /// RSA PKCS#1 encryption.
    public static let rsaEncryptionPKCS1 = SecKeyAlgorithm("algid:encrypt:RSA:PKCS1")
    /// RSA OAEP SHA1 encryption.
    public static let rsaEncryptionOAEPSHA1 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1")
    /// RSA OAEP SHA224 encryption.
    public static let rsaEncryptionOAEPSHA224 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224")
    /// RSA OAEP SHA256 encryption.
    public static let rsaEncryptionOAEPSHA256 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256")
    /// RSA OAEP SHA384 encryption.
    public static let rsaEncryptionOAEPSHA384 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384")
    /// RSA OAEP SHA512 encryption.
    public static let rsaEncryptionOAEPSHA512 = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512")
    /// RSA OAEP SHA1 wrapping an AES-GCM key.
    public static let rsaEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA1:AESGCM")
    /// RSA OAEP SHA224 wrapping an AES-GCM key.
    public static let rsaEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA224:AESGCM")
    /// RSA OAEP SHA256 wrapping an AES-GCM key.
    public static let rsaEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA256:AESGCM")
    /// RSA OAEP SHA384 wrapping an AES-GCM key.
    public static let rsaEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA384:AESGCM")
    /// RSA OAEP SHA512 wrapping an AES-GCM key.
    public static let rsaEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm("algid:encrypt:RSA:OAEP:SHA512:AESGCM")
    /// ECIES, standard ECDH, X9.63 SHA1 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM")
    /// ECIES, standard ECDH, X9.63 SHA224 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM")
    /// ECIES, standard ECDH, X9.63 SHA256 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM")
    /// ECIES, standard ECDH, X9.63 SHA384 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM")
    /// ECIES, standard ECDH, X9.63 SHA512 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM")
    /// ECIES, standard ECDH, X9.63 SHA224 KDF giving the AES key and the IV, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES, standard ECDH, X9.63 SHA256 KDF giving the AES key and the IV, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES, standard ECDH, X9.63 SHA384 KDF giving the AES key and the IV, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES, standard ECDH, X9.63 SHA512 KDF giving the AES key and the IV, AES-GCM.
    public static let eciesEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDH:KDFX963:SHA512:AESGCM-KDFIV")
    /// ECIES, cofactor ECDH, X9.63 SHA1 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA1:AESGCM")
    /// ECIES, cofactor ECDH, X9.63 SHA224 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM")
    /// ECIES, cofactor ECDH, X9.63 SHA256 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM")
    /// ECIES, cofactor ECDH, X9.63 SHA384 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM")
    /// ECIES, cofactor ECDH, X9.63 SHA512 KDF giving the AES key, AES-GCM with an all-zero 16-byte IV (the iOS 10 form).
    public static let eciesEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM")
    /// ECIES, cofactor ECDH, X9.63 SHA224 KDF giving the AES key and the IV, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA224:AESGCM-KDFIV")
    /// ECIES, cofactor ECDH, X9.63 SHA256 KDF giving the AES key and the IV, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA256:AESGCM-KDFIV")
    /// ECIES, cofactor ECDH, X9.63 SHA384 KDF giving the AES key and the IV, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA384:AESGCM-KDFIV")
    /// ECIES, cofactor ECDH, X9.63 SHA512 KDF giving the AES key and the IV, AES-GCM.
    public static let eciesEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm("algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM-KDFIV")
    /// Raw standard ECDH: the shared secret's X coordinate.
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm("algid:keyexchange:ECDH")
    /// Standard ECDH followed by the X9.63 SHA1 KDF.
    public static let ecdhKeyExchangeStandardX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA1")
    /// Standard ECDH followed by the X9.63 SHA224 KDF.
    public static let ecdhKeyExchangeStandardX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA224")
    /// Standard ECDH followed by the X9.63 SHA256 KDF.
    public static let ecdhKeyExchangeStandardX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA256")
    /// Standard ECDH followed by the X9.63 SHA384 KDF.
    public static let ecdhKeyExchangeStandardX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA384")
    /// Standard ECDH followed by the X9.63 SHA512 KDF.
    public static let ecdhKeyExchangeStandardX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDH:KDFX963:SHA512")
    /// Raw cofactor ECDH: the shared secret's X coordinate.
    public static let ecdhKeyExchangeCofactor = SecKeyAlgorithm("algid:keyexchange:ECDHC")
    /// Cofactor ECDH followed by the X9.63 SHA1 KDF.
    public static let ecdhKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA1")
    /// Cofactor ECDH followed by the X9.63 SHA224 KDF.
    public static let ecdhKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA224")
    /// Cofactor ECDH followed by the X9.63 SHA256 KDF.
    public static let ecdhKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA256")
    /// Cofactor ECDH followed by the X9.63 SHA384 KDF.
    public static let ecdhKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA384")
    /// Cofactor ECDH followed by the X9.63 SHA512 KDF.
    public static let ecdhKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm("algid:keyexchange:ECDHC:KDFX963:SHA512")
}

/// `SecKeyAlgorithm.rsaSignatureRaw` under its C name.
public let kSecKeyAlgorithmRSASignatureRaw = SecKeyAlgorithm.rsaSignatureRaw
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15Raw` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15Raw = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15Raw
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA1` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA1 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA1
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA224` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA224 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA224
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA256` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA256 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA256
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA384` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA384 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA384
/// `SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA512` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPKCS1v15SHA512 = SecKeyAlgorithm.rsaSignatureDigestPKCS1v15SHA512
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA1` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA1 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA1
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA224` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA224 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA224
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA256 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA256
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA384` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA384 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA384
/// `SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA512` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePKCS1v15SHA512 = SecKeyAlgorithm.rsaSignatureMessagePKCS1v15SHA512
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA1` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA1 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA1
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA224` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA224 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA224
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA256` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA256 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA256
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA384` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA384 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA384
/// `SecKeyAlgorithm.rsaSignatureDigestPSSSHA512` under its C name.
public let kSecKeyAlgorithmRSASignatureDigestPSSSHA512 = SecKeyAlgorithm.rsaSignatureDigestPSSSHA512
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA1` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA1 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA1
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA224` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA224 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA224
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA256` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA256 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA256
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA384` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA384 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA384
/// `SecKeyAlgorithm.rsaSignatureMessagePSSSHA512` under its C name.
public let kSecKeyAlgorithmRSASignatureMessagePSSSHA512 = SecKeyAlgorithm.rsaSignatureMessagePSSSHA512
/// `SecKeyAlgorithm.ecdsaSignatureRFC4754` under its C name.
public let kSecKeyAlgorithmECDSASignatureRFC4754 = SecKeyAlgorithm.ecdsaSignatureRFC4754
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestX962 = SecKeyAlgorithm.ecdsaSignatureDigestX962
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA1` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA1 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA1
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA224` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA224 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA224
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA256 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA256
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA384` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA384 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA384
/// `SecKeyAlgorithm.ecdsaSignatureDigestX962SHA512` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestX962SHA512 = SecKeyAlgorithm.ecdsaSignatureDigestX962SHA512
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA1 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA224` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA224 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA224
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA256 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA256
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA384 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA384
/// `SecKeyAlgorithm.ecdsaSignatureMessageX962SHA512` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageX962SHA512 = SecKeyAlgorithm.ecdsaSignatureMessageX962SHA512
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA1` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA1
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA224` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA224 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA224
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA256` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA256 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA256
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA384` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA384 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA384
/// `SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA512` under its C name.
public let kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA512 = SecKeyAlgorithm.ecdsaSignatureDigestRFC4754SHA512
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA1` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA1 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA1
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA224` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA224
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA256` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA256
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA384` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA384 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA384
/// `SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA512` under its C name.
public let kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA512 = SecKeyAlgorithm.ecdsaSignatureMessageRFC4754SHA512
/// `SecKeyAlgorithm.rsaEncryptionRaw` under its C name.
public let kSecKeyAlgorithmRSAEncryptionRaw = SecKeyAlgorithm.rsaEncryptionRaw
/// `SecKeyAlgorithm.rsaEncryptionPKCS1` under its C name.
public let kSecKeyAlgorithmRSAEncryptionPKCS1 = SecKeyAlgorithm.rsaEncryptionPKCS1
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA1` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1 = SecKeyAlgorithm.rsaEncryptionOAEPSHA1
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA224` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA224 = SecKeyAlgorithm.rsaEncryptionOAEPSHA224
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA256` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256 = SecKeyAlgorithm.rsaEncryptionOAEPSHA256
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA384` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384 = SecKeyAlgorithm.rsaEncryptionOAEPSHA384
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA512` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512 = SecKeyAlgorithm.rsaEncryptionOAEPSHA512
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA1AESGCM` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA1AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA1AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA224AESGCM` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA224AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA224AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA256AESGCM` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA256AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA256AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA384AESGCM` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA384AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA384AESGCM
/// `SecKeyAlgorithm.rsaEncryptionOAEPSHA512AESGCM` under its C name.
public let kSecKeyAlgorithmRSAEncryptionOAEPSHA512AESGCM = SecKeyAlgorithm.rsaEncryptionOAEPSHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA1AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA1AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA1AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA224AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA224AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA384AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA384AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardX963SHA512AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardX963SHA512AESGCM = SecKeyAlgorithm.eciesEncryptionStandardX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA224AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA224AESGCM = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA256AESGCM = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA384AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA384AESGCM = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA512AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionStandardVariableIVX963SHA512AESGCM = SecKeyAlgorithm.eciesEncryptionStandardVariableIVX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA1AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA1AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA1AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA224AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA224AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA256AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA256AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA384AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA384AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorX963SHA512AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorX963SHA512AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorX963SHA512AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA224AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA224AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA224AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA256AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA256AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA384AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA384AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA384AESGCM
/// `SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA512AESGCM` under its C name.
public let kSecKeyAlgorithmECIESEncryptionCofactorVariableIVX963SHA512AESGCM = SecKeyAlgorithm.eciesEncryptionCofactorVariableIVX963SHA512AESGCM
/// `SecKeyAlgorithm.ecdhKeyExchangeStandard` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeStandard = SecKeyAlgorithm.ecdhKeyExchangeStandard
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA1` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA1 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA1
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA224` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA224 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA224
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA256 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA256
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA384` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA384 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA384
/// `SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA512` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeStandardX963SHA512 = SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA512
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactor` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeCofactor = SecKeyAlgorithm.ecdhKeyExchangeCofactor
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA1` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA1 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA1
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA224` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA224 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA224
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA256` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA256 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA256
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA384` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA384 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA384
/// `SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA512` under its C name.
public let kSecKeyAlgorithmECDHKeyExchangeCofactorX963SHA512 = SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA512
#endif
