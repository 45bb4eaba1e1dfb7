import Foundation
import GRDB
import Touchstone

/// Reading rows: a record fetched by its key and decoded once its checksum matches, the rows
/// beside a miss or a list verified too, record names bound and read as bytes, and the
/// checksum every row carries.
extension SQLiteStorage {
    // MARK: Rows

    /// For attributes ``FlatJSONObject`` does not read (shared: Foundation's coders are
    /// thread-safe, and making one per row costs more than the parse).
    private static let attributeDecoder = JSONDecoder()

    static func fetch(_ db: Database, _ key: RecordKey) throws -> Touchstone.Record? {
        // Prepared once per connection: this is every read's hot path.
        let statement = try db.cachedStatement(sql: "SELECT value, attributes, checksum FROM records WHERE namespace = ? AND name = CAST(? AS TEXT)")
        guard let row = try Row.fetchOne(statement, arguments: [key.namespace.rawValue, Self.nameBytes(key.name)]) else {
            try verifyNeighbors(of: key, in: db)
            return nil
        }
        return try decode(row, key: key)
    }

    /// A lookup found no record at `key`. A record whose key bytes were altered in the file is
    /// still there, where `key` would sort, but no lookup finds it again: taken for absent, it
    /// would be written anew and its data lost (a device reset, a failure count cleared). So a
    /// miss verifies the records on either side of `key`, where such a record lies, and an
    /// altered one makes the store corrupt. One indexed read of two rows on each side (slack
    /// for a search that lands one cell off the altered one); only their
    /// checksums are verified (their attributes are not parsed). `touchstone --check-store`
    /// remains the whole-file check.
    static func verifyNeighbors(of key: RecordKey, in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            SELECT * FROM (SELECT namespace, CAST(name AS BLOB) AS name_bytes, value, attributes, checksum FROM records
                           WHERE (namespace, name) > (?1, CAST(?2 AS TEXT)) ORDER BY namespace, name LIMIT 2)
            UNION ALL
            SELECT * FROM (SELECT namespace, CAST(name AS BLOB) AS name_bytes, value, attributes, checksum FROM records
                           WHERE (namespace, name) < (?1, CAST(?2 AS TEXT)) ORDER BY namespace DESC, name DESC LIMIT 2)
            """)
        let rows = try Row.fetchCursor(statement, arguments: [key.namespace.rawValue, Self.nameBytes(key.name)])
        while let row = try rows.next() {
            guard let namespace = Self.text(row, "namespace"), let name = Self.text(row, "name_bytes") else {
                throw StorageError.corruptRecord(key: key.description, reason: "a record beside it has no readable key")
            }
            _ = try verified(row, key: RecordKey(RecordNamespace(rawValue: namespace), name))
        }
    }

    // Record names go in as bytes cast to TEXT (`CAST(? AS TEXT)`) and come out cast to BLOB:
    // GRDB binds and reads a `String` as a C string, which ends at the first NUL, and a name may
    // hold one (a keychain account is any string). The name stored was cut short — two names
    // differing after a NUL overwrote each other — and its checksum then called the record
    // damaged. A name without a NUL is the same text either way, so stores keep their keys.

    /// A record name as the bytes bound for `CAST(? AS TEXT)`.
    static func nameBytes(_ name: String) -> Data { Data(name.utf8) }

    /// A column read as `CAST(... AS BLOB)` (or a namespace) as text: every byte. Nil when the
    /// column is NULL or its bytes are not UTF-8.
    static func text(_ row: Row, _ column: String) -> String? {
        guard let bytes = Self.column(row, column, as: Data.self) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A column of `row` as `type`; nil when it is NULL or holds what `type` cannot be made
    /// from (a file edited by hand: text in the checksum's column). GRDB's subscript
    /// (`row[column] as Int64?`) stops the process on such a value instead.
    static func column<Value: DatabaseValueConvertible>(_ row: Row, _ column: String, as type: Value.Type) -> Value? {
        (try? row.decode(Value?.self, forColumn: column)) ?? nil
    }

    /// The value and attributes text of `row`, the record at `key`, once its checksum matches.
    private static func verified(_ row: Row, key: RecordKey) throws -> (value: Data, attributes: String) {
        guard let value = column(row, "value", as: Data.self), let attributes = column(row, "attributes", as: String.self),
              let stored = column(row, "checksum", as: Int64.self) else {
            throw StorageError.corruptRecord(key: key.description, reason: "a column is missing or has the wrong type")
        }
        guard stored == checksum(key, value, attributes) else {
            throw StorageError.corruptRecord(key: key.description, reason: "its checksum does not match (the file was altered)")
        }
        return (value, attributes)
    }

    static func decode(_ row: Row, key: RecordKey) throws -> Touchstone.Record {
        let (value, attributes) = try verified(row, key: key)
        // What `FlatJSONObject.encode` wrote needs no Foundation coder; anything else gets
        // JSONDecoder's verdict.
        let parsed = FlatJSONObject.decode(attributes) ?? (try? attributeDecoder.decode([String: String].self, from: Data(attributes.utf8)))
        guard let parsed else {
            throw StorageError.corruptRecord(key: key.description, reason: "its attributes are not valid")
        }
        return Touchstone.Record(key: key, value: value, attributes: parsed)
    }

    /// FNV-1a (64-bit) over the key, value and attributes: detects altered bytes, not a
    /// deliberate forgery (use the encrypted file store for that).
    static func checksum(_ key: RecordKey, _ value: Data, _ attributes: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        // Over contiguous bytes: a generic walk of `Data` cost more than the hash itself.
        func mix(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        func mix(_ text: String) {
            var text = text
            text.withUTF8 { mix(UnsafeRawBufferPointer($0)) }
        }
        let separator: [UInt8] = [0]
        mix(key.namespace.rawValue)
        separator.withUnsafeBytes(mix)
        mix(key.name)
        separator.withUnsafeBytes(mix)
        value.withUnsafeBytes(mix)
        separator.withUnsafeBytes(mix)
        mix(attributes)
        return Int64(bitPattern: hash)
    }
}
