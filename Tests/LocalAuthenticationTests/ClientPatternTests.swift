#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// The client files under `Clients/` — our own code in the style of the biometric and keychain
/// libraries iOS apps use — compiled unchanged against these modules and run on simulated
/// devices: they must behave as on iOS.
@Suite("Client patterns: biometric and keychain wrappers as iOS code writes them")
struct ClientPatternTests {
    // MARK: A biometric wrapper switching on kLAError*

    /// Nil on success, else the wrapper's failure.
    func gate(_ sim: TestDevice, _ actions: [UserAction]) async -> BiometricGateFailure? {
        sim.user.enqueue(actions)
        let authenticator = sim.authenticator
        return await withCheckedContinuation { continuation in
            LocalAuthenticationSystem.withAuthenticator(authenticator) {
                BiometricGate().authenticate(reason: "Unlock your notes") { result in
                    switch result {
                    case .success: continuation.resume(returning: nil)
                    case let .failure(failure): continuation.resume(returning: failure)
                    }
                }
            }
        }
    }

    @Test("biometric wrapper: success, cancel, fallback, three failures, lockout, all through kLAError* constants")
    func biometricWrapper() async throws {
        let sim = try TestDevice()
        #expect(LocalAuthenticationSystem.withAuthenticator(sim.authenticator) { BiometricGate().canAuthenticate() } == nil)
        #expect(LocalAuthenticationSystem.withAuthenticator(sim.authenticator) { BiometricGate().biometryName() } == "Touch ID")
        #expect(await gate(sim, [.present("thumb")]) == nil)
        #expect(await gate(sim, [.cancel]) == .cancelledByUser)
        #expect(await gate(sim, [.noMatch, .fallback]) == .fallback)
        #expect(await gate(sim, [.noMatch, .noMatch, .noMatch]) == .failed)
        #expect(await gate(sim, [.noMatch, .noMatch]) == .lockedOut)
        #expect(LocalAuthenticationSystem.withAuthenticator(sim.authenticator) { BiometricGate().canAuthenticate() } == .lockedOut)
        #expect(sim.scriptingMistakes.isEmpty)
    }

    @Test("biometric wrapper: not enrolled, no passcode, no hardware map to the wrapper's permission cases")
    func biometricWrapperPermissions() throws {
        func answer(_ sim: TestDevice) -> BiometricGateFailure? {
            LocalAuthenticationSystem.withAuthenticator(sim.authenticator) { BiometricGate().canAuthenticate() }
        }
        #expect(try answer(TestDevice(enrolled: [])) == .notEnrolled)
        #expect(try answer(TestDevice(passcode: nil)) == .passcodeNotSet)
        #expect(try answer(TestDevice(sensorOptions: ["hardware": "absent"])) == .notAvailable)
        let faceID = try TestDevice(sensor: "sim.faceid", enrolled: ["face"])
        #expect(LocalAuthenticationSystem.withAuthenticator(faceID.authenticator) { BiometricGate().biometryName() } == "Face ID")
    }

    // MARK: Wrappers catching as NSError and as LAError

