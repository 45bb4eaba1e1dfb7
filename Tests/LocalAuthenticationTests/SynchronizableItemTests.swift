#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// `kSecAttrSynchronizable` on key and certificate items, as on password items: iOS's keychain
/// schema keeps `sync` as a primary-key column of every class (`SecItemSchema.c`: the `keys`
/// and `cert` classes list `v6sync` as a key attribute), returns it as 0 or 1, and
/// `SecDbQuery.c` adds `kSecAttrSynchronizable = false` to a query that names none, so such a
/// query does not find an item that synchronizes. (Found by dm-zharov/swift-security's
/// `testSecKey`, which stores a key with `synchronizable = true` and reads it back.)
@Suite("Key and certificate items keep kSecAttrSynchronizable")
struct SynchronizableItemTests {
    /// What a lookup of `query` finds: its status, how many items, and their `sync` attributes
    /// in ascending order (-1 when none).
    static func lookup(_ query: [String: Any]) -> String {
        var result: CFTypeRef?
        var full = query
        full[kSecReturnAttributes as String] = true
        full[kSecMatchLimit as String] = kSecMatchLimitAll
        let status = SecItemCopyMatching(full as CFDictionary, &result)
        let items = (result as? [[String: Any]]) ?? []
        let synchronizes = items.map { ($0[kSecAttrSynchronizable as String] as? Int) ?? -1 }.sorted()
        return "\(status) \(items.count) \(synchronizes.isEmpty ? "-1" : synchronizes.map(String.init).joined(separator: ","))"
    }

    /// The line the checks below give for one item class: added with sync true; found without
    /// naming sync, with sync true, with sync any; deleted without naming it, then with it.
    static func lines(_ name: String, _ item: [String: Any], query: [String: Any]) -> [String] {
        let add = SecItemAdd(item.merging([kSecAttrSynchronizable as String: true]) { $1 } as CFDictionary, nil)
        return ["\(name) add \(add)",
                "\(name) plain \(lookup(query))",
                "\(name) sync \(lookup(query.merging([kSecAttrSynchronizable as String: true]) { $1 }))",
                "\(name) any \(lookup(query.merging([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) { $1 }))",
                "\(name) delete plain \(SecItemDelete(query as CFDictionary))",
                "\(name) delete sync \(SecItemDelete(query.merging([kSecAttrSynchronizable as String: true]) { $1 } as CFDictionary))",
                "\(name) left \(lookup(query.merging([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) { $1 }))"]
    }

