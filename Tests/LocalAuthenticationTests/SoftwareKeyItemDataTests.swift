#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import Touchstone
import TouchstoneTesting

/// A software P-256 private key's item holds the key's bytes: Apple's `SecECKey.m` gives a
/// private key's attribute dictionary `kSecValueData` = its 97-byte X9.63 export, and
/// `SecItemAdd` of a `kSecValueRef` stores those attributes, so `kSecReturnData` gives them.
/// (Found by dm-zharov/swift-security's `testSecKey`, which reads them by persistent reference.)
@Suite("A software P-256 key item's data is its 97 X9.63 bytes")
struct SoftwareKeyItemDataTests {
    @Test("kSecReturnData of a software P-256 private key item is its 04 || X || Y || K bytes, by attributes and by persistent reference, alone or with its attributes, and from the add that stores it (SecECKey.m's attribute dictionary, stored by SecItemAdd); a Secure Enclave key's data alone stays errSecParam")
    func softwareP256KeyItemDataIsItsX963Bytes() async throws {
        let device = try TestDevice(enrolled: [])
        let privateKey = P256.Signing.PrivateKey()
        let x963 = privateKey.x963Representation
        let lines = await device.blocking { () -> [String] in
            var lines: [String] = []
            let made = SecKeyCreateWithData(x963 as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                             kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, nil)
            guard let key = made else { return ["no key"] }
            var result: CFTypeRef?
            let add: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueRef as String: key,
                                      kSecAttrApplicationTag as String: Data("software".utf8), kSecReturnPersistentRef as String: true,
                                      kSecReturnData as String: true]
            lines.append("add \(SecItemAdd(add as CFDictionary, &result))")
            let added = result as? [String: Any]
            lines.append("add gives \((added?[kSecValueData as String] as? Data) == x963)")
            guard let reference = added?[kSecValuePersistentRef as String] as? Data else { return lines + ["no persistent reference"] }
            let byTag: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("software".utf8)]
            result = nil
            let status = SecItemCopyMatching(byTag.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, &result)
            lines.append("by tag \(status) \((result as? Data) == x963)")
            result = nil
            let byReference = SecItemCopyMatching([kSecValuePersistentRef as String: reference, kSecReturnData as String: true] as CFDictionary, &result)
            lines.append("by reference \(byReference) \((result as? Data) == x963)")
            result = nil
            let both = SecItemCopyMatching(byTag.merging([kSecReturnData as String: true, kSecReturnAttributes as String: true]) { $1 } as CFDictionary, &result)
            let dictionary = result as? [String: Any]
            lines.append("with attributes \(both) \((dictionary?[kSecValueData as String] as? Data) == x963) \(dictionary?[kSecAttrKeyClass as String] as? Int ?? -1)")
            // A Secure Enclave key has no bytes to give.
            let enclave = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                                 kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                                                 kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                                 kSecAttrApplicationTag as String: Data("enclave".utf8)]] as CFDictionary, nil)
            lines.append("enclave made \(enclave != nil)")
            lines.append("enclave data \(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("enclave".utf8), kSecReturnData as String: true] as CFDictionary, &result))")
            return lines
        }
        #expect(lines == ["add 0", "add gives true", "by tag 0 true", "by reference 0 true", "with attributes 0 true 1", "enclave made true", "enclave data -50"])
    }

    @Test("kSecReturnData of a software key whose access control guards its item (userPresence) asks once at the lookup, then gives its 97 bytes (securityd decrypts the item for any lookup: SecDbKeychainItem.m's ks_decrypt_data)")
    func guardedSoftwareKeyItemDataAsksOnce() async throws {
        let device = try TestDevice()
        let tag = Data("guarded".utf8)
        let exported = await device.blocking { () -> Data? in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, nil),
                  let key = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                                   kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                                                                                   kSecAttrAccessControl as String: access]] as CFDictionary, nil)
            else { return nil }
            // The key SecKeyCreateRandomKey returns is used in memory: its export asks nothing.
            return SecKeyCopyExternalRepresentation(key, nil) as Data?
        }
        let bytes = try #require(exported)
        #expect(bytes.count == 97)
        device.enqueue(.present("thumb"))
        let (status, data) = await device.blocking { () -> (OSStatus, Data?) in
            var result: CFTypeRef?
            let status = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                                              kSecReturnData as String: true] as CFDictionary, &result)
            return (status, result as? Data)
        }
        #expect(status == errSecSuccess)
        #expect(data == bytes)
        #expect(device.user.pending.isEmpty, "the lookup asked once")
    }

    @Test("a lookup never runs a key's own evaluation for its data: a software key under privateKeyUsage with userPresence gives none (errSecParam for its data alone, no prompt), and data alone over a Secure Enclave key is refused before a guarded key beside it is opened")
    func dataAloneNeverPrompts() async throws {
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            func make(_ flags: SecAccessControlCreateFlags, tag: String, token: Bool) -> Bool {
                guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil) else { return false }
                var parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                                 kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                                 kSecAttrApplicationTag as String: Data(tag.utf8),
                                                                                 kSecAttrAccessControl as String: access]]
                if token { parameters[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave }
                return SecKeyCreateRandomKey(parameters as CFDictionary, nil) != nil
            }
            let made = [make([.privateKeyUsage, .userPresence], tag: "use", token: false),
                        make(.userPresence, tag: "both", token: false), make(.privateKeyUsage, tag: "both", token: true)]
            func data(_ tag: String, _ extra: [String: Any] = [:]) -> OSStatus {
                SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
                                     kSecReturnData as String: true].merging(extra) { $1 } as CFDictionary, nil)
            }
            return ["made \(made)", "use \(data("use"))", "use skip \(data("use", [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip]))",
                    "both \(data("both", [kSecMatchLimit as String: kSecMatchLimitAll]))"]
        }
        #expect(lines == ["made [true, true, true]", "use -50", "use skip -50", "both -50"])
        #expect(device.scriptingMistakes.isEmpty, "no prompt was shown")
    }
}
#endif
