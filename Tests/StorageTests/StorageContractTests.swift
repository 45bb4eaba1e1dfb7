import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins
import SQLiteStorage

/// The ``StorageBackend`` contract, run against every backend.
@Suite("Storage contract")
struct StorageContractTests {
    static let key = RecordKey("test", "alpha")

    @Test("put, read, overwrite and delete", arguments: Backend.allCases)
    func putReadDelete(_ backend: Backend) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let store = try backend.open(in: directory)
        #expect(try store.read(Self.key) == nil)
        try store.commit([.put(Record(key: Self.key, value: Data("one".utf8), attributes: ["kind": "x"]))])
        #expect(try store.read(Self.key) == Record(key: Self.key, value: Data("one".utf8), attributes: ["kind": "x"]))
        try store.commit([.put(Record(key: Self.key, value: Data("two".utf8)))])
        #expect(try store.read(Self.key)?.value == Data("two".utf8))
        try store.commit([.delete(Self.key)])
        #expect(try store.read(Self.key) == nil)
    }

    @Test("list returns one namespace's records with the prefix, sorted by name; namespaces lists those holding records", arguments: Backend.allCases)
    func listByPrefix(_ backend: Backend) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let store = try backend.open(in: directory)
        let names = ["app/b", "app/a", "other/c", "app%/d", "app/c", "élan/x", "élan/y", "éla"]
        try store.commit(names.map { .put(Record(key: RecordKey("ns", $0), value: Data($0.utf8))) }
            + [.put(Record(key: RecordKey("elsewhere", "app/z"), value: Data()))])
        #expect(try store.list(namespace: "ns", prefix: "app/").map(\.key.name) == ["app/a", "app/b", "app/c"])
        #expect(try store.list(namespace: "ns").count == 8)
        // A non-ASCII prefix (an app id such as "com.café"): SQLite's substr counted
        // characters against the prefix's bytes, so it never matched.
        #expect(try store.list(namespace: "ns", prefix: "élan/").map(\.key.name) == ["élan/x", "élan/y"])
        #expect(try store.list(namespace: "none").isEmpty)
        #expect(try store.namespaces() == ["elsewhere", "ns"])
        try store.commit([.delete(RecordKey("elsewhere", "app/z"))])
        #expect(try store.namespaces() == ["ns"])
    }

    @Test("a name holding NUL (a keychain account is any string) reads and lists back whole, and the item opens", arguments: Backend.allCases)
    func namesWithNUL(_ backend: Backend) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let store = try backend.open(in: directory)
        let names = ["a\u{0}b", "a", "a\u{0}", "\u{0}x"]
        try store.commit(names.map { .put(Record(key: RecordKey("ns", $0), value: Data($0.utf8))) })
        #expect(try store.list(namespace: "ns").map(\.key.name) == names.sorted())
        #expect(try store.list(namespace: "ns", prefix: "a\u{0}").map(\.key.name) == ["a\u{0}", "a\u{0}b"])
        for name in names { #expect(try store.read(RecordKey("ns", name))?.value == Data(name.utf8)) }

        // Through the keychain, as the REPL's `keychain add svc a<NUL>b` does.
        let deviceFolder = directory.appendingPathComponent("device")
        try FileManager.default.createDirectory(at: deviceFolder, withIntermediateDirectories: true)
        let rig = try TestDevice(storage: backend.selection(in: deviceFolder), registry: .builtIn)
        try rig.keychain.add("value", service: "svc", account: "a\u{0}b")
        try rig.keychain.add("plain", service: "svc", account: "a")
        #expect(try rig.keychain.items(service: "svc").map(\.account) == ["a", "a\u{0}b"])
        #expect(await rig.read("svc", "a\u{0}b") == .success("value"))
        #expect(await rig.read("svc", "a") == .success("plain"))

        guard backend == .sqlite else { return }
        let options = try PluginOptions(backend.options(in: directory), for: SQLiteStorage.descriptor)
        let report = SQLiteStorage.check(options: options)
        #expect(report.isSound, "\(report.problems)")
        #expect(report.intactRecords == names.count)
        let destination = directory.appendingPathComponent("copy.sqlite").path
        #expect(try SQLiteStorage.export(options: options, to: destination).copied == names.count)
        #expect(try SQLiteStorage(path: destination).list(namespace: "ns").map(\.key.name) == names.sorted())
    }

    @Test("a transaction that throws writes nothing", arguments: Backend.allCases)
    func failedTransactionIsAtomic(_ backend: Backend) throws {
        struct Stop: Error {}
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let store = try backend.open(in: directory)
        let before = try store.generation
        #expect(throws: Stop.self) {
            try store.transaction { transaction in
                transaction.put(Record(key: Self.key, value: Data("x".utf8)))
                throw Stop()
            }
        }
        #expect(try store.read(Self.key) == nil)
        #expect(try store.generation == before)
    }

    @Test("reads inside a transaction see its own writes", arguments: Backend.allCases)
    func readYourWrites(_ backend: Backend) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let store = try backend.open(in: directory)
        try store.commit([.put(Record(key: Self.key, value: Data("old".utf8)))])
        let seen = try store.transaction { transaction -> [String?] in
            let first = try transaction.read(Self.key).map { String(decoding: $0.value, as: UTF8.self) }
            transaction.put(Record(key: Self.key, value: Data("new".utf8)))
            let second = try transaction.read(Self.key).map { String(decoding: $0.value, as: UTF8.self) }
            transaction.delete(Self.key)
            return [first, second, try transaction.read(Self.key).map { String(decoding: $0.value, as: UTF8.self) }]
        }
        #expect(seen == ["old", "new", nil])
    }

    @Test("generation changes on every commit and not on reads or empty transactions", arguments: Backend.allCases)
    func generationMoves(_ backend: Backend) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let store = try backend.open(in: directory)
        let start = try store.generation
        _ = try store.read(Self.key)
        try store.transaction { _ in }
        #expect(try store.generation == start)
        try store.commit([.put(Record(key: Self.key, value: Data()))])
        let next = try store.generation
        #expect(next != start)
        try store.commit([.delete(Self.key)])
        #expect(try store.generation != next)
    }

    @Test("file stores persist across reopening and see another instance's writes",
          arguments: [Backend.sqlite, .encrypted])
    func persistenceAndOtherWriters(_ backend: Backend) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        do {
            let store = try backend.open(in: directory)
            try store.commit([.put(Record(key: Self.key, value: Data("kept".utf8), attributes: ["a": "b"]))])
        }
        let first = try backend.open(in: directory)
        #expect(try first.read(Self.key) == Record(key: Self.key, value: Data("kept".utf8), attributes: ["a": "b"]))
        let second = try backend.open(in: directory)
        let seen = try first.generation
        try second.commit([.put(Record(key: Self.key, value: Data("changed".utf8)))])
        #expect(try first.generation != seen)
        #expect(try first.read(Self.key)?.value == Data("changed".utf8))
    }

    @Test("device counters and lockout survive reopening the store", arguments: [Backend.sqlite, .encrypted])
    func lockoutSurvivesRestart(_ backend: Backend) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        do {
            let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
            rig.user.enqueue(Array(repeating: .noMatch, count: 3))
            _ = try? await rig.authenticator.makeContext().evaluate(rig.authenticator.policy(named: "biometrics"), reason: "x")
            rig.user.enqueue(Array(repeating: .noMatch, count: 2))
            _ = try? await rig.authenticator.makeContext().evaluate(rig.authenticator.policy(named: "biometrics"), reason: "x")
            #expect(try rig.device.biometryStatus().isLockedOut)
            try rig.keychain.add("persisted", service: "s", account: "a")
        }
        let reopened = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
        #expect(try reopened.device.biometryStatus().isLockedOut)
        #expect(try reopened.device.enrolledNames() == ["thumb"])
        #expect(await reopened.read("s", "a") == .success("persisted"))
    }

    @Test("the SQLite store is in WAL mode with synchronous=FULL by default")
    func sqliteSettings() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        _ = try Backend.sqlite.open(in: directory)
        let file = try #require(Backend.sqlite.file(in: directory))
        let header = try Data(contentsOf: file).prefix(20)
        #expect(header[18] == 2 && header[19] == 2, "write/read format version 2 means WAL")
    }

    @Test("unknown options and a missing path are clear configuration errors")
    func configurationErrors() {
        let environment = PluginEnvironment(clock: VirtualClock(), random: RandomSource(seed: 1), interaction: ScriptedInteraction())
        #expect(throws: ConfigurationError.self) {
            let _: any StorageBackend = try PluginRegistry.builtIn.make(PluginSelection("storage.sqlite"), kind: .storage, environment: environment)
        }
        #expect(throws: ConfigurationError.self) {
            let _: any StorageBackend = try PluginRegistry.builtIn.make(
                PluginSelection("storage.encrypted-file", options: ["path": "/tmp/x"]), kind: .storage, environment: environment)
        }
    }

    @Test("the key file is created with mode 0600 and a passphrase store reopens only with its passphrase")
    func encryptedKeys() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        _ = try Backend.encrypted.open(in: directory)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("device.key").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((attributes[.size] as? NSNumber)?.intValue == 32)

        let path = directory.appendingPathComponent("pass.store").path
        let store = try EncryptedFileStorageFactory.passphrase(path, "correct horse")
        try store.commit([.put(Record(key: Self.key, value: Data("v".utf8)))])
        #expect(try EncryptedFileStorageFactory.passphrase(path, "correct horse").read(Self.key)?.value == Data("v".utf8))
        #expect(throws: StorageError.self) { try EncryptedFileStorageFactory.passphrase(path, "wrong") }
        // An empty passphrase protects nothing: refused by name, and no store is made.
        let other = directory.appendingPathComponent("empty.store").path
        #expect {
            try EncryptedFileStorageFactory.passphrase(other, "")
        } throws: { error in
            guard case let ConfigurationError.invalidSetting(name, _) = error else { return false }
            return name == "passphrase"
        }
        #expect(!FileManager.default.fileExists(atPath: other))
    }
}

/// Builds passphrase stores through the registry.
enum EncryptedFileStorageFactory {
    static func passphrase(_ path: String, _ passphrase: String) throws -> any StorageBackend {
        let environment = PluginEnvironment(clock: VirtualClock(), random: RandomSource(seed: 1), interaction: ScriptedInteraction())
        return try PluginRegistry.builtIn.make(
            PluginSelection("storage.encrypted-file", options: ["path": path, "passphrase": passphrase]),
            kind: .storage, environment: environment)
    }
}
