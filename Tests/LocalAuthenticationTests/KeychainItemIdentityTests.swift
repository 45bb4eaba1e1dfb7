#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone
import TouchstonePortable

/// An item's identity is the primary key of Apple's keychain schema (`SecItemSchema.c`): for
/// a generic password its service, account, access group and `kSecAttrSynchronizable`; for an
/// internet password its server, account, security domain, protocol, authentication type,
/// port, path, access group and `kSecAttrSynchronizable`.
@Suite("Keychain: an item is its primary key, access group and synchronizability included")
struct KeychainItemIdentityTests {
    static func generic(_ account: String, _ extra: [String: Any] = [:], value: String = "v") -> [String: Any] {
        var item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                   kSecAttrAccount as String: account, kSecValueData as String: Data(value.utf8)]
        item.merge(extra) { _, new in new }
        return item
    }

    /// The values of the items `query` finds (every match), as text, sorted.
    static func values(_ query: [String: Any]) -> [String] {
        var request = query
        request.removeValue(forKey: kSecValueData as String)
        request[kSecReturnData as String] = true
        request[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: CFTypeRef?
        guard SecItemCopyMatching(request as CFDictionary, &result) == errSecSuccess else { return [] }
        return ((result as? [Data]) ?? []).map { String(decoding: $0, as: UTF8.self) }.sorted()
    }

    @Test("the same service and account are two items in two access groups, and two when one synchronizes; the same item again is errSecDuplicateItem")
    func groupAndSynchronizableArePartOfTheKey() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> [String] in
            let sync = kSecAttrSynchronizable as String, group = kSecAttrAccessGroup as String
            let statuses = [
                SecItemAdd(Self.generic("ann", value: "plain") as CFDictionary, nil),
                SecItemAdd(Self.generic("ann", [group: "TEAM.shared"], value: "shared") as CFDictionary, nil),
                SecItemAdd(Self.generic("ann", [sync: true], value: "synced") as CFDictionary, nil),
                SecItemAdd(Self.generic("ann", [group: "TEAM.shared", sync: true], value: "shared-synced") as CFDictionary, nil),
                // The same items again.
                SecItemAdd(Self.generic("ann") as CFDictionary, nil),
                SecItemAdd(Self.generic("ann", [group: "TEAM.shared"]) as CFDictionary, nil),
                SecItemAdd(Self.generic("ann", [group: Data("TEAM.shared".utf8)]) as CFDictionary, nil),
                SecItemAdd(Self.generic("ann", [sync: true]) as CFDictionary, nil),
                // The app's own group (its application identifier) is the default group: the
                // same item as the plain one.
                SecItemAdd(Self.generic("ann", [group: "TOUCHSTONE.com.example.app"]) as CFDictionary, nil),
            ]
            let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                       kSecAttrAccount as String: "ann"]
            var anySync = base
            anySync[sync] = kSecAttrSynchronizableAny
            var inShared = anySync
            inShared[group] = "TEAM.shared"
            return statuses.map { "\($0)" } + [
                Self.values(base).joined(separator: ","),
                Self.values(anySync).joined(separator: ","),
                Self.values(inShared).joined(separator: ","),
            ]
        }
        #expect(outcome == ["0", "0", "0", "0", "-25299", "-25299", "-25299", "-25299", "-25299",
                            "plain,shared", "plain,shared,shared-synced,synced", "shared,shared-synced"])
    }

    @Test("returned attributes carry the account as given and each item's own group and synchronizability")
    func returnedAttributesOfEachItem() async throws {
        let sim = try TestDevice()
        let rows = await sim.blocking { () -> [String] in
            _ = SecItemAdd(Self.generic("ann") as CFDictionary, nil)
            _ = SecItemAdd(Self.generic("ann", [kSecAttrAccessGroup as String: "TEAM.shared", kSecAttrSynchronizable as String: true]) as CFDictionary, nil)
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "ann",
                                        kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
                                        kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll]
            var result: CFTypeRef?
            guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let found = result as? [[String: Any]] else { return [] }
            return found.map { item in
                "\(item[kSecAttrAccount as String] as? String ?? "-") \(item[kSecAttrAccessGroup as String] as? String ?? "-") \(item[kSecAttrSynchronizable as String] as? Bool ?? false)"
            }.sorted()
        }
        #expect(rows == ["ann TEAM.shared true", "ann TOUCHSTONE.com.example.app false"])
    }

    @Test("an internet password is as many items as ports, protocols, paths, security domains and authentication types")
    func internetPasswordPrimaryKey() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> [String] in
            func internet(_ extra: [String: Any], _ value: String) -> [String: Any] {
                var item: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                           kSecAttrAccount as String: "ann", kSecValueData as String: Data(value.utf8)]
                item.merge(extra) { _, new in new }
                return item
            }
            let statuses = [
                SecItemAdd(internet([:], "bare") as CFDictionary, nil),
                SecItemAdd(internet([kSecAttrPort as String: 8443], "port") as CFDictionary, nil),
                SecItemAdd(internet([kSecAttrProtocol as String: kSecAttrProtocolHTTPS], "https") as CFDictionary, nil),
                SecItemAdd(internet([kSecAttrPath as String: "/login"], "path") as CFDictionary, nil),
                SecItemAdd(internet([kSecAttrSecurityDomain as String: "realm"], "realm") as CFDictionary, nil),
                SecItemAdd(internet([kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeHTMLForm], "form") as CFDictionary, nil),
                SecItemAdd(internet([kSecAttrPort as String: 8443], "again") as CFDictionary, nil),
                // The defaults name the bare item.
                SecItemAdd(internet([kSecAttrPort as String: 0, kSecAttrPath as String: ""], "again") as CFDictionary, nil),
            ]
            let all = Self.values([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                   kSecAttrAccount as String: "ann"])
            let onPort = Self.values([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                      kSecAttrPort as String: 8443])
            return statuses.map { "\($0)" } + [all.joined(separator: ","), onPort.joined(separator: ",")]
        }
        #expect(outcome == ["0", "0", "0", "0", "0", "0", "-25299", "-25299", "bare,form,https,path,port,realm", "port"])
    }

    @Test("SecItemUpdate moving an item to another group or making it synchronize moves it; errSecDuplicateItem when the item is there already")
    func updateMovesTheItem() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> [String] in
            let group = kSecAttrAccessGroup as String, sync = kSecAttrSynchronizable as String
            _ = SecItemAdd(Self.generic("ann", value: "one") as CFDictionary, nil)
            _ = SecItemAdd(Self.generic("ann", [group: "TEAM.shared"], value: "two") as CFDictionary, nil)
            let plain: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                        kSecAttrAccount as String: "ann", group: "TOUCHSTONE.com.example.app"]
            var shared = plain
            shared[group] = "TEAM.shared"
            let taken = SecItemUpdate(plain as CFDictionary, [group: "TEAM.shared"] as CFDictionary)
            let moved = SecItemUpdate(plain as CFDictionary, [sync: true] as CFDictionary)
            var synced = plain
            synced[sync] = true
            let back = SecItemUpdate(shared as CFDictionary, [group: "TEAM.other", kSecValueData as String: Data("three".utf8)] as CFDictionary)
            var other = plain
            other[group] = "TEAM.other"
            return ["\(taken)", "\(moved)", Self.values(synced).joined(), Self.values(plain).joined(separator: ","),
                    "\(back)", Self.values(other).joined(), Self.values(shared).joined(separator: ",")]
        }
        #expect(outcome == ["-25299", "0", "one", "", "0", "three", ""])
    }

    @Test("a persistent reference names one of the items that share an account")
    func persistentReferenceOfAGroupItem() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> [String] in
            var reference: CFTypeRef?
            _ = SecItemAdd(Self.generic("ann", value: "one") as CFDictionary, nil)
            var item = Self.generic("ann", [kSecAttrAccessGroup as String: "TEAM.shared"], value: "two")
            item[kSecReturnPersistentRef as String] = true
            let added = SecItemAdd(item as CFDictionary, &reference)
            guard let reference = reference as? Data else { return ["\(added)", "no reference"] }
            var result: CFTypeRef?
            let read = SecItemCopyMatching([kSecValuePersistentRef as String: reference, kSecReturnData as String: true] as CFDictionary, &result)
            let deleted = SecItemDelete([kSecValuePersistentRef as String: reference] as CFDictionary)
            let left = Self.values([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"])
            return ["\(added)", "\(read)", String(decoding: result as? Data ?? Data(), as: UTF8.self), "\(deleted)", left.joined(separator: ",")]
        }
        #expect(outcome == ["0", "0", "two", "0", "one"])
    }

    @Test("an item stored before identities, in a group under its bare account, is found, refuses its duplicate, stays put on a value update and moves when its group changes")
    func recordFromBeforeIdentities() async throws {
        let sim = try TestDevice()
        // What an earlier version wrote: a group item under the bare account.
        try sim.authenticator.keychain.add(Data("old".utf8), service: "svc", account: "ann",
                                           attributes: [kSecAttrAccessGroup as String: .string("TEAM.shared")])
        let outcome = await sim.blocking { () -> [String] in
            let group = kSecAttrAccessGroup as String
            let shared: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                         kSecAttrAccount as String: "ann", group: "TEAM.shared"]
            var other = shared
            other[group] = "TEAM.other"
            let duplicate = SecItemAdd(Self.generic("ann", [group: "TEAM.shared"]) as CFDictionary, nil)
            let found = Self.values(shared).joined()
            let updated = SecItemUpdate(shared as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary)
            let afterUpdate = Self.values(shared).joined()
            // A qualified item moved onto the earlier record's key is a duplicate too.
            let elsewhere = SecItemAdd(Self.generic("ann", [group: "TEAM.other"], value: "other") as CFDictionary, nil)
            let onto = SecItemUpdate(other as CFDictionary, [group: "TEAM.shared"] as CFDictionary)
            let moved = SecItemUpdate(shared as CFDictionary, [group: "TEAM.third"] as CFDictionary)
            return ["\(duplicate)", found, "\(updated)", afterUpdate, "\(elsewhere)", "\(onto)", "\(moved)"]
        }
        #expect(outcome == ["-25299", "old", "0", "new", "0", "-25299", "0"])
        let accounts = try sim.authenticator.keychain.items(service: "svc").map(\.account).sorted()
        #expect(accounts == ["ann\u{2400}agrp=s:TEAM.other", "ann\u{2400}agrp=s:TEAM.third"], "\(accounts)")
    }

    @Test("renaming an account held in two groups renames both; the default group of an app with entitlements is a group like any other; a port given as text is that number")
    func renamesDefaultGroupsAndNumbers() async throws {
        let sim = try TestDevice()
        let renamed = await sim.blocking { () -> [String] in
            let group = kSecAttrAccessGroup as String
            _ = SecItemAdd(Self.generic("ann", value: "one") as CFDictionary, nil)
            _ = SecItemAdd(Self.generic("ann", [group: "TEAM.shared"], value: "two") as CFDictionary, nil)
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                        kSecAttrAccount as String: "ann"]
            var renamed = query
            renamed[kSecAttrAccount as String] = "bob"
            let internet: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                           kSecAttrAccount as String: "ann", kSecAttrPort as String: 443, kSecValueData as String: Data("pw".utf8)]
            var asText = internet
            asText[kSecAttrPort as String] = "443"
            return ["\(SecItemUpdate(query as CFDictionary, [kSecAttrAccount as String: "bob"] as CFDictionary))",
                    Self.values(renamed).joined(separator: ","), Self.values(query).joined(separator: ","),
                    "\(SecItemAdd(internet as CFDictionary, nil))", "\(SecItemAdd(asText as CFDictionary, nil))"]
        }
        #expect(renamed == ["0", "one,two", "", "0", "-25299"])

        // With entitlements, an item added without a group is in the first one: the same item as
        // one added there by name, whatever a later composition makes the default.
        var composition = Composition()
        composition.keychainAccessGroups = ["TEAM.shared", "TEAM.other"]
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        let entitled = try TestDevice(composition: composition)
        let statuses = await entitled.blocking { () -> [OSStatus] in
            [SecItemAdd(Self.generic("ann") as CFDictionary, nil),
             SecItemAdd(Self.generic("ann", [kSecAttrAccessGroup as String: "TEAM.shared"]) as CFDictionary, nil),
             SecItemAdd(Self.generic("ann", [kSecAttrAccessGroup as String: "TEAM.other"]) as CFDictionary, nil)]
        }
        #expect(statuses == [errSecSuccess, errSecDuplicateItem, errSecSuccess])
        let stored = try entitled.authenticator.keychain.items(service: "svc").map(\.account).sorted()
        #expect(stored == ["ann\u{2400}agrp=s:TEAM.other", "ann\u{2400}agrp=s:TEAM.shared"])
    }

    @Test("an account holding U+2400 (kept by Touchstone to mark the rest of the key) is errSecParam")
    func separatorInAccountIsRefused() async throws {
        let sim = try TestDevice()
        let status = await sim.blocking { SecItemAdd(Self.generic("a\u{2400}b") as CFDictionary, nil) }
        #expect(status == errSecParam)
    }
}
#endif
