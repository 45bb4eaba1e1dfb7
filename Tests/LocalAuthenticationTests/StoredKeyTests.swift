#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import Touchstone
import TouchstoneTesting

/// RSA, P-384 and P-521 keys kept in the keychain: Apple's "Generating New Cryptographic Keys",
/// "Storing Keys in the Keychain" and "Getting an Existing Key" flows, with an RSA key.
@Suite("RSA, P-384 and P-521 keys in the keychain")
struct StoredKeyTests {
    static let tag = Data("com.example.keys.mykey".utf8)

    @Test("Apple's flow: an RSA key made with kSecAttrIsPermanent under kSecPrivateKeyAttrs is found again by tag and type, signs, and its public key verifies")
    func permanentRSAKeyIsFoundAgain() async throws {
        let sim = try TestDevice()
        let results = await sim.blocking { () -> [Bool] in
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag],
            ]
            var error: Unmanaged<CFError>?
            guard let made = SecKeyCreateRandomKey(attributes as CFDictionary, &error), let publicKey = SecKeyCopyPublicKey(made) else { return [] }
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
                                        kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecReturnRef as String: true]
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            guard status == errSecSuccess, let found = item as? SecKey else { return [false] }
            let message = Data("hello".utf8) as CFData
            guard let signature = SecKeyCreateSignature(found, .rsaSignatureMessagePKCS1v15SHA256, message, nil) else { return [false, false] }
            var attributesOut: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
                                     kSecReturnAttributes as String: true] as CFDictionary, &attributesOut)
            let stored = attributesOut as? [String: Any]
            var publicItem: CFTypeRef?
            let publicStatus = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
                                                    kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary, &publicItem)
            return [found == made,
                    SecKeyVerifySignature(publicKey, .rsaSignatureMessagePKCS1v15SHA256, message, signature, nil),
                    stored?[kSecAttrIsPermanent as String] as? Bool == true, stored?[kSecAttrKeySizeInBits as String] as? Int == 2048,
                    stored?[kSecAttrApplicationTag as String] as? Data == Self.tag,
                    publicStatus == errSecItemNotFound]  // only the private half was made permanent
        }
        #expect(results == [true, true, true, true, true, true])
    }

    @Test("SecItemAdd of a server's RSA public key (kSecValueData, PKCS#1) or a P-384 key (kSecValueRef): found as a SecKey and as bytes, a second add is errSecDuplicateItem, SecItemDelete removes it")
    func addFindDelete() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            let rsa = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048] as CFDictionary, nil)
            let ec = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 384] as CFDictionary, nil)
            guard let rsa, let ec, let rsaPublic = SecKeyCopyPublicKey(rsa),
                  let bytes = SecKeyCopyExternalRepresentation(rsaPublic, nil) as Data? else { return [] }
            let server: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                         kSecAttrKeyClass as String: kSecAttrKeyClassPublic, kSecAttrApplicationTag as String: Data("server".utf8)]
            var statuses = [SecItemAdd(server.merging([kSecValueData as String: bytes]) { $1 } as CFDictionary, nil),
                            SecItemAdd(server.merging([kSecValueData as String: bytes]) { $1 } as CFDictionary, nil)]
            var out: CFTypeRef?
            statuses.append(SecItemCopyMatching(server.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, &out))
            statuses.append((out as? Data) == bytes ? 0 : -1)
            statuses.append(SecItemCopyMatching(server.merging([kSecReturnRef as String: true]) { $1 } as CFDictionary, &out))
            statuses.append((out as? SecKey) == rsaPublic ? 0 : -1)
            statuses.append(SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: ec,
                                        kSecAttrLabel as String: "p384"] as CFDictionary, nil))
            statuses.append(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "p384",
                                                 kSecReturnRef as String: true] as CFDictionary, &out))
            statuses.append((out as? SecKey) == ec ? 0 : -1)
            // Key items are not passwords.
            statuses.append(SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword,
                                                 kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary, nil))
            statuses.append(SecItemDelete(server as CFDictionary))
            statuses.append(SecItemCopyMatching(server as CFDictionary, nil))
            statuses.append(SecItemDelete([kSecClass as String: kSecClassKey, kSecValueRef as String: ec] as CFDictionary))
            return statuses
        }
        #expect(statuses == [errSecSuccess, errSecDuplicateItem, errSecSuccess, 0, errSecSuccess, 0, errSecSuccess, errSecSuccess, 0,
                             errSecItemNotFound, errSecSuccess, errSecItemNotFound, errSecSuccess])
    }

    @Test("a damaged stored key item is reported (errSecDecode) by every lookup that reaches it, not skipped, and SecItemDelete still removes it")
    func damagedItemIsReported() async throws {
        let sim = try TestDevice()
        try sim.authenticator.keychain.add(Data("not a key".utf8), service: "touchstone.keys", account: "00.private", itemClass: .key,
                                           attributes: [kSecAttrKeyType as String: .string("42"), kSecAttrKeyClass as String: .string("1")])
        let statuses = await sim.blocking { () -> [OSStatus] in
            let all: [String: Any] = [kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnRef as String: true]
            return [SecItemCopyMatching(all as CFDictionary, nil), SecItemDelete([kSecClass as String: kSecClassKey] as CFDictionary),
                    SecItemCopyMatching(all as CFDictionary, nil)]
        }
        #expect(statuses == [errSecDecode, errSecSuccess, errSecItemNotFound])
    }

    @Test("stored RSA keys follow data protection (errSecInteractionNotAllowed while locked) and take no privateKeyUsage, the Secure Enclave's flag (errSecUnimplemented, our limit)")
    func dataProtectionAndLimits() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .biometryAny], nil)!
            var error: Unmanaged<CFError>?
            _ = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
                                       kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                       kSecAttrAccessControl as String: access]] as CFDictionary, &error)
            var statuses = [OSStatus((error?.takeRetainedValue() as NSError?)?.code ?? 0)]
            _ = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048,
                                       kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag,
                                       kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked] as CFDictionary, nil)
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
                                        kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnRef as String: true]
            statuses.append(SecItemCopyMatching(query as CFDictionary, nil))
            try? sim.device.lock()
            statuses.append(SecItemCopyMatching(query as CFDictionary, nil))
            statuses.append(SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag] as CFDictionary))
            return statuses
        }
        // Both halves were permanent (kSecAttrIsPermanent at the top); the delete removes both, locked or not.
        #expect(statuses == [errSecUnimplemented, errSecSuccess, errSecInteractionNotAllowed, errSecSuccess])
    }

    @Test("a P-384 key stored with userPresence (swift-security's store(_:query:accessPolicy:)) guards its item as a software P-256 key does: any lookup asks once (a cancel is errSecUserCanceled, UI fail errSecInteractionNotAllowed, UI skip leaves it out), its attributes carry the access control, and the key found signs without asking again (SecItem.m serializes any item's kSecAttrAccessControl; SecDbKeychainItem.m's ks_decrypt_data)")
    func guardedP384KeyItemAsksAtLookup() async throws {
        let sim = try TestDevice()
        let tag = Data("p384".utf8)
        /// A lookup of the key with `extra`: its status and the key found.
        func lookup(_ extra: @escaping @Sendable () -> [String: Any]) async -> (OSStatus, SecKey?) {
            await sim.blocking { () -> (OSStatus, SecKey?) in
                var result: CFTypeRef?
                let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true]
                let status = SecItemCopyMatching(query.merging(extra()) { $1 } as CFDictionary, &result)
                return (status, result.flatMap { $0 as? SecKey })
            }
        }
        let added = await sim.blocking { () -> OSStatus in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil),
                  let key = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                   kSecAttrKeySizeInBits as String: 384] as CFDictionary, nil)
            else { return errSecParam }
            return SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: key, kSecAttrApplicationTag as String: tag,
                               kSecAttrAccessControl as String: access] as CFDictionary, nil)
        }
        #expect(added == errSecSuccess)
        sim.enqueue(.cancel)
        #expect(await lookup { [:] }.0 == errSecUserCanceled)
        #expect(await lookup { [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail] }.0 == errSecInteractionNotAllowed)
        #expect(await lookup { [kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip] }.0 == errSecItemNotFound)
        #expect(sim.user.pending.isEmpty)
        sim.enqueue(.present("thumb"))
        let (status, found) = await lookup { [:] }
        #expect(status == errSecSuccess)
        #expect(sim.user.pending.isEmpty, "the lookup asked once")
        let signs = await sim.blocking { () -> Bool in
            guard let key = found else { return false }
            return SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA384, Data("m".utf8) as CFData, nil) != nil
        }
        #expect(signs, "the key found signs without asking again")
        sim.enqueue(.present("thumb"))
        let attributes = await sim.blocking { () -> Bool in
            var result: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                                     kSecReturnAttributes as String: true] as CFDictionary, &result)
            guard let access = (result as? [String: Any])?[kSecAttrAccessControl as String] else { return false }
            return CFGetTypeID(access as CFTypeRef) == SecAccessControlGetTypeID()
        }
        #expect(attributes, "attributes carry the access control")
    }

    @Test("an RSA key stored with biometryCurrentSet is left out of lookups after an enrollment change, as a P-256 key is, while another key under its tag is still found; a delete removes both")
    func biometryCurrentSetRSAKeyIsInvalidated() async throws {
        let sim = try TestDevice()
        let tag = Data("rsa.current-set".utf8)
        let query: @Sendable () -> [String: Any] = { [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag] }
        /// How many keys a lookup of every key under the tag finds (-1: the status when not 0).
        let count: @Sendable () -> Int = {
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query().merging([kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll]) { $1 } as CFDictionary, &result)
            return status == errSecSuccess ? (result as? [Any])?.count ?? -1 : Int(status)
        }
        let added = await sim.blocking { () -> [OSStatus] in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryCurrentSet, nil),
                  let guarded = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048] as CFDictionary, nil),
                  let plain = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 384] as CFDictionary, nil)
            else { return [errSecParam] }
            return [SecItemAdd(query().merging([kSecValueRef as String: guarded, kSecAttrAccessControl as String: access]) { $1 } as CFDictionary, nil),
                    SecItemAdd(query().merging([kSecValueRef as String: plain]) { $1 } as CFDictionary, nil)]
        }
        #expect(added == [errSecSuccess, errSecSuccess])
        sim.enqueue(.present("thumb"))
        #expect(await sim.blocking(count) == 2)
        _ = try sim.enroll("index")
        #expect(await sim.blocking(count) == 1)
        #expect(sim.user.pending.isEmpty)
        #expect(await sim.blocking { SecItemDelete(query() as CFDictionary) } == errSecSuccess)
        #expect(await sim.blocking(count) == Int(errSecItemNotFound))
    }

    @Test("one lookup that opens a guarded P-256 key and a guarded P-384 key asks once for both; one whose limit a key before them fills opens neither (securityd decrypts only up to the limit)")
    func lookupOpensGuardedKeysOnceAndOnlyUpToItsLimit() async throws {
        let sim = try TestDevice()
        let tag = Data("guarded.pair".utf8)
        let added = await sim.blocking { () -> [Bool] in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil),
                  let p384 = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 384] as CFDictionary, nil)
            else { return [] }
            let p256 = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                              kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                                                                              kSecAttrAccessControl as String: access]] as CFDictionary, nil)
            let stored = SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: p384, kSecAttrApplicationTag as String: tag,
                                     kSecAttrAccessControl as String: access] as CFDictionary, nil)
            return [p256 != nil, stored == errSecSuccess]
        }
        #expect(added == [true, true])
        sim.enqueue(.present("thumb"))
        let count = await sim.blocking { () -> Int in
            var result: CFTypeRef?
            let status = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
                                              kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary, &result)
            return status == errSecSuccess ? (result as? [Any])?.count ?? -1 : Int(status)
        }
        #expect(count == 2)
        #expect(sim.user.pending.isEmpty && sim.scriptingMistakes.isEmpty, "one prompt opened both")
        // An unguarded P-256 key under another tag comes first; with the limit of one it alone is read.
        let other = Data("plain.first".utf8)
        let status = await sim.blocking { () -> OSStatus in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil),
                  let plain = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                                     kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                                     kSecAttrApplicationTag as String: other]] as CFDictionary, nil),
                  let guarded = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048] as CFDictionary, nil),
                  SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: guarded, kSecAttrApplicationTag as String: other,
                              kSecAttrAccessControl as String: access] as CFDictionary, nil) == errSecSuccess
            else { return errSecParam }
            _ = plain
            return SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: other, kSecReturnRef as String: true] as CFDictionary, nil)
        }
        #expect(status == errSecSuccess)
        #expect(sim.scriptingMistakes.isEmpty, "the guarded RSA key past the limit was not opened")
    }
}
#endif
