#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// REFERENCE §7 (domain state) and §9 (keychain items and access control), row by row,
/// through the LocalAuthentication and Security-style API.
@Suite("Conformance §7, §9: domain state, keychain")
struct ConformanceDomainStateKeychainTests {
    /// The domain state a fresh context captures through canEvaluatePolicy (biometrics).
    func currentState(_ sim: TestDevice) -> Data? {
        let context = sim.makeLAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        return context.evaluatedPolicyDomainState
    }

    // MARK: §7

    @Test("§7 nil until canEvaluatePolicy succeeds for a biometric policy or a biometric evaluation succeeds")
    func nilUntilCaptured() async throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        #expect(context.evaluatedPolicyDomainState == nil)
        _ = context.canEvaluatePolicy(.deviceOwnerAuthentication, error: nil)
        #expect(context.evaluatedPolicyDomainState == nil)
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        #expect(context.evaluatedPolicyDomainState != nil)
        let evaluated = sim.makeLAContext()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.present("thumb")], on: evaluated) == nil)
        #expect(evaluated.evaluatedPolicyDomainState == context.evaluatedPolicyDomainState)
    }

    @Test("§7 a context keeps the value it captured until it evaluates again")
    func capturedValueStays() throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        let before = context.evaluatedPolicyDomainState
        try sim.device.enroll("index")
        #expect(context.evaluatedPolicyDomainState == before)
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        #expect(context.evaluatedPolicyDomainState != before)
    }

    @Test("§7 changes with the enrolled set and depends only on the resulting set")
    func dependsOnSet() throws {
        let sim = try TestDevice()
        let original = currentState(sim)
        try sim.device.enroll("index")
        let added = currentState(sim)
        #expect(added != original)
        try sim.device.unenroll("index")
        #expect(currentState(sim) == original)
        try sim.device.reenroll("thumb")
        #expect(currentState(sim) != original)
    }

    @Test("§7 differs between apps; an OS upgrade changes it")
    func perAppAndUpgrade() throws {
        let sim = try TestDevice()
        let mine = currentState(sim)
        let other = LAContext(authenticator: sim.authenticator.forApp("com.example.other"))
        _ = other.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        #expect(other.evaluatedPolicyDomainState != nil)
        #expect(other.evaluatedPolicyDomainState != mine)
        try sim.device.simulateOSUpgrade()
        #expect(currentState(sim) != mine)
    }

    @Test("§7 domainState: biometry.stateHash (nil when nothing enrolled), biometryType, companion, stateHash")
    func newerAPI() throws {
        let sim = try TestDevice(companion: ["type": "watch"])
        let fresh = sim.makeLAContext()
        #expect(fresh.domainState.stateHash == nil)
        #expect(fresh.domainState.biometry.stateHash == nil)
        _ = fresh.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        let state = fresh.domainState
        #expect(state.biometry.stateHash != nil)
        #expect(fresh.evaluatedPolicyDomainState != nil)
        #expect(state.biometry.biometryType == .touchID)
        #expect(state.companion.availableCompanionTypes == [.watch])
        #expect(state.companion.stateHash != nil)
        #expect(state.companion.stateHash(for: .watch) != nil)
        #expect(state.companion.stateHash(for: .mac) == nil)
        #expect(state.stateHash != nil)

        let empty = try TestDevice(enrolled: [])
        let context = empty.makeLAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthentication, error: nil)
        #expect(context.domainState.biometry.stateHash == nil)
        #expect(context.domainState.biometry.biometryType == .touchID)
        #expect(context.domainState.companion.availableCompanionTypes.isEmpty)
    }

    @Test("LACompanionType.vision (iOS 26) is kLACompanionTypeVision = 4; no Vision Pro is paired, so its state hash is nil")
    func visionCompanion() throws {
        #expect(LACompanionType.vision.rawValue == Int(kLACompanionTypeVision) && kLACompanionTypeVision == 4)
        #expect(kLACompanionTypeNone == 0 && LACompanionType(rawValue: Int(kLACompanionTypeNone)) == nil)
        let sim = try TestDevice(companion: ["type": "watch"])
        let context = sim.makeLAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometricsOrCompanion, error: nil)
        #expect(!context.domainState.companion.availableCompanionTypes.contains(.vision))
        #expect(context.domainState.companion.stateHash(for: .vision) == nil)
        #expect(context.domainState.companion.stateHash(for: .watch) != nil)
    }

    // MARK: §9

    @Test("§9 access-control flag bits; or with and is rejected")
    func flagBits() {
        #expect(SecAccessControlCreateFlags.userPresence.rawValue == 1)
        #expect(SecAccessControlCreateFlags.biometryAny.rawValue == 2)
        #expect(SecAccessControlCreateFlags.biometryCurrentSet.rawValue == 8)
        #expect(SecAccessControlCreateFlags.devicePasscode.rawValue == 16)
        #expect(SecAccessControlCreateFlags.companion.rawValue == 32)
        #expect(SecAccessControlCreateFlags.or.rawValue == 16384)
        #expect(SecAccessControlCreateFlags.and.rawValue == 32768)
        #expect(SecAccessControlCreateFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(SecAccessControlCreateFlags.applicationPassword.rawValue == 1 << 31)
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.biometryAny, .or, .devicePasscode], nil) != nil)
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.biometryAny, .and, .devicePasscode], nil) != nil)
        #expect(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.or, .and], nil) == nil)
    }

    @Test("§9 status codes")
    func statusCodes() {
        #expect(errSecSuccess == 0)
        #expect(errSecParam == -50)
        #expect(errSecUserCanceled == -128)
        #expect(errSecNotAvailable == -25291)
        #expect(errSecAuthFailed == -25293)
        #expect(errSecDuplicateItem == -25299)
        #expect(errSecItemNotFound == -25300)
        #expect(errSecInteractionNotAllowed == -25308)
    }

    @Test("§9 accessibility classes are all accepted")
    func accessibilityClasses() {
        for protection in [kSecAttrAccessibleWhenUnlocked, kSecAttrAccessibleAfterFirstUnlock,
                           kSecAttrAccessibleWhenUnlockedThisDeviceOnly, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                           kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly] {
            #expect(SecAccessControlCreateWithFlags(nil, protection, [], nil) != nil)
        }
    }

    /// Adds service "s" / account "a" with `flags` and `protection`; returns the status.
    static func add(_ flags: SecAccessControlCreateFlags, _ protection: CFString = kSecAttrAccessibleWhenUnlocked,
                    value: String = "v", context: LAContext? = nil) -> OSStatus {
        guard let access = SecAccessControlCreateWithFlags(nil, protection, flags, nil) else { return errSecParam }
        var item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                   kSecAttrAccount as String: "a", kSecValueData as String: Data(value.utf8),
                                   kSecAttrAccessControl as String: access]
        if let context { item[kSecUseAuthenticationContext as String] = context }
        return SecItemAdd(item as CFDictionary, nil)
    }

    /// Reads service "s" / account "a"; returns the status and the value.
    static func read(context: LAContext? = nil) -> (OSStatus, String?) {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                    kSecAttrAccount as String: "a", kSecReturnData as String: true,
                                    kSecMatchLimit as String: kSecMatchLimitOne]
        if let context { query[kSecUseAuthenticationContext as String] = context }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, (result as? Data).flatMap { String(data: $0, encoding: .utf8) })
    }

    @Test("§9 biometryCurrentSet: invalidated by an enrollment change (errSecItemNotFound); biometryAny survives")
    func currentSetInvalidated() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            var statuses = [Self.add(.biometryCurrentSet)]
            sim.user.enqueue(.present("thumb"))
            statuses.append(Self.read().0)
            _ = try? sim.device.enroll("index")
            statuses.append(Self.read().0)
            return statuses
        }
        #expect(statuses == [errSecSuccess, errSecSuccess, errSecItemNotFound])

        let any = try TestDevice()
        let anyStatuses = await any.blocking { () -> [OSStatus] in
            var statuses = [Self.add(.biometryAny)]
            _ = try? any.device.enroll("index")
            any.user.enqueue(.present("index"))
            statuses.append(Self.read().0)
            return statuses
        }
        #expect(anyStatuses == [errSecSuccess, errSecSuccess])
    }

    @Test("§9 a read refused because biometry is locked out is errSecAuthFailed; cancel is errSecUserCanceled")
    func lockoutAndCancel() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2)) == .biometryLockout)
        let statuses = await sim.blocking { () -> [OSStatus] in
            [Self.add(.biometryAny), Self.read().0]
        }
        #expect(statuses == [errSecSuccess, errSecAuthFailed])
        let other = try TestDevice()
        let cancelled = await other.blocking { () -> OSStatus in
            _ = Self.add(.userPresence)
            other.user.enqueue(.cancel)
            return Self.read().0
        }
        #expect(cancelled == errSecUserCanceled)
    }

    @Test("§9 whenPasscodeSetThisDeviceOnly: not storable without a passcode — as a kSecAttrAccessControl errSecAuthFailed (its binding through LocalAuthentication fails: SecItemAuthDo, osstatus_for_localauthentication_error), as a plain kSecAttrAccessible errSecNotAvailable; removing the passcode deletes the item")
    func passcodeBound() async throws {
        let none = try TestDevice(passcode: nil)
        let refused = await none.blocking { () -> [OSStatus] in
            let plain: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                        kSecAttrAccount as String: "plain", kSecValueData as String: Data("v".utf8),
                                        kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly]
            return [Self.add([], kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly), Self.add(.userPresence, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly),
                    SecItemAdd(plain as CFDictionary, nil)]
        }
        #expect(refused == [errSecAuthFailed, errSecAuthFailed, errSecNotAvailable])
        // An update that binds such an access control to an item is refused the same way.
        let moved = await none.blocking { () -> [OSStatus] in
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s", kSecAttrAccount as String: "a"]
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, [], nil) as Any
            return [Self.add([]), SecItemUpdate(query as CFDictionary, [kSecAttrAccessControl as String: access] as CFDictionary),
                    SecItemUpdate(query as CFDictionary, [kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly] as CFDictionary)]
        }
        #expect(moved == [errSecSuccess, errSecAuthFailed, errSecNotAvailable])
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            var statuses = [Self.add([], kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly), Self.read().0]
            try? sim.device.clearPasscode()
            statuses.append(Self.read().0)
            return statuses
        }
        #expect(statuses == [errSecSuccess, errSecSuccess, errSecItemNotFound])
    }

    @Test("§9 duplicates, update, delete, not found")
    func crud() async throws {
        let sim = try TestDevice()
        let results = await sim.blocking { () -> [String] in
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                        kSecAttrAccount as String: "a"]
            return [
                "\(Self.add([]))", "\(Self.add([]))",
                "\(SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data("w".utf8)] as CFDictionary))",
                Self.read().1 ?? "nil",
                "\(SecItemUpdate(query as CFDictionary, [kSecAttrAccount as String: "b"] as CFDictionary))",
                "\(SecItemDelete(query as CFDictionary))", "\(Self.read().0)",
                "\(SecItemDelete([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "b"] as CFDictionary))",
                "\(SecItemDelete([kSecClass as String: kSecClassGenericPassword] as CFDictionary))",
            ]
        }
        // Renaming the account moves the item: the old name is gone, the new one deletes.
        #expect(results == ["0", "-25299", "0", "w", "0", "-25300", "-25300", "0", "-25300"])
    }

    @Test("§9 userPresence: biometry or the passcode; devicePasscode: the passcode alone")
    func userPresenceAndPasscode() async throws {
        let sim = try TestDevice()
        let values = await sim.blocking { () -> [String?] in
            _ = Self.add(.userPresence)
            sim.user.enqueue([.noMatch, .fallback, .passcode("1234")])
            let first = Self.read().1
            sim.user.enqueue(.present("thumb"))
            let second = Self.read().1
            return [first, second]
        }
        #expect(values == ["v", "v"])
        let passcodeOnly = try TestDevice()
        let value = await passcodeOnly.blocking { () -> String? in
            _ = Self.add(.devicePasscode)
            passcodeOnly.user.enqueue(.passcode("1234"))
            return Self.read().1
        }
        #expect(value == "v")
    }

    @Test("§9 applicationPassword: an extra encryption factor; the wrong password is errSecAuthFailed")
    func applicationPassword() async throws {
        let sim = try TestDevice()
        let results = await sim.blocking { () -> [String] in
            let writer = LAContext()
            writer.setCredential(Data("123456".utf8), type: .applicationPassword)
            let noCredential = Self.add(.applicationPassword)
            let add = Self.add(.applicationPassword, context: writer)
            let right = LAContext()
            right.setCredential(Data("123456".utf8), type: .applicationPassword)
            let wrong = LAContext()
            wrong.setCredential(Data("000000".utf8), type: .applicationPassword)
            // A lookup of its attributes alone opens it too (its ACL needs the password to decrypt it).
            let attributes: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                             kSecReturnAttributes as String: true]
            var result: CFTypeRef?
            let withoutCredential = SecItemCopyMatching(attributes as CFDictionary, &result)
            let withCredential = SecItemCopyMatching(attributes.merging([kSecUseAuthenticationContext as String: right]) { $1 } as CFDictionary, &result)
            return ["\(noCredential)", "\(add)", Self.read(context: right).1 ?? "nil", "\(Self.read(context: wrong).0)",
                    "\(Self.read().0)", "\(withoutCredential)", "\(withCredential)"]
        }
        #expect(results == ["-25293", "0", "v", "-25293", "-25293", "-25293", "0"])
    }

    @Test("§9 kSecUseAuthenticationUIFail and UISkip never prompt")
    func authenticationUI() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            _ = Self.add(.userPresence)
            var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                        kSecReturnData as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]
            var result: CFTypeRef?
            let fail = SecItemCopyMatching(query as CFDictionary, &result)
            query[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
            let skip = SecItemCopyMatching(query as CFDictionary, &result)
            return [fail, skip]
        }
        #expect(statuses == [errSecInteractionNotAllowed, errSecItemNotFound])
    }

    @Test("§9 a lookup that asks for no data opens a protected item all the same: an existence check or attributes alone is errSecInteractionNotAllowed under UIFail, errSecItemNotFound under UISkip, and otherwise prompts (Apple's sec_acl_stress.c; SecDbKeychainItem.m decrypts an item whose ACL has constraints)")
    func lookupWithoutDataOpensProtectedItem() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.cancel, .present("thumb")])
        let statuses = await sim.blocking { () -> [OSStatus] in
            _ = Self.add(.userPresence)
            var statuses: [OSStatus] = []
            let exists: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
            for ui in [kSecUseAuthenticationUIFail, kSecUseAuthenticationUISkip] {
                statuses.append(SecItemCopyMatching(exists.merging([kSecUseAuthenticationUI as String: ui]) { $1 } as CFDictionary, nil))
            }
            var result: CFTypeRef?
            let attributes = exists.merging([kSecReturnAttributes as String: true]) { $1 }
            for ui in [kSecUseAuthenticationUIFail, kSecUseAuthenticationUISkip] {
                statuses.append(SecItemCopyMatching(attributes.merging([kSecUseAuthenticationUI as String: ui]) { $1 } as CFDictionary, &result))
            }
            // Prompts: the cancel, then the match.
            statuses.append(SecItemCopyMatching(exists as CFDictionary, nil))
            statuses.append(SecItemCopyMatching(attributes as CFDictionary, &result))
            return statuses
        }
        #expect(statuses == [errSecInteractionNotAllowed, errSecItemNotFound, errSecInteractionNotAllowed, errSecItemNotFound,
                             errSecUserCanceled, errSecSuccess])
        #expect(sim.user.pending.isEmpty)
    }

    @Test("§9 UIFail with a given LAContext does not prompt (errSecInteractionNotAllowed unless that context already opened the item: SecItemAuthDo makes the call non-interactive); UISkip skips only what still needs an evaluation, before the match limit (SecItemDb.c)")
    func lookupContextUIAndLimit() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb")])
        let results = await sim.blocking { () -> [String] in
            _ = Self.add(.userPresence)  // "s" / "a", protected, added first
            SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                        kSecAttrAccount as String: "b", kSecValueData as String: Data("plain".utf8)] as CFDictionary, nil)
            func exists(_ context: LAContext, _ ui: CFString) -> OSStatus {
                SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                     kSecAttrAccount as String: "a", kSecUseAuthenticationContext as String: context,
                                     kSecUseAuthenticationUI as String: ui] as CFDictionary, nil)
            }
            let fresh = LAContext(), opened = LAContext()
            let failFresh = exists(fresh, kSecUseAuthenticationUIFail)
            let read = Self.read(context: opened).0  // the one prompt: the thumb
            let failOpened = exists(opened, kSecUseAuthenticationUIFail)
            let skipOpened = exists(opened, kSecUseAuthenticationUISkip)
            var result: CFTypeRef?
            let first = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                             kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitOne,
                                             kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip] as CFDictionary, &result)
            let account = (result as? [String: Any])?[kSecAttrAccount as String] as? String
            return ["\(failFresh)", "\(read)", "\(failOpened)", "\(skipOpened)", "\(first) \(account ?? "nil")"]
        }
        #expect(results == ["\(errSecInteractionNotAllowed)", "0", "0", "0", "0 b"])
        #expect(sim.user.pending.isEmpty, "the read took the one match; nothing else prompted")
    }

    @Test("§9 SecItemUpdate of several protected items asks once: one context opens them all, as for a lookup")
    func updateOfSeveralAsksOnce() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb")])
        let status = await sim.blocking { () -> OSStatus in
            for account in ["u1", "u2"] {
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryAny, nil)
                SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "upd",
                            kSecAttrAccount as String: account, kSecValueData as String: Data(account.utf8),
                            kSecAttrAccessControl as String: access as Any] as CFDictionary, nil)
            }
            return SecItemUpdate([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "upd"] as CFDictionary,
                                 [kSecAttrLabel as String: "both"] as CFDictionary)
        }
        #expect(status == errSecSuccess)
        #expect(sim.user.pending.isEmpty)
        #expect(sim.device.lastTrace != nil)
    }

    @Test("§9 kSecMatchLimitAll returns every matching item, in the order they were added (as iOS does); one prompt opens the protected items a lookup of their attributes finds (one LAContext for the call, as SecItem.m's SecItemAuthDo evaluates every access control)")
    func matchAll() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb")])
        let accounts = await sim.blocking { () -> [String] in
            for account in ["b", "a", "c"] {
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryAny, nil)
                SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "multi",
                            kSecAttrAccount as String: account, kSecValueData as String: Data(account.utf8),
                            kSecAttrAccessControl as String: access as Any] as CFDictionary, nil)
            }
            var result: CFTypeRef?
            SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "multi",
                                 kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary,
                                &result)
            return ((result as? [[String: Any]]) ?? []).compactMap { $0[kSecAttrAccount as String] as? String }
        }
        #expect(accounts == ["b", "a", "c"])
        #expect(sim.user.pending.isEmpty, "the one match opened all three")
    }

    @Test("the order of adds: a renamed or updated item keeps its place, a deleted one leaves it; the count lives in the store and is rebuilt if damaged")
    func insertionOrderSurvivesUpdates() async throws {
        let sim = try TestDevice()
        @Sendable func all() -> [String] {
            var result: CFTypeRef?
            SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecReturnAttributes as String: true,
                                 kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary, &result)
            return ((result as? [[String: Any]]) ?? []).compactMap { $0[kSecAttrAccount as String] as? String }
        }
        let orders = await sim.blocking { () -> [[String]] in
            func add(_ account: String) {
                SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                            kSecAttrAccount as String: account, kSecValueData as String: Data(account.utf8)] as CFDictionary, nil)
            }
            for account in ["c", "a", "b"] { add(account) }
            var orders = [all()]
            let item = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s"]
            var renamed = item
            renamed[kSecAttrAccount as String] = "a"
            SecItemUpdate(renamed as CFDictionary, [kSecAttrAccount as String: "z", kSecValueData as String: Data("z".utf8)] as CFDictionary)
            orders.append(all())
            var deleted = item
            deleted[kSecAttrAccount as String] = "c"
            SecItemDelete(deleted as CFDictionary)
            add("c")
            orders.append(all())
            return orders
        }
        #expect(orders == [["c", "a", "b"], ["c", "z", "b"], ["z", "b", "c"]])
        let counted = try #require(try sim.device.storage.read(RecordKey(Keychain.orderNamespace, sim.authenticator.appID)))
        #expect(String(decoding: counted.value, as: UTF8.self) == "4")
        // A count that is not a number is rebuilt from the items: the next add comes last.
        try sim.device.storage.transaction { $0.put(Record(key: counted.key, value: Data("four".utf8))) }
        try sim.keychain.add("v", service: "s", account: "new")
        #expect(try sim.keychain.items(service: "s").map { "\($0.account) \($0.insertionOrder ?? 0)" } == ["b 3", "c 4", "new 5", "z 2"])
        #expect(try sim.device.storage.read(counted.key).map { String(decoding: $0.value, as: UTF8.self) } == "5")
    }
}
#endif
