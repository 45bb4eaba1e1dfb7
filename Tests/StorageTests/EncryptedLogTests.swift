import Crypto
@testable import EncryptedFileStorage
import Foundation
import Testing
import Touchstone

/// The encrypted store's append-only log (issue 8 §4): a write costs its own size, every kind of
/// frame tampering is detected, a killed writer's frame is either adopted whole or dropped, the
/// log compacts, and version-1 stores and missing key files are handled.
@Suite("Encrypted log")
struct EncryptedLogTests {
    struct Store {
        let directory: URL
        var path: String { directory.appendingPathComponent("device.store").path }
        var keyPath: String { directory.appendingPathComponent("device.key").path }
        var url: URL { URL(fileURLWithPath: path) }

        func open() throws -> EncryptedFileStorage {
            try EncryptedFileStorage(path: path, key: .keyFile(keyPath))
        }

        func bytes() throws -> Data { try Data(contentsOf: url) }

        /// The byte ranges of the frames in the file.
        func frames() throws -> [Range<Int>] {
            let data = [UInt8](try bytes())
            var ranges: [Range<Int>] = []
            var offset = EncryptedFileFormat.framesStart
            while offset + 4 <= data.count {
                let length = data[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                guard offset + 4 + length <= data.count else { break }
                ranges.append(offset..<offset + 4 + length)
                offset += 4 + length
            }
            return ranges
        }

        /// Opening must fail as a corrupt store and leave the file as it was.
        func expectRefused(_ damaged: Data, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try damaged.write(to: url)
            do {
                _ = try open()
                Issue.record("a tampered store opened", sourceLocation: sourceLocation)
            } catch let error as StorageError {
                guard case .corruptStore = error else {
                    Issue.record("expected corruptStore, got \(error)", sourceLocation: sourceLocation)
                    return
                }
            }
            #expect(try bytes() == damaged, "the file is untouched", sourceLocation: sourceLocation)
        }
    }

    static func record(_ name: String, _ value: String = "v", size: Int = 0) -> Record {
        Record(key: RecordKey("t", name), value: size > 0 ? Data(repeating: 0x42, count: size) : Data(value.utf8),
               attributes: ["service": "s"])
    }

    /// A store with the first file (one frame) and then `writes` single-record transactions.
    func prepare(writes: Int) throws -> Store {
        let store = Store(directory: try makeTemporaryDirectory())
        let backend = try store.open()
        for index in 0...writes {
            try backend.commit([.put(Self.record("r\(index)", "value \(index)"))])
        }
        return store
    }

    @Test("a write appends only its own transaction, however many records the store holds")
    func writeCostsItsOwnSize() throws {
        let store = Store(directory: try makeTemporaryDirectory())
        defer { removeTemporaryDirectory(store.directory) }
        let backend = try store.open()
        try backend.commit((0..<5_000).map { .put(Self.record("item-\($0)", size: 200)) })
        let before = try store.bytes().count
        try backend.commit([.put(Self.record("one-more", size: 200))])
        let growth = try store.bytes().count - before
        #expect(growth > 200 && growth < 400, "one 200-byte record added \(growth) bytes")
        #expect(try store.open().list(namespace: "t").count == 5_001)
    }

    @Test("reordered transactions are detected")
    func reorderedFrames() throws {
        let store = try prepare(writes: 4)
        defer { removeTemporaryDirectory(store.directory) }
        let data = try store.bytes()
        let frames = try store.frames()
        try #require(frames.count == 5)
        var damaged = data.prefix(frames[1].lowerBound)
        damaged += data[frames[2]] + data[frames[1]]
        damaged += data[frames[3].lowerBound...]
        #expect(damaged.count == data.count)
        try store.expectRefused(damaged)
    }

    @Test("a transaction removed from the middle of the log is detected")
    func removedFrame() throws {
        let store = try prepare(writes: 4)
        defer { removeTemporaryDirectory(store.directory) }
        let data = try store.bytes()
        let frames = try store.frames()
        try store.expectRefused(data.prefix(frames[2].lowerBound) + data[frames[3].lowerBound...])
    }

    @Test("a replayed transaction is detected, in place or appended")
    func replayedFrame() throws {
        let store = try prepare(writes: 4)
        defer { removeTemporaryDirectory(store.directory) }
        let data = try store.bytes()
        let frames = try store.frames()
        try store.expectRefused(data.prefix(frames[3].upperBound) + data[frames[2]] + data[frames[4]])
        try store.expectRefused(data + data[frames[4]])
    }

    @Test("whole transactions cut from the end are detected")
    func cutFrames() throws {
        let store = try prepare(writes: 4)
        defer { removeTemporaryDirectory(store.directory) }
        let data = try store.bytes()
        let frames = try store.frames()
        try store.expectRefused(data.prefix(frames[4].lowerBound))
        try store.expectRefused(data.prefix(frames[2].lowerBound))
        try store.expectRefused(data.prefix(EncryptedFileFormat.framesStart))
    }

