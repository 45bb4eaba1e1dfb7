#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import Touchstone
import TouchstoneTesting

/// `kSecAttrAccessGroup` against the app's entitlements (`Composition.keychainAccessGroups`):
/// a group the app is not entitled to is `errSecMissingEntitlement` (-34018), as on iOS.
@Suite("Keychain access groups and entitlements")
struct AccessGroupEntitlementTests {
    static let shared = "ABCDE12345.com.example.shared"

    func device(entitledTo groups: [String]?) throws -> TestDevice {
        var composition = Composition()
        composition.keychainAccessGroups = groups
        return try TestDevice(composition: composition)
    }

    /// The four item calls on service "s" / account `account` in `group`, in order.
    func calls(_ sim: TestDevice, group: String, account: String) -> [OSStatus] {
        LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
            let item = [kSecClass: kSecClassGenericPassword, kSecAttrService: "s", kSecAttrAccount: account,
                        kSecAttrAccessGroup: group] as [CFString: Any]
            var added = item
            added[kSecValueData] = Data("v".utf8)
            var read = item
            read[kSecReturnData] = true
            var result: CFTypeRef?
            return [
                SecItemAdd(added as CFDictionary, nil),
                SecItemCopyMatching(read as CFDictionary, &result),
                SecItemUpdate(item as CFDictionary, [kSecValueData: Data("w".utf8)] as CFDictionary),
                SecItemDelete(item as CFDictionary),
            ]
        }
    }

    /// The app's application identifier: its team id and bundle id.
    static func applicationIdentifier(_ sim: TestDevice) -> String {
        "\(sim.authenticator.composition.teamID).\(sim.authenticator.appID)"
    }

    @Test("with a list of entitled groups: another group is errSecMissingEntitlement for add, read, update and delete; the listed groups and the app's application identifier (team id and bundle id) work, the bare bundle id does not")
    func entitledGroupsOnly() throws {
        let sim = try device(entitledTo: [Self.shared])
        #expect(calls(sim, group: "XYZ.com.other.app", account: "a") == Array(repeating: errSecMissingEntitlement, count: 4))
        #expect(calls(sim, group: Self.shared, account: "b") == Array(repeating: errSecSuccess, count: 4))
        #expect(calls(sim, group: Self.applicationIdentifier(sim), account: "c") == Array(repeating: errSecSuccess, count: 4))
        // As iOS: the application-identifier entitlement is a keychain group; the bare bundle id is none.
        #expect(calls(sim, group: sim.authenticator.appID, account: "e") == Array(repeating: errSecMissingEntitlement, count: 4))
        // Moving an item into a group the app is not entitled to is refused too.
        LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
            let item = [kSecClass: kSecClassGenericPassword, kSecAttrService: "s", kSecAttrAccount: "d"] as [CFString: Any]
            var added = item
            added[kSecValueData] = Data("v".utf8)
            #expect(SecItemAdd(added as CFDictionary, nil) == errSecSuccess, "no group named: the app's own")
            #expect(SecItemUpdate(item as CFDictionary, [kSecAttrAccessGroup: "XYZ.com.other.app"] as CFDictionary) == errSecMissingEntitlement)
        }
    }

    /// Creates a Secure Enclave key tagged `tag` in `group`, finds it, deletes it: the statuses,
    /// and the creation's error code (0 when it made a key).
    func keyCalls(_ sim: TestDevice, group: String, tag: String) -> (created: Int, found: OSStatus, deleted: OSStatus) {
        LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
            let attributes = [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                              kSecAttrTokenID: kSecAttrTokenIDSecureEnclave, kSecAttrAccessGroup: group,
                              kSecPrivateKeyAttrs: [kSecAttrIsPermanent: true, kSecAttrApplicationTag: Data(tag.utf8)] as CFDictionary,
            ] as [CFString: Any] as CFDictionary
            var error: Unmanaged<CFError>?
            let key = SecKeyCreateRandomKey(attributes, &error)
            let created = key == nil ? (error?.takeRetainedValue() as? NSError)?.code ?? -1 : 0
            let query = [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data(tag.utf8), kSecAttrAccessGroup: group,
                         kSecReturnRef: true] as [CFString: Any]
            var result: CFTypeRef?
            let found = SecItemCopyMatching(query as CFDictionary, &result)
            var deletion = query
            deletion[kSecReturnRef] = nil
            return (created, found, SecItemDelete(deletion as CFDictionary))
        }
    }

    @Test("keys too: creating, finding or deleting a key in a group the app is not entitled to is errSecMissingEntitlement")
    func keysAreCheckedToo() throws {
        let sim = try device(entitledTo: [Self.shared])
        let refused = keyCalls(sim, group: "XYZ.com.other.app", tag: "k1")
        #expect(refused.created == Int(errSecMissingEntitlement))
        #expect(refused.found == errSecMissingEntitlement && refused.deleted == errSecMissingEntitlement)
        let entitled = keyCalls(sim, group: Self.shared, tag: "k2")
        #expect(entitled.created == 0 && entitled.found == errSecSuccess && entitled.deleted == errSecSuccess)
        let open = keyCalls(try device(entitledTo: nil), group: "XYZ.com.other.app", tag: "k3")
        #expect(open.created == 0 && open.found == errSecSuccess && open.deleted == errSecSuccess, "no list: every group")
    }

    @Test("an item added without kSecAttrAccessGroup is in the app's first keychain-access-groups entitlement, as iOS reads it back; without a list, in its application identifier (team id and bundle id); Safari's group is never the default")
    func defaultGroupIsFirstEntitlement() throws {
        func addAndRead(_ sim: TestDevice) -> (group: String?, inGroup: [OSStatus]) {
            LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
                let item = [kSecClass: kSecClassGenericPassword, kSecAttrService: "s", kSecAttrAccount: "x"] as [CFString: Any]
                var added = item
                added[kSecValueData] = Data("v".utf8)
                _ = SecItemAdd(added as CFDictionary, nil)
                var read = item
                read[kSecReturnAttributes] = true
                var result: CFTypeRef?
                _ = SecItemCopyMatching(read as CFDictionary, &result)
                let group = (result as? [String: Any])?[kSecAttrAccessGroup as String] as? String
                let statuses = [Self.shared, "ABCDE12345.com.example.second", Self.applicationIdentifier(sim)].map { name -> OSStatus in
                    var query = item
                    query[kSecAttrAccessGroup] = name
                    var found: CFTypeRef?
                    return SecItemCopyMatching(query as CFDictionary, &found)
                }
                return (group, statuses)
            }
        }
        let entitled = addAndRead(try device(entitledTo: [Self.shared, "ABCDE12345.com.example.second"]))
        #expect(entitled.group == Self.shared)
        #expect(entitled.inGroup == [errSecSuccess, errSecItemNotFound, errSecItemNotFound])
        let sim = try device(entitledTo: nil)
        let open = addAndRead(sim)
        #expect(open.group == "TOUCHSTONE.com.example.app" && open.group == Self.applicationIdentifier(sim))
        #expect(open.inGroup == [errSecItemNotFound, errSecItemNotFound, errSecSuccess])
        // Safari's group listed first is passed over: no app holds it, and the add would
        // otherwise land where the app can neither see nor name its own item.
        let safariFirst = addAndRead(try device(entitledTo: ["com.apple.cfnetwork", Self.shared]))
        #expect(safariFirst.group == Self.shared)
        #expect(safariFirst.inGroup == [errSecSuccess, errSecMissingEntitlement, errSecItemNotFound])
    }

    @Test("an app group (group.…) is never the default: Apple lists an app's keychain-access-groups, then its application identifier, then its app groups, and an item added without a group goes to the first (kSecAttrAccessGroup's documentation); with app groups alone it goes to the application identifier, and the app group still works when named")
    func appGroupIsNeverTheDefaultGroup() throws {
        let appGroup = "group.com.example.shared"
        for (groups, expected) in [([appGroup], nil), ([appGroup, Self.shared], Self.shared)] as [([String], String?)] {
            let sim = try device(entitledTo: groups)
            let group = LocalAuthenticationSystem.withAuthenticator(sim.authenticator) { () -> String? in
                let item = [kSecClass: kSecClassGenericPassword, kSecAttrService: "s", kSecAttrAccount: "x"] as [CFString: Any]
                _ = SecItemAdd(item.merging([kSecValueData: Data("v".utf8)]) { $1 } as CFDictionary, nil)
                var result: CFTypeRef?
                _ = SecItemCopyMatching(item.merging([kSecReturnAttributes: true]) { $1 } as CFDictionary, &result)
                return (result as? [String: Any])?[kSecAttrAccessGroup as String] as? String
            }
            #expect(group == (expected ?? Self.applicationIdentifier(sim)), "entitled to \(groups)")
            #expect(calls(sim, group: appGroup, account: "shared") == Array(repeating: errSecSuccess, count: 4))
        }
    }

    @Test("without a list (the default) every group works")
    func everyGroupByDefault() throws {
        let sim = try device(entitledTo: nil)
        #expect(calls(sim, group: "XYZ.com.other.app", account: "a") == Array(repeating: errSecSuccess, count: 4))
    }

    @Test("a composition file carries the list; a group with whitespace is refused by name")
    func compositionFile() throws {
        let composition = try Composition.parse(Data(#"{"keychainAccessGroups": ["\#(Self.shared)"]}"#.utf8))
        #expect(composition.keychainAccessGroups == [Self.shared])
        #expect(try Composition.parse(Data(composition.jsonString().utf8)) == composition)
        #expect(try Composition.parse(Data("{}".utf8)).keychainAccessGroups == nil)
        #expect {
            _ = try Composition.parse(Data(#"{"keychainAccessGroups": ["two words"]}"#.utf8))
        } throws: { error in
            guard case let ConfigurationError.unreadableConfiguration(_, reason) = error else { return false }
            return reason.contains("keychainAccessGroups")
        }
    }
}
#endif
