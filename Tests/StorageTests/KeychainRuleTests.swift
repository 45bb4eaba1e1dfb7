import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// The keychain rules of REFERENCE §9 (and §8 for contexts), one behaviour per test.
@Suite("Keychain rules (REFERENCE §9)")
struct KeychainRuleTests {
    func access(_ flags: AccessControlFlags, _ accessibility: Accessibility = .whenUnlocked) throws -> AccessControl {
        try AccessControl(accessibility, flags: flags)
    }

    @Test("access-control flags have Apple's bit values")
    func flagBitValues() {
        #expect(AccessControlFlags.userPresence.rawValue == 1)
        #expect(AccessControlFlags.biometryAny.rawValue == 2)
        #expect(AccessControlFlags.biometryCurrentSet.rawValue == 8)
        #expect(AccessControlFlags.devicePasscode.rawValue == 16)
        #expect(AccessControlFlags.companion.rawValue == 32)
        #expect(AccessControlFlags.or.rawValue == 16384)
        #expect(AccessControlFlags.and.rawValue == 32768)
        #expect(AccessControlFlags.privateKeyUsage.rawValue == 1 << 30)
        #expect(AccessControlFlags.applicationPassword.rawValue == 1 << 31)
        #expect(KeychainStatus.itemNotFound.rawValue == -25300 && KeychainStatus.interactionNotAllowed.rawValue == -25308)
    }