    @Test("a key item added with kSecAttrSynchronizable true keeps it (sync = 1) and a lookup or delete that does not name it does not find it, for software P-256, P-384, public and attribute-only key items (SecItemSchema.c's v6sync key column, SecDbQuery.c's default sync = false)")
    func synchronizableKeyItemsAreKeptApart() async throws {
        let device = try TestDevice(enrolled: [])
        let p256 = P256.Signing.PrivateKey().x963Representation
        let lines = await device.blocking { () -> [String] in
            func key(_ bytes: Data, _ type: CFString, _ keyClass: CFString) -> SecKey? {
                SecKeyCreateWithData(bytes as CFData, [kSecAttrKeyType as String: type, kSecAttrKeyClass as String: keyClass] as CFDictionary, nil)
            }
            guard let software = key(p256, kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClassPrivate),
                  let p384 = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                    kSecAttrKeySizeInBits as String: 384] as CFDictionary, nil),
                  let publicKey = SecKeyCopyPublicKey(software)
            else { return ["no keys"] }
            var lines: [String] = []
            for (name, ref) in [("p256", software), ("p384", p384), ("public", publicKey)] {
                let tag = Data(name.utf8)
                let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
                lines += Self.lines(name, query.merging([kSecValueRef as String: ref]) { $1 }, query: query)
            }
            // An item of attributes alone: the same attributes once synchronizing and once not
            // are two items (sync is part of the primary key).
            let attributesOnly: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("attributes".utf8),
                                                 kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
            lines.append("attributes plain add \(SecItemAdd(attributesOnly as CFDictionary, nil))")
            lines += Self.lines("attributes", attributesOnly, query: attributesOnly)
            return lines
        }
        var expected: [String] = []
        for name in ["p256", "p384", "public"] {
            expected += ["\(name) add 0", "\(name) plain -25300 0 -1", "\(name) sync 0 1 1", "\(name) any 0 1 1",
                         "\(name) delete plain -25300", "\(name) delete sync 0", "\(name) left -25300 0 -1"]
        }
        expected += ["attributes plain add 0", "attributes add 0", "attributes plain 0 1 0", "attributes sync 0 1 1", "attributes any 0 2 0,1",
                     "attributes delete plain 0", "attributes delete sync 0", "attributes left -25300 0 -1"]
        #expect(lines == expected)
    }

    @Test("a certificate item added with kSecAttrSynchronizable true keeps it (sync = 1): a lookup or delete that does not name it does not find it, and the same certificate not synchronizing is another item (SecItemSchema.c's cert class: v6sync is a key column)")
    func synchronizableCertificateItemsAreKeptApart() async throws {
        let facts = try #require(try CertificateItemTests.certificates()["rsa"])
        let certificate = try CertificateItemTests.certificate(facts)
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            let query: [String: Any] = [kSecClass as String: kSecClassCertificate]
            var lines = Self.lines("certificate", query.merging([kSecValueRef as String: certificate]) { $1 }, query: query)
            // Both at once: one that synchronizes, one that does not.
            let add: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate]
            lines.append("both \(SecItemAdd(add as CFDictionary, nil)) \(SecItemAdd(add.merging([kSecAttrSynchronizable as String: true]) { $1 } as CFDictionary, nil))")
            lines.append("again \(SecItemAdd(add.merging([kSecAttrSynchronizable as String: true]) { $1 } as CFDictionary, nil))")
            lines.append("plain \(Self.lookup(query))")
            lines.append("any \(Self.lookup(query.merging([kSecAttrSynchronizable as String: kSecAttrSynchronizableAny]) { $1 }))")
            return lines
        }
        #expect(lines == ["certificate add 0", "certificate plain -25300 0 -1", "certificate sync 0 1 1", "certificate any 0 1 1",
                          "certificate delete plain -25300", "certificate delete sync 0", "certificate left -25300 0 -1",
                          "both 0 0", "again -25299", "plain 0 1 0", "any 0 2 0,1"])
    }

    @Test("an identity is filtered by its key's kSecAttrSynchronizable, not its certificate's, as iOS's identity join exposes the key's sync column (SecItemDb.c's s3dl_create_select_sql) to SecDbQuery.c's default sync = false; an identity delete without it leaves a synchronizing key alone", arguments: ["p256", "rsa"])
    func identityIsFilteredByItsKeysSynchronizable(name: String) async throws {
        let (certificate, privateBytes) = try CertificateItemTests.certificateAndKey(name)
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            var key: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueData as String: privateBytes,
                                      kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrSynchronizable as String: true]
            if name == "rsa" { key[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA }
            let identity: [String: Any] = [kSecClass as String: kSecClassIdentity]
            return ["add \(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as CFDictionary, nil)) \(SecItemAdd(key as CFDictionary, nil))",
                    "plain \(SecItemCopyMatching(identity as CFDictionary, nil))",
                    "sync \(SecItemCopyMatching(identity.merging([kSecAttrSynchronizable as String: true]) { $1 } as CFDictionary, nil))",
                    "delete plain \(SecItemDelete(identity as CFDictionary))",
                    "key left \(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrSynchronizable as String: true] as CFDictionary, nil))"]
        }
        #expect(lines == ["add 0 0", "plain -25300", "sync 0", "delete plain -25300", "key left 0"], "\(name)")
    }

    @Test("a private key that synchronizes and one that does not may share an application label and tag: sync is part of a key's primary key (SecItemSchema.c's v6sync), so the second add is no duplicate, and the same one again is")
    func synchronizingIsPartOfAKeysPrimaryKey() async throws {
        let device = try TestDevice(enrolled: [])
        let (first, second, third) = (P256.Signing.PrivateKey().x963Representation, P256.Signing.PrivateKey().x963Representation,
                                      P256.Signing.PrivateKey().x963Representation)
        let statuses = await device.blocking { () -> [OSStatus] in
            let common: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                                         kSecAttrApplicationTag as String: Data("shared".utf8), kSecAttrApplicationLabel as String: Data("label".utf8)]
            return [SecItemAdd(common.merging([kSecValueData as String: first]) { $1 } as CFDictionary, nil),
                    SecItemAdd(common.merging([kSecValueData as String: second, kSecAttrSynchronizable as String: true]) { $1 } as CFDictionary, nil),
                    SecItemAdd(common.merging([kSecValueData as String: third, kSecAttrSynchronizable as String: true]) { $1 } as CFDictionary, nil)]
        }
        #expect(statuses == [errSecSuccess, errSecSuccess, errSecDuplicateItem])
    }

    @Test("SecKeyCreateRandomKey stores a permanent half with its parameters' kSecAttrSynchronizable (SecKey.m's add_key hands them to SecItemAdd): a software P-256 key, its public half, a Secure Enclave key and a P-384 key are found only by a lookup that names it")
    func createdKeysKeepTheirSynchronizable() async throws {
        let device = try TestDevice(enrolled: [])
        let lines = await device.blocking { () -> [String] in
            let kinds: [(String, [String: Any])] = [
                ("software", [kSecAttrKeySizeInBits as String: 256]),
                ("enclave", [kSecAttrKeySizeInBits as String: 256, kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]),
                ("p384", [kSecAttrKeySizeInBits as String: 384]),
            ]
            var lines: [String] = []
            for (name, extra) in kinds {
                let tag = Data(name.utf8)
                let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrIsPermanent as String: true,
                                                 kSecAttrSynchronizable as String: true, kSecAttrApplicationTag as String: tag]
                let made = SecKeyCreateRandomKey(parameters.merging(extra) { $1 } as CFDictionary, nil) != nil
                let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                                            kSecMatchLimit as String: kSecMatchLimitAll]
                var found: CFTypeRef?
                let synced = SecItemCopyMatching(query.merging([kSecAttrSynchronizable as String: true, kSecReturnAttributes as String: true]) { $1 }
                                                 as CFDictionary, &found)
                lines.append("\(name) \(made) plain \(SecItemCopyMatching(query as CFDictionary, nil)) sync \(synced) \((found as? [[String: Any]])?.count ?? 0)")
            }
            return lines
        }
        // Both halves of the P-256 and P-384 keys (the public one stored too: kSecAttrIsPermanent
        // at the top level); a Secure Enclave key's public half is stored the same way.
        #expect(lines == ["software true plain -25300 sync 0 2", "enclave true plain -25300 sync 0 2", "p384 true plain -25300 sync 0 2"])
    }
}
#endif
