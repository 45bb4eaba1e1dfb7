// The ```swift examples of the doc comments in Sources/ and Plugins/, each compiled here in the
// context it assumes (the parameters stand for what the comment's prose provides). The
// lines between the markers must stay identical to the comment; DocumentationTests checks it.
// They are compiled, not run (several would prompt on a device set up elsewhere).

import CryptoKit
import Foundation
import LinuxFprintd
import LocalAuthentication
import MemoryStorage
import Testing
import TouchstoneBuiltins
import Touchstone
import TouchstoneTesting

// Helpers the examples call, standing for the app's own code.
private func showPasscodeHint() {}
private func signIn(with token: Data) { _ = token }
private func unlockNotes() async -> Bool { true }

// Sources/Touchstone/Sensors/Sensor.swift
struct MyReader: BiometricSensor {
    static let descriptor = PluginDescriptor(id: "acme.reader", kind: .sensor, summary: "ACME USB reader")
    let biometryType = BiometryType.touchID
    var isRemovable: Bool { true }
    init(options: PluginOptions, environment: PluginEnvironment) throws {}
    func hardwareState(for appID: String) -> HardwareState { .present }
    func enrolledIdentities() throws -> [SensorIdentity] { [] }
    func capture(_ prompt: Prompt) async throws -> CaptureResult { .noMatch }
    func interrupt() {}
}

enum DocCommentExamples {
    // Plugins/LinuxFprintd/FprintdClient.swift
    static func fprintdClient() async throws {
        let client = FprintdClient()
        switch try await client.verify(timeout: .seconds(10)) {
        case .match: print("welcome")
        default: print("try again")
        }
    }

    // Plugins/SQLiteStorage/SQLiteStorage.swift
    static func sqliteStorage(_ builder: inout AuthenticatorBuilder) throws {
        try builder.use(.storage, "storage.sqlite", options: ["path": "/var/lib/app/device.sqlite"])
    }