    @Test("or combined with and is errSecParam")
    func orWithAndRejected() throws {
        #expect(throws: KeychainError(.invalidParameter, message: "only one logical operation can be set")) {
            try AccessControl(flags: [.biometryAny, .or, .and, .devicePasscode])
        }
        let rig = try TestDevice()
        do {
            try rig.keychain.add("v", service: "s", account: "a", accessControl: AccessControl(flags: [.biometryAny, .or, .and]))
            Issue.record("accepted or+and")
        } catch let error as KeychainError {
            #expect(error.osStatus == -50)
        }
    }

    @Test("only one biometry flag: biometryAny with biometryCurrentSet is errSecParam (Apple's SecAccessControl.m)")
    func oneBiometryConstraint() throws {
        #expect(throws: KeychainError(.invalidParameter, message: "only one bio constraint can be set")) {
            try AccessControl(flags: [.biometryAny, .biometryCurrentSet])
        }
        #expect(throws: KeychainError.self) { try AccessControl(flags: [.biometryAny, .or, .biometryCurrentSet]) }
        _ = try AccessControl(flags: [.biometryCurrentSet, .or, .devicePasscode])
    }

    @Test("userPresence combines only with applicationPassword and privateKeyUsage; anything else is errSecParam (Apple's SecAccessControl.m)")
    func userPresenceStandsAlone() throws {
        for flags: AccessControlFlags in [[.userPresence, .devicePasscode], [.userPresence, .or, .devicePasscode],
                                          [.userPresence, .biometryAny], [.userPresence, .companion], [.userPresence, .and]] {
            #expect(throws: KeychainError(.invalidParameter, message: "kSecAccessControlUserPresence can be combined only with kSecAccessControlApplicationPassword and kSecAccessControlPrivateKeyUsage"), "\(flags)") {
                try AccessControl(flags: flags)
            }
        }
        _ = try AccessControl(flags: [.userPresence, .applicationPassword, .privateKeyUsage])
    }

    @Test("an unprotected item reads back without a prompt; a second add is errSecDuplicateItem")
    func plainItem() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("token-1", service: "api", account: "alice")
        #expect(await rig.read("api", "alice") == .success("token-1"))
        #expect(throws: KeychainError.self) { try rig.keychain.add("x", service: "api", account: "alice") }
        do { try rig.keychain.add("x", service: "api", account: "alice") } catch let error as KeychainError {
            #expect(error.osStatus == -25299)
        }
        #expect(await rig.read("api", "bob").status == -25300)
    }

    @Test("biometryAny: reading runs a biometric evaluation; a match opens the item")
    func biometryAnyPrompts() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.biometryAny))
        #expect(await rig.read("api", "alice", [.present("thumb")]) == .success("secret"))
        #expect(rig.device.lastTrace?.policy == "access-control(biometryAny)")
        #expect(rig.user.pending.isEmpty)
    }

    @Test("user cancel is errSecUserCanceled (-128) with LAError userCancel")
    func cancelIsUserCanceled() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.biometryAny))
        let result = await rig.read("api", "alice", [.cancel])
        #expect(result.status == -128)
        if case let .failure(error) = result { #expect(error.kind == .cancelled && error.authenticationCode == .userCancel) }
    }

    @Test("biometryCurrentSet survives nothing: after an enrollment change reads are errSecItemNotFound, 'invalidated by an enrollment change'")
    func currentSetInvalidatedByEnrollmentChange() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.biometryCurrentSet))
        #expect(await rig.read("api", "alice", [.present("thumb")]) == .success("secret"))
        try rig.device.enroll("index")
        let result = await rig.read("api", "alice", [.present("thumb")])
        #expect(result.status == -25300)
        #expect(result.kind == .invalidated)
        if case let .failure(error) = result { #expect(error.description.contains("invalidated by an enrollment change")) }
        #expect(rig.user.pending == [.present("thumb")], "no prompt is shown for an invalidated item")
        #expect(try rig.keychain.info(service: "api", account: "alice").isInvalidated)
        // The invalidated item still exists (REFERENCE §9): adding it again is errSecDuplicateItem
        // until it is deleted.
        #expect(throws: KeychainError.self) {
            try rig.keychain.add("fresh", service: "api", account: "alice", accessControl: access(.biometryCurrentSet))
        }
        try rig.keychain.delete(service: "api", account: "alice")
        try rig.keychain.add("fresh", service: "api", account: "alice", accessControl: access(.biometryCurrentSet))
        rig.user.clear()
        #expect(await rig.read("api", "alice", [.present("index")]) == .success("fresh"))
    }

    @Test("biometryAny survives enrollment changes")
    func biometryAnySurvivesChanges() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.biometryAny))
        try rig.device.enroll("index")
        try rig.device.unenroll("thumb")
        #expect(await rig.read("api", "alice", [.present("index")]) == .success("secret"))
    }

    @Test("userPresence survives enrollment changes and accepts the passcode")
    func userPresenceAcceptsPasscode() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.userPresence))
        try rig.device.reenroll("thumb")
        #expect(await rig.read("api", "alice", [.noMatch, .fallback, .passcode("1234")]) == .success("secret"))
    }

    @Test("devicePasscode asks for the passcode only")
    func devicePasscodeOnly() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.devicePasscode))
        #expect(await rig.read("api", "alice", [.passcode("1234")]) == .success("secret"))
        #expect(rig.device.lastTrace?.steps.contains { $0.event == .prompt(.biometric, fallbackButton: nil) } == false)
        #expect(await rig.read("api", "alice", [.passcode("9999"), .cancel]).status == -128)
    }

    @Test("a read refused because biometry is locked out is errSecAuthFailed (-25293)")
    func lockoutIsAuthFailed() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.biometryAny))
        rig.user.enqueue(Array(repeating: .noMatch, count: 3))
        _ = try? await rig.authenticator.makeContext().evaluate(rig.authenticator.policy(named: "biometrics"), reason: "x")
        rig.user.enqueue(Array(repeating: .noMatch, count: 2))
        _ = try? await rig.authenticator.makeContext().evaluate(rig.authenticator.policy(named: "biometrics"), reason: "x")
        #expect(try rig.device.biometryStatus().isLockedOut)
        let result = await rig.read("api", "alice")
        #expect(result.status == -25293)
        #expect(result.kind == .lockedOut)
        if case let .failure(error) = result { #expect(error.authenticationCode == .biometryLockout) }
    }

    @Test("interactionNotAllowed makes a read that needs the user errSecInteractionNotAllowed (-25308)")
    func interactionNotAllowed() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.biometryAny))
        let context = rig.authenticator.makeContext()
        context.interactionNotAllowed = true
        #expect(await rig.read("api", "alice", context: context).status == -25308)
        // Unprotected items still read.
        try rig.keychain.add("plain", service: "api", account: "bob")
        #expect(await rig.read("api", "bob", context: context) == .success("plain"))
    }

    @Test("the reuse window opens a biometric item without a new scan")
    func reuseWindowHonoured() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "api", account: "alice", accessControl: access(.biometryAny))
        try rig.device.unlock(with: "thumb")
        let context = rig.authenticator.makeContext()
        context.touchIDAuthenticationAllowableReuseDuration = .seconds(60)
        context.interactionNotAllowed = true
        rig.clock.advance(by: .seconds(30))
        #expect(await rig.read("api", "alice", context: context) == .success("secret"))
        rig.clock.advance(by: .seconds(60))
        #expect(await rig.read("api", "alice", context: rig.authenticator.makeContext().withNoInteraction()).status == -25308)
    }

    @Test("evaluateAccessControl once, then matching items open on that context without asking")
    func evaluateAccessControlGrants() async throws {
        let rig = try TestDevice()
        let acl = try access(.biometryCurrentSet, .whenUnlockedThisDeviceOnly)
        try rig.keychain.add("one", service: "api", account: "alice", accessControl: acl)
        try rig.keychain.add("two", service: "api", account: "bob", accessControl: acl)
        let context = rig.authenticator.makeContext()
        rig.user.enqueue(.present("thumb"))
        let methods = try await context.evaluateAccessControl(acl, operation: .useItem, reason: "Sign in")
        #expect(methods == [.biometry])
        context.interactionNotAllowed = true
        #expect(await rig.read("api", "alice", context: context) == .success("one"))
        #expect(await rig.read("api", "bob", context: context) == .success("two"))
        // A passcode-only item is not covered by a biometric grant.
        try rig.keychain.add("three", service: "api", account: "carol", accessControl: access(.devicePasscode))
        #expect(await rig.read("api", "carol", context: context).status == -25308)
        #expect(AccessControlOperation.useKeyKeyExchange.rawValue == 5 && AccessControlOperation.createItem.rawValue == 0)
    }

    @Test("or: biometry or passcode accepts either; and: both are required")
    func orAndCombinations() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("either", service: "s", account: "or", accessControl: access([.biometryAny, .or, .devicePasscode]))
        try rig.keychain.add("both", service: "s", account: "and", accessControl: access([.biometryAny, .and, .devicePasscode]))
        #expect(await rig.read("s", "or", [.noMatch, .fallback, .passcode("1234")]) == .success("either"))
        #expect(await rig.read("s", "and", [.present("thumb"), .passcode("1234")]) == .success("both"))
        #expect(await rig.read("s", "and", [.present("thumb"), .cancel]).status == -128)
    }

    @Test("whenPasscodeSetThisDeviceOnly cannot be stored without a passcode (errSecNotAvailable -25291)")
    func passcodeSetNeedsPasscode() throws {
        let rig = try TestDevice(passcode: nil)
        do {
            try rig.keychain.add("v", service: "s", account: "a", accessControl: access([], .whenPasscodeSetThisDeviceOnly))
            Issue.record("stored without a passcode")
        } catch let error as KeychainError {
            #expect(error.osStatus == -25291 && error.kind == .notAvailable)
        }
    }

    @Test("removing the passcode deletes whenPasscodeSetThisDeviceOnly items and only those")
    func passcodeRemovalDeletesItems() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("bound", service: "s", account: "bound", accessControl: access([], .whenPasscodeSetThisDeviceOnly))
        try rig.keychain.add("kept", service: "s", account: "kept")
        try rig.device.clearPasscode()
        #expect(await rig.read("s", "bound").status == -25300)
        #expect(await rig.read("s", "kept") == .success("kept"))
        #expect(try rig.device.storage.list(namespace: Keychain.namespace).count == 1)
    }

    @Test("one item's attributes and an unprompted read come from its own record, and follow the same rules as a full read")
    func singleItemReads() async throws {
        let rig = try TestDevice()
        for index in 0..<50 { try rig.keychain.add("other", service: "s", account: "other-\(index)") }
        try rig.keychain.add("plain", service: "s", account: "alice")
        try rig.keychain.add("guarded", service: "s", account: "bob", accessControl: access(.biometryAny))
        try rig.keychain.add("bound", service: "s", account: "carol", accessControl: access([], .whenPasscodeSetThisDeviceOnly))

        // The record read alone gives what the listing gives.
        let listed = try rig.keychain.items(service: "s").first { $0.account == "alice" }
        #expect(try rig.keychain.info(service: "s", account: "alice") == listed)
        #expect(throws: KeychainError(.itemNotFound)) { try rig.keychain.info(service: "s", account: "nobody") }
        #expect(throws: KeychainError(.itemNotFound)) { try rig.keychain.info(service: "", account: "alice") }
        #expect(throws: KeychainError(.itemNotFound)) { try rig.keychain.info(service: "s", account: "alice", itemClass: .internetPassword) }

        // No evaluation needed: the value. Needed: nil, and nobody was asked (no trace, no action taken).
        #expect(try rig.keychain.readWithoutEvaluation(service: "s", account: "alice", itemClass: .genericPassword, context: nil)
            == Data("plain".utf8))
        rig.user.enqueue(.present("thumb"))
        #expect(try rig.keychain.readWithoutEvaluation(service: "s", account: "bob", itemClass: .genericPassword, context: nil) == nil)
        #expect(rig.user.pending.count == 1 && rig.device.lastTrace == nil)
        // A context that already satisfied the flags reads without one, as `read` does.
        let context = rig.authenticator.makeContext()
        try await context.evaluate(.biometrics, reason: "Unlock")
        #expect(try rig.keychain.readWithoutEvaluation(service: "s", account: "bob", itemClass: .genericPassword, context: context)
            == Data("guarded".utf8))
        // The other rules throw as in a full read.
        #expect(throws: KeychainError(.itemNotFound)) {
            try rig.keychain.readWithoutEvaluation(service: "s", account: "nobody", itemClass: .genericPassword, context: nil)
        }
        try rig.device.clearPasscode()
        #expect(throws: KeychainError.self) {
            try rig.keychain.readWithoutEvaluation(service: "s", account: "carol", itemClass: .genericPassword, context: nil)
        }
        #expect(throws: KeychainError(.itemNotFound)) { try rig.keychain.info(service: "s", account: "carol") }
        context.invalidate()
        let refused = #expect(throws: KeychainError.self, "an invalidated context read an item") {
            try rig.keychain.readWithoutEvaluation(service: "s", account: "alice", itemClass: .genericPassword, context: context)
        }
        #expect(refused?.osStatus == -25293)
    }

    @Test("a new item whose name holds a '/' or '%' joined to a combining mark is errSecParam: two such items could share one record")
    func joinedSeparatorRefused() async throws {
        let rig = try TestDevice()
        // (service "a/◌́b", account "◌́c") and (service "a", account "◌́b/◌́c") would have one key.
        for (service, account) in [("a/\u{301}b", "\u{301}c"), ("a", "\u{301}b/\u{301}c"), ("x%\u{301}", "y")] {
            let error = #expect(throws: KeychainError.self, "added \(service.debugDescription) \(account.debugDescription)") {
                try rig.keychain.add("v", service: service, account: account)
            }
            #expect(error?.osStatus == -50 && error?.message.contains("joined to the mark") == true, "\(String(describing: error))")
        }
        #expect(try rig.keychain.items().isEmpty)
        // Plain separators and combining marks elsewhere are fine.
        try rig.keychain.add("v1", service: "a/b", account: "c%d")
        try rig.keychain.add("v2", service: "é/x", account: "e\u{301}")
        #expect(try rig.keychain.items().count == 2)
        // A rename into such a name is refused the same way.
        await #expect(throws: KeychainError.self) {
            try await rig.keychain.update(service: "a/b", account: "c%d",
                                          changes: KeychainItemChanges(account: "z/\u{301}"))
        }
    }

    @Test("record keys: the byte check escapes exactly the names the character rule escaped, so every item keeps its key")
    func recordKeyEscapingUnchanged() {
        // The rule every stored key was made with: escape when a whole character is "%" or "/".
        func characterRule(_ part: String) -> String {
            guard part.contains(where: { $0 == "%" || $0 == "/" }) else { return part }
            return part.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
        }
        var names = ["", "api", "a/b", "50%", "%2F", "/", "%", "a/\u{301}b", "/\u{301}", "%\u{20DD}", "e\u{301}/x",
                     "👨‍👩‍👧/👧", "\u{FEFF}/", "日本/語%", "a\r\n/b", "ᄀ/"]
        var random = SystemRandomNumberGenerator()
        let pieces: [String] = ["a", "/", "%", "\u{301}", "\u{200D}", "👩", "\r\n", "é", "\u{0}", "2F"]
        for _ in 0..<2_000 {
            names.append((0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random) ?? "" }.joined())
        }
        for name in names {
            #expect(Keychain.escape(name) == characterRule(name), "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("applicationPassword: the value is sealed with the context's credential; missing or wrong is errSecAuthFailed")
    func applicationPassword() async throws {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        _ = context.setCredential(Data("app-pass".utf8), type: .applicationPassword)
        try rig.keychain.add("sealed-value", service: "s", account: "a", accessControl: access(.applicationPassword), context: context)
        let stored = try #require(try rig.device.storage.list(namespace: Keychain.namespace).first)
        #expect(!String(decoding: stored.value, as: UTF8.self).contains("sealed-value"))
        #expect(await rig.read("s", "a", context: context) == .success("sealed-value"))
        #expect(await rig.read("s", "a").status == -25293)
        let wrong = rig.authenticator.makeContext()
        _ = wrong.setCredential(Data("nope".utf8), type: .applicationPassword)
        #expect(await rig.read("s", "a", context: wrong).status == -25293)
        #expect(throws: KeychainError.self) {
            try rig.keychain.add("v", service: "s", account: "b", accessControl: access(.applicationPassword))
        }
        // Overwriting needs the right password too, even though the old value is replaced.
        await #expect(throws: KeychainError.self) {
            try await rig.keychain.update("overwritten", service: "s", account: "a", context: wrong)
        }
        #expect(await rig.read("s", "a", context: context) == .success("sealed-value"))
        try await rig.keychain.update("new-value", service: "s", account: "a", context: context)
        #expect(await rig.read("s", "a", context: context) == .success("new-value"))
    }

    @Test("an item deleted or re-protected while the update's prompt is up is not overwritten; one whose value changed meanwhile is")
    func itemChangedDuringUpdatePrompt() async throws {
        let rig = try TestDevice()
        rig.user.waitsForActions = true
        // Deleted and added again with weaker protection while the prompt is up: refused.
        try rig.keychain.add("v1", service: "s", account: "a", accessControl: access(.biometryAny))
        let update = Task { try await rig.keychain.update("v2", service: "s", account: "a") }
        await rig.untilEvaluationIsOnScreen()
        try rig.keychain.delete(service: "s", account: "a")
        try rig.keychain.add("other", service: "s", account: "a")
        rig.user.enqueue(.present("thumb"))
        await #expect(throws: KeychainError.self) { try await update.value }
        #expect(try await rig.keychain.read(service: "s", account: "a") == Data("other".utf8))

        // The value changed by another writer, protection unchanged: the update still lands.
        try rig.keychain.add("w1", service: "s", account: "b", accessControl: access(.biometryAny))
        let second = Task { try await rig.keychain.update("w3", service: "s", account: "b") }
        await rig.untilEvaluationIsOnScreen()
        let key = RecordKey(Keychain.namespace, [rig.authenticator.appID, KeychainItemClass.genericPassword.rawValue, "s", "b"]
            .map(Keychain.escape).joined(separator: "/"))
        try rig.device.storage.transaction { transaction in
            let record = try #require(try transaction.read(key))
            var item = try StoredItem.decode(record)
            item.value = Data("w2".utf8)
            transaction.put(item.record(key: key, appID: rig.authenticator.appID))
        }
        rig.user.enqueue(.present("thumb"))
        try await second.value
        rig.user.enqueue(.present("thumb"))
        #expect(try await rig.keychain.read(service: "s", account: "b") == Data("w3".utf8))
    }

    @Test("update keeps the protection and prompts; delete never prompts")
    func updateAndDelete() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("v1", service: "s", account: "a", accessControl: access(.biometryAny))
        rig.user.enqueue(.present("thumb"))
        try await rig.keychain.update("v2", service: "s", account: "a")
        #expect(await rig.read("s", "a", [.present("thumb")]) == .success("v2"))
        try rig.keychain.delete(service: "s", account: "a")
        #expect(await rig.read("s", "a").status == -25300)
        #expect(throws: KeychainError(.itemNotFound)) { try rig.keychain.delete(service: "s", account: "a") }
    }

    @Test("items are per app: another app on the device does not see them")
    func itemsArePerApp() async throws {
        let rig = try TestDevice()
        try rig.keychain.add("mine", service: "s", account: "a")
        let other = rig.authenticator.forApp("com.example.other").keychain
        #expect(try other.items().isEmpty)
        #expect(try rig.keychain.items().map(\.account) == ["a"])
    }

    @Test("items(service:itemClass:) lists that service's and class's items only, reading no other record")
    func itemsOfOneServiceAndClass() throws {
        let rig = try TestDevice()
        try rig.keychain.add("1", service: "a", account: "generic")
        try rig.keychain.add("2", service: "a", account: "internet", itemClass: .internetPassword)
        try rig.keychain.add("3", service: "ab", account: "longer-name")  // "a" is a prefix of its name
        try rig.keychain.add("4", service: "a/b", account: "slash")       // escaped in the record's name
        // A damaged record of another service: the calls that name a service never read it.
        let damaged = RecordKey(Keychain.namespace, [rig.authenticator.appID, KeychainItemClass.genericPassword.rawValue, "zz", "x"]
            .map(Keychain.escape).joined(separator: "/"))
        try rig.device.storage.transaction { $0.put(Record(key: damaged, value: Data("not an item".utf8))) }

        #expect(try rig.keychain.items(service: "a", itemClass: .genericPassword).map(\.account) == ["generic"])
        #expect(try rig.keychain.items(service: "a").map(\.account) == ["generic", "internet"])
        #expect(try rig.keychain.items(service: "a/b").map(\.account) == ["slash"])
        #expect(try rig.keychain.info(service: "a", account: "internet", itemClass: .internetPassword).itemClass == .internetPassword)
        #expect(throws: KeychainError(.itemNotFound)) { try rig.keychain.info(service: "a", account: "generic", itemClass: .internetPassword) }
        #expect(try rig.keychain.items(itemClass: .internetPassword).map(\.account) == ["internet"])
        // A name whose next character after the service's '/' is a combining mark still lists
        // under the service (prefixes compare bytes, not characters).
        try rig.keychain.add("5", service: "a", account: "\u{301}accent")
        #expect(try rig.keychain.items(service: "a", itemClass: .genericPassword).map(\.account) == ["generic", "\u{301}accent"])
        #expect(try rig.keychain.info(service: "a", account: "\u{301}accent").account == "\u{301}accent")
        // A listing that covers the damaged record reports it.
        #expect(throws: KeychainError.self) { try rig.keychain.items() }
        #expect(throws: KeychainError.self) { try rig.keychain.items(itemClass: .genericPassword) }
    }

    @Test("the keychain change detector: marker invalidated by an enrollment change reads 'changed' (seed 002)")
    func keychainDetector() throws {
        let rig = try TestDevice(detector: "detector.keychain")
        #expect(try rig.authenticator.checkForChange() == .notEnabled)
        try rig.authenticator.saveBaseline()
        #expect(try rig.authenticator.checkForChange() == .unchanged)
        try rig.device.simulateOSUpgrade()
        #expect(try rig.authenticator.checkForChange() == .unchanged)
        try rig.device.enroll("index")
        #expect(try rig.authenticator.checkForChange() == .changed)
        try rig.authenticator.saveBaseline()
        #expect(try rig.authenticator.checkForChange() == .unchanged)
        try rig.authenticator.clearBaseline()
        #expect(try rig.authenticator.checkForChange() == .notEnabled)
    }
}

extension AuthenticationContext {
    func withNoInteraction() -> AuthenticationContext {
        interactionNotAllowed = true
        return self
    }
}
