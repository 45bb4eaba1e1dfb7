import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

@Suite("Registry and composition")
struct CompositionTests {
    @Test("an unknown plugin id is named and the known ids listed")
    func unknownPlugin() throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        #expect(throws: ConfigurationError.unknownPlugin(id: "sim.retina", kind: .sensor,
                                                         known: ["sim.touchid", "sim.faceid", "sim.opticid", "linux.fprintd"])) {
            try builder.use(.sensor, "sim.retina")
        }
        let message = ConfigurationError.unknownPlugin(id: "sim.retina", kind: .sensor, known: ["sim.touchid", "sim.faceid"]).description
        #expect(message == "unknown sensor plugin 'sim.retina'; known: sim.faceid, sim.touchid")
    }

    @Test("a plugin in the wrong slot is refused")
    func wrongKind() throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        #expect(throws: ConfigurationError.wrongKind(id: "storage.memory", expected: .sensor, actual: .storage)) {
            try builder.use(.sensor, "storage.memory")
        }
    }

    @Test("an unknown option is named, with the known options")
    func unknownOption() throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        #expect(throws: ConfigurationError.unknownOption(plugin: "sim.touchid", option: "colour", known: ["hardware", "removable"])) {
            try builder.use(.sensor, "sim.touchid", options: ["colour": "red"])
        }
    }

    @Test("a malformed option value names the option and what it expects")
    func badOptionValue() throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        #expect(throws: ConfigurationError.badOptionValue(plugin: "passcode.sim", option: "rounds", value: "many",
                                                          expected: "an integer from 1000 to 10000000")) {
            try builder.use(.passcode, "passcode.sim", options: ["rounds": "many"])
        }
    }

    @Test("registering an id twice fails")
    func duplicate() throws {
        var registry = PluginRegistry.builtIn
        #expect(throws: ConfigurationError.duplicatePlugin(id: "storage.memory")) {
            try registry.register(MemoryStorageTwin.self)
        }
    }

    @Test("a composition prints itself as a file that builds the same authenticator")
    func roundTrip() throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        try builder.use(.sensor, "sim.faceid", options: ["hardware": "absent"])
        try builder.use(.companion, "sim.companion", options: ["type": "mac"])
        try builder.use(.passcode, "passcode.sim", options: ["rounds": "1000"])
        builder.composition.app = "com.example.notes"
        builder.composition.seed = 9
        let authenticator = try builder.build()
        let text = authenticator.composition.jsonString()
        let parsed = try Composition.parse(Data(text.utf8))
        #expect(parsed == authenticator.composition)
        let rebuilt = try AuthenticatorBuilder(registry: .builtIn, composition: parsed).build()
        #expect(rebuilt.appID == "com.example.notes")
        #expect(rebuilt.device.biometryType == .faceID)
        #expect(rebuilt.device.sensor?.hardwareState(for: "x") == .absent)
        #expect(rebuilt.device.companion?.companionType == .mac)
    }

    @Test("a configuration file with an unknown key or bad JSON is reported, naming the problem")
    func badConfiguration() throws {
        #expect {
            try Composition.parse(Data(#"{"sensr": "sim.touchid"}"#.utf8), path: "x.json")
        } throws: { error in
            "\(error)".contains("sensr") && "\(error)".contains("x.json")
        }
        #expect(throws: ConfigurationError.self) { try Composition.parse(Data("{".utf8)) }
        #expect(throws: ConfigurationError.self) {
            try Composition.load(from: URL(fileURLWithPath: "/nonexistent/touchstone.json"))
        }
        // A key given twice is refused (JSONDecoder would silently keep one), at any depth.
        for (text, key) in [(#"{"seed": 1, "seed": 2}"#, "'seed'"),
                            (#"{"storage": {"id": "storage.sqlite", "options": {"path": "a", "path": "b"}}}"#, "'storage.options.path'"),
                            (#"{"policies": [{"id": "policy.owner", "id": "policy.biometrics"}]}"#, "'policies[0].id'")] {
            #expect {
                try Composition.parse(Data(text.utf8), path: "x.json")
            } throws: { error in
                "\(error)".contains("\(key) is given twice")
            }
        }
        // The wrong kind of value: where, in JSON's terms, and what was expected.
        let wrongKinds: [(String, String)] = [
            ("[1, 2]", "the top level: expected an object ({ ... })"),
            (#"{"policies": [1]}"#, "'policies[0]': expected an object ({ ... })"),
            (#"{"app": 5}"#, "'app': expected a string"),
            (#"{"keychainAccessGroups": "group"}"#, "'keychainAccessGroups': expected an array ([ ... ])"),
        ]
        for (text, reason) in wrongKinds {
            #expect(throws: ConfigurationError.unreadableConfiguration(path: "x.json", reason: reason)) {
                try Composition.parse(Data(text.utf8), path: "x.json")
            }
        }
    }

    @Test("a configuration path that is missing or a directory says so in words")
    func unreadableConfigurationPathsSayWhy() throws {
        #expect {
            try Composition.load(from: URL(fileURLWithPath: "/nonexistent/touchstone.json"))
        } throws: { error in
            "\(error)" == "cannot read configuration '/nonexistent/touchstone.json': there is no such file"
        }
        let directory = FileManager.default.temporaryDirectory
        #expect {
            try Composition.load(from: directory)
        } throws: { error in
            "\(error)".contains("it is a directory") && !"\(error)".contains("NSCocoaErrorDomain")
        }
        // A device would be read without end: refused before reading.
        #expect {
            try Composition.load(from: URL(fileURLWithPath: "/dev/urandom"))
        } throws: { error in
            "\(error)".contains("it is not a regular file")
        }
        let big = directory.appendingPathComponent("touchstone-big-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: big) }
        try Data(repeating: 0x20, count: Composition.maximumFileBytes + 1).write(to: big)
        #expect {
            try Composition.load(from: big)
        } throws: { error in
            "\(error)".contains("a configuration file is at most \(Composition.maximumFileBytes)")
        }
    }

    @Test("a value of the wrong kind in a configuration file names its key and the accepted values, not \"not valid JSON\"")
    func badValueInConfiguration() throws {
        #expect {
            try Composition.parse(Data(#"{"clock": "sundial"}"#.utf8), path: "x.json")
        } throws: { error in
            let text = "\(error)"
            return text.contains("'sundial' is not a clock; known: virtual, wall") && !text.contains("not valid JSON")
        }
        #expect {
            try Composition.parse(Data(#"{"seed": -1}"#.utf8), path: "x.json")
        } throws: { error in
            "\(error)".contains("'seed'") && !"\(error)".contains("not valid JSON")
        }
    }

    @Test("the short form of a plugin selection and option values of any JSON type are accepted")
    func shortForms() throws {
        let composition = try Composition.parse(Data(#"""
        {"sensor": "sim.opticid", "passcode": {"id": "passcode.sim", "options": {"rounds": 1000}}, "sensorless": null}
        """#.replacingOccurrences(of: #", "sensorless": null"#, with: "").utf8))
        #expect(composition.sensor == PluginSelection("sim.opticid"))
        #expect(composition.passcode.options["rounds"] == "1000")
        let none = try Composition.parse(Data(#"{"sensor": null}"#.utf8))
        #expect(none.sensor == nil)
    }

    @Test("the core names no plugin: without defaults, a composition names its sensor, passcode, storage and detector")
    func noDefaultsInTheCore() throws {
        let complete = #"{"sensor": null, "passcode": "passcode.sim", "storage": "storage.memory", "detector": "detector.domain-state"}"#
        let parsed = try Composition.parse(Data(complete.utf8), defaults: nil)
        #expect(parsed.sensor == nil)
        #expect(parsed.clock == .wall)
        #expect(parsed == Composition(sensor: nil, passcode: PluginSelection("passcode.sim"), storage: PluginSelection("storage.memory"), detector: PluginSelection("detector.domain-state")))
        #expect {
            try Composition.parse(Data(#"{"sensor": "sim.touchid", "passcode": "passcode.sim", "storage": "storage.memory"}"#.utf8),
                                  path: "x.json", defaults: nil)
        } throws: { error in
            "\(error)".contains("detector") && "\(error)".contains("x.json")
        }
        // The portable defaults: the simulated Touch ID device on a virtual clock, in memory.
        let defaults = Composition()
        #expect(defaults.sensor?.id == "sim.touchid" && defaults.clock == .virtual && defaults.storage.id == "storage.memory")
        #expect(try Composition.parse(Data("{}".utf8)) == defaults)
        // Given defaults, a file's missing keys take their values, whatever they are.
        var own = Composition(sensor: PluginSelection("sim.faceid"), passcode: PluginSelection("passcode.sim"), storage: PluginSelection("storage.memory"), detector: PluginSelection("detector.domain-state"))
        own.companion = PluginSelection("sim.companion")
        own.policies = [PluginSelection("policy.biometrics")]
        #expect(try Composition.parse(Data(#"{"app": "com.example.x"}"#.utf8), defaults: own).companion == own.companion)
        #expect(try Composition.parse(Data(#"{"app": "com.example.x"}"#.utf8), defaults: own).policies == own.policies)
    }

    @Test("swapping a plugin keeps the device (storage, enrollments, counters)")
    func swapKeepsDevice() throws {
        let rig = try TestDevice()
        var builder = AuthenticatorBuilder(registry: .builtIn, composition: rig.authenticator.composition)
        try builder.use(.sensor, "sim.touchid", options: ["hardware": "present"])
        let swapped = try builder.build(reusing: rig.authenticator)
        #expect(try swapped.device.enrolledNames() == ["thumb"])
        #expect(swapped.device.storage === rig.device.storage)
    }

    @Test("the app id must look like one: no spaces or control characters, 1 to 255 bytes",
          arguments: ["my app", "", "com.\u{0}x", "com.\u{1B}[2Jx", String(repeating: "a", count: 256)])
    func badAppID(_ app: String) throws {
        var composition = Composition()
        composition.app = app
        #expect {
            try AuthenticatorBuilder(registry: .builtIn, composition: composition).build()
        } throws: { error in
            // The message never passes the id's control characters on, nor all of a long one.
            let text = "\(error)"
            return text.contains("is not an app id") && !text.unicodeScalars.contains { $0.value < 0x20 } && text.count < 400
        }
        composition.app = String(repeating: "a", count: 255)
        #expect(throws: Never.self) { try AuthenticatorBuilder(registry: .builtIn, composition: composition).build() }
    }

    @Test("a passcode longer than 512 bytes is refused; 512 is accepted")
    func passcodeLengthLimit() throws {
        let rig = try TestDevice()
        #expect(throws: UsageError.invalidPasscode(reason: "it is longer than 512 bytes")) {
            try rig.device.setPasscode(String(repeating: "7", count: 513))
        }
        try rig.device.setPasscode(String(repeating: "7", count: 512))
        #expect(try rig.device.enterPasscode(String(repeating: "7", count: 512)) == .accepted)
    }

    @Test("a passcode with a control character is refused and the passcode set before stays; spaces and letters are fine")
    func passcodeControlCharacters() throws {
        let rig = try TestDevice()
        try rig.device.setPasscode("1234")
        for passcode in ["12\u{0}34", "ab\u{1}cd", "a\u{1B}[2Jb", "12\u{7F}", "line\nbreak", "c1\u{85}"] {
            #expect(throws: UsageError.invalidPasscode(reason: "it contains a control character")) {
                try rig.device.setPasscode(passcode)
            }
        }
        #expect(try rig.device.enterPasscode("1234") == .accepted)
        try rig.device.setPasscode("correct horse ünïcode")
        #expect(try rig.device.enterPasscode("correct horse ünïcode") == .accepted)
    }
}

/// A second plugin claiming `storage.memory`, to prove ids are unique.
private final class MemoryStorageTwin: StorageBackend {
    static let descriptor = PluginDescriptor(id: "storage.memory", kind: .storage, summary: "twin")
    init(options: PluginOptions, environment: PluginEnvironment) {}
    var location: String { "twin" }
    func read(_ key: RecordKey) throws -> Record? { nil }
    func list(namespace: RecordNamespace, prefix: String) throws -> [Record] { [] }
    func namespaces() throws -> [RecordNamespace] { [] }
    func transaction<T: Sendable>(_ body: (inout StorageTransaction) throws -> T) throws -> T {
        var transaction = StorageTransaction(read: { _ in nil })
        return try body(&transaction)
    }
    var generation: UInt64 { 0 }
}