    @Test("a frame from another store with the same key is refused")
    func frameFromAnotherFile() throws {
        let first = try prepare(writes: 2)
        defer { removeTemporaryDirectory(first.directory) }
        let second = Store(directory: first.directory.appendingPathComponent("other"))
        try FileManager.default.createDirectory(at: second.directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: first.keyPath, toPath: second.keyPath)
        let backend = try second.open()
        for index in 0...2 { try backend.commit([.put(Self.record("r\(index)", "value \(index)"))]) }
        let data = try first.bytes()
        let frames = try first.frames()
        let foreign = try second.bytes()[try second.frames()[2]]
        try first.expectRefused(data.prefix(frames[2].lowerBound) + foreign)
    }

    @Test("a commit record put back from an earlier copy loses no transaction")
    func olderCommitSlotLosesNothing() throws {
        let store = try prepare(writes: 3)
        defer { removeTemporaryDirectory(store.directory) }
        // A new file commits in slot 0 and announces in slot 1.
        let commitSlot = EncryptedFileFormat.headerSize..<EncryptedFileFormat.headerSize + EncryptedFileFormat.slotSize
        let bothSlots = EncryptedFileFormat.headerSize..<EncryptedFileFormat.framesStart
        let before = try store.bytes()
        try store.open().commit([.put(Self.record("last", "acknowledged"))])
        let after = try store.bytes()
        // Both slots put back: the last frame was never announced, so it is refused.
        var data = after
        data.replaceSubrange(bothSlots, with: before[bothSlots])
        try store.expectRefused(data)
        data = after
        data.replaceSubrange(commitSlot, with: before[commitSlot])
        try data.write(to: store.url)
        // The commit slot is one write behind, but the announced frame is whole: it counts.
        #expect(try store.open().read(RecordKey("t", "last"))?.value == Data("acknowledged".utf8))
        #expect(try store.bytes() == data, "opening does not write")
    }

    @Test("a writer killed mid-frame leaves the last commit; the next write cuts its bytes off")
    func tornAnnouncedFrame() throws {
        let store = try prepare(writes: 3)
        defer { removeTemporaryDirectory(store.directory) }
        let commitSlot = EncryptedFileFormat.headerSize..<EncryptedFileFormat.headerSize + EncryptedFileFormat.slotSize
        let older = try store.bytes()[commitSlot]
        try store.open().commit([.put(Self.record("unacknowledged", size: 300))])
        let frames = try store.frames()
        // The state a kill between "announce" and "commit" leaves: old commit, half a frame.
        var data = try store.bytes().prefix(frames[4].lowerBound + frames[4].count / 2)
        data.replaceSubrange(commitSlot, with: older)
        try data.write(to: store.url)
        let reopened = try store.open()
        #expect(try reopened.read(RecordKey("t", "unacknowledged")) == nil)
        #expect(try reopened.read(RecordKey("t", "r3"))?.value == Data("value 3".utf8))
        #expect(try store.bytes() == data, "opening does not write")
        try reopened.commit([.put(Self.record("after", "crash"))])
        let final = try store.open()
        #expect(try final.read(RecordKey("t", "after"))?.value == Data("crash".utf8))
        #expect(try final.list(namespace: "t").count == 5)
        // Bytes beyond the announced end are never a killed writer's: refused.
        try data.write(to: store.url)
        try store.expectRefused(data + Data(repeating: 0, count: frames[4].count))
    }

    @Test("a damaged commit record is detected, whichever slot")
    func damagedSlot() throws {
        let store = try prepare(writes: 2)
        defer { removeTemporaryDirectory(store.directory) }
        let data = try store.bytes()
        for offset in [EncryptedFileFormat.headerSize + 3, EncryptedFileFormat.headerSize + EncryptedFileFormat.slotSize + 70] {
            var damaged = data
            damaged[offset] ^= 0x01
            try store.expectRefused(damaged)
        }
    }

    @Test("the log compacts when it outgrows the live records, keeping every record")
    func compaction() throws {
        let store = Store(directory: try makeTemporaryDirectory())
        defer { removeTemporaryDirectory(store.directory) }
        let writer = try store.open()
        try writer.commit([.put(Self.record("small", "kept"))])
        let reader = try store.open()
        var largest = 0
        for round in 0..<24 {
            try writer.commit([.put(Self.record("big", "\(round)", size: 64 * 1024 + round))])
            largest = max(largest, try store.bytes().count)
        }
        let size = try store.bytes().count
        #expect(largest > Int(EncryptedFileStorage.compactionFloor), "the log grew past the compaction floor")
        #expect(largest < Int(EncryptedFileStorage.compactionFloor) + 2 * 64 * 1024, "compacted past the floor (largest \(largest))")
        #expect(size < Int(EncryptedFileStorage.compactionFloor) + 2 * 64 * 1024)
        #expect(try store.frames().count < 24)
        // A process that had the old file open catches up with the new one.
        #expect(try reader.read(RecordKey("t", "big"))?.value.count == 64 * 1024 + 23)
        #expect(try reader.read(RecordKey("t", "small"))?.value == Data("kept".utf8))
        #expect(try reader.generation == writer.generation)
        #expect(try store.open().list(namespace: "t").count == 2)
    }

