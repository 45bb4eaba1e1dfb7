@testable import EncryptedFileStorage
import Foundation
import Testing
import Touchstone

/// Two openers of a path where no store exists yet, as two processes that start together.
@Suite("A new encrypted store opened twice")
struct NewEncryptedStoreTests {
    static func record(_ name: String) -> Record {
        Record(key: RecordKey("t", name), value: Data(name.utf8))
    }

    @Test("two openers of a missing passphrase store each pick a salt; the first to write makes the store, and the other reads and writes it with that store's salt (it was refused as a replaced file)")
    func secondOpenerAdoptsTheFirstWritersSalt() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("device.store").path
        let first = try EncryptedFileStorage(path: path, key: .passphrase("correct horse", rounds: 210_000))
        let second = try EncryptedFileStorage(path: path, key: .passphrase("correct horse", rounds: 300_000))
        try first.commit([.put(Self.record("a"))])
        #expect(try second.read(RecordKey("t", "a"))?.value == Data("a".utf8))
        try second.commit([.put(Self.record("b"))])
        #expect(try first.read(RecordKey("t", "b"))?.value == Data("b".utf8))
        let reopened = try EncryptedFileStorage(path: path, key: .passphrase("correct horse", rounds: 210_000))
        #expect(try reopened.list(namespace: "t").map(\.key.name).sorted() == ["a", "b"])
    }

    @Test("the other opener with the wrong passphrase is refused without changing the file")
    func wrongPassphraseStillRefused() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("device.store").path
        let first = try EncryptedFileStorage(path: path, key: .passphrase("correct horse", rounds: 210_000))
        let second = try EncryptedFileStorage(path: path, key: .passphrase("wrong horse", rounds: 210_000))
        try first.commit([.put(Self.record("a"))])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StorageError.self) { try second.commit([.put(Self.record("b"))]) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
