import Foundation
import Testing
@testable import Touchstone
import TouchstoneBuiltins
import TouchstoneSimulation

/// A composition's `"device"` key: what a new device starts with (found by running a
/// keychain library's own test suite, which assumes a phone with a passcode, unedited).
@Suite("Device setup from a composition")
struct DeviceSetupTests {
    private func composition(_ json: String) throws -> Composition {
        try Composition.parse(Data(json.utf8))
    }

    private func build(_ composition: Composition, reusing previous: Authenticator? = nil) throws -> Authenticator {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        builder.composition = composition
        return try builder.build(reusing: previous)
    }

    @Test("\"device\" gives a new device its passcode and enrolled identities: a biometric evaluation succeeds with no set-up in code")
    func newDeviceStartsWithTheSetup() async throws {
        let setup = try composition(#"{"passcode": {"id": "passcode.sim", "options": {"rounds": 1000}}, "device": {"passcode": "1234", "enrolled": ["thumb", "index"]}}"#)
        #expect(setup.device == DeviceSetup(passcode: "1234", enrolled: ["thumb", "index"]))
        let authenticator = try build(setup)
        #expect(authenticator.device.isNewDevice)
        #expect(try authenticator.device.isPasscodeSet)
        #expect(try authenticator.device.enrolledNames() == ["thumb", "index"])
        let user = try #require(authenticator.device.interaction as? ScriptedInteraction)
        user.enqueue(.present("index"))
        let result = try await authenticator.makeContext().evaluate(.biometrics, reason: "Sign in")
        #expect(result.methods == [.biometry])
    }

    @Test("a store that holds a device keeps its state: a passcode the app removed stays removed when the device is opened again")
    func existingDeviceKeepsItsState() throws {
        let setup = try composition(#"{"seed": 3, "passcode": {"id": "passcode.sim", "options": {"rounds": 1000}}, "device": {"passcode": "1234", "enrolled": ["thumb"]}}"#)
        let first = try build(setup)
        try first.device.clearPasscode()
        try first.device.unenroll("thumb")
        let reopened = try build(setup, reusing: first)
        #expect(!reopened.device.isNewDevice)
        #expect(try !reopened.device.isPasscodeSet)
        #expect(try reopened.device.enrolledNames().isEmpty)
    }

    @Test("an encrypted-file store gets the setup on its first open only")
    func fileStoreGetsTheSetupOnce() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-setup-\(UUID().uuidString).store").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let json = """
            {"passcode": {"id": "passcode.sim", "options": {"rounds": 1000}},
             "storage": {"id": "storage.encrypted-file", "options": {"path": "\(path)", "passphrase": "correct horse"}},
             "device": {"passcode": "2468"}}
            """
        let first = try build(try composition(json))
        #expect(first.device.isNewDevice)
        #expect(try first.device.isPasscodeSet)
        try first.device.setPasscode("1357")
        let second = try build(try composition(json))
        #expect(!second.device.isNewDevice)
        // The passcode set later is kept, not replaced by the setup's.
        let user = try #require(second.device.interaction as? ScriptedInteraction)
        user.enqueue(.passcode("1357"))
        #expect(try await second.makeContext().evaluate(.deviceOwner, reason: "Unlock").methods == [.passcode])
    }

    @Test("a setup that cannot be applied names device.passcode or device.enrolled and writes no device", arguments: [
        (#"{"passcode": ""}"#, "device.passcode"),
        (#"{"passcode": "12\u0007"}"#, "device.passcode"),
        (#"{"passcode": "12"}"#, "device.passcode"),
        (#"{"enrolled": ["two words"]}"#, "device.enrolled"),
        (#"{"enrolled": ["thumb", "thumb"]}"#, "device.enrolled"),
        (#"{"enrolled": ["a","b","c","d","e","f","g","h","i","j","k"]}"#, "device.enrolled"),
        (#"{"enroled": ["thumb"]}"#, "device.enroled"),
        (#"{"enrolled": ["thumb", "Cancel"]}"#, "device.enrolled"),
        (#"{"passcode": "<redacted>"}"#, "device.passcode"),
    ])
    func unusableSetupIsRefused(device: String, setting: String) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-setup-\(UUID().uuidString).store").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        func json(_ device: String) -> String {
            """
            {"passcode": {"id": "passcode.sim", "options": {"rounds": 1000, "min-length": 4}},
             "storage": {"id": "storage.encrypted-file", "options": {"path": "\(path)", "passphrase": "correct horse"}},
             "device": \(device)}
            """
        }
        #expect {
            _ = try build(try composition(json(device)))
        } throws: { error in
            "\(error)".contains(setting)
        }
        // Nothing was written: the store still holds no device, and a usable setup applies.
        let fixed = try build(try composition(json(#"{"passcode": "1234"}"#)))
        #expect(fixed.device.isNewDevice)
        #expect(try fixed.device.isPasscodeSet)
    }

    @Test("a device that exists is not checked against the setup again: a composition changed later (the REPL's use) that the setup's passcode no longer fits still builds")
    func setupIsCheckedOnlyWhenTheDeviceIsMade() throws {
        let setup = try composition(#"{"passcode": {"id": "passcode.sim", "options": {"rounds": 1000}}, "device": {"passcode": "1234"}}"#)
        let first = try build(setup)
        var changed = setup
        changed.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000", "min-length": "6"])
        let second = try build(changed, reusing: first)
        #expect(!second.device.isNewDevice)
        #expect(try second.device.isPasscodeSet)
        // A new store with that composition is refused, naming the setting.
        #expect {
            _ = try build(changed)
        } throws: { error in
            "\(error)".contains("device.passcode") && "\(error)".contains("at least 6")
        }
    }

    @Test("\"device\": null is no setup; a setup prints back as a file that parses to the same composition, its passcode redacted by config")
    func nullAndRoundTrip() throws {
        #expect(try composition(#"{"device": null}"#).device == nil)
        let setup = try composition(#"{"device": {"passcode": "1234", "enrolled": ["thumb"]}}"#)
        #expect(try Composition.parse(Data(setup.jsonString().utf8)) == setup)
        let printed = PluginRegistry.builtIn.redactingSecrets(in: setup)
        #expect(printed.device == DeviceSetup(passcode: PluginRegistry.redactedValue, enrolled: ["thumb"]))
    }

    @Test("enrolled identities need a sensor that enrolls: a device without one is refused, naming device.enrolled")
    func enrolledNeedsASensor() throws {
        let json = #"{"sensor": null, "device": {"enrolled": ["thumb"]}}"#
        #expect {
            _ = try build(try composition(json))
        } throws: { error in
            "\(error)".contains("device.enrolled") && "\(error)".contains("no biometric sensor")
        }
    }
}