    @Test("another open store sees each write by reading only the new frames")
    func incrementalReads() throws {
        let store = Store(directory: try makeTemporaryDirectory())
        defer { removeTemporaryDirectory(store.directory) }
        let first = try store.open()
        let second = try store.open()
        for index in 0..<5 {
            try first.commit([.put(Self.record("a\(index)", "\(index)"))])
            #expect(try second.read(RecordKey("t", "a\(index)"))?.value == Data("\(index)".utf8))
            try second.commit([.delete(RecordKey("t", "a\(index)"))])
            #expect(try first.read(RecordKey("t", "a\(index)")) == nil)
        }
        #expect(try first.generation == 10)
        #expect(try second.generation == 10)
    }

    @Test("a store put back to an older copy while open is detected")
    func olderCopyWhileOpen() throws {
        let store = try prepare(writes: 2)
        defer { removeTemporaryDirectory(store.directory) }
        let older = try store.bytes()
        let backend = try store.open()
        try backend.commit([.put(Self.record("newer", "x"))])
        let replacement = store.directory.appendingPathComponent("older")
        try older.write(to: replacement)
        #expect(rename(replacement.path, store.path) == 0)
        #expect(throws: StorageError.self) { try backend.read(RecordKey("t", "newer")) }
        #expect(throws: StorageError.self) { try backend.commit([.put(Self.record("lost", "x"))]) }
        #expect(try store.bytes() == older, "nothing was written over it")
    }

    @Test("an existing store whose key file is missing is a clear error, and no key is created")
    func missingKeyFile() throws {
        let store = try prepare(writes: 1)
        defer { removeTemporaryDirectory(store.directory) }
        try FileManager.default.removeItem(atPath: store.keyPath)
        let data = try store.bytes()
        do {
            _ = try store.open()
            Issue.record("a store opened without its key")
        } catch let error as StorageError {
            #expect(error.description.contains("missing"))
            #expect(error.description.contains(store.keyPath))
        }
        #expect(!FileManager.default.fileExists(atPath: store.keyPath))
        #expect(try store.bytes() == data)
    }