    // Sources/CryptoKit/SecureEnclave.swift
    static func secureEnclave(challenge: Data) throws {
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                     [.privateKeyUsage, .biometryCurrentSet], nil)!
        let key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
        let signature = try key.signature(for: challenge)            // Touch ID prompt
        print(key.publicKey.isValidSignature(signature, for: challenge))     // true
    }

    // Sources/CryptoKit/SecureEnclave+PostQuantum.swift
    static func secureEnclaveMLDSA(access: SecAccessControl, challenge: Data) throws -> Bool {
        let key = try SecureEnclave.MLDSA65.PrivateKey(accessControl: access)
        let signature = try key.signature(for: challenge)      // the prompt happens here
        let valid = key.publicKey.isValidSignature(signature, for: challenge)   // true
        return valid
    }

    static func secureEnclaveMLKEM() throws -> Bool {
        let key = try SecureEnclave.MLKEM768.PrivateKey.generate()
        let sent = try key.publicKey.encapsulate()                   // the other party
        let secret = try key.decapsulate(sent.encapsulated)         // == sent.sharedSecret
        return secret == sent.sharedSecret
    }

    // Sources/LocalAuthentication/LAContext.swift
    static func laContext() {
        let context = LAContext()
        context.localizedFallbackTitle = "Use Password"
        var error: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) else {
            print("unavailable:", error?.code ?? 0)
            return
        }
        context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in") { success, error in
            // a background queue
        }
    }

    // Sources/LocalAuthentication/LADomainState.swift
    static func domainState(savedHash: Data?) {
        let context = LAContext()
        _ = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
        if context.domainState.biometry.stateHash != savedHash { /* enrolled set changed */ }
    }

    // Sources/LocalAuthentication/LAEnvironment.swift
    static func environmentObserver() {
        final class BiometrySettings: NSObject, LAEnvironment.Observer {
            func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironment.State) {
                if environment.state.biometry?.isEnrolled != oldState.biometry?.isEnrolled { reload() }
            }
            func reload() { /* show the new state */ }
        }
        let settings = BiometrySettings()
        LAEnvironment.currentUser.addObserver(settings)
    }

    static func environmentState() {
        let biometry = LAEnvironment.currentUser.state.biometry
        if biometry?.isLockedOut == true { showPasscodeHint() }
    }

    // Sources/LocalAuthentication/LAError.swift
    static func laError(context: LAContext) async {
        do {
            try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
        } catch LAError.userCancel {
            // nothing to do
        } catch let error as LAError where error.code == .biometryLockout {
            // run the passcode unlock flow
        } catch {
            print((error as NSError).domain, (error as NSError).code, error._code)
        }
    }

    // Sources/LocalAuthentication/LAPolicy.swift
    static func laPolicy() {
        let context = LAContext()
        var error: NSError?
        if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) { /* offer biometric sign-in */ }
    }

    // Sources/LocalAuthentication/LARight.swift
    static func laRight() async throws {
        let right = LARight(requirement: .biometry(fallback: .devicePasscode))
        try await right.authorize(localizedReason: "Unlock your vault")
        // right.state == .authorized
    }

    // Sources/LocalAuthentication/LARightStore.swift
    static func laRightStore(serverToken: Data, challenge: Data) async throws {
        let right = LARight(requirement: .biometryCurrentSet)
        let persisted = try await LARightStore.shared.saveRight(right, identifier: "login", secret: serverToken)
        // later, maybe in another process:
        let login = try await LARightStore.shared.right(forIdentifier: "login")
        try await login.authorize(localizedReason: "Sign in")
        let signature = try await login.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256)
        let token = try await login.secret.rawData
        _ = (persisted, signature, token)
    }

    // Sources/LocalAuthentication/NSErrorPointer.swift
    static func errorPointer(context: LAContext) {
        var error: NSError?
        context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
        context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
    }

    // Sources/TouchstoneSecurity/LocalAuthenticationSystem.swift
    // Sources/TouchstoneCommands/LocalAuthenticationSystem+Setup.swift
    static func bootstrapBuiltIn() {
        LocalAuthenticationSystem.bootstrap(.builtIn)
    }

    // Sources/TouchstonePortable/PortablePlugins.swift
    static func portableRegistry() throws {
        let authenticator = try AuthenticatorBuilder(registry: .portable).build()
        _ = authenticator
    }

    // Sources/TouchstoneSecurity/LocalAuthenticationSystem.swift
    static func bootstrap() async throws {
        var builder = AuthenticatorBuilder(registry: .portable)
        try builder.use(.sensor, "sim.faceid")
        let user = ScriptedInteraction()
        let authenticator = try builder.build(interaction: user)
        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("alice")
        LocalAuthenticationSystem.bootstrap(authenticator: authenticator)

        user.enqueue(.present("alice"))
        let ok = try await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics,
                                                      localizedReason: "Sign in")
        _ = ok
    }

    // Sources/TouchstoneSecurity/SecRandom.swift
    static func secRandom() {
        var key = [UInt8](repeating: 0, count: 32)
        let status = SecRandomCopyBytes(kSecRandomDefault, key.count, &key)
        _ = status
    }

    // Sources/TouchstoneSecurity/SecAccessControl.swift
    static func accessControl() {
        var error: Unmanaged<CFError>?
        let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                                     kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                                     .biometryCurrentSet, &error)
        _ = access
    }

    // Sources/TouchstoneSecurity/SecItem.swift
    static func copyMatching(query: [String: Any]) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        let data = result as? Data
        _ = (status, data)
    }

    static func update(query: [String: Any], data: Data) {
        let status = SecItemUpdate(query as CFDictionary,
                                   [kSecValueData as String: data,
                                    kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock] as CFDictionary)
        _ = status
    }

    // Sources/TouchstoneSecurity/SecPKCS12Import.swift
    static func pkcs12Import(p12: Data) {
        var items: CFArray?
        let status = SecPKCS12Import(p12 as CFData, [kSecImportExportPassphrase as String: "secret"] as CFDictionary, &items)
        let identity = (items as? [[String: Any]])?.first?[kSecImportItemIdentity as String]
        _ = (status, identity)
    }

    // Sources/TouchstoneSecurity/SecTrust.swift
    static func secTrust(leaf: SecCertificate, intermediate: SecCertificate, root: SecCertificate) {
        var trust: SecTrust?
        let status = SecTrustCreateWithCertificates([leaf, intermediate] as CFArray, SecPolicyCreateSSL(true, "example.com" as CFString), &trust)
        if status == errSecSuccess, let trust {
            SecTrustSetAnchorCertificates(trust, [root] as CFArray)
            var error: CFError?
            let trusted = SecTrustEvaluateWithError(trust, &error)
            print(trusted, error?.localizedDescription ?? "")
        }
    }

    // Sources/TouchstoneSecurity/SecKey.swift
    static func secKey(challenge: Data) throws {
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                     [.privateKeyUsage, .biometryCurrentSet], nil)!
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                            kSecAttrApplicationTag as String: Data("com.example.login".utf8),
                                            kSecAttrAccessControl as String: access]]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else { throw error!.takeRetainedValue() as any Error }
        let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, challenge as CFData, &error)
        _ = signature
    }

    // Sources/Touchstone/Composition/Authenticator.swift
    static func authenticator() throws {
        let authenticator = try AuthenticatorBuilder(registry: .builtIn).build()
        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("thumb")
        let context = authenticator.makeContext()
        _ = context
    }

    // Sources/Touchstone/Composition/AuthenticatorBuilder.swift
    static func builder() throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        try builder.use(.sensor, "sim.faceid")
        try builder.use(.passcode, "passcode.sim", options: ["rounds": "1000"])
        builder.composition.app = "com.example.notes"
        let authenticator = try builder.build()
        _ = authenticator
    }

    // Sources/Touchstone/Errors/AuthenticationError.swift
    static func authenticationError(context: AuthenticationContext) async throws {
        do {
            try await context.evaluate(.biometrics, reason: "Unlock your notes")
        } catch let error as AuthenticationError where error.code == .biometryLockout {
            // run the passcode unlock flow
        }
    }

    // Sources/Touchstone/Evaluation/Context.swift
    static func context(authenticator: Authenticator) async throws {
        let context = authenticator.makeContext()
        context.localizedFallbackTitle = ""          // hide the fallback button
        if let problem = try context.canEvaluate(.biometrics) {
            print("unavailable:", problem)
        } else {
            let result = try await context.evaluate(.biometrics, reason: "Sign in to Notes")
            print(result.methods, context.evaluatedPolicyDomainState ?? Data())
        }
    }

    static func evaluateByName(context: AuthenticationContext) async throws {
        let result = try await context.evaluate(.biometrics, reason: "Unlock your notes")
        _ = result
    }

    // Sources/Touchstone/Keychain/AccessControl.swift
    static func accessControlFlags() throws {
        let access: AccessControlFlags = [.biometryCurrentSet, .or, .devicePasscode]
        try access.validate()          // fine; [.or, .and] would throw errSecParam
    }

    static func accessControlValue(context: AuthenticationContext) async throws {
        let access = try AccessControl(.whenPasscodeSetThisDeviceOnly, flags: .biometryCurrentSet)
        try await context.evaluateAccessControl(access, operation: .useItem, reason: "Unlock notes")
    }

    // Sources/Touchstone/Keychain/Context+AccessControl.swift
    static func evaluateAccessControl(context: AuthenticationContext, keychain: Keychain) async throws {
        let access = try AccessControl(.whenUnlockedThisDeviceOnly, flags: .biometryCurrentSet)
        try await context.evaluateAccessControl(access, operation: .useItem, reason: "Sign in")
        let token = try await keychain.read(service: "api", account: "alice", context: context)
        _ = token
    }

    // Sources/Touchstone/Keychain/Keychain.swift
    static func keychain(authenticator: Authenticator) async throws {
        let keychain = authenticator.keychain
        try keychain.add(Data("s3cret-token".utf8), service: "api", account: "alice",
                         accessControl: try AccessControl(.whenUnlockedThisDeviceOnly, flags: .biometryCurrentSet))
        let context = authenticator.makeContext()
        let token = try await keychain.read(service: "api", account: "alice", context: context,
                                            reason: "Sign in to your account")
        _ = token
    }

    // Sources/Touchstone/Keychain/KeychainError.swift
    static func keychainError(keychain: Keychain) async throws {
        do {
            let token = try await keychain.read(service: "api", account: "alice")
            signIn(with: token)
        } catch let error as KeychainError where error.kind == .invalidated {
            // the enrolled fingers changed: sign in with the app's password, then store again
        }
    }

    // Sources/Touchstone/Keys/ECIES.swift
    static func ecies(authenticator: Authenticator, key: EnclaveKey) async throws {
        let box = try ECIES.seal(Data("secret".utf8), to: key.publicKeyData)
        let plain = try await authenticator.keys.decrypt(box, with: key, reason: "Unlock")
        _ = plain
    }

    // Sources/Touchstone/Keys/EnclaveKey.swift
    static func enclaveKey(authenticator: Authenticator, challenge: Data) async throws {
        let access = try AccessControl(.whenPasscodeSetThisDeviceOnly, flags: [.privateKeyUsage, .biometryCurrentSet])
        let key = try authenticator.keys.create(accessControl: access, tag: Data("login".utf8))
        let signature = try await authenticator.keys.sign(challenge, with: key, reason: "Sign in")
        // the server verifies `signature` (DER) with `key.publicKeyData` (65-byte X9.63)
        _ = signature
    }

    // Sources/Touchstone/Keys/KeyStore.swift
    static func keyStore(authenticator: Authenticator, challenge: Data) async throws {
        let keys = authenticator.keys
        let access = try AccessControl(.whenPasscodeSetThisDeviceOnly, flags: [.privateKeyUsage, .biometryCurrentSet])
        let key = try keys.create(accessControl: access, tag: Data("com.example.login".utf8))
        let signature = try await keys.sign(challenge, with: key, reason: "Sign in")   // DER ECDSA
        _ = signature
    }

    // Sources/Touchstone/Plugins/Plugin.swift
    static func emptyRegistry() throws {
        var registry = PluginRegistry()
        try registry.register(SimulatedFingerprintSensor.self)
        try registry.register(MemoryStorage.self)
    }

    // Sources/Touchstone/Plugins/PluginRegistry.swift
    static func registerReader() throws {
        var registry = PluginRegistry.builtIn
        try registry.register(MyReader.self)
    }

    // Sources/Touchstone/Time/RandomSource.swift
    static func randomSource() {
        let reproducible = RandomSource(seed: 42)
        let real = RandomSource.system
        _ = (reproducible, real)
    }

    // Sources/TouchstoneSimulation/ScriptedInteraction.swift
    static func scriptedInteraction() {
        let user = ScriptedInteraction()
        user.enqueue([.noMatch, .present("thumb")])
    }

    static func whenNothingIsQueued(user: ScriptedInteraction) {
        user.whenNothingIsQueued = { prompt in prompt.kind == .passcode ? .passcode("1234") : nil }
    }

    // Sources/TouchstoneSimulation/VirtualClock.swift
    static func virtualClock() {
        let clock = VirtualClock()
        clock.advance(by: .seconds(60))      // a one-minute passcode delay has now run out
    }

    // Sources/TouchstoneTesting/TestDevice.swift
    static func testDevice() async throws {
        let device = try TestDevice()                                   // Touch ID, passcode, "thumb"
        device.enqueue(.noMatch, .present("thumb"))                     // what the person will do
        let result = try await device.evaluate(.biometrics)
        #expect(result.methods == [.biometry])
        device.expectLastEvaluation(.succeeded, endedBy: .matchResetsFailures)
    }

    static func testDeviceWithRegistry() throws {
        var registry = PluginRegistry.portable
        try registry.register(AcmeReader.self)
        var composition = Composition()
        composition.sensor = PluginSelection("acme.reader")
        let device = try TestDevice(registry: registry, composition: composition, enrolled: [])
        _ = device
    }

    // Sources/TouchstoneTesting/TestDevice+Evaluation.swift
    static func outcome(device: TestDevice) async throws {
        #expect(try await device.outcome(.biometrics, .failures(3)) == .authenticationFailed)
    }

    // Sources/TouchstoneTesting/TestDevice+LocalAuthentication.swift
    static func asDefaultDevice() async throws {
        let device = try TestDevice()
        device.enqueue(.present("thumb"))
        let unlocked = await device.asDefaultDevice {
            await unlockNotes()          // app code: LAContext(), SecItemCopyMatching
        }
        _ = unlocked
    }

    static func blocking(device: TestDevice) async {
        let status = await device.blocking {
            SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword] as CFDictionary, nil)
        }
        _ = status
    }

    // Sources/TouchstoneTesting/TestDevice+ProcessDefault.swift
    static func processDefault() throws {
        let device = try TestDevice.processDefault()
        device.enqueue(.present("thumb"))
        DispatchQueue.global().async {
            LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in") { success, _ in
                print(success)  // true: the queue's context asked this device's person
            }
        }
    }

    // Sources/TouchstoneTesting/TraceExpectations.swift
    static func expectLastEvaluation(device: TestDevice) async {
        _ = try? await device.evaluate(.biometrics, .failures(3))   // Touch ID ends a prompt after 3
        _ = try? await device.evaluate(.biometrics, .failures(2))   // the 5th in a row locks out
        device.expectLastEvaluation(.failed(.biometryLockout), endedBy: .fiveFailuresLockOut)
    }
}

