#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneCommands
import TouchstoneTesting
import Touchstone

/// The §9 and §10 rules of ConformanceAppleHeaderRulesTests: the keychain's, through `SecItem*`.
extension ConformanceAppleHeaderRulesTests {
    // MARK: §9

    static func add(_ attributes: [String: Any]) -> OSStatus {
        var item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                   kSecValueData as String: Data("v".utf8)]
        item.merge(attributes) { _, new in new }
        return SecItemAdd(item as CFDictionary, nil)
    }

    static func read(_ attributes: [String: Any], data: Bool = true) -> (OSStatus, AnyObject?) {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc"]
        query[data ? kSecReturnData as String : kSecReturnAttributes as String] = true
        query.merge(attributes) { _, new in new }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    @Test("§9 kSecAttrAccount and kSecAttrService may be String or Data, matched bytewise")
    func dataAccountsMatchBytewise() async throws {
        let sim = try TestDevice()
        @Sendable func returnedAccount(_ account: Data) -> Data? {
            let attributes = Self.read([kSecAttrAccount as String: account], data: false).1 as? [String: Any]
            return attributes?[kSecAttrAccount as String] as? Data
        }
        @Sendable func addDataService() -> OSStatus {
            let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: Data("s".utf8),
                                       kSecAttrAccount as String: "x"]
            return SecItemAdd(item as CFDictionary, nil)
        }
        let results = await sim.blocking { () -> [String] in
            let binary = Data([0xff, 0x00, 0x41])
            return [
                "\(Self.add([kSecAttrAccount as String: Data("bob".utf8)]))",
                "\(Self.read([kSecAttrAccount as String: "bob"]).0)",
                "\(Self.add([kSecAttrAccount as String: "bob"]))",
                "\(Self.add([kSecAttrAccount as String: binary]))",
                "\(Self.read([kSecAttrAccount as String: binary]).0)",
                "\(Self.read([kSecAttrAccount as String: Data([0xff, 0x00])]).0)",
                "\(returnedAccount(binary) == binary)",
                "\(addDataService())",
                "\(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"] as CFDictionary))",
            ]
        }
        #expect(results == ["0", "0", "-25299", "0", "0", "-25300", "true", "0", "0"])
        let generic = await sim.blocking { () -> [OSStatus] in
            [Self.add([kSecAttrAccount as String: "g", kSecAttrGeneric as String: Data("tag".utf8), kSecAttrLabel as String: "L"]),
             Self.read([kSecAttrGeneric as String: "tag"]).0, Self.read([kSecAttrLabel as String: Data("L".utf8)]).0,
             Self.read([kSecAttrGeneric as String: Data("other".utf8)]).0]
        }
        #expect(generic == [0, 0, 0, -25300], "kSecAttrGeneric and kSecAttrLabel match bytewise as String or Data")
    }

    @Test("§9 SecItemUpdate may rename an item: a Data account renamed to a String one is returned as a String")
    func updateRenames() async throws {
        let sim = try TestDevice()
        let (statuses, account) = await sim.blocking { () -> ([OSStatus], String?) in
            let old: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: Data("old".utf8)]
            let statuses = [Self.add([kSecAttrAccount as String: Data("old".utf8)]),
                            SecItemUpdate(old as CFDictionary, [kSecAttrAccount as String: "new"] as CFDictionary),
                            Self.read([kSecAttrAccount as String: "old"]).0]
            let attributes = Self.read([kSecAttrAccount as String: "new"], data: false).1 as? [String: Any]
            return (statuses, attributes?[kSecAttrAccount as String] as? String)
        }
        #expect(statuses == [0, 0, -25300])
        #expect(account == "new")
    }

    @Test("§9 SecItemUpdate may change kSecAttrAccessible and kSecAttrAccessControl; re-protecting needs the current access control")
    func updateReprotects() async throws {
        let sim = try TestDevice()
        let results = await sim.blocking { () -> [String] in
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                        kSecAttrAccount as String: "a"]
            guard let presence = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil) else { return [] }
            var results = ["\(Self.add([kSecAttrAccount as String: "a", kSecAttrAccessControl as String: presence]))"]
            let open: [String: Any] = [kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]
            sim.user.enqueue([.cancel])
            results.append("\(SecItemUpdate(query as CFDictionary, open as CFDictionary))")
            sim.user.enqueue([.present("thumb")])
            results.append("\(SecItemUpdate(query as CFDictionary, open as CFDictionary))")
            let (status, attributes) = Self.read([kSecAttrAccount as String: "a"], data: false)
            results.append("\(status) \((attributes as? [String: Any])?[kSecAttrAccessible as String] as? String ?? "-")")
            results.append("\(Self.read([kSecAttrAccount as String: "a"]).0)")
            guard let any = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryAny, nil) else { return [] }
            results.append("\(SecItemUpdate(query as CFDictionary, [kSecAttrAccessControl as String: any] as CFDictionary))")
            sim.user.enqueue([.present("thumb")])
            results.append("\(Self.read([kSecAttrAccount as String: "a"]).0)")
            return results
        }
        // Cancelled at the current userPresence prompt: unchanged. Then re-protected to an
        // unprotected class (reads without a prompt), then to biometryAny (prompts again).
        #expect(results == ["0", "-128", "0", "0 ck", "0", "0", "0"])
        #expect(sim.user.pending.isEmpty)
    }

    @Test("§9 an invalidated biometryCurrentSet item still exists: adding it again is errSecDuplicateItem until it is deleted")
    func invalidatedItemLingers() async throws {
        let sim = try TestDevice()
        let results = await sim.blocking { () -> [OSStatus] in
            guard let current = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryCurrentSet, nil) else { return [] }
            let item: [String: Any] = [kSecAttrAccount as String: "marker", kSecAttrAccessControl as String: current]
            var results = [Self.add(item)]
            _ = try? sim.device.enroll("index")
            results.append(Self.read([kSecAttrAccount as String: "marker"]).0)
            results.append(Self.add(item))
            results.append(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "marker"] as CFDictionary))
            results.append(Self.add(item))
            return results
        }
        #expect(results == [errSecSuccess, errSecItemNotFound, errSecDuplicateItem, errSecSuccess, errSecSuccess])
    }

    @Test("§9 data-protection classes follow the device lock state: errSecInteractionNotAllowed (-25308) while locked or before the first unlock")
    func dataProtectionThroughSecItem() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            var statuses = [Self.add([kSecAttrAccount as String: "u", kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked]),
                            Self.add([kSecAttrAccount as String: "f", kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock])]
            try? sim.device.lock()
            statuses += [Self.read([kSecAttrAccount as String: "u"]).0, Self.read([kSecAttrAccount as String: "f"]).0,
                         Self.add([kSecAttrAccount as String: "n", kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlocked])]
            try? LocalAuthenticationSystem.runSetup("restart", on: sim.authenticator)
            statuses.append(Self.read([kSecAttrAccount as String: "f"]).0)
            try? LocalAuthenticationSystem.runSetup("passcode enter 1234", on: sim.authenticator)
            statuses += [Self.read([kSecAttrAccount as String: "u"]).0, Self.read([kSecAttrAccount as String: "f"]).0]
            return statuses
        }
        #expect(statuses == [0, 0, -25308, 0, -25308, -25308, 0, 0])
    }

    @Test("§9 a key lookup follows data protection too: SecItemCopyMatching of a key is errSecInteractionNotAllowed (-25308) while its class keeps it out of reach, not only its later use")
    func keyLookupUnderDataProtection() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            func make(_ tag: String, _ protection: CFString) -> OSStatus {
                guard let access = SecAccessControlCreateWithFlags(nil, protection, .privateKeyUsage, nil) else { return errSecParam }
                let attributes: [String: Any] = [
                    kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                    kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                    kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data(tag.utf8),
                                                    kSecAttrAccessControl as String: access] as [String: Any],
                ]
                var error: Unmanaged<CFError>?
                return SecKeyCreateRandomKey(attributes as CFDictionary, &error) == nil ? errSecParam : errSecSuccess
            }
            func find(_ tag: String) -> OSStatus {
                var result: CFTypeRef?
                return SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
                                            kSecReturnRef as String: true] as CFDictionary, &result)
            }
            var statuses = [make("u", kSecAttrAccessibleWhenUnlockedThisDeviceOnly), make("f", kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly)]
            try? sim.device.lock()
            statuses += [find("u"), find("f")]
            try? LocalAuthenticationSystem.runSetup("restart", on: sim.authenticator)
            statuses.append(find("f"))
            try? LocalAuthenticationSystem.runSetup("passcode enter 1234", on: sim.authenticator)
            statuses += [find("u"), find("f")]
            return statuses
        }
        #expect(statuses == [0, 0, -25308, 0, -25308, 0, 0])
    }

    @Test("§9 kSecAttrAccessibleAlways (deprecated in iOS 12) reads back as written, \"dk\" (\"dku\" for ThisDeviceOnly), and its item is readable whatever the lock state")
    func accessibleAlwaysReadsBackAsWritten() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> [String] in
            _ = Self.add([kSecAttrAccount as String: "always", kSecAttrAccessible as String: kSecAttrAccessibleAlways])
            _ = Self.add([kSecAttrAccount as String: "local", kSecAttrAccessible as String: kSecAttrAccessibleAlwaysThisDeviceOnly])
            func accessible(_ account: String) -> String {
                (Self.read([kSecAttrAccount as String: account], data: false).1 as? [String: Any])?[kSecAttrAccessible as String] as? String ?? "none"
            }
            var lines = [accessible("always"), accessible("local")]
            try? sim.device.lock()
            try? LocalAuthenticationSystem.runSetup("restart", on: sim.authenticator)
            lines.append(String(Self.read([kSecAttrAccount as String: "always"]).0))
            return lines
        }
        #expect(outcome == ["dk", "dku", "0"])
    }

    @Test("an item added without kSecValueData reads back with no kSecValueData key, not an empty Data; once updated with a value it has one")
    func itemWithoutValueHasNoValueKey() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> [Bool] in
            let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                       kSecAttrAccount as String: "empty"]
            func readBack() -> [String: Any]? {
                var query = item
                query[kSecReturnAttributes as String] = true
                query[kSecReturnData as String] = true
                var result: CFTypeRef?
                guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
                return result as? [String: Any]
            }
            let added = SecItemAdd(item as CFDictionary, nil) == errSecSuccess
            let before = readBack()
            let updated = SecItemUpdate(item as CFDictionary, [kSecValueData as String: Data("v".utf8)] as CFDictionary) == errSecSuccess
            let after = readBack()
            return [added, before != nil, before?[kSecValueData as String] == nil, before?[kSecAttrAccount as String] as? String == "empty",
                    updated, after?[kSecValueData as String] as? Data == Data("v".utf8)]
        }
        #expect(outcome == [true, true, true, true, true, true])
    }

    @Test("§8 kSecUseNoAuthenticationUI true never prompts: a protected read is errSecInteractionNotAllowed")
    func noAuthenticationUI() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            guard let any = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryAny, nil) else { return [] }
            return [Self.add([kSecAttrAccount as String: "p", kSecAttrAccessControl as String: any]),
                    Self.read([kSecAttrAccount as String: "p", kSecUseNoAuthenticationUI as String: true]).0]
        }
        #expect(statuses == [errSecSuccess, errSecInteractionNotAllowed])
        #expect(sim.user.pending.isEmpty)
    }

    @Test("§9 a scripting mistake at a keychain prompt is errSecUserCanceled for the app and reported to the script author")
    func keychainScriptingMistake() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            guard let any = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryAny, nil) else { return [] }
            return [Self.add([kSecAttrAccount as String: "p", kSecAttrAccessControl as String: any]),
                    Self.read([kSecAttrAccount as String: "p"]).0]
        }
        #expect(statuses == [errSecSuccess, errSecUserCanceled])
        #expect(sim.scriptingMistakes.count == 1)
    }

    @Test("a persistent reference names one item: add returns it, copy, update and delete by it touch only that item; bytes that are no reference are errSecParam, another class's reference errSecNoSuchClass (securityd's SecDbQuery.c); nothing is deleted")
    func persistentReferencesNameOneItem() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> [String] in
            var lines: [String] = []
            var result: CFTypeRef?
            _ = Self.add([kSecAttrAccount as String: "one"])
            let added = SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                    kSecAttrAccount as String: "two", kSecValueData as String: Data("2".utf8),
                                    kSecReturnPersistentRef as String: true] as CFDictionary, &result)
            guard added == errSecSuccess, let reference = result as? Data else { return ["add \(added) \(String(describing: result))"] }
            let byReference: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: reference]
            // Copy: data alone; then data, attributes and the reference together (a dictionary).
            var query = byReference
            query[kSecReturnData as String] = true
            lines.append("copy \(SecItemCopyMatching(query as CFDictionary, &result)) \(String(decoding: result as? Data ?? Data(), as: UTF8.self))")
            query[kSecReturnAttributes as String] = true
            query[kSecReturnPersistentRef as String] = true
            _ = SecItemCopyMatching(query as CFDictionary, &result)
            let dictionary = result as? [String: Any]
            lines.append("dict \(dictionary?[kSecAttrAccount as String] as? String ?? "-") \((dictionary?[kSecValuePersistentRef as String] as? Data) == reference)")
            // Every item with its reference: each distinct, each naming its own item.
            _ = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll,
                                     kSecReturnPersistentRef as String: true] as CFDictionary, &result)
            lines.append("all \(Set((result as? [Data]) ?? []).count)")
            lines.append("update \(SecItemUpdate(byReference as CFDictionary, [kSecValueData as String: Data("22".utf8)] as CFDictionary))")
            lines.append("values \(Self.read([kSecAttrAccount as String: "one"]).1 as? Data == Data("v".utf8)) \(Self.read([kSecAttrAccount as String: "two"]).1 as? Data == Data("22".utf8))")
            // Bytes that are no reference are errSecParam, a reference to another class's item
            // errSecNoSuchClass (securityd's query_set_class): nothing is deleted.
            for bogus in [Data("bogus".utf8), reference.prefix(5), Data()] {
                var wrong = byReference
                wrong[kSecValuePersistentRef as String] = bogus
                lines.append("bogus \(SecItemDelete(wrong as CFDictionary))")
            }
            var internet = byReference
            internet[kSecClass as String] = kSecClassInternetPassword
            lines.append("other class \(SecItemDelete(internet as CFDictionary))")
            lines.append("delete \(SecItemDelete(byReference as CFDictionary)) \(SecItemDelete(byReference as CFDictionary))")
            lines.append("left \(Self.read([kSecAttrAccount as String: "one"]).0) \(Self.read([kSecAttrAccount as String: "two"]).0)")
            // A password's reference in a key query names no key.
            lines.append("key \(SecItemDelete([kSecClass as String: kSecClassKey, kSecValuePersistentRef as String: reference] as CFDictionary))")
            return lines
        }
        #expect(outcome == [
            "copy 0 2", "dict two true", "all 2", "update 0", "values true true",
            "bogus -50", "bogus -50", "bogus -50", "other class -25306",
            "delete 0 -25300", "left 0 -25300", "key -25306",
        ])
    }

    @Test("a query by persistent reference may leave kSecClass out (the reference names it) and finds a synchronizable item without kSecAttrSynchronizable")
    func persistentReferenceNamesItsClassAndFindsSyncItems() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> [String] in
            var lines: [String] = []
            func reference(_ attributes: [String: Any]) -> Data? {
                var result: CFTypeRef?
                var item = attributes
                item[kSecReturnPersistentRef as String] = true
                let status = SecItemAdd(item as CFDictionary, &result)
                if status != errSecSuccess { lines.append("add \(status)") }
                return result as? Data
            }
            guard let generic = reference([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                           kSecAttrAccount as String: "g", kSecValueData as String: Data("gv".utf8)]),
                  let internet = reference([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                            kSecAttrAccount as String: "i", kSecValueData as String: Data("iv".utf8)]),
                  let synced = reference([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                          kSecAttrAccount as String: "s", kSecAttrSynchronizable as String: true,
                                          kSecValueData as String: Data("sv".utf8)])
            else { return lines + ["no references"] }
            for (name, ref) in [("generic", generic), ("internet", internet), ("synced", synced)] {
                var result: CFTypeRef?
                let data = SecItemCopyMatching([kSecValuePersistentRef as String: ref, kSecReturnData as String: true] as CFDictionary, &result)
                let value = String(decoding: result as? Data ?? Data(), as: UTF8.self)
                let attributes = SecItemCopyMatching([kSecValuePersistentRef as String: ref, kSecReturnAttributes as String: true] as CFDictionary, &result)
                let account = (result as? [String: Any])?[kSecAttrAccount as String] as? String ?? "-"
                lines.append("\(name) \(data) \(value) \(attributes) \(account)")
            }
            // Asking for non-synchronizable items explicitly still excludes the synced one.
            var result: CFTypeRef?
            lines.append("synced, sync false \(SecItemCopyMatching([kSecValuePersistentRef as String: synced, kSecAttrSynchronizable as String: false, kSecReturnData as String: true] as CFDictionary, &result))")
            lines.append("update \(SecItemUpdate([kSecValuePersistentRef as String: internet] as CFDictionary, [kSecValueData as String: Data("iv2".utf8)] as CFDictionary))")
            _ = SecItemCopyMatching([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                     kSecReturnData as String: true] as CFDictionary, &result)
            lines.append("updated \(String(decoding: result as? Data ?? Data(), as: UTF8.self))")
            // Without kSecClass, bytes that are no reference name no class: errSecParam.
            lines.append("bogus \(SecItemCopyMatching([kSecValuePersistentRef as String: Data("bogus".utf8), kSecReturnData as String: true] as CFDictionary, &result))")
            lines.append("delete \(SecItemDelete([kSecValuePersistentRef as String: synced] as CFDictionary)) \(SecItemDelete([kSecValuePersistentRef as String: synced] as CFDictionary))")
            lines.append("left \(Self.read([kSecAttrAccount as String: "g"]).0)")
            // An add never takes a reference (with or without kSecClass): errSecParam, nothing added.
            lines.append("add by ref \(SecItemAdd([kSecValuePersistentRef as String: generic, kSecValueData as String: Data("x".utf8)] as CFDictionary, nil)) \(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecValuePersistentRef as String: generic] as CFDictionary, nil))")
            return lines
        }
        #expect(outcome == [
            "generic 0 gv 0 g", "internet 0 iv 0 i", "synced 0 sv 0 s",
            "synced, sync false -25300", "update 0", "updated iv2", "bogus -50", "delete 0 -25300", "left 0", "add by ref -50 -50",
        ])
    }

    @Test("§10 kSecClassKey without a key: as on iOS, adding attributes alone stores an item of them (found, deleted); updating is errSecUnimplemented")
    func keyQueriesWithoutKeys() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            let key: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("tag".utf8)]
            var result: CFTypeRef?
            return [SecItemAdd(key as CFDictionary, nil), SecItemCopyMatching(key as CFDictionary, &result),
                    SecItemUpdate(key as CFDictionary, [kSecAttrLabel as String: "x"] as CFDictionary), SecItemDelete(key as CFDictionary)]
        }
        #expect(statuses == [errSecSuccess, errSecSuccess, errSecUnimplemented, errSecSuccess])
    }

    @Test("§9 kSecAttrSynchronizable: absent matches only items that do not synchronize; kSecAttrSynchronizableAny matches all")
    func synchronizableMatching() async throws {
        let sim = try TestDevice()
        let counts = await sim.blocking { () -> [Int] in
            _ = Self.add([kSecAttrAccount as String: "local"])
            _ = Self.add([kSecAttrAccount as String: "synced", kSecAttrSynchronizable as String: true])
            func count(_ sync: Any?) -> Int {
                var query: [String: Any] = [kSecMatchLimit as String: kSecMatchLimitAll]
                if let sync { query[kSecAttrSynchronizable as String] = sync }
                return (Self.read(query, data: false).1 as? [[String: Any]])?.count ?? 0
            }
            return [count(nil), count(kSecAttrSynchronizableAny), count(true), count(false)]
        }
        #expect(counts == [1, 2, 1, 1])
    }

    @Test("§9 kSecReturnAttributes returns creation and modification dates on the device clock, and the stored descriptive attributes")
    func datesAndAttributes() async throws {
        let sim = try TestDevice()
        let start = sim.clock.now.foundationDateForTest
        struct Seen: Sendable {
            var created, modified: Date?
            var label, comment, group: String?
            var generic: Data?
            var invisible: Bool?
            var type: Int?
        }
        let seen = await sim.blocking { () -> Seen in
            _ = Self.add([kSecAttrAccount as String: "a", kSecAttrLabel as String: "Label", kSecAttrComment as String: "note",
                          kSecAttrGeneric as String: Data([1, 2]), kSecAttrIsInvisible as String: true, kSecAttrType as String: 42])
            sim.clock.advance(by: .seconds(60))
            _ = SecItemUpdate([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "a"] as CFDictionary,
                              [kSecAttrLabel as String: "Renamed"] as CFDictionary)
            let attributes = (Self.read([kSecAttrAccount as String: "a"], data: false).1 as? [String: Any]) ?? [:]
            return Seen(created: attributes[kSecAttrCreationDate as String] as? Date,
                        modified: attributes[kSecAttrModificationDate as String] as? Date,
                        label: attributes[kSecAttrLabel as String] as? String, comment: attributes[kSecAttrComment as String] as? String,
                        group: attributes[kSecAttrAccessGroup as String] as? String,
                        generic: attributes[kSecAttrGeneric as String] as? Data,
                        invisible: attributes[kSecAttrIsInvisible as String] as? Bool, type: attributes[kSecAttrType as String] as? Int)
        }
        let created = try #require(seen.created)
        let modified = try #require(seen.modified)
        #expect(created == start)
        #expect(modified.timeIntervalSince(created) == 60)
        #expect(seen.label == "Renamed")
        #expect(seen.comment == "note")
        #expect(seen.generic == Data([1, 2]))
        #expect(seen.invisible == true)
        #expect(seen.type == 42)
        #expect(seen.group == "TOUCHSTONE.com.example.app")  // the application identifier: team id and bundle id
    }
}

extension Timestamp {
    /// The instant as a Foundation `Date`, computed independently of the module's conversion.
    var foundationDateForTest: Date {
        let parts = sinceEpoch.components
        return Date(timeIntervalSince1970: TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18)
    }
}
#endif
