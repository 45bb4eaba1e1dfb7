#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneCommands
import TouchstoneTesting
import Touchstone
import TouchstonePortable

/// What a default device built from the `TOUCHSTONE_*` environment may use: the portable
/// plugins by default (all an app adopting `LocalAuthentication` links), every built-in plugin
/// and `TOUCHSTONE_SETUP` after the one-line opt-in (`bootstrap(.builtIn)`).
@Suite("The default device's environment: portable by default, built-in by opt-in")
struct EnvironmentSupportTests {
    /// A scratch folder for stores and composition files.
    private struct Scratch {
        let directory: URL

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-env-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }

        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

        /// Writes a composition file whose storage is `storage` (JSON); returns its path.
        func configuration(storage: String) throws -> String {
            let json = #"{"seed": 7, "passcode": {"id": "passcode.sim", "options": {"rounds": "1000"}}, "storage": \#(storage)}"#
            try Data(json.utf8).write(to: directory.appendingPathComponent("device.json"))
            return path("device.json")
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test("the portable support has no SQLite, fprintd or PAM; a TOUCHSTONE_CONFIG naming one is refused with the one line that opts in")
    func portableRefusesBuiltInOnlyPluginsWithTheOptIn() throws {
        #expect(throws: Never.self) { try PluginRegistry.portable.descriptor("storage.encrypted-file") }
        for id in ["storage.sqlite", "linux.fprintd", "linux.pam"] {
            #expect(throws: ConfigurationError.self) { try PluginRegistry.portable.descriptor(id) }
            #expect(throws: Never.self) { try PluginRegistry.builtIn.descriptor(id) }
        }
        let scratch = try Scratch()
        defer { scratch.remove() }
        let configuration = try scratch.configuration(storage: #"{"id": "storage.sqlite", "options": {"path": "\#(scratch.path("device.sqlite"))"}}"#)
        #expect {
            try LocalAuthenticationSystem.makeAuthenticator(
                environment: [LocalAuthenticationSystem.configurationVariable: configuration], support: .portable)
        } throws: { error in
            let text = "\(error)"
            return text.contains("TOUCHSTONE_CONFIG") && text.contains("'storage.sqlite'")
                && text.contains("LocalAuthenticationSystem.bootstrap(.builtIn)") && text.contains("TouchstoneCommands")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.path("device.sqlite")))
    }

    @Test("the portable support refuses a TOUCHSTONE_SETUP with the opt-in, before any device is built; a blank one is no setup")
    func portableRefusesSetupWithTheOptIn() throws {
        #expect {
            try LocalAuthenticationSystem.makeAuthenticator(
                environment: [LocalAuthenticationSystem.setupVariable: "enroll thumb"], support: .portable)
        } throws: { error in
            guard case let .invalidSetting(name, reason) = error as? ConfigurationError else { return false }
            return name == "TOUCHSTONE_SETUP" && reason.contains("LocalAuthenticationSystem.bootstrap(.builtIn)")
        }
        let blank = try LocalAuthenticationSystem.makeAuthenticator(
            environment: [LocalAuthenticationSystem.setupVariable: " \n "], support: .portable)
        #expect(try blank.device.enrolledNames().isEmpty)
    }

    @Test("the portable support keeps a device in an encrypted file across builds (one per process in a script), with TOUCHSTONE_OUTCOMES")
    func portableKeepsAnEncryptedStore() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let configuration = try scratch.configuration(storage: #"""
            {"id": "storage.encrypted-file", "options": {"path": "\#(scratch.path("device.store"))", "key-file": "\#(scratch.path("device.key"))"}}
            """#)
        let environment = [LocalAuthenticationSystem.configurationVariable: configuration]

        let first = try LocalAuthenticationSystem.makeAuthenticator(environment: environment, support: .portable)
        try first.device.setPasscode("1234")
        try first.device.enroll("thumb")

        var next = environment
        next[LocalAuthenticationSystem.outcomesVariable] = "nomatch,thumb"
        let second = try LocalAuthenticationSystem.makeAuthenticator(environment: next, support: .portable)
        #expect(try second.device.enrolledNames() == ["thumb"])
        let context = LocalAuthenticationSystem.withAuthenticator(second) { LAContext() }
        let ok = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock")
        #expect(ok)
    }

    @Test("with the portable support alone, TOUCHSTONE_CONFIG's \"device\" sets the default device up: a passcode-only keychain item is stored and a biometric evaluation succeeds, with no set-up in code")
    func portableConfigurationSetsTheDeviceUp() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let json = #"{"passcode": {"id": "passcode.sim", "options": {"rounds": "1000"}}, "device": {"passcode": "1234", "enrolled": ["thumb"]}}"#
        try Data(json.utf8).write(to: URL(fileURLWithPath: scratch.path("device.json")))
        let authenticator = try LocalAuthenticationSystem.makeAuthenticator(
            environment: [LocalAuthenticationSystem.configurationVariable: scratch.path("device.json"),
                          LocalAuthenticationSystem.outcomesVariable: "thumb"], support: .portable)
        let stored = LocalAuthenticationSystem.withAuthenticator(authenticator) { () -> OSStatus in
            let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "token",
                                       kSecValueData as String: Data("s3cret".utf8),
                                       kSecAttrAccessible as String: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly]
            return SecItemAdd(item as CFDictionary, nil)
        }
        #expect(stored == errSecSuccess)
        let context = LocalAuthenticationSystem.withAuthenticator(authenticator) { LAContext() }
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock"))
    }

    @Test("the built-in support (the opt-in) takes SQLite stores and runs TOUCHSTONE_SETUP through the command layer")
    func builtInRunsSetupOnSQLite() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let configuration = try scratch.configuration(storage: #"{"id": "storage.sqlite", "options": {"path": "\#(scratch.path("device.sqlite"))"}}"#)
        let authenticator = try LocalAuthenticationSystem.makeAuthenticator(environment: [
            LocalAuthenticationSystem.configurationVariable: configuration,
            LocalAuthenticationSystem.setupVariable: "passcode set 1234; enroll thumb; enroll index",
        ], support: .builtIn)
        #expect(try authenticator.device.enrolledNames() == ["thumb", "index"])
        #expect(try authenticator.device.isPasscodeSet)
    }
}
#endif
