#if !canImport(Darwin)
import CryptoKit
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// REFERENCE §10's LARight family (iOS 16) through Apple's names, one rule per test.
@Suite("LARight, LARightStore, LAPersistedRight (REFERENCE §10)")
struct LARightTests {
    let challenge = Data("challenge-7".utf8)

    /// Runs `body` with `sim`'s device as the task's default device.
    func on<T: Sendable>(_ sim: TestDevice, _ body: @Sendable () async throws -> T) async throws -> T {
        try await LocalAuthenticationSystem.withAuthenticator(sim.authenticator) { try await body() }
    }

    func code(_ body: () async throws -> Void) async -> LAError.Code? {
        do {
            try await body()
            return nil
        } catch let error as LAError {
            return error.code
        } catch {
            Issue.record("not an LAError: \(error)")
            return nil
        }
    }

    @Test("authorize runs the requirement's evaluation and moves the state to authorized; deauthorize ends it")
    func authorizeAndDeauthorize() async throws {
        let sim = try TestDevice()
        let right = try await on(sim) { LARight(requirement: .biometry(fallback: .devicePasscode)) }
        #expect(right.state == .unknown)
        sim.user.enqueue([.present("thumb")])
        try await right.authorize(localizedReason: "Unlock")
        #expect(right.state == .authorized)
        await right.deauthorize()
        #expect(right.state == .notAuthorized)
        sim.user.enqueue([.cancel])
        #expect(await code { try await right.authorize(localizedReason: "Unlock") } == .userCancel)
        #expect(right.state == .notAuthorized)
    }

    @Test("checkCanAuthorize reports what would stop an authorization, without prompting")
    func checkCanAuthorize() async throws {
        let sim = try TestDevice(enrolled: [])
        let right = try await on(sim) { LARight(requirement: .biometry) }
        #expect(await code { try await right.checkCanAuthorize() } == .biometryNotEnrolled)
        try sim.device.enroll("thumb")
        #expect(await code { try await right.checkCanAuthorize() } == nil)
        #expect(sim.user.pending.isEmpty)
    }

