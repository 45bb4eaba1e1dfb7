import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins
import SQLiteStorage

/// Tampering: flipped, cut and added bytes in either file store are a clear error (or, for
/// SQLite bytes that hold nothing, the same data), never a crash, and the file is untouched.
@Suite("Tampering")
struct TamperingTests {
    /// `record`'s JSON with `field` set to `value` (written as given: a number, a string...).
    static func edited(_ record: Record, _ field: String, _ value: Any) throws -> Record {
        var object = try #require(try JSONSerialization.jsonObject(with: record.value) as? [String: Any])
        object[field] = value
        return Record(key: record.key, value: try JSONSerialization.data(withJSONObject: object), attributes: record.attributes)
    }

    @Test("a device record of a newer schema is a newer Touchstone's, not damage: refused as an I/O failure that says to use that version, kept by export", arguments: ["state", "counters"])
    func newerSchemaIsNotDamage(record name: String) async throws {
        let rig = try TestDevice()
        let key: RecordKey = name == "state" ? .deviceState : .deviceCounters
        let original = try #require(try rig.device.storage.read(key))
        let newer = try Self.edited(original, "schema", 99)
        try rig.device.storage.commit([.put(newer)])
        #expect { _ = try rig.device.passcodeStatus() } throws: { error in
            guard case let .ioFailure(reason) = error as? StorageError else { return false }
            return reason.contains("newer Touchstone (schema 99") && reason.contains("not changed")
        }
        let partner = try #require(try rig.device.storage.read(key == .deviceState ? .deviceCounters : .deviceState))
        #expect(DeviceRecordPair.problems([newer, partner]).contains { $0.contains("newer Touchstone") })
        let (exported, changes) = DeviceRecordPair.exportable([newer, partner])
        #expect(exported.contains(newer))
        #expect(changes.isEmpty, "\(changes)")
    }

    @Test("a passcode verifier edited by hand (rounds 0, -1, 2^32, Int.max; a short hash) is damage at the next entry, never a trap or hours of PBKDF2",
          arguments: [0, -1, 1 << 32, Int.max, 210_000])
    func outOfRangeVerifier(rounds: Int) throws {
        let rig = try TestDevice(passcode: "1234")
        let state = try #require(try rig.device.storage.read(.deviceState))
        let object = try #require(try JSONSerialization.jsonObject(with: state.value) as? [String: Any])
        let verifierText = try #require(object["passcodeVerifier"] as? String)
        let verifierBytes = try #require(Data(base64Encoded: verifierText))
        var verifier = try #require(try JSONSerialization.jsonObject(with: verifierBytes) as? [String: Any])
        verifier["rounds"] = rounds
        if rounds == 210_000 { verifier["hash"] = Data(count: 8).base64EncodedString() }
        let edited = try JSONSerialization.data(withJSONObject: verifier).base64EncodedString()
        try rig.device.storage.commit([.put(try Self.edited(state, "passcodeVerifier", edited))])
        #expect { _ = try rig.device.enterPasscode("1234") } throws: { error in
            guard case let .corruptRecord(_, reason) = error as? StorageError else { return false }
            return reason.contains("out of range")
        }
    }

    @Test("device records edited by hand with out-of-range numbers (checksums intact) are damage: every command that reads them reports it, none traps; the check names the field and export leaves the record behind",
          arguments: [("counters", "passcodeFailures", Int.max), ("counters", "passcodeFailures", Int.min), ("counters", "passcodeFailures", -100),
                      ("counters", "passcodeFailures", 11), ("counters", "consecutiveBiometricFailures", Int.min),
                      ("counters", "consecutiveBiometricFailures", -3), ("counters", "schema", -1),
                      ("state", "enrollmentSequence", Int.max), ("state", "osEpoch", Int.max), ("state", "osEpoch", -1), ("state", "schema", 0)])
    func outOfRangeDeviceRecords(record name: String, field: String, value: Int) async throws {
        let rig = try TestDevice()
        let key: RecordKey = name == "state" ? .deviceState : .deviceCounters
        let original = try #require(try rig.device.storage.read(key))
        let tampered = try Self.edited(original, field, value)
        try rig.device.storage.commit([.put(tampered)])
        let reread = rig  // its cache is keyed by the storage generation: the next read decodes the new bytes
        for operation in [{ _ = try reread.device.passcodeStatus() }, { _ = try reread.device.biometryStatus() },
                          { _ = try reread.device.enterPasscode("1234") }, { try reread.device.enroll("index") },
                          { try reread.device.bumpOSEpoch() }] as [() throws -> Void] {
            #expect { try operation() } throws: { error in
                guard case let .corruptRecord(recordKey, reason) = error as? StorageError else { return false }
                return recordKey == key.description && (reason.contains("out of") || reason.contains("schema"))
            }
        }
        await #expect(throws: StorageError.self) { _ = try await reread.evaluate("biometrics", [.present("thumb")]) }
        #expect(try reread.device.storage.read(key) == tampered, "nothing rewrote the damaged record")
        let problems = DeviceRecordPair.problems([tampered, try #require(try rig.device.storage.read(key == .deviceState ? .deviceCounters : .deviceState))])
        #expect(problems.contains { $0.contains(key.description) && $0.contains("export-store") }, "\(problems)")
        let (exported, changes) = DeviceRecordPair.exportable([tampered, try #require(try rig.device.storage.read(key == .deviceState ? .deviceCounters : .deviceState))])
        #expect(!exported.contains(tampered))
        #expect(changes.contains { $0.contains("left behind") })
    }

    enum Damage: CustomTestStringConvertible, Sendable {
        case flip(fraction: Double)
        case truncate(fraction: Double)
        case extend(bytes: Int)
        case empty

        var testDescription: String {
            switch self {
            case let .flip(fraction): "flip a byte at \(Int(fraction * 100))%"
            case let .truncate(fraction): "truncate to \(Int(fraction * 100))%"
            case let .extend(bytes): "append \(bytes) bytes"
            case .empty: "empty the file"
            }
        }

        func apply(to data: Data) -> Data {
            var data = data
            switch self {
            case let .flip(fraction):
                let index = min(data.count - 1, Int(Double(data.count) * fraction))
                data[index] ^= 0x5A
            case let .truncate(fraction):
                data = data.prefix(Int(Double(data.count) * fraction))
            case let .extend(bytes):
                data.append(Data(repeating: 0xA5, count: bytes))
            case .empty:
                data = Data()
            }
            return data
        }
    }

    static let damages: [Damage] = [
        .flip(fraction: 0), .flip(fraction: 0.01), .flip(fraction: 0.03), .flip(fraction: 0.3), .flip(fraction: 0.5),
        .flip(fraction: 0.9), .flip(fraction: 0.999), .truncate(fraction: 0.5), .truncate(fraction: 0.99),
        .truncate(fraction: 0.1), .extend(bytes: 1), .extend(bytes: 4096), .empty,
    ]

    /// Writes a device with a keychain item, closes it, and returns the store file's bytes.
    func prepare(_ backend: Backend, _ directory: URL) async throws -> Data {
        do {
            let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
            try rig.keychain.add("tamper-secret", service: "s", account: "a")
            try rig.device.storage.commit([.put(Record(key: RecordKey("t", "x"), value: Data("payload".utf8)))])
        }
        return try Data(contentsOf: try #require(backend.file(in: directory)))
    }

    @Test("a damaged encrypted store is corruptStore and left as it was", arguments: damages)
    func encryptedStore(_ damage: Damage) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try #require(Backend.encrypted.file(in: directory))
        let damaged = damage.apply(to: try await prepare(.encrypted, directory))
        try damaged.write(to: file)
        do {
            _ = try TestDevice(storage: Backend.encrypted.selection(in: directory), registry: .builtIn)
            Issue.record("a damaged store opened")
        } catch let error as StorageError {
            guard case let .corruptStore(path, reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(path == file.path)
            #expect(!reason.isEmpty)
            #expect(!error.description.contains("tamper-secret"))
        }
        #expect(try Data(contentsOf: file) == damaged, "the file is untouched")
    }

    @Test("a damaged SQLite store is a clear error (or reads back intact) and is left as it was", arguments: damages)
    func sqliteStore(_ damage: Damage) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try #require(Backend.sqlite.file(in: directory))
        let original = try await prepare(.sqlite, directory)
        let damaged = damage.apply(to: original)
        try damaged.write(to: file)
        do {
            let store = try Backend.sqlite.open(in: directory)
            // Opened: every record must read back exactly, or fail with a StorageError.
            do {
                #expect(try store.read(RecordKey("t", "x"))?.value == Data("payload".utf8))
                #expect(try store.list(namespace: "keychain").count == 1)
            } catch let error as StorageError {
                #expect(!error.description.contains("tamper-secret"))
            }
        } catch let error as StorageError {
            switch error {
            case .corruptStore, .corruptRecord: break
            case .ioFailure: Issue.record("expected a corruption error, got \(error)")
            }
            #expect(!error.description.contains("tamper-secret"))
        }
        #expect(try Data(contentsOf: file) == damaged, "the file is untouched")
    }

    /// Records whose key bytes a test alters in the file: the device's state and counters, the
    /// sensor's templates, a keychain item.
    static let alteredKeys: [(namespace: String, name: String)] = [
        ("device", "state"), ("device", "counters"), ("sensor", "touchID"), ("t", "x"),
    ]

    @Test("SQLite: a record whose key was altered in the file is damage, never an absent record that is written anew",
          arguments: alteredKeys.map { "\($0.namespace)/\($0.name)" })
    func sqliteAlteredKey(_ key: String) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try #require(Backend.sqlite.file(in: directory))
        var data = try await prepare(.sqlite, directory)
        // SQLite keeps the two key columns side by side: "device" then "state".
        let parts = key.split(separator: "/").map(String.init)
        let needle = Data((parts[0] + parts[1]).utf8)
        // Every copy: free pages may hold stale ones, and the live row must be among those hit.
        var from = data.startIndex
        var copies = 0
        while let found = data.range(of: needle, in: from..<data.endIndex) {
            data[found.lowerBound + 1] ^= 0x20  // "device" -> "dEvice": a row no lookup finds
            from = found.upperBound
            copies += 1
        }
        #expect(copies > 0, "the key \(key) is in the file")
        try data.write(to: file)
        // The record's own lookup finds the altered row beside its key: damage, not absence.
        let store = try Backend.sqlite.open(in: directory)
        #expect {
            _ = try store.read(RecordKey(RecordNamespace(rawValue: parts[0]), parts[1]))
        } throws: { error in
            (error as? StorageError)?.isDamage == true
        }
        // The device reads its state, counters and templates as it opens: it refuses the store
        // instead of starting afresh over it (a new secret, no passcode, no finger, no count).
        if parts[0] != "t" {
            #expect(throws: StorageError.self) { _ = try TestDevice(storage: Backend.sqlite.selection(in: directory), registry: .builtIn) }
        }
        #expect(try Data(contentsOf: file) == data, "the file is untouched: nothing was written over the damage")
    }

    @Test("a device record without its partner is refused (never fresh counts or a fresh device), reported by the store check, and repaired by an export: a lone state gets counters that lock biometry, lone counters are left behind",
          arguments: [Backend.sqlite, Backend.encrypted], ["state", "counters"])
    func loneDeviceRecord(_ backend: Backend, _ lost: String) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        do {
            let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
            try rig.device.setPasscode("1234")
            #expect(try rig.device.submitPasscode("9999") != .accepted)
            #expect(try rig.device.counters.passcodeFailures == 1)
            // A row lost outside Touchstone (a deleted row, a hand-edited store).
            try rig.device.storage.commit([.delete(RecordKey("device", lost))])
            #expect(throws: StorageError.self, "the open device refuses too") { try rig.device.submitPasscode("1234") }
        }
        let file = try #require(backend.file(in: directory))
        let before = try Data(contentsOf: file)
        #expect {
            _ = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
        } throws: { error in
            guard case let StorageError.corruptRecord(key, reason) = error else { return false }
            return key.hasPrefix("device/") && reason.contains("--export-store")
        }
        #expect(try Data(contentsOf: file) == before, "nothing was written over it")

        let (type, options) = try #require(try PluginRegistry.builtIn.maintenance(for: backend.selection(in: directory)))
        let report = type.check(options: options)
        #expect(!report.isSound)
        #expect(report.problems.contains { $0.contains("without an intact 'device/\(lost)'") })

        let exported = directory.appendingPathComponent("exported")
        let export = try type.export(options: options, to: exported.path)
        #expect(export.skipped.contains { $0.contains("without an intact 'device/\(lost)'") })
        var selection = backend.selection(in: directory)
        selection.options["path"] = exported.path
        let repaired = try TestDevice(storage: selection, registry: .builtIn)
        let counters = try repaired.device.counters
        let passcodeIsSet = try repaired.device.isPasscodeSet
        if lost == "counters" {
            // The state (passcode, secret, enrollments) is kept; biometry is locked out until
            // the passcode is entered, so no lockout the lost counters held is lifted.
            #expect(passcodeIsSet)
            #expect(counters.consecutiveBiometricFailures == 5)
            #expect(counters.passcodeRequiredToUnlock == true)
            #expect(try repaired.device.submitPasscode("1234", unlocksDevice: true) == .accepted)
            #expect(try repaired.device.counters.consecutiveBiometricFailures == 0, "the passcode lifts the lockout")
        } else {
            // The state is gone: a new device, whose counters start at zero.
            #expect(counters.passcodeFailures == 0)
            #expect(counters.consecutiveBiometricFailures == 0)
        }
    }

    @Test("encrypted file: a FIFO, a device or a directory as the store or key file is refused at once",
          arguments: ["fifo-store", "device-store", "directory-store", "fifo-key", "directory-key"])
    func encryptedNonRegularFiles(_ case: String) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        var path = directory.appendingPathComponent("device.store").path
        var keyPath = directory.appendingPathComponent("device.key").path
        switch `case` {
        case "fifo-store": #expect(mkfifo(path, 0o600) == 0)
        case "device-store": path = "/dev/urandom"
        case "directory-store": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        default:
            keyPath = directory.appendingPathComponent("other.key").path
            if `case` == "fifo-key" {
                #expect(mkfifo(keyPath, 0o600) == 0)
            } else {
                // A directory's usual mode (0755) is not what is wrong with it.
                try FileManager.default.createDirectory(atPath: keyPath, withIntermediateDirectories: false)
            }
            // An existing store makes the key file be read, not created.
            try Self.encrypted(path, key: directory.appendingPathComponent("real.key").path)
                .commit([.put(Record(key: RecordKey("a", "b"), value: Data()))])
        }
        let lockExisted = FileManager.default.fileExists(atPath: path + ".lock")
        let start = ContinuousClock.now
        #expect {
            _ = try Self.encrypted(path, key: keyPath)
        } throws: { error in
            guard case let StorageError.ioFailure(reason) = error else { return false }
            return reason.contains("is not a regular file")
        }
        #expect(ContinuousClock.now - start < .seconds(5), "refused, not read")
        if !`case`.hasSuffix("-key") {
            #expect(FileManager.default.fileExists(atPath: path + ".lock") == lockExisted, "no lock file made beside it")
        }
    }

    @Test("SQLite: a device, a FIFO or a directory as the store is refused as such, not read as an empty store",
          arguments: ["device", "fifo", "directory"])
    func sqliteNonRegularFiles(_ case: String) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        var path = directory.appendingPathComponent("device.sqlite").path
        switch `case` {
        case "device": path = "/dev/null"
        case "fifo": #expect(mkfifo(path, 0o600) == 0)
        default: try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        }
        let start = ContinuousClock.now
        #expect {
            _ = try SQLiteStorage(path: path)
        } throws: { error in
            guard case let StorageError.ioFailure(reason) = error else { return false }
            return reason.contains("is not a regular file")
        }
        #expect(ContinuousClock.now - start < .seconds(5), "refused, not read")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    /// An encrypted-file store at `path` keyed by the file `key`, through the registry.
    static func encrypted(_ path: String, key: String) throws -> any StorageBackend {
        let environment = PluginEnvironment(clock: VirtualClock(), random: RandomSource(seed: 1), interaction: ScriptedInteraction())
        return try PluginRegistry.builtIn.make(
            PluginSelection("storage.encrypted-file", options: ["path": path, "key-file": key]),
            kind: .storage, environment: environment)
    }

    @Test("an emptied store file gets the same message from every backend: empty, remove it to start a new one", arguments: [Backend.sqlite, Backend.encrypted])
    func emptiedStoreIsNamedAlike(_ backend: Backend) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try #require(backend.file(in: directory))
        _ = try await prepare(backend, directory)
        try Data().write(to: file)
        #expect {
            _ = try backend.open(in: directory)
        } throws: { error in
            guard case let StorageError.corruptStore(_, reason) = error else { return false }
            return reason.contains("the file is empty, not a Touchstone store (remove it to start a new one)")
        }
        #expect(try Data(contentsOf: file).isEmpty)
    }

    @Test("a passphrase store with a damaged KDF header fails fast and clearly")
    func passphraseHeader() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("p.store").path
        try EncryptedFileStorageFactory.passphrase(path, "pw").commit([.put(Record(key: RecordKey("a", "b"), value: Data()))])
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[6] ^= 0x40   // rounds field: now far above the allowed maximum
        try data.write(to: URL(fileURLWithPath: path))
        let start = ContinuousClock.now
        #expect(throws: StorageError.self) { try EncryptedFileStorageFactory.passphrase(path, "pw") }
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == data)
    }
}
