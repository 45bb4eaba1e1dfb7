#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// Persistent references of key items (`kSecReturnPersistentRef`, `kSecValuePersistentRef` with
/// `kSecClassKey`), issue 34: every kind of stored key has one, and a query by it finds,
/// returns and deletes that key alone, as on iOS.
@Suite("Key items: persistent references")
struct KeyPersistentReferenceTests {
    /// What one run saw, in plain values (the run happens on the device's thread).
    struct Seen: Sendable {
        var references: [Data] = []
        var tagsByReference: [String] = []
        var classlessTags: [String] = []
        var refKinds: [String] = []
        var combined: [String] = []
        var statuses: [String: OSStatus] = [:]
        var tagsAfterDelete: [String] = []
    }

    static func tag(_ attributes: Any?) -> String {
        ((attributes as? [String: Any])?[kSecAttrApplicationTag as String] as? Data).flatMap { String(data: $0, encoding: .utf8) } ?? "-"
    }

    @Test("as Apple's SecKey.m: a Secure Enclave key made without kSecAttrIsPermanent is permanent (found by its tag), a software key is not; kSecAttrIsPermanent false keeps an enclave key out of the keychain")
    func enclaveKeysArePermanentByDefault() async throws {
        let sim = try TestDevice(enrolled: [])
        let found = await sim.blocking { () -> [OSStatus] in
            func make(_ tag: String, token: Bool, permanent: Bool?) {
                var privateAttributes: [String: Any] = [kSecAttrApplicationTag as String: Data(tag.utf8)]
                if let permanent { privateAttributes[kSecAttrIsPermanent as String] = permanent }
                var parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                                 kSecPrivateKeyAttrs as String: privateAttributes]
                if token { parameters[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave }
                _ = SecKeyCreateRandomKey(parameters as CFDictionary, nil)
            }
            make("enclave", token: true, permanent: nil)
            make("software", token: false, permanent: nil)
            make("ephemeral", token: true, permanent: false)
            return ["enclave", "software", "ephemeral"].map { tag in
                SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8)] as CFDictionary, nil)
            }
        }
        #expect(found == [errSecSuccess, errSecItemNotFound, errSecItemNotFound])
    }

    @Test("a key item's persistent reference finds, returns and deletes that key alone, with kSecClass or without: a Secure Enclave key, a stored public key, an RSA key and a symmetric key; a password's reference is errSecNoSuchClass, bytes that are no reference errSecParam")
    func referencesNameOneKey() async throws {
        let sim = try TestDevice(enrolled: [])
        let seen = await sim.blocking { () -> Seen in
            var seen = Seen()
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage], nil)!
            let enclave: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrAccessControl as String: access,
                                                kSecAttrApplicationTag as String: Data("enclave".utf8)],
            ]
            let rsa: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024,
                                      kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                      kSecAttrApplicationTag as String: Data("rsa".utf8)]]
            guard let key = SecKeyCreateRandomKey(enclave as CFDictionary, nil), let publicKey = SecKeyCopyPublicKey(key),
                  SecKeyCreateRandomKey(rsa as CFDictionary, nil) != nil else { return seen }
            var added: CFTypeRef?
            seen.statuses["add public"] = SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: publicKey,
                                                      kSecAttrApplicationTag as String: Data("public".utf8),
                                                      kSecReturnPersistentRef as String: true] as CFDictionary, &added)
            let addedReference = added as? Data
            seen.statuses["add symmetric"] = SecItemAdd([kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric,
                                                         kSecAttrApplicationTag as String: Data("symmetric".utf8),
                                                         kSecValueData as String: Data(repeating: 7, count: 32)] as CFDictionary, nil)

            var all: CFTypeRef?
            seen.statuses["all"] = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll,
                                                        kSecReturnPersistentRef as String: true] as CFDictionary, &all)
            seen.references = (all as? [Any] ?? []).compactMap { $0 as? Data }
            for reference in seen.references {
                var found: CFTypeRef?
                _ = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecValuePersistentRef as String: reference,
                                         kSecReturnAttributes as String: true] as CFDictionary, &found)
                seen.tagsByReference.append(Self.tag(found))
                var classless: CFTypeRef?
                _ = SecItemCopyMatching([kSecValuePersistentRef as String: reference, kSecReturnAttributes as String: true] as CFDictionary, &classless)
                seen.classlessTags.append(Self.tag(classless))
                var ref: CFTypeRef?
                _ = SecItemCopyMatching([kSecValuePersistentRef as String: reference, kSecReturnRef as String: true] as CFDictionary, &ref)
                seen.refKinds.append(ref.map { CFGetTypeID($0) == SecKeyGetTypeID() ? "key" : "other" } ?? "none")
            }
            // The public key's reference from SecItemAdd is the one a lookup gives.
            seen.statuses["added reference found"] = addedReference.map { seen.references.contains($0) ? 0 : -1 } ?? -2

            // kSecReturnRef with kSecReturnPersistentRef: one dictionary with both and the attributes.
            var both: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("rsa".utf8),
                                     kSecReturnRef as String: true, kSecReturnPersistentRef as String: true] as CFDictionary, &both)
            let dictionary = both as? [String: Any] ?? [:]
            seen.combined = [kSecValueRef as String, kSecValuePersistentRef as String, kSecAttrApplicationTag as String, kSecValueData as String]
                .map { dictionary[$0] == nil ? "absent" : "present" }

            // Another item's reference, or bytes that are none, find nothing; an add may not name one.
            var password: CFTypeRef?
            _ = SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a", kSecValueData as String: Data("p".utf8),
                            kSecReturnPersistentRef as String: true] as CFDictionary, &password)
            var nothing: CFTypeRef?
            seen.statuses["password reference as key"] = SecItemCopyMatching(
                [kSecClass as String: kSecClassKey, kSecValuePersistentRef as String: password as? Data ?? Data()] as CFDictionary, &nothing)
            seen.statuses["garbage"] = SecItemCopyMatching(
                [kSecClass as String: kSecClassKey, kSecValuePersistentRef as String: Data("not a reference".utf8)] as CFDictionary, &nothing)
            let rsaReference = seen.references[seen.tagsByReference.firstIndex(of: "rsa") ?? 0]
            seen.statuses["add with reference"] = SecItemAdd([kSecClass as String: kSecClassKey, kSecValuePersistentRef as String: rsaReference,
                                                              kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric,
                                                              kSecValueData as String: Data(count: 16)] as CFDictionary, nil)
            seen.statuses["update"] = SecItemUpdate([kSecValuePersistentRef as String: rsaReference] as CFDictionary,
                                                    [kSecAttrLabel as String: "renamed"] as CFDictionary)

            // Deleting by reference, without a class, removes that key alone.
            seen.statuses["delete"] = SecItemDelete([kSecValuePersistentRef as String: rsaReference] as CFDictionary)
            var after: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll,
                                     kSecReturnAttributes as String: true] as CFDictionary, &after)
            seen.tagsAfterDelete = (after as? [Any] ?? []).map(Self.tag).sorted()
            return seen
        }
        #expect(seen.statuses["all"] == errSecSuccess && seen.references.count == 4)
        #expect(Set(seen.references).count == 4)
        #expect(seen.tagsByReference.sorted() == ["enclave", "public", "rsa", "symmetric"])
        #expect(seen.classlessTags == seen.tagsByReference)
        // A symmetric key item makes no SecKey: asked for a ref, it gives none.
        #expect(zip(seen.tagsByReference, seen.refKinds).allSatisfy { tag, kind in kind == (tag == "symmetric" ? "none" : "key") },
                "\(seen.refKinds)")
        #expect(seen.statuses["add public"] == errSecSuccess && seen.statuses["added reference found"] == 0)
        #expect(seen.combined == ["present", "present", "present", "absent"])
        // As securityd reads a reference (SecDbQuery.c): another class's is errSecNoSuchClass,
        // bytes that are no reference errSecParam.
        #expect(seen.statuses["password reference as key"] == errSecNoSuchClass)
        #expect(seen.statuses["garbage"] == errSecParam)
        #expect(seen.statuses["add with reference"] == errSecParam)
        #expect(seen.statuses["update"] == errSecUnimplemented)
        #expect(seen.statuses["delete"] == errSecSuccess)
        #expect(seen.tagsAfterDelete == ["enclave", "public", "symmetric"])
    }
}
#endif
