import Foundation
import GRDB
import Testing
import TestSupport
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// SQLite stores a value of any type in any column: a store edited by hand can hold text where
/// the checksum's integer belongs. GRDB's subscript stops the process on such a value; the
/// store reads the columns so that it is reported as damage instead.
@Suite("SQLite columns of the wrong type")
struct SQLiteColumnTypeTests {
    @Test("a record whose column holds the wrong SQLite type is reported as damage when read alone or listed, never a trap, and the row is left as it was (found by a review: GRDB's row subscript stops the process on a copied row it cannot convert)",
          arguments: [("checksum", "'text'"), ("checksum", "1e30"), ("value", "42"), ("attributes", "x'00ff'")])
    func wrongColumnTypeIsDamage(column: String, value: String) throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let file = try Backend.sqliteStore(in: directory)
        let other = try DatabaseQueue(path: file.path)
        try other.write { db in
            try db.execute(sql: "UPDATE records SET \(column) = \(value) WHERE namespace = 'keychain'")
        }
        let name = try #require(try other.read { db in
            try String.fetchOne(db, sql: "SELECT CAST(name AS TEXT) FROM records WHERE namespace = 'keychain' ORDER BY name LIMIT 1")
        })
        // One record read (a row GRDB copies, whose columns it converts itself) and a listing
        // (rows SQLite converts).
        let readError = #expect(throws: StorageError.self) {
            _ = try Backend.sqlite.open(in: directory).read(RecordKey("keychain", name))
        }
        let listError = #expect(throws: StorageError.self) {
            _ = try Backend.sqlite.open(in: directory).list(namespace: "keychain")
        }
        #expect(readError?.isDamage == true && listError?.isDamage == true, "\(String(describing: readError)), \(String(describing: listError))")
        let kept = try other.read { db in
            try String.fetchAll(db, sql: "SELECT typeof(\(column)) FROM records WHERE namespace = 'keychain'")
        }
        try other.close()
        #expect(!kept.isEmpty && kept.allSatisfy { $0 != "null" }, "the edited rows are still there: \(kept)")
    }
}
