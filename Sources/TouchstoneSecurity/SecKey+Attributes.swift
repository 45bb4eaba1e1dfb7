#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone

extension KeyQuery {
    /// `SecKeyCopyAttributes`' dictionary.
    ///
    /// A key held in the process — every key but a Secure Enclave one — answers as Apple's
    /// software keys do: `SecKey.m`'s dictionary for a local key, with `SecECKey.m`'s and
    /// `SecRSAKey.c`'s changes to it. A key found in the keychain is one too on iOS (`SecItem.m`
    /// makes it again from its bytes), so its stored tag, label, access group and application
    /// label are not in it: the application label is the SHA-1 of the public key. The facts:
    /// - permanent, private and modifiable, whatever the key (Apple marks every software key
    ///   permanent); neither sensitive nor ever-sensitive, extractable, not never-extractable;
    /// - a private key signs, decrypts and unwraps; a public one verifies, encrypts and wraps
    ///   (an RSA public key also says it decrypts); only an EC private key derives; none
    ///   signs or verifies with recovery;
    /// - `kSecValueData` holds the key's bytes: the public key's (X9.63, PKCS#1), or the
    ///   private key's external representation.
    ///
    /// Our limit: a software P-256 private key leaves `kSecValueData` out, as its bytes come
    /// through `SecKeyCopyExternalRepresentation` after its access control.
    ///
    /// A Secure Enclave key answers as `SecCTKKey.m` filters its token's attributes: the key's
    /// class, type, sizes, token, access control and capabilities, its application label, and
    /// permanent whatever it is; not its tag, label, access group or accessibility, which that
    /// code does not export. (The capabilities are ``attributes(of:)``'s: what iOS's token
    /// reports for them is not in Apple's published code.)
    static func copiedAttributes(of key: SecKey) -> [String: Any] {
        if let enclave = key.touchstoneKey, !enclave.isSoftware {
            var attributes = attributes(of: key)
            for name in [kSecAttrApplicationTag, kSecAttrLabel, kSecAttrAccessGroup, kSecAttrAccessible] {
                attributes[name as String] = nil
            }
            attributes[kSecAttrIsPermanent as String] = true
            return attributes
        }
        let isPrivate = key.isPrivate
        let inMemory = key.inMemoryKey
        let isRSA = inMemory is RSAKey
        let bits = inMemory?.bits ?? 256
        var attributes: [String: Any] = [
            kSecClass as String: kSecClassKey as String,
            kSecAttrKeyClass as String: (isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic) as String,
            kSecAttrApplicationLabel as String: Data(Insecure.SHA1.hash(data: key.publicKeyData)),
            kSecAttrKeyType as String: (inMemory?.keyType ?? kSecAttrKeyTypeECSECPrimeRandom) as String,
            kSecAttrKeySizeInBits as String: bits,
            kSecAttrEffectiveKeySize as String: bits,
            kSecAttrIsPermanent as String: true,
            Self.isPrivateAttribute: true,
            Self.isModifiableAttribute: true,
            kSecAttrIsSensitive as String: false,
            Self.wasAlwaysSensitiveAttribute: false,
            kSecAttrIsExtractable as String: true,
            Self.wasNeverExtractableAttribute: false,
            kSecAttrCanEncrypt as String: !isPrivate,
            kSecAttrCanDecrypt as String: isPrivate || isRSA,
            kSecAttrCanDerive as String: isPrivate && !isRSA,
            kSecAttrCanSign as String: isPrivate,
            kSecAttrCanVerify as String: !isPrivate,
            Self.canSignRecoverAttribute: false,
            Self.canVerifyRecoverAttribute: false,
            kSecAttrCanWrap as String: !isPrivate,
            kSecAttrCanUnwrap as String: isPrivate,
        ]
        if let inMemory {
            attributes[kSecValueData as String] = inMemory.externalRepresentation
        } else if !isPrivate {
            attributes[kSecValueData as String] = key.publicKeyData
        }
        return attributes
    }

    // The keys of Apple's local-key dictionary that SecItem.h does not declare for iOS (they
    // are macOS constants), as the dictionary carries them.
    static let isPrivateAttribute = "priv"
    static let isModifiableAttribute = "modi"
    static let wasAlwaysSensitiveAttribute = "asen"
    static let wasNeverExtractableAttribute = "next"
    static let canSignRecoverAttribute = "snrc"
    static let canVerifyRecoverAttribute = "vyrc"
}

/// `value`'s JSON with sorted keys: the same bytes for the same value, which a key's
/// `dataRepresentation` needs (Linux's encoder otherwise orders a keyed container by hash).
package func sortedKeysJSON<Value: Encodable>(_ value: Value) -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return (try? encoder.encode(value)) ?? Data()
}

extension EnclaveKey {
    /// The key as CryptoKit's `SecureEnclave` keys carry it (`dataRepresentation`): an opaque
    /// blob only this device and app can restore — the key's fields (sealed as the key store
    /// seals them) as ``sortedKeysJSON(_:)``, so one key always gives the same bytes.
    package var secureEnclaveBlob: Data { sortedKeysJSON(self) }

    /// The token attributes of a Secure Enclave key's item: `kSecAttrTokenID`, and `toid`, the
    /// token's object id, which Apple's `SecCTKKey.m` always exports ("Always export token_id and
    /// object_id") and which is the key's CryptoKit `dataRepresentation` (Secretive's migration to
    /// CryptoKit keys reads it so).
    var tokenAttributes: [String: Any] {
        [kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave as String, "toid": secureEnclaveBlob]
    }
}
#endif