    @Test("a version-1 store is read and rewritten in the log format by its first write")
    func versionOneMigration() throws {
        let store = Store(directory: try makeTemporaryDirectory())
        defer { removeTemporaryDirectory(store.directory) }
        let key = SymmetricKey(size: .bits256)
        let keyBytes = key.withUnsafeBytes { Data($0) }
        #expect(FileManager.default.createFile(atPath: store.keyPath, contents: keyBytes, attributes: [.posixPermissions: 0o600]))
        // Version 1: "TSES" · 1 · KDF 0 · rounds 0 · 16 zero bytes, then one sealed JSON document.
        let header = Data("TSES".utf8) + Data([1, 0, 0, 0, 0, 0]) + Data(count: 16)
        let document = #"{"sequence":7,"records":[{"namespace":"t","name":"old","value":"b2xk","attributes":{"service":"s"}}]}"#
        let sealed = try AES.GCM.seal(Data(document.utf8), using: key, authenticating: header)
        try (header + (try #require(sealed.combined))).write(to: store.url)

        let backend = try store.open()
        #expect(try backend.read(RecordKey("t", "old"))?.value == Data("old".utf8))
        #expect(try backend.generation == 7)
        try backend.commit([.put(Self.record("new", "x"))])
        #expect(try store.bytes()[4] == EncryptedFileFormat.version)
        let reopened = try store.open()
        #expect(try reopened.list(namespace: "t").map(\.key.name) == ["new", "old"])
        #expect(try reopened.generation == 8)
    }

    @Test("store check reports a damaged transaction and export salvages those before it, writing nothing to the store")
    func checkAndExport() throws {
        let store = try prepare(writes: 4)
        defer { removeTemporaryDirectory(store.directory) }
        let options = try PluginOptions(["path": store.path, "key-file": store.keyPath], for: EncryptedFileStorage.descriptor)
        let sound = EncryptedFileStorage.check(options: options)
        #expect(sound.isSound && sound.intactRecords == 5)

        var data = try store.bytes()
        let frames = try store.frames()
        data[frames[3].lowerBound + 20] ^= 0x10
        try data.write(to: store.url)
        let report = EncryptedFileStorage.check(options: options)
        #expect(!report.isSound)
        #expect(report.intactRecords == 3)
        #expect(report.problems.contains { $0.contains("transactions 4 to 5 of 5 could not be read") })

        let destination = store.directory.appendingPathComponent("salvaged.store").path
        let exported = try EncryptedFileStorage.export(options: options, to: destination)
        #expect(exported.copied == 3)
        #expect(!exported.skipped.isEmpty)
        let salvaged = try EncryptedFileStorage(path: destination, key: .keyFile(store.keyPath))
        #expect(try salvaged.list(namespace: "t").map(\.key.name) == ["r0", "r1", "r2"])
        #expect(try store.bytes() == data, "the damaged store is untouched")
        #expect(throws: StorageError.self) { try EncryptedFileStorage.export(options: options, to: destination) }
    }

    @Test("a key that is not the store's is reported as that, not as damage: opening is an I/O failure naming the passphrase or key file, the check calls the store unreadable, the file is unchanged")
    func wrongKeyIsNotDamage() throws {
        let store = try prepare(writes: 2)
        defer { removeTemporaryDirectory(store.directory) }
        let before = try store.bytes()
        let otherKey = store.directory.appendingPathComponent("other.key").path
        try Data(repeating: 7, count: 32).write(to: URL(fileURLWithPath: otherKey))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: otherKey)
        do {
            _ = try EncryptedFileStorage(path: store.path, key: .keyFile(otherKey))
            Issue.record("opened with another key")
        } catch let error as StorageError {
            #expect(!error.isDamage)
            #expect(error.description.contains("most likely the passphrase or key file is not this store's"), "\(error)")
        }
        let options = try PluginOptions(["path": store.path, "key-file": otherKey], for: EncryptedFileStorage.descriptor)
        let report = EncryptedFileStorage.check(options: options)
        #expect(!report.isSound)
        #expect(report.unreadable?.contains("passphrase or key file") == true)
        #expect(try store.bytes() == before)
        // The right key still opens everything.
        #expect(try store.open().list(namespace: "t").count == 3)
    }

    @Test("another process holding the lock past busy-timeout makes a write and a catch-up read fail with an I/O failure, not wait for ever; released, they work")
    func lockWaitIsBounded() throws {
        let store = try prepare(writes: 1)
        defer { removeTemporaryDirectory(store.directory) }
        let waiting = try EncryptedFileStorage(path: store.path, key: .keyFile(store.keyPath), busyTimeout: .milliseconds(100))
        let writer = try store.open()
        // Another holder of the lock (a second open file description, as another process has).
        let holder = open(store.path + ".lock", O_RDWR | O_CLOEXEC)
        try #require(holder >= 0)
        defer { close(holder) }
        try #require(flock(holder, LOCK_EX) == 0)
        do {
            try waiting.commit([.put(Self.record("late", "x"))])
            Issue.record("a write went ahead while another holder had the lock")
        } catch let error as StorageError {
            #expect(!error.isDamage)
            #expect(error.description.contains("busy-timeout"), "\(error)")
        }
        flock(holder, LOCK_UN)
        // Another write changes the file: the waiting store must lock it to catch up.
        try writer.commit([.put(Self.record("from-writer", "y"))])
        try #require(flock(holder, LOCK_EX) == 0)
        #expect(throws: StorageError.self) { _ = try waiting.read(RecordKey("t", "from-writer")) }
        flock(holder, LOCK_UN)
        #expect(try waiting.read(RecordKey("t", "from-writer"))?.value == Data("y".utf8))
        try waiting.commit([.put(Self.record("late", "x"))])
        #expect(try writer.read(RecordKey("t", "late")) != nil)
    }

    @Test("export of a store whose every transaction is damaged says nothing was written, and writes nothing")
    func exportWithNothingIntact() throws {
        let store = try prepare(writes: 2)
        defer { removeTemporaryDirectory(store.directory) }
        let options = try PluginOptions(["path": store.path, "key-file": store.keyPath], for: EncryptedFileStorage.descriptor)
        var data = try store.bytes()
        let frames = try store.frames()
        data[frames[0].lowerBound + 20] ^= 0x10
        try data.write(to: store.url)
        #expect(EncryptedFileStorage.check(options: options).intactRecords == 0)

        let destination = store.directory.appendingPathComponent("salvaged.store").path
        #expect {
            _ = try EncryptedFileStorage.export(options: options, to: destination)
        } throws: { error in
            guard case let StorageError.ioFailure(reason) = error else { return false }
            return reason.contains("nothing was written")
        }
        #expect(!FileManager.default.fileExists(atPath: destination))
        #expect(!FileManager.default.fileExists(atPath: destination + ".lock"))
        #expect(try store.bytes() == data, "the damaged store is untouched")
    }
}
