import Foundation
import Testing
import TestSupport
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// Seeded fuzzing of what a user or a file hands the library besides REPL lines: `--config`
/// files and store files. Nothing may trap; a bad file is an error, and a damaged store is left
/// byte for byte as it was.
@Suite("Input fuzzing")
struct InputFuzzTests {
    typealias Generator = SeededGenerator

    static let configSeed = #"""
        {"app": "com.example.app", "seed": 7, "clock": "virtual",
         "sensor": {"id": "sim.faceid", "options": {"hardware": "present", "removable": "false"}},
         "companion": {"id": "sim.companion", "options": {"type": "watch"}},
         "passcode": {"id": "passcode.sim", "options": {"rounds": "1000", "min-length": "4"}},
         "storage": "storage.memory", "detector": {"id": "detector.events"},
         "policies": ["policy.biometrics", {"id": "policy.owner"}], "eraseDataAfterTenFailedPasscodes": false,
         "device": {"passcode": "1234", "enrolled": ["thumb", "index"]}}
        """#

    static let hostile = [
        "99999999999999999999999", "-1", "1e400", "null", "[]", "{}", "\"\\u0000\"", "\"sim.nothing\"",
        "\"rounds\"", "true", "\"999999999999999999d\"", "\"\\ud800\"", "\"é👍🏽\"", "18446744073709551616",
    ]

    @Test("storage.sqlite busy-timeout: up to SQLite's limit (2^31 ms, 24d) it opens; past it (25d, 36500d) an error naming the option, no file made, never a trap")
    func sqliteBusyTimeoutRange() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        for (value, accepted) in [("24d", true), ("2147483s", true), ("0s", true), ("2147484s", false), ("25d", false), ("36500d", false)] {
            let folder = directory.appendingPathComponent(value)
            var composition = Composition()
            composition.storage = PluginSelection("storage.sqlite", options: ["path": folder.appendingPathComponent("d.sqlite").path, "busy-timeout": value])
            do {
                _ = try AuthenticatorBuilder(registry: .builtIn, composition: composition).build(interaction: ScriptedInteraction())
                #expect(accepted, "busy-timeout=\(value) was accepted")
            } catch {
                #expect(!accepted, "busy-timeout=\(value): \(error)")
                #expect("\(error)".contains("busy-timeout"))
                #expect("\(error)".contains("24d"))
                #expect(!FileManager.default.fileExists(atPath: folder.path), "nothing is created for a refused option")
            }
        }
    }

    @Test("a secret option read back as config's placeholder (<redacted>) is refused, naming the option and passphrase-env, before any file is touched")
    func redactedSecretIsRefused() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("device.store").path
        var composition = Composition()
        composition.storage = PluginSelection("storage.encrypted-file", options: ["path": path, "passphrase": PluginRegistry.redactedValue])
        #expect {
            _ = try AuthenticatorBuilder(registry: .builtIn, composition: composition).build(interaction: ScriptedInteraction())
        } throws: { error in
            "\(error)".contains("passphrase") && "\(error)".contains("passphrase-env=") && "\(error)".contains("placeholder")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("2,000 mutated --config files: each builds a device or is a clear error, never a trap")
    func mutatedConfigurations() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = directory.appendingPathComponent("device.json")
        var generator = Generator(state: 7)
        let seed = Array(Self.configSeed.utf8)
        var built = 0, refused = 0
        for _ in 0..<2_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(contentsOf: (Self.hostile.randomElement(using: &generator) ?? "").utf8, at: index)
                default:
                    // Replace a JSON value with a hostile one.
                    if let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")),
                       let end = bytes[(colon + 1)...].firstIndex(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") }) {
                        bytes.replaceSubrange((colon + 1)..<end, with: (Self.hostile.randomElement(using: &generator) ?? "").utf8)
                    }
                }
            }
            try Data(bytes).write(to: file)
            do {
                var composition = try Composition.load(from: file)
                composition.storage = PluginSelection("storage.memory")   // never write outside the test
                _ = try AuthenticatorBuilder(registry: .builtIn, composition: composition).build(interaction: ScriptedInteraction())
                built += 1
            } catch {
                #expect(!"\(error)".isEmpty)
                refused += 1
            }
        }
        print("config fuzz: 2000 files, \(built) built, \(refused) refused, 0 traps")
        #expect(built + refused == 2_000)
    }

    @Test("300 randomly damaged store files: an error or intact data, never a trap, and the file untouched",
          arguments: [Backend.sqlite, .encrypted])
    func damagedStoreFiles(_ backend: Backend) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try #require(backend.file(in: directory))
        do {
            let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
            for index in 0..<20 { try rig.keychain.add("v\(index)", service: "s", account: "a\(index)") }
        }
        let original = try Data(contentsOf: file)
        var generator = Generator(state: backend == .sqlite ? 11 : 13)
        var opened = 0, refused = 0
        for _ in 0..<300 {
            var bytes = [UInt8](original)
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                guard !bytes.isEmpty else { break }
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes.removeSubrange(index..<min(bytes.count, index + Int.random(in: 1...600, using: &generator)))
                default: bytes.insert(contentsOf: (0..<Int.random(in: 1...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }, at: index)
                }
            }
            let damaged = Data(bytes)
            try damaged.write(to: file)
            do {
                let store = try backend.open(in: directory)
                _ = try? store.list(namespace: "keychain")
                _ = try? store.list(namespace: "device")
                opened += 1
            } catch let error as StorageError {
                #expect(!error.description.contains("v1"))
                refused += 1
            }
            #expect(try Data(contentsOf: file) == damaged, "a damaged store is left exactly as it was")
        }
        print("store fuzz \(backend.rawValue): 300 damaged files, \(opened) opened, \(refused) refused, 0 traps")
    }
}
