import Crypto
import Foundation
import GRDB
@testable import SQLiteStorage
import Testing
import TestSupport
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// A SQLite store whose last writer was killed (its `-wal` holds the newest commits) and which
/// is then damaged must be reported — and left byte for byte as it was, `-wal` and `-shm`
/// included: a read-write connection would checkpoint the log into the damaged file and delete
/// it, destroying the only good copy of the last commits.
@Suite("Killed writer, then damage", .serialized)
struct KilledWriterDamageTests {
    /// sha256 of every file in `directory`, by name.
    static func fingerprints(_ directory: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            result[name] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
        return result
    }

    /// A child process writing to a new store in `directory`, once it acknowledged at least
    /// `acknowledged` commits; the caller kills it.
    static func runningWriter(_ directory: URL, acknowledged: Int) throws -> SpawnedProcess {
        _ = try TestDevice(storage: Backend.sqlite.selection(in: directory), registry: .builtIn)
        let (process, pipe) = try ChildProcess.start(["stream"] + ChildProcess.storageArguments(.sqlite, directory))
        var seen = 0
        let reader = pipe.fileHandleForReading
        while seen < acknowledged {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            seen += chunk.filter { $0 == UInt8(ascii: "\n") }.count
        }
        return process
    }

    /// A store in `directory` whose writer was SIGKILLed after at least `acknowledged` commits,
    /// with its `-wal` left behind.
    static func killedWriterStore(_ directory: URL, acknowledged: Int = 40) throws {
        let process = try runningWriter(directory, acknowledged: acknowledged)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// A new directory holding a killed writer's store (``killedWriterStore(_:acknowledged:)``)
    /// and that store's file; the caller removes the directory.
    static func killedWriterDirectory(acknowledged: Int = 40) throws -> (directory: URL, file: URL) {
        try #require(ChildProcess.executable != nil)
        let directory = try makeTemporaryDirectory()
        do {
            try killedWriterStore(directory, acknowledged: acknowledged)
            return (directory, try #require(Backend.sqlite.file(in: directory)))
        } catch {
            removeTemporaryDirectory(directory)
            throw error
        }
    }

    @Test("a store build left by a killed process (.creating-<pid>-<n> and its -wal/-shm/-journal) is removed at the next open; one whose process runs, or changed in the last ten minutes, is kept")
    func abandonedBuildsAreRemoved() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("device.sqlite").path
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        finished.waitUntilExit()
        let dead = path + ".creating-\(finished.processIdentifier)-42"
        let alive = path + ".creating-1-7"  // init: always running
        let recent = path + ".creating-\(finished.processIdentifier)-43"  // its process is gone, but it was just changed
        let old = Date(timeIntervalSinceNow: -3600)
        for file in [dead, dead + "-wal", dead + "-shm", dead + "-journal", alive, recent] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data([1])))
            if file != recent { try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: file) }
        }
        _ = try SQLiteStorage(path: path)
        for file in [dead, dead + "-wal", dead + "-shm", dead + "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: file), "\(file)")
        }
        #expect(FileManager.default.fileExists(atPath: alive))
        #expect(FileManager.default.fileExists(atPath: recent))
    }

    @Test("a killed writer's store with a damaged main file is refused and left exactly as it was",
          arguments: TamperingTests.damages)
    func damagedMainFile(_ damage: TamperingTests.Damage) throws {
        let (directory, file) = try Self.killedWriterDirectory()
        defer { removeTemporaryDirectory(directory) }
        #expect(SQLiteStorage.wasLeftOpen(file.path), "the killed writer left its -wal")
        try damage.apply(to: Data(contentsOf: file)).write(to: file)
        let before = try Self.fingerprints(directory)
        do {
            let store = try Backend.sqlite.open(in: directory)
            // The damage hit bytes SQLite does not use: every record still reads back.
            _ = try store.list(namespace: "keychain")
        } catch let error as StorageError {
            guard case .corruptStore = error else {
                if case .corruptRecord = error { return }
                Issue.record("expected corruptStore, got \(error)")
                return
            }
            #expect(try Self.fingerprints(directory) == before, "store, -wal and -shm untouched")
        }
    }

    @Test("a damaged frame in the write-ahead log is reported, not silently rolled back")
    func damagedLogFrame() throws {
        let (directory, file) = try Self.killedWriterDirectory(acknowledged: 60)
        defer { removeTemporaryDirectory(directory) }
        let wal = file.path + "-wal"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: wal))
        try #require(bytes.count > 32 + 3 * (24 + 4096), "the log holds several frames")
        bytes[32 + 24 + 100] ^= 0xFF   // inside the first frame's page
        try bytes.write(to: URL(fileURLWithPath: wal))
        let before = try Self.fingerprints(directory)
        #expect {
            _ = try Backend.sqlite.open(in: directory)
        } throws: { error in
            guard case let StorageError.corruptStore(_, reason) = error else { return false }
            return reason.contains("write-ahead log")
        }
        #expect(try Self.fingerprints(directory) == before)
    }

    @Test("a killed writer's log with a damaged header: check and export read the main file at once (SQLite ignores such a log) and write nothing")
    func damagedLogHeaderBesideTheIndex() throws {
        let (directory, file) = try Self.killedWriterDirectory()
        defer { removeTemporaryDirectory(directory) }
        let wal = URL(fileURLWithPath: file.path + "-wal")
        #expect(FileManager.default.fileExists(atPath: file.path + "-shm"), "the killed writer left its index")
        var bytes = try Data(contentsOf: wal)
        bytes[0] ^= 0xFF
        try bytes.write(to: wal)
        let before = try Self.fingerprints(directory)

        let (type, options) = try #require(try PluginRegistry.builtIn.maintenance(for: Backend.sqlite.selection(in: directory)))
        // (Reading through the index a read-only connection cannot use gave SQLITE_PROTOCOL after
        // 10 s of retries per query, and no record.)
        let report = type.check(options: options)
        #expect(!report.isSound)
        #expect(report.problems.contains { $0.contains("bad magic number") }, "\(report.problems)")
        #expect(report.intactRecords > 0, "the main file's records: \(report.problems)")
        #expect(!report.problems.contains { $0.contains("locking protocol") }, "\(report.problems)")

        let destination = directory.appendingPathComponent("salvaged.sqlite").path
        let exported = try type.export(options: options, to: destination)
        #expect(exported.copied == report.intactRecords)
        #expect(exported.skipped.contains { $0.contains("the records copied are the main database file's") }, "\(exported.skipped)")
        #expect(try Self.fingerprints(directory).filter { !$0.key.hasPrefix("salvaged") } == before, "store, -wal and -shm untouched")
    }

    @Test("a store another process has open is seen as in use (its index is current and read as usual); after that process is killed it is not")
    func storeInUseByAnotherProcess() throws {
        try #require(ChildProcess.executable != nil)
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let process = try Self.runningWriter(directory, acknowledged: 5)
        let file = try #require(Backend.sqlite.file(in: directory))
        #expect(SQLiteInspection.sharedMemoryIsInUse(file.path), "the writer has the store open")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(!SQLiteInspection.sharedMemoryIsInUse(file.path), "a killed writer's locks are gone with it")
    }

    @Test("a write-ahead log cut inside its last frame is noted by the store check, which cannot tell it from a killed writer's unfinished transaction")
    func logCutInsideItsLastFrameIsNoted() throws {
        let (directory, file) = try Self.killedWriterDirectory()
        defer { removeTemporaryDirectory(directory) }
        let wal = file.path + "-wal"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: wal))
        try #require(bytes.count > 32 + 2 * (24 + 4096))
        try bytes.prefix(bytes.count - 1000).write(to: URL(fileURLWithPath: wal))
        let before = try Self.fingerprints(directory)
        let (type, options) = try #require(try PluginRegistry.builtIn.maintenance(for: Backend.sqlite.selection(in: directory)))
        let report = type.check(options: options)
        #expect(report.isSound, "a cut inside the last frame is not provable damage: \(report.problems)")
        #expect(report.notes.count == 1)
        #expect(report.notes.first?.contains("3120 bytes of an unfinished frame") == true, "\(report.notes)")
        #expect(try Self.fingerprints(directory) == before, "the check wrote nothing")
    }

    @Test("a flipped bit in the log's last whole commit frame is noted by the store check (SQLite ignores that transaction; a power loss leaves the same)")
    func failedLastCommitFrameIsNoted() throws {
        let (directory, file) = try Self.killedWriterDirectory()
        defer { removeTemporaryDirectory(directory) }
        let wal = URL(fileURLWithPath: file.path + "-wal")
        var bytes = try Data(contentsOf: wal)
        let frame = 24 + 4096
        let frames = (bytes.count - 32) / frame
        try #require(frames >= 2 && (bytes.count - 32) % frame == 0, "whole frames only")
        bytes[32 + (frames - 1) * frame + 24 + 200] ^= 0x01
        try bytes.write(to: wal)
        let (type, options) = try #require(try PluginRegistry.builtIn.maintenance(for: Backend.sqlite.selection(in: directory)))
        let report = type.check(options: options)
        #expect(report.notes.contains { $0.contains("frame \(frames) of the write-ahead log, a whole commit frame, fails its checksum") }, "\(report.notes)")
    }

    @Test("a store whose records table was dropped is refused as corrupt, not as an I/O failure, and the check names the missing table")
    func droppedRecordsTableIsCorruption() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try Backend.sqliteStore(in: directory)
        let other = try DatabaseQueue(path: file.path)
        try other.write { db in try db.execute(sql: "DROP TABLE records") }
        try other.close()
        let before = try Self.fingerprints(directory)
        #expect {
            _ = try Backend.sqlite.open(in: directory)
        } throws: { error in
            guard case let StorageError.corruptStore(_, reason) = error else { return false }
            return reason.contains("records table")
        }
        let (type, options) = try #require(try PluginRegistry.builtIn.maintenance(for: Backend.sqlite.selection(in: directory)))
        let report = type.check(options: options)
        #expect(report.problems.contains { $0.contains("records table") }, "\(report.problems)")
        #expect(try Self.fingerprints(directory) == before)
    }

    @Test("a header whose write version SQLite does not write is refused at open, not after the first change is counted")
    func headerMarkedReadOnlyIsRefusedAtOpen() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try Backend.sqliteStore(in: directory)
        var bytes = try Data(contentsOf: file)
        bytes[18] = 0x58   // the file format write version: 1 (rollback) or 2 (WAL) are SQLite's
        try bytes.write(to: file)
        let before = try Self.fingerprints(directory)
        #expect {
            _ = try Backend.sqlite.open(in: directory)
        } throws: { error in
            guard case let StorageError.corruptStore(_, reason) = error else { return false }
            return reason.contains("read-only")
        }
        // The check says why the store will not open (it used to call it sound), and still
        // finds its record intact, for --export-store.
        let (type, options) = try #require(try PluginRegistry.builtIn.maintenance(for: Backend.sqlite.selection(in: directory)))
        let report = type.check(options: options)
        #expect(!report.isSound)
        #expect(report.problems.contains { $0.contains("write version (byte 18) is 88") }, "\(report.problems)")
        #expect(report.intactRecords > 0)
        #expect(try Self.fingerprints(directory) == before)
    }

    @Test("a store check of a path with no store says so instead of calling it damaged")
    func checkOfAMissingStore() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        for backend in [Backend.sqlite, Backend.encrypted] {
            let selection = backend.selection(in: directory)
            let (type, options) = try #require(try PluginRegistry.builtIn.maintenance(for: selection))
            let report = type.check(options: options)
            #expect(report.isMissing, "\(backend)")
            #expect(!report.isSound)
            #expect(report.problems.isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the check created nothing")
        }
    }

    @Test("a damaged write-ahead log header is reported")
    func damagedLogHeader() throws {
        let (directory, file) = try Self.killedWriterDirectory()
        defer { removeTemporaryDirectory(directory) }
        let wal = file.path + "-wal"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: wal))
        bytes[20] ^= 0x01   // salt-2
        try bytes.write(to: URL(fileURLWithPath: wal))
        let before = try Self.fingerprints(directory)
        #expect(throws: StorageError.self) { _ = try Backend.sqlite.open(in: directory) }
        #expect(try Self.fingerprints(directory) == before)
    }

    @Test("an intact killed writer's store opens with every acknowledged commit")
    func intactLogOpens() throws {
        let (directory, file) = try Self.killedWriterDirectory()
        defer { removeTemporaryDirectory(directory) }
        let report = try SQLiteInspection.inspectWAL(at: file.path + "-wal")
        #expect(report?.damage == nil)
        #expect((report?.committedTransactions ?? 0) > 0)
        let store = try Backend.sqlite.open(in: directory)
        #expect(try store.read(RecordKey("crash", "counter")) != nil)
    }

    @Test("store check finds a damaged record and export salvages the rest, without writing the damaged store")
    func checkAndExport() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try Backend.sqliteStore(in: directory, values: ["first-value", "second-value"])
        // Alter one stored value behind the backend's back: its checksum no longer matches.
        let other = try DatabaseQueue(path: file.path)
        try other.write { db in
            let name = try String.fetchOne(db, sql: "SELECT name FROM records WHERE namespace = 'keychain' ORDER BY name DESC LIMIT 1")
            try db.execute(sql: "UPDATE records SET value = x'00' WHERE namespace = 'keychain' AND name = ?", arguments: [name])
        }
        try other.close()
        let before = try Self.fingerprints(directory)
        let options = try PluginOptions(Backend.sqlite.options(in: directory), for: SQLiteStorage.descriptor)
        let report = SQLiteStorage.check(options: options)
        #expect(!report.isSound)
        #expect(report.problems.contains { $0.contains("checksum") })
        let destination = directory.appendingPathComponent("salvaged.sqlite").path
        let export = try SQLiteStorage.export(options: options, to: destination)
        #expect(export.copied == report.intactRecords)
        #expect(export.skipped.count == 1)
        #expect(try Self.fingerprints(directory).filter { before[$0.key] != nil } == before, "the damaged store was only read")
        let salvaged = try SQLiteStorage(path: destination)
        #expect(try salvaged.list(namespace: "keychain").count == 1)
    }
}