    @Test("a persisted right's key signs only while authorized, without a second prompt; the public key verifies")
    func persistedKeySigns() async throws {
        let sim = try TestDevice()
        let persisted = try await on(sim) {
            try await LARightStore.shared.saveRight(LARight(requirement: .biometryCurrentSet), identifier: "login")
        }
        #expect(await code { _ = try await persisted.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256) } == .notInteractive)
        sim.user.enqueue([.present("thumb")])
        try await persisted.authorize(localizedReason: "Sign in")
        let signature = try await persisted.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256)
        _ = try await persisted.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256)  // no second prompt
        #expect(sim.scriptingMistakes.isEmpty)
        let publicKey = persisted.key.publicKey
        #expect(try await publicKey.bytes.count == 65)
        #expect(publicKey.canVerify(using: .ecdsaSignatureMessageX962SHA256))
        try await publicKey.verify(challenge, signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256)
        #expect(await code { try await publicKey.verify(Data("other".utf8), signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256) }
            == .authenticationFailed)
    }

    @Test("a secret saved with a right opens only while the right is authorized")
    func secret() async throws {
        let sim = try TestDevice()
        let token = Data("device-token-abc".utf8)
        let persisted = try await on(sim) {
            try await LARightStore.shared.saveRight(LARight(), identifier: "token", secret: token)
        }
        #expect(await code { _ = try await persisted.secret.rawData } == .notInteractive)
        sim.user.enqueue([.present("thumb")])
        try await persisted.authorize(localizedReason: "Unlock")
        #expect(try await persisted.secret.rawData == token)
        let loaded = await withCheckedContinuation { continuation in
            persisted.secret.loadData { data, _ in continuation.resume(returning: data) }
        }
        #expect(loaded == token)
    }

    @Test("a right whose stored record is damaged fails with authenticationFailed and the keychain's corrupt error underneath")
    func damagedRightKeepsItsCause() async throws {
        let sim = try TestDevice()
        _ = try await on(sim) { try await LARightStore.shared.saveRight(LARight(), identifier: "login") }
        let stored = try #require(try sim.device.storage.list(namespace: Keychain.namespace).first { $0.key.name.hasSuffix("/login") })
        try sim.device.storage.commit([.put(Record(key: stored.key, value: Data("not a stored item".utf8)))])
        do {
            _ = try await on(sim) { try await LARightStore.shared.right(forIdentifier: "login") }
            Issue.record("a damaged right loaded")
        } catch let error as LAError {
            #expect(error.code == .authenticationFailed)
            let underlying = error.userInfo[NSUnderlyingErrorKey] as? KeychainError
            #expect(underlying?.kind == .corrupt)
            #expect((error as NSError).userInfo[NSUnderlyingErrorKey] is KeychainError)
        }
    }

    @Test("saving over a right this version cannot read replaces it, leaving one key under the identifier")
    func savingOverAnUnreadableRightReplacesIt() async throws {
        let sim = try TestDevice()
        _ = try await on(sim) { try await LARightStore.shared.saveRight(LARight(), identifier: "login") }
        // A sound keychain item whose contents are not a stored right.
        try await sim.authenticator.keychain.update(Data("{}".utf8), service: "touchstone.LARightStore", account: "login", itemClass: .system)
        #expect(await code { _ = try await on(sim) { try await LARightStore.shared.right(forIdentifier: "login") } } == .authenticationFailed)
        _ = try await on(sim) { try await LARightStore.shared.saveRight(LARight(), identifier: "login", secret: Data("s".utf8)) }
        _ = try await on(sim) { try await LARightStore.shared.right(forIdentifier: "login") }
        #expect(try sim.authenticator.keys.keys().count == 1)  // the old key went with the old right
    }

    @Test("the store's records and keys are not the app's keychain items: no generic-password or key query sees them, and deleting every generic password and key on sign-out leaves the rights")
    func recordsAreNotTheAppsItems() async throws {
        let sim = try TestDevice()
        _ = try await on(sim) { try await LARightStore.shared.saveRight(LARight(), identifier: "login", secret: Data("s".utf8)) }
        let statuses = await sim.blocking { () -> [OSStatus] in
            let all: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: kSecMatchLimitAll]
            let keys: [String: Any] = [kSecClass as String: kSecClassKey, kSecMatchLimit as String: kSecMatchLimitAll]
            return [SecItemCopyMatching(all as CFDictionary, nil), SecItemDelete([kSecClass as String: kSecClassGenericPassword] as CFDictionary),
                    SecItemCopyMatching(keys as CFDictionary, nil), SecItemDelete([kSecClass as String: kSecClassKey] as CFDictionary)]
        }
        #expect(statuses == [errSecItemNotFound, errSecItemNotFound, errSecItemNotFound, errSecItemNotFound])
        _ = try await on(sim) { try await LARightStore.shared.right(forIdentifier: "login") }
    }

    @Test("a right saved by an earlier version (a generic-password record) still loads, is replaced by a new save, and is removed")
    func earlierVersionsRecordsStillWork() async throws {
        let sim = try TestDevice()
        _ = try await on(sim) { try await LARightStore.shared.saveRight(LARight(), identifier: "old") }
        // Move the record where versions before the .system class kept it.
        let keychain = sim.authenticator.keychain
        let record = try await keychain.read(service: "touchstone.LARightStore", account: "old", itemClass: .system)
        try keychain.delete(service: "touchstone.LARightStore", account: "old", itemClass: .system)
        try keychain.add(record, service: "touchstone.LARightStore", account: "old")
        _ = try await on(sim) { try await LARightStore.shared.right(forIdentifier: "old") }
        _ = try await on(sim) { try await LARightStore.shared.saveRight(LARight(), identifier: "old") }
        #expect(try keychain.items(service: "touchstone.LARightStore", itemClass: .genericPassword).isEmpty)
        try keychain.add(record, service: "touchstone.LARightStore", account: "older")
        try await on(sim) { try await LARightStore.shared.removeAllRights() }
        #expect(try keychain.items(service: "touchstone.LARightStore").isEmpty)
    }

    @Test("a biometryCurrentSet right dies with an enrollment change")
    func enrollmentChange() async throws {
        let sim = try TestDevice()
        let persisted = try await on(sim) {
            try await LARightStore.shared.saveRight(LARight(requirement: .biometryCurrentSet), identifier: "login")
        }
        try sim.device.enroll("index")
        #expect(await code { _ = try await on(sim) { try await LARightStore.shared.right(forIdentifier: "login") } } == .authenticationFailed)
        #expect(await code { try await persisted.checkCanAuthorize() } == .authenticationFailed)
        sim.user.enqueue([.present("thumb")])
        #expect(await code { try await persisted.authorize(localizedReason: "Sign in") } == .authenticationFailed)
        #expect(persisted.state == .notAuthorized)
    }

    @Test("rights are removed by identifier, by object, or all at once")
    func removal() async throws {
        let sim = try TestDevice()
        try await on(sim) {
            let store = LARightStore.shared
            let a = try await store.saveRight(LARight(), identifier: "a")
            _ = try await store.saveRight(LARight(), identifier: "b")
            _ = try await store.saveRight(LARight(), identifier: "c")
            try await store.removeRight(a)
            try await store.removeRight(forIdentifier: "b")
            _ = try await store.right(forIdentifier: "c")
            try await store.removeAllRights()
        }
        for name in ["a", "b", "c"] {
            #expect(await code { _ = try await on(sim) { try await LARightStore.shared.right(forIdentifier: name) } } == .authenticationFailed)
        }
        #expect(try sim.authenticator.keys.keys().isEmpty)
    }

    /// Waits for a completion handler's value and error.
    func callback<T: Sendable>(_ start: (@escaping @Sendable (T?, (any Error)?) -> Void) -> Void) async -> (T?, LAError.Code?) {
        await withCheckedContinuation { continuation in
            start { value, error in continuation.resume(returning: (value, (error as? LAError)?.code)) }
        }
    }

    /// Waits for a completion handler's error.
    func callback(_ start: (@escaping @Sendable ((any Error)?) -> Void) -> Void) async -> (any Error)? {
        await withCheckedContinuation { continuation in
            start { error in continuation.resume(returning: error.map { $0 as any Error }) }
        }
    }

    @Test("Apple's completion-handler forms of the store and keys do what their async forms do, on withAuthenticator's device")
    func completionHandlerForms() async throws {
        let sim = try TestDevice()
        let token = Data("device-token-abc".utf8)
        let (saved, _) = try await on(sim) {
            await callback { LARightStore.shared.saveRight(LARight(), identifier: "token", secret: token, completion: $0) }
        }
        let persisted = try #require(saved)
        #expect(try sim.authenticator.keys.keys().count == 1)  // on the test's device, not the process default
        let locked = await callback { persisted.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256, completion: $0) }
        #expect(locked.0 == nil && locked.1 == .notInteractive)
        sim.user.enqueue([.present("thumb")])
        try await persisted.authorize(localizedReason: "Unlock")

        let signature = try #require(await callback { persisted.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256, completion: $0) }.0)
        let publicKey = persisted.key.publicKey
        #expect(await callback { publicKey.verify(challenge, signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256, completion: $0) } == nil)
        #expect(await callback { publicKey.verify(Data("other".utf8), signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256, completion: $0) } != nil)

        let (sealed, _) = await callback { publicKey.encrypt(token, algorithm: .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, completion: $0) }
        let (opened, _) = await callback { persisted.key.decrypt(sealed ?? Data(), algorithm: .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, completion: $0) }
        #expect(opened == token)

        let other = P256.KeyAgreement.PrivateKey()
        let parameters: [AnyHashable: Any] = [SecKeyKeyExchangeParameter.requestedSize.rawValue as String: 16,
                                              SecKeyKeyExchangeParameter.sharedInfo.rawValue as String: Data("info".utf8)]
        let (derived, _) = await callback {
            persisted.key.exchangeKeys(publicKey: other.publicKey.x963Representation, algorithm: .ecdhKeyExchangeStandardX963SHA256,
                                       parameters: parameters, completion: $0)
        }
        let expected = try await persisted.key.exchangeKeys(publicKey: other.publicKey.x963Representation,
                                                            algorithm: .ecdhKeyExchangeStandardX963SHA256, parameters: parameters)
        #expect(derived?.count == 16 && derived == expected)

        #expect(try await on(sim) { await callback { LARightStore.shared.removeRight(persisted, completion: $0) } } == nil)
        #expect(try await on(sim) { await callback { LARightStore.shared.removeRight(persisted, completion: $0) } } is LAError)
        _ = try await on(sim) { try await LARightStore.shared.saveRight(LARight(), identifier: "a") }
        #expect(try await on(sim) { await callback { LARightStore.shared.removeAllRights(completion: $0) } } == nil)
        #expect(try sim.authenticator.keys.keys().isEmpty)
    }

    @Test("persisted rights survive a restart of a persistent device")
    func restartPersistence() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-rights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func open() throws -> (Authenticator, ScriptedInteraction) {
            var composition = Composition()
            composition.app = "com.example.rights"
            composition.seed = 3
            composition.sensor = PluginSelection("sim.touchid")
            composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
            composition.storage = PluginSelection("storage.sqlite", options: ["path": directory.appendingPathComponent("d.sqlite").path])
            let user = ScriptedInteraction()
            return (try AuthenticatorBuilder(registry: .builtIn, composition: composition).build(clock: VirtualClock(), interaction: user), user)
        }
        let publicKey: Data
        do {
            let (authenticator, _) = try open()
            try authenticator.device.setPasscode("1234")
            try authenticator.device.enroll("thumb")
            let saved = try await LARightStore(authenticator: authenticator)
                .saveRight(LARight(requirement: .biometryCurrentSet), identifier: "login", secret: Data("s".utf8))
            publicKey = try await saved.key.publicKey.bytes
        }
        let (authenticator, user) = try open()
        let right = try await LARightStore(authenticator: authenticator).right(forIdentifier: "login")
        #expect(try await right.key.publicKey.bytes == publicKey)
        user.enqueue([.present("thumb")])
        try await right.authorize(localizedReason: "Sign in")
        #expect(try await right.secret.rawData == Data("s".utf8))
    }
}
#endif
