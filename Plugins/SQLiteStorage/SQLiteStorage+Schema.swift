import Foundation
import GRDB
import GRDBSQLite
import Touchstone

/// Creating and checking the store file: the schema and its migrator, the connection
/// settings, building a new store beside the path, and the checks a file passes before it is
/// opened for writing (a plain file, its size, writability, the schema, and the read-only
/// check of a store its last writer left open).
extension SQLiteStorage {
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

    static func configuration(_ synchronous: Synchronous, timeout: Double, isNew: Bool) -> Configuration {
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
    static func requireRegularFile(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }  // missing: created next
        try StorageError.requireRegularFile(status, path: path)
    }

    /// Builds a new store beside `path` and links it into place (never replacing a file that
    /// appeared meanwhile, e.g. created by another process).
    static func createIfMissing(path: String, synchronous: Synchronous, timeout: Double) throws {
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

    // MARK: Checks

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

    /// SQLite opened the file for writing. It falls back to read-only when the file's
    /// permissions forbid writing, and when the header's write version is one it does not
    /// write (a damaged header): either way the store would open and then fail on its first
    /// change, so it is refused here, before anything is counted.
    static func checkWritable(_ db: Database, path: String) throws {
        guard sqlite3_db_readonly(db.sqliteConnection, "main") == 1 else { return }
        if access(path, W_OK) != 0 {
            throw StorageError.ioFailure(reason: "the store '\(path)' is not writable by this user: \(String(cString: strerror(errno)))")
        }
        throw StorageError.corruptStore(path: path, reason: "its header marks it read-only (a write version SQLite does not write)")
    }

    /// The schema is Touchstone's, at a version this build knows. Any error reading it (a
    /// damaged migrations table decodes to nonsense) means the store is corrupt.
    static func checkSchema(_ db: Database, path: String) throws {
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
}
