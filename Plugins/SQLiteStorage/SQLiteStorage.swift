import Foundation
import GRDB
import Touchstone

/// Durable storage in one SQLite file, through GRDB.
///
/// - **WAL mode**, one `BEGIN IMMEDIATE` transaction per logical change (one
///   ``StorageBackend/transaction(_:)`` call), so a counter update is exactly one durable commit.
/// - **Durability**: `synchronous=FULL` by default: every commit is fsynced into the WAL before
///   ``transaction(_:)`` returns, so an acknowledged change survives SIGKILL *and* power loss.
///   (`synchronous=normal` is offered for throwaway use: it survives SIGKILL — the WAL pages
///   are in the OS page cache — but a power cut may lose the last commits.)
/// - **Two processes on one file**: a busy timeout (`busy-timeout`, default 10 s) waits for the
///   other writer; ``generation`` combines `PRAGMA data_version` (which moves when another
///   connection commits) with a counter of this connection's own commits, so the device cache
///   sees the other process's writes.
/// - **Schema** versioned with GRDB's `DatabaseMigrator`; a file written by a newer schema is
///   refused.
/// - **Integrity**: every row carries a checksum over its key and value, verified whenever the
///   row is read; a lookup that finds nothing also verifies the rows on either side of the key,
///   where a row whose key bytes were altered would lie, and a list the rows past its ends, so
///   such a row is damage rather than an absent record written anew or a list cut short. Opening
///   checks the header, WAL mode, schema and size against the page count (the same cost at any
///   size); a store whose last writer did not close it is first checked read-only (the
///   write-ahead log's checksums and `quick_check`). A corrupt or tampered file is a
///   ``StorageError/corruptStore(path:reason:)``; once any damage is seen the backend refuses
///   every later write. A new store is built beside the path (mode 0600) and linked into place,
///   so an existing empty or foreign file is never mistaken for a fresh store.
///   `touchstone --check-store` runs the full check; `--export-store` salvages what is intact
///   (``StorageMaintenance``).
///
/// ```swift
/// try builder.use(.storage, "storage.sqlite", options: ["path": "/var/lib/app/device.sqlite"])
/// ```
public final class SQLiteStorage: StorageBackend {
    public static let descriptor = PluginDescriptor(
        id: "storage.sqlite", kind: .storage,
        summary: "one SQLite file (GRDB, WAL, synchronous=FULL): survives restarts and crashes; two processes may share it",
        options: [
            OptionSpec("path", .string, "the database file (created with its directory when missing)"),
            OptionSpec("synchronous", .choice(["full", "normal"]), default: "full",
                       "full: each commit is fsynced (survives power loss); normal: survives process crashes only"),
            OptionSpec("busy-timeout", .duration, default: "10s", "how long to wait for another process's write (0s to 24d)"),
        ])

    /// How hard each commit is pushed to disk.
    public enum Synchronous: String, Sendable {
        /// fsync on every commit: survives power loss.
        case full
        /// WAL without per-commit fsync: survives process crashes, not power loss.
        case normal
    }

    /// The database file.
    public let path: String
    private let queue: DatabaseQueue
    private let counters = Locked(Counters())

    private struct Counters {
        var dataVersion: Int64?
        var generation: UInt64 = 1
        /// Set when a read found damage: from then on nothing is written.
        var damage: String?
    }

    public convenience init(options: PluginOptions, environment: PluginEnvironment) throws {
        guard let path = options.string("path"), !path.isEmpty else {
            throw ConfigurationError.invalidSetting(name: "path", reason: "storage.sqlite needs path=<file>")
        }
        let busyTimeout = options.duration("busy-timeout") ?? .seconds(10)
        guard busyTimeout <= Self.longestBusyTimeout else {
            throw ConfigurationError.invalidSetting(
                name: "busy-timeout", reason: "at most 24d (SQLite counts its wait in 32-bit milliseconds: 2147483s)")
        }
        try self.init(
            path: path,
            synchronous: options.string("synchronous").flatMap(Synchronous.init(rawValue:)) ?? .full,
            busyTimeout: busyTimeout)
    }