    @Test("the same thrown LAError is caught as NSError, as LAError and by LAError.userCancel")
    func catchingStyles() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.cancel])
        #expect(await signInCatchingNSError(sim.makeLAContext()) == .stay)
        sim.user.enqueue([.cancel])
        #expect(await signInCatchingLAError(sim.makeLAContext()) == .stay)
        sim.user.enqueue([.noMatch, .fallback])
        #expect(await signInCatchingNSError(sim.makeLAContext()) == .showPassword)
        sim.user.enqueue([.noMatch, .fallback])
        #expect(await signInCatchingLAError(sim.makeLAContext()) == .showPassword)
        sim.user.enqueue([.systemCancel])
        #expect(await signInCatchingNSError(sim.makeLAContext()) == .stay)
        sim.user.enqueue([.present("thumb")])
        #expect(await signInCatchingLAError(sim.makeLAContext()) == .signedIn, "a match resets the consecutive failures")
        sim.user.enqueue(.failures(3))
        #expect(await signInCatchingNSError(sim.makeLAContext()) == .showMessage(-1))
        sim.user.enqueue(.failures(2))
        #expect(await signInCatchingLAError(sim.makeLAContext()) == .unlockWithPasscode)
        #expect(await signInCatchingNSError(sim.makeLAContext()) == .unlockWithPasscode)
    }

    @Test("the reply form's error is an LAError and an NSError with the same code")
    func replyForm() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.cancel])
        let context = sim.makeLAContext()
        let (step, code) = await withCheckedContinuation { continuation in
            signInWithReply(context) { continuation.resume(returning: ($0, $1)) }
        }
        #expect(step == .stay)
        #expect(code == -2)
    }

    @Test("an app cancel (invalidate during the prompt) reaches the NSError catcher as appCancel")
    func appCancelAsNSError() async throws {
        let sim = try TestDevice()
        sim.user.waitsForActions = true
        let context = sim.makeLAContext()
        async let step = signInCatchingNSError(context)
        await sim.untilEvaluationIsOnScreen()
        context.invalidate()
        #expect(await step == .stay)
    }

    // MARK: A keychain wrapper with Data accounts and [String?: AnyObject] queries

    @Test("legacy keychain wrapper: Data accounts, [String?: AnyObject] queries, overwrite through errSecDuplicateItem")
    func legacyWrapper() async throws {
        let sim = try TestDevice()
        let results = await sim.blocking { () -> [String?] in
            let wrapper = LegacyKeychainWrapper(serviceName: "com.example.notes")
            return [
                "\(wrapper.set("s3cret", forKey: "token"))",
                wrapper.string(forKey: "token"),
                "\(wrapper.set("n3w", forKey: "token"))",
                wrapper.string(forKey: "token"),
                "\(wrapper.set("x", forKey: "other"))",
                wrapper.allKeys().sorted().joined(separator: ","),
                "\(wrapper.removeObject(forKey: "token"))",
                wrapper.string(forKey: "token"),
                wrapper.allKeys().sorted().joined(separator: ","),
            ]
        }
        #expect(results == ["true", "s3cret", "true", "n3w", "true", "other,token", "true", nil, "other"])
    }

    @Test("legacy keychain wrapper: the access group is stored and matched")
    func legacyWrapperAccessGroup() async throws {
        let sim = try TestDevice()
        let results = await sim.blocking { () -> [String?] in
            let shared = LegacyKeychainWrapper(serviceName: "svc", accessGroup: "TEAM.shared")
            let own = LegacyKeychainWrapper(serviceName: "svc")
            let explicitDefault = LegacyKeychainWrapper(serviceName: "svc", accessGroup: "TOUCHSTONE.com.example.app")
            _ = shared.set("in group", forKey: "k")
            return [shared.string(forKey: "k"), explicitDefault.string(forKey: "k"), own.string(forKey: "k"),
                    "\(own.set("default group", forKey: "d"))", explicitDefault.string(forKey: "d"), shared.string(forKey: "d")]
        }
        // A query without a group matches every group; one with a group matches only it; an item
        // added without one is in the app's default group (its application identifier, team id
        // and bundle id, as iOS).
        #expect(results == ["in group", nil, "in group", "true", "default group", nil])
    }

    // MARK: A KeychainAccess-style overwrite

    @Test("KeychainAccess-style set: SecItemUpdate with kSecAttrAccessible, label, comment and synchronizable overwrites")
    func overwrite() async throws {
        let sim = try TestDevice()
        let (values, attributes) = await sim.blocking { () -> ([String?], [String: String]) in
            var store = OverwritingKeychain(service: "com.example.api")
            var values: [String?] = []
            do throws(KeychainStoreError) {
                try store.set("first", key: "token")
                values.append(try store.get("token"))
                store.label = "API token"
                store.accessibility = kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String
                try store.set("second", key: "token")
                values.append(try store.get("token"))
            } catch {
                values.append("error \(error.status)")
            }
            let attributes = store.attributes(of: "token") ?? [:]
            return (values, attributes.compactMapValues { $0 as? String })
        }
        #expect(values == ["first", "second"])
        #expect(attributes[kSecAttrLabel as String] == "API token")
        #expect(attributes[kSecAttrAccessible as String] == kSecAttrAccessibleWhenUnlockedThisDeviceOnly as String)
        #expect(attributes[kSecAttrAccount as String] == "token")
    }

    @Test("KeychainAccess-style set with userPresence: the overwrite re-protects after satisfying the current access control")
    func overwriteProtected() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb")])
        let (first, second, read) = await sim.blocking { () -> (OSStatus, OSStatus, String?) in
            var store = OverwritingKeychain(service: "vault")
            store.accessibility = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String
            store.accessControlFlags = .userPresence
            let first = (try? store.set("one", key: "k")) == nil ? errSecParam : errSecSuccess
            store.accessControlFlags = nil
            store.accessibility = kSecAttrAccessibleAfterFirstUnlock as String
            let second: OSStatus
            do throws(KeychainStoreError) {
                try store.set("two", key: "k")
                second = errSecSuccess
            } catch {
                second = error.status
            }
            return (first, second, try? store.get("k"))
        }
        #expect(first == errSecSuccess)
        #expect(second == errSecSuccess)
        #expect(read == "two", "no longer protected: read without a prompt")
        #expect(sim.user.pending.isEmpty, "the overwrite asked for the current access control once")
    }

    @Test("KeychainAccess-style store with biometryCurrentSet after an enrollment change: get is nil, set is errSecDuplicateItem until removeAll (the iOS trap)")
    func overwriteAfterEnrollmentChange() async throws {
        let sim = try TestDevice()
        let results = await sim.blocking { () -> [String] in
            var store = OverwritingKeychain(service: "bio")
            store.accessibility = kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly as String
            store.accessControlFlags = .biometryCurrentSet
            var results: [String] = []
            func attempt(_ body: () throws(KeychainStoreError) -> String) {
                do throws(KeychainStoreError) {
                    results.append(try body())
                } catch {
                    results.append("\(error.status)")
                }
            }
            attempt { () throws(KeychainStoreError) -> String in try store.set("one", key: "k"); return "set" }
            _ = try? sim.device.enroll("index")
            attempt { () throws(KeychainStoreError) -> String in try store.get("k") ?? "nil" }
            attempt { () throws(KeychainStoreError) -> String in try store.set("two", key: "k"); return "set" }
            attempt { () throws(KeychainStoreError) -> String in try store.removeAll(); return "removed" }
            attempt { () throws(KeychainStoreError) -> String in try store.set("three", key: "k"); return "set" }
            sim.user.enqueue([.present("index")])
            attempt { () throws(KeychainStoreError) -> String in try store.get("k") ?? "nil" }
            return results
        }
        #expect(results == ["set", "nil", "\(errSecDuplicateItem)", "removed", "set", "three"])
    }

    // MARK: An internet-password item

    @Test("internet passwords: server, protocol, authentication type, port, path; all matches with attributes and data")
    func internetPasswords() async throws {
        let sim = try TestDevice()
        let (saves, logins, removed, after) = await sim.blocking { () -> ([OSStatus], [WebCredential], OSStatus, Int) in
            let store = WebCredentialStore()
            let saves = [
                store.save(server: "example.com", account: "alice", password: "a-pass"),
                store.save(server: "example.com", account: "bob", password: "b-pass", port: 8443, path: "/signin"),
                store.save(server: "example.com", account: "alice", password: "again"),
                store.save(server: "other.org", account: "alice", password: "o-pass"),
            ]
            let (_, logins) = store.logins(server: "example.com")
            let removed = store.remove(server: "example.com", account: "alice")
            return (saves, logins, removed, store.logins(server: "example.com").1.count)
        }
        #expect(saves == [errSecSuccess, errSecSuccess, errSecDuplicateItem, errSecSuccess])
        #expect(logins.map(\.account) == ["alice", "bob"])
        #expect(logins.map(\.password) == ["a-pass", "b-pass"])
        #expect(logins.map(\.port) == [443, 8443])
        #expect(logins.map(\.path) == ["/login", "/signin"])
        #expect(logins.allSatisfy { $0.isHTMLForm })
        #expect(logins.allSatisfy { $0.created != nil })
        #expect(removed == errSecSuccess)
        #expect(after == 1)
    }
}
#endif