// Sources/TouchstoneTesting/TouchstoneDeviceTrait.swift (run: it is a test)
@Suite("Doc-comment example: the .touchstoneDevice() trait")
struct TraitDocExample {
    @Test(.touchstoneDevice(enrolled: ["thumb"]))
    func lockoutAfterFiveFailures() async throws {
        let device = try TestDevice.current
        _ = try? await device.evaluate(.biometrics, .failures(3))   // Touch ID ends a prompt after 3
        _ = try? await device.evaluate(.biometrics, .failures(2))   // the 5th in a row locks out
        device.expectLastEvaluation(.failed(.biometryLockout), endedBy: .fiveFailuresLockOut)
    }
}

// Sources/Touchstone/Storage/JSONWriter.swift (run: the comment states the output)
@Suite("Doc-comment example: JSONText.Writer")
struct JSONWriterDocExample {
    @Test("the writer's example writes the text its comment shows")
    func writesWhatTheCommentShows() {
        var json = JSONText.Writer()
        json.beginObject()
        json.key("ok"); json.bool(true)
        json.key("ids"); json.beginArray(); json.integer(1); json.integer(2); json.endArray()
        json.endObject()
        // {"ok":true,"ids":[1,2]}
        #expect(String(decoding: json.bytes, as: UTF8.self) == #"{"ok":true,"ids":[1,2]}"#)
    }
}