    /// The longest wait SQLite can take: 2^31 - 1 milliseconds, about 24.8 days.
    public static let longestBusyTimeout = Duration.milliseconds(Int32.max)

    /// Opens (or creates) the store at `path`. `busyTimeout` is taken within 0 and
    /// ``longestBusyTimeout``.
    ///
    /// A store whose last writer did not close it (its `-wal` file remains) is checked first
    /// through a read-only connection — the log's checksums, then `quick_check` — so a damaged
    /// store is reported before anything could write to it (closing a read-write connection
    /// would checkpoint the log into the damaged file). A cleanly closed store is opened
    /// without a whole-file scan: every record is verified by its checksum as it is read, so
    /// opening costs the same at any size.
    public init(path: String, synchronous: Synchronous = .full, busyTimeout: Duration = .seconds(10)) throws {
        self.path = path
        // A longer (or negative) timeout would overflow SQLite's millisecond count.
        let (seconds, attoseconds) = min(max(busyTimeout, .zero), Self.longestBusyTimeout).components
        let timeout = Double(seconds) + Double(attoseconds) / 1e18
        queue = try Self.mapping(path) {
            try Self.requireRegularFile(path)
            try Self.createIfMissing(path: path, synchronous: synchronous, timeout: timeout)
            try Self.checkFileSize(path: path, pageCount: nil, pageSize: nil)
            if Self.wasLeftOpen(path) {
                try Self.checkReadOnly(path: path, full: false)
            }
            let queue = try DatabaseQueue(path: path, configuration: Self.configuration(synchronous, timeout: timeout, isNew: false))
            try queue.read { db in
                try Self.checkWritable(db, path: path)
                try Self.checkSchema(db, path: path)
                let pageCount = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
                try Self.checkFileSize(path: path, pageCount: pageCount, pageSize: pageSize)
            }
            return queue
        }
    }

    deinit {
        try? queue.close()
    }

    public var location: String { path }

    // MARK: StorageBackend

    public func read(_ key: RecordKey) throws -> Touchstone.Record? {
        try guarded {
            try queue.inDatabase { db in try Self.fetch(db, key) }
        }
    }

    public func namespaces() throws -> [RecordNamespace] {
        try guarded {
            try queue.inDatabase { db in
                try String.fetchAll(db, sql: "SELECT DISTINCT namespace FROM records ORDER BY namespace")
                    .map(RecordNamespace.init(rawValue:))
            }
        }
    }

