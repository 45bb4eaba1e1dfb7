import Foundation
import GRDB
import GRDBSQLite
import Synchronization
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
    private let counters = Mutex(Counters())

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

    /// SQLite opened the file for writing. It falls back to read-only when the file's
    /// permissions forbid writing, and when the header's write version is one it does not
    /// write (a damaged header): either way the store would open and then fail on its first
    /// change, so it is refused here, before anything is counted.
    private static func checkWritable(_ db: Database, path: String) throws {
        guard sqlite3_db_readonly(db.sqliteConnection, "main") == 1 else { return }
        if access(path, W_OK) != 0 {
            throw StorageError.ioFailure(reason: "the store '\(path)' is not writable by this user: \(String(cString: strerror(errno)))")
        }
        throw StorageError.corruptStore(path: path, reason: "its header marks it read-only (a write version SQLite does not write)")
    }

    /// The schema is Touchstone's, at a version this build knows. Any error reading it (a
    /// damaged migrations table decodes to nonsense) means the store is corrupt.
    private static func checkSchema(_ db: Database, path: String) throws {
        do {
            if try migrator.hasBeenSuperseded(db) {
                throw StorageError.corruptStore(path: path, reason: "it was written by a newer Touchstone schema")
            }
            guard try migrator.hasCompletedMigrations(db) else {
                throw StorageError.corruptStore(path: path, reason: "the Touchstone schema is missing")
            }
            // The migrations say the schema was made; a table dropped since is damage too.
            guard try db.tableExists("records") else {
                throw StorageError.corruptStore(path: path, reason: "the Touchstone schema is missing its records table")
            }
        } catch let error as StorageError {
            throw error
        } catch let error as DatabaseError {
            throw error
        } catch {
            throw StorageError.corruptStore(path: path, reason: "its schema cannot be read: \(error)")
        }
    }

    /// True when a `-wal` file with content is beside the store: its last writer was killed,
    /// or another process has it open. Either way it gets the read-only check first.
    static func wasLeftOpen(_ path: String) -> Bool {
        var info = stat()
        return stat(path + "-wal", &info) == 0 && info.st_size > 0
    }

    /// The read-only check: the write-ahead log's own checksums, SQLite's `quick_check` (or
    /// `integrity_check` when `full`) and the schema, through a connection that never writes.
    /// Everything that could refuse the store is checked here, before a read-write connection
    /// exists: once one is open, closing it would checkpoint the log into the file.
    ///
    /// Other processes may be writing while it looks (their `-wal` is what made the check
    /// run): a log being restarted under the reader, or a snapshot SQLite could not take
    /// (`SQLITE_BUSY` / `SQLITE_PROTOCOL`), is looked at again, up to four times; from the
    /// second busy look on, the connection may rebuild the `-shm` index (a killed writer can
    /// leave one that a connection unable to write it never reads through). Damage looks the
    /// same every time and is reported; a store that stays busy is an I/O failure ("in use"),
    /// never "corrupt".
    static func checkReadOnly(path: String, full: Bool) throws {
        var attempt = 1
        var busyLooks = 0
        while true {
            do {
                return try checkReadOnlyOnce(path: path, full: full, sharedMemoryWritable: busyLooks > 0)
            } catch let error as StorageError {
                guard attempt < 4 else { throw error }
            } catch let busy as StoreBusy {
                busyLooks += 1
                guard attempt < 4 else {
                    throw StorageError.ioFailure(reason: "the store '\(path)' is in use by another process and could not be checked now (SQLite: \(busy.message)); try again")
                }
            }
            usleep(UInt32(attempt) * 20_000)
            attempt += 1
        }
    }

    /// The file was in use, not damaged (see ``checkReadOnly(path:full:)``).
    private struct StoreBusy: Error {
        var message: String
    }

    private static func checkReadOnlyOnce(path: String, full: Bool, sharedMemoryWritable: Bool) throws {
        if let damage = try SQLiteInspection.inspectWAL(at: path + "-wal")?.damage {
            throw StorageError.corruptStore(path: path, reason: damage)
        }
        let connection = try SQLiteInspection.ReadOnlyConnection(path: path, sharedMemoryWritable: sharedMemoryWritable)
        let problems = connection.integrityProblems(full: full)
        if connection.lastErrorIsTransient { throw StoreBusy(message: problems.joined(separator: "; ")) }
        guard problems.isEmpty else {
            throw StorageError.corruptStore(path: path, reason: "integrity check failed: \(problems.prefix(3).joined(separator: "; "))")
        }
        let tables = connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('records', 'grdb_migrations')")
        if let error = tables.error, connection.lastErrorIsTransient { throw StoreBusy(message: error) }
        guard tables.error == nil, tables.rows.count == 2 else {
            throw StorageError.corruptStore(path: path, reason: "the Touchstone schema is missing")
        }
        let pageCount = connection.rows("PRAGMA page_count").rows.first?.first
        let pageSize = connection.rows("PRAGMA page_size").rows.first?.first
        if connection.lastErrorIsTransient { throw StoreBusy(message: "the page count could not be read") }
        guard case let .integer(count)? = pageCount, case let .integer(size)? = pageSize else {
            throw StorageError.corruptStore(path: path, reason: "its page count cannot be read")
        }
        try checkFileSize(path: path, pageCount: count, pageSize: size)
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

    // MARK: Schema

    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-records") { db in
            try db.execute(sql: """
                CREATE TABLE records (
                    namespace TEXT NOT NULL,
                    name TEXT NOT NULL,
                    value BLOB NOT NULL,
                    attributes TEXT NOT NULL,
                    checksum INTEGER NOT NULL,
                    PRIMARY KEY (namespace, name)
                ) WITHOUT ROWID
                """)
        }
        return migrator
    }()

    private static func configuration(_ synchronous: Synchronous, timeout: Double, isNew: Bool) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(timeout)
        config.label = "touchstone.sqlite"
        config.prepareDatabase { db in
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? ""
            if mode.lowercased() != "wal" {
                guard isNew else {
                    throw StorageError.corruptStore(path: "database", reason: "it is not in WAL mode, so it is not a Touchstone store")
                }
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try db.execute(sql: "PRAGMA synchronous = \(synchronous == .full ? "FULL" : "NORMAL")")
            // Every page read checks its cells' sizes: a damaged page a statement walks through
            // (also on the way to a write) is SQLITE_CORRUPT, and the store is written no more,
            // rather than read or extended as if it were sound.
            try db.execute(sql: "PRAGMA cell_size_check = ON")
        }
        return config
    }

    /// A path that names something other than a plain file (a device such as `/dev/null`, a
    /// pipe, a directory) is refused as such, not read as an empty or damaged store. A link to
    /// a plain file is followed.
    private static func requireRegularFile(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }  // missing: created next
        try StorageError.requireRegularFile(status, path: path)
    }

    /// Builds a new store beside `path` and links it into place (never replacing a file that
    /// appeared meanwhile, e.g. created by another process).
    private static func createIfMissing(path: String, synchronous: Synchronous, timeout: Double) throws {
        removeAbandonedBuilds(of: path)
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StorageError.ioFailure(reason: "cannot create the directory of '\(path)': \(error.localizedDescription)")
        }
        let temporary = path + ".creating-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) }
        }
        let builder = try DatabaseQueue(path: temporary, configuration: configuration(synchronous, timeout: timeout, isNew: true))
        try migrator.migrate(builder)
        try builder.close()
        // SQLite gives the -wal and -shm files the database file's mode: 0600 for all three.
        guard chmod(temporary, 0o600) == 0 else {
            throw StorageError.ioFailure(reason: "cannot set the mode of '\(path)': \(String(cString: strerror(errno)))")
        }
        if link(temporary, path) != 0, errno != EEXIST {
            throw StorageError.ioFailure(reason: "cannot create '\(path)': \(String(cString: strerror(errno)))")
        }
        let descriptor = open(directory, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
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

    /// Removes the half-built stores (`<path>.creating-<pid>-<n>` and their `-wal`, `-shm`,
    /// `-journal`) of processes that were killed while creating one: a build whose process is
    /// still running (or whose number now belongs to another) is left alone, and so is one
    /// changed in the last ten minutes — a build takes milliseconds, and a process in another
    /// PID namespace (a container sharing the folder) has a number that means nothing here.
    private static func removeAbandonedBuilds(of path: String) {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let prefix = url.lastPathComponent + ".creating-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let now = time(nil)
        for name in names where name.hasPrefix(prefix) {
            let file = folder.appendingPathComponent(name).path
            var info = stat()
            guard let pid = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ pid_t($0) }), pid > 0,
                  pid != getpid(), kill(pid, 0) != 0, errno == ESRCH,
                  lstat(file, &info) == 0, now - info.st_mtim.tv_sec > 600 else { continue }
            unlink(file)
        }
    }

    /// An empty file, a size that is not whole pages, or trailing bytes beyond the database's
    /// pages mean the file is not (or no longer) the store that was written. The size comes
    /// from `stat` and the page size from SQLite: the database file is never opened outside
    /// SQLite, because closing any descriptor of it would drop the process's POSIX locks.
    static func checkFileSize(path: String, pageCount: Int64?, pageSize: Int64?) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        let size = Int64(info.st_size)
        if size == 0 {
            throw StorageError.corruptStore(path: path, reason: "the file is empty, not a Touchstone store (remove it to start a new one)")
        }
        guard let pageCount, let pageSize, pageSize > 0 else { return }
        let (pagesBytes, overflow) = pageCount.multipliedReportingOverflow(by: pageSize)
        if size % pageSize != 0 || overflow || size > pagesBytes {
            throw StorageError.corruptStore(path: path, reason: "its size (\(size) bytes) does not match its \(pageCount) pages of \(pageSize) bytes")
        }
    }

    // MARK: Rows

    /// For attributes ``FlatJSONObject`` does not read (shared: Foundation's coders are
    /// thread-safe, and making one per row costs more than the parse).
    private static let attributeDecoder = JSONDecoder()

    private static func fetch(_ db: Database, _ key: RecordKey) throws -> Touchstone.Record? {
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
    private static func verifyNeighbors(of key: RecordKey, in db: Database) throws {
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
        guard let bytes = row[column] as Data? else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The value and attributes text of `row`, the record at `key`, once its checksum matches.
    private static func verified(_ row: Row, key: RecordKey) throws -> (value: Data, attributes: String) {
        guard let value = row["value"] as Data?, let attributes = row["attributes"] as String?,
              let stored = row["checksum"] as Int64? else {
            throw StorageError.corruptRecord(key: key.description, reason: "a column is missing or has the wrong type")
        }
        guard stored == checksum(key, value, attributes) else {
            throw StorageError.corruptRecord(key: key.description, reason: "its checksum does not match (the file was altered)")
        }
        return (value, attributes)
    }

    private static func decode(_ row: Row, key: RecordKey) throws -> Touchstone.Record {
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
}