    public func list(namespace: RecordNamespace, prefix: String) throws -> [Touchstone.Record] {
        try guarded {
            try queue.inDatabase { db in
                // Names sort bytewise (BINARY collation), so the names with the prefix's bytes
                // are one run from the prefix on: the scan reads that run and stops after it.
                // (A prefix counted in SQL's characters missed every non-ASCII prefix.)
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT CAST(name AS BLOB) AS name_bytes, value, attributes, checksum FROM records WHERE namespace = ? AND name >= CAST(? AS TEXT) ORDER BY name",
                    arguments: [namespace.rawValue, Self.nameBytes(prefix)])
                var records: [Touchstone.Record] = []
                while let row = try rows.next() {
                    guard let name = Self.text(row, "name_bytes") else {
                        throw StorageError.corruptRecord(key: "\(namespace)/?", reason: "a record's name is missing or of the wrong type")
                    }
                    guard name.utf8.starts(with: prefix.utf8) else { break }
                    records.append(try Self.decode(row, key: RecordKey(namespace, name)))
                }
                // The scan also stops at the first key outside the namespace: a row whose
                // namespace bytes were altered ends it early (or empties it) without an error.
                // The rows just past both ends of the scan are verified, as a lookup's are.
                try Self.verifyNeighbors(of: RecordKey(namespace, prefix), in: db)
                if let last = records.last { try Self.verifyNeighbors(of: last.key, in: db) }
                // Swift's String order, which the callers expect, for every name.
                return records.sorted { $0.key.name < $1.key.name }
            }
        }
    }

    public func transaction<T: Sendable>(_ body: (inout StorageTransaction) throws -> T) throws -> T {
        if let damage = counters.withLock({ $0.damage }) {
            throw StorageError.corruptStore(path: path, reason: "\(damage) (found earlier in this session)")
        }
        return try guarded {
            let (result, changed) = try queue.write { db -> (T, Bool) in
                var transaction = StorageTransaction(read: { key in try Self.fetch(db, key) })
                let result = try body(&transaction)
                for change in transaction.changes {
                    switch change {
                    case let .put(record):
                        let attributes = FlatJSONObject.encode(record.attributes)
                        try db.cachedStatement(
                            sql: "INSERT OR REPLACE INTO records (namespace, name, value, attributes, checksum) VALUES (?, CAST(? AS TEXT), ?, ?, ?)"
                        ).execute(arguments: [record.key.namespace.rawValue, Self.nameBytes(record.key.name), record.value, attributes,
                                              Self.checksum(record.key, record.value, attributes)])
                    case let .delete(key):
                        try db.cachedStatement(sql: "DELETE FROM records WHERE namespace = ? AND name = CAST(? AS TEXT)")
                            .execute(arguments: [key.namespace.rawValue, Self.nameBytes(key.name)])
                    }
                }
                return (result, !transaction.changes.isEmpty)
            }
            if changed { counters.withLock { $0.generation &+= 1 } }
            return result
        }
    }

    public var generation: UInt64 {
        get throws {
            let version = try guarded {
                try queue.inDatabase { db in try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0 }
            }
            return counters.withLock { counters in
                if counters.dataVersion != version {
                    if counters.dataVersion != nil { counters.generation &+= 1 }
                    counters.dataVersion = version
                }
                return counters.generation
            }
        }
    }

    /// Runs `body` with ``mapping(_:_:)``, remembering any damage it reveals so that the store
    /// is never written to again by this process.
    private func guarded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try Self.mapping(path, body)
        } catch let error as StorageError {
            switch error {
            case let .corruptRecord(_, reason), let .corruptStore(_, reason):
                counters.withLock { if $0.damage == nil { $0.damage = reason } }
            case .ioFailure:
                break
            }
            throw error
        }
    }

    /// Runs `body`, turning SQLite errors into ``StorageError``s that name the file.
    private static func mapping<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_FORMAT:
                throw StorageError.corruptStore(path: path, reason: error.message ?? "\(error.resultCode)")
            default:
                throw StorageError.ioFailure(reason: "\(path): \(error.message ?? "\(error.resultCode)")" + diagnosis(of: path))
            }
        } catch let StorageError.corruptStore(_, reason) {
            throw StorageError.corruptStore(path: path, reason: reason)
        }
    }

    /// What SQLite's own words ("disk I/O error", "attempt to write a readonly database") leave
    /// out, found on the file system: a full disk, a folder or a file beside the store that
    /// this user cannot write. Empty when nothing of the kind is found.
    static func diagnosis(of path: String) -> String {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var space = statvfs()
        if statvfs(folder, &space) == 0, space.f_bavail == 0 {
            return " (the disk holding '\(folder)' is full: free some space)"
        }
        if access(folder, W_OK) != 0 {
            return " (its folder '\(folder)' is not writable by this user: SQLite writes its -wal and -shm files there)"
        }
        for file in [path, path + "-wal", path + "-shm"] where access(file, F_OK) == 0 && access(file, W_OK) != 0 {
            return " ('\(file)' is not writable by this user)"
        }
        return ""
    }
}
