import Foundation
import GRDBSQLite
import Touchstone

/// Read-only looks at an SQLite store that never change a byte of it: the write-ahead log's
/// own checksums, and SQLite's integrity checks through a read-only connection.
///
/// Used before a store whose last writer did not close it (a `-wal` file remains) is opened for
/// writing, and by `touchstone store check|export`. Nothing here opens the database file
/// outside SQLite: closing any descriptor of a file drops every POSIX lock the process holds on
/// it (SQLite's "How To Corrupt An SQLite Database File", §2.2). The `-wal` file is read
/// directly: SQLite keeps no locks on it.
enum SQLiteInspection {
    // MARK: The write-ahead log

    /// What the `-wal` file says about itself.
    struct WALReport: Equatable {
        /// Transactions SQLite will replay.
        var committedTransactions = 0
        /// A problem SQLite would silently pass over (it stops reading at the first frame that
        /// fails its checksum, so later commits vanish), or nil.
        var damage: String?
        /// Bytes after the last whole frame: what a writer stopped in the middle of writing a
        /// transaction leaves (SQLite ignores them), or what a log cut inside its last frame
        /// leaves. The log cannot tell the two apart.
        var partialFrameBytes = 0
        /// The log's header fails (or the log is shorter than one), so SQLite reads none of it:
        /// the store is its main file as it stands.
        var isIgnored = false
        /// The number (from 1) of the log's last frame when it is a whole commit frame of the
        /// current generation that fails its checksum, with no commit after it: SQLite ignores
        /// that transaction. A write cut by a power loss leaves this (the transaction was never
        /// acknowledged: its fsync had not returned); so does damage to an acknowledged one.
        var failedLastCommitFrame: Int?
    }

    /// Checks the log's header and the checksum chain of its frames.
    ///
    /// SQLite reads the log up to the first frame whose checksum fails and ignores the rest,
    /// so a damaged frame silently rolls the store back to before it. This finds the cases
    /// the log itself can prove: a damaged header in front of frames, and a *committed*
    /// frame of the current log generation (same salts) after the point where the chain
    /// breaks. What it cannot see: a log cut exactly at a frame boundary, or a whole older
    /// log copied back (both look like a log that simply had fewer commits).
    static func inspectWAL(at walPath: String) throws -> WALReport? {
        guard let bytes = try readWhole(walPath) else { return nil }
        var report = WALReport()
        let headerSize = 32
        let frameHeaderSize = 24
        guard bytes.count >= headerSize else {
            return bytes.isEmpty ? report : WALReport(damage: "the write-ahead log is shorter than its header (\(bytes.count) bytes)", isIgnored: true)
        }
        let magic = word(bytes, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else {
            return WALReport(damage: "the write-ahead log's header is not SQLite's (bad magic number)", isIgnored: true)
        }
        let bigEndian = magic & 1 == 1
        let pageSize = Int(word(bytes, 8))
        let salt1 = word(bytes, 16), salt2 = word(bytes, 20)
        var sum = checksum(bytes, 0..<24, seed: (0, 0), bigEndian: bigEndian)
        let pageSizeIsValid = pageSize >= 512 && pageSize <= 65536 && pageSize & (pageSize - 1) == 0
        guard pageSizeIsValid, sum == (word(bytes, 24), word(bytes, 28)) else {
            // SQLite ignores a log whose header fails: every commit in it is lost.
            return bytes.count > headerSize
                ? WALReport(damage: "the write-ahead log's header is damaged, so SQLite would ignore the \(bytes.count - headerSize) bytes of frames behind it",
                            isIgnored: true)
                : WALReport(isIgnored: true)
        }
        let frameSize = frameHeaderSize + pageSize
        let frameCount = (bytes.count - headerSize) / frameSize
        report.partialFrameBytes = (bytes.count - headerSize) % frameSize
        var index = 0
        while index < frameCount {
            let offset = headerSize + index * frameSize
            guard word(bytes, offset + 8) == salt1, word(bytes, offset + 12) == salt2 else { break }
            sum = checksum(bytes, offset..<(offset + 8), seed: sum, bigEndian: bigEndian)
            sum = checksum(bytes, (offset + frameHeaderSize)..<(offset + frameSize), seed: sum, bigEndian: bigEndian)
            guard sum == (word(bytes, offset + 16), word(bytes, offset + 20)) else { break }
            index += 1
            if word(bytes, offset + 4) != 0 {
                report.committedTransactions += 1
            }
        }
        // The frame that failed may be a torn write of a transaction that never committed;
        // a commit of the same generation *after* it proves acknowledged data is being lost.
        let lost = countCommits(bytes, from: index + 1, frames: frameCount, frameSize: frameSize, salts: (salt1, salt2))
        if lost > 0 {
            report.damage = "frame \(index + 1) of the write-ahead log fails its checksum and \(lost) committed transaction(s) after it would be silently dropped"
        } else if index < frameCount {
            let offset = headerSize + index * frameSize
            if word(bytes, offset + 8) == salt1, word(bytes, offset + 12) == salt2, word(bytes, offset + 4) != 0 {
                report.failedLastCommitFrame = index + 1
            }
        }
        return report
    }

    /// Commit frames carrying `salts` from frame `start` on.
    private static func countCommits(_ bytes: [UInt8], from start: Int, frames: Int, frameSize: Int, salts: (UInt32, UInt32)) -> Int {
        var count = 0
        var index = start
        while index < frames {
            let offset = 32 + index * frameSize
            if word(bytes, offset + 8) == salts.0, word(bytes, offset + 12) == salts.1, word(bytes, offset + 4) != 0 { count += 1 }
            index += 1
        }
        return count
    }

    private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// SQLite's WAL checksum: 32-bit words in pairs, in the byte order the magic number names.
    private static func checksum(_ bytes: [UInt8], _ range: Range<Int>, seed: (UInt32, UInt32), bigEndian: Bool) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let a = word(bytes, offset), b = word(bytes, offset + 4)
            let x0 = bigEndian ? a : a.byteSwapped
            let x1 = bigEndian ? b : b.byteSwapped
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
            offset += 8
        }
        return (s0, s1)
    }

    /// Whether another process has the store open now: SQLite keeps a shared lock on the
    /// shared-memory index's "dead man switch" byte (offset 128 of the `-shm` file) for as long
    /// as a connection has the index mapped. `F_GETLK` only looks; it takes no lock. (Opening
    /// and closing the `-shm` here drops no lock of ours: maintenance holds no connection.)
    static func sharedMemoryIsInUse(_ path: String) -> Bool {
        let descriptor = open(path + "-shm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = 128
        probe.l_len = 1
        guard fcntl(descriptor, F_GETLK, &probe) == 0 else { return true }  // unknown: assume in use
        return probe.l_type != Int16(F_UNLCK)
    }

    /// The whole file, or nil when it does not exist.
    private static func readWhole(_ path: String) throws -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw StorageError.ioFailure(reason: "cannot read '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError.ioFailure(reason: "cannot read '\(path)': \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }

    // MARK: A read-only connection

    /// A read-only SQLite connection that cannot change or create any file of the store:
    /// `mode=ro` with `readonly_shm=1` (the shared-memory index is only read) when the store
    /// has a `-shm` file; `immutable=1` when it has none (no process has it open, so there is
    /// no log to read and nothing to lock). Closing it never checkpoints.
    final class ReadOnlyConnection {
        private var handle: OpaquePointer?
        let path: String

        /// Opens `path` read-only. The `-shm` index is opened read-only too unless
        /// `sharedMemoryWritable`: a read-only connection then may rebuild that index (never the
        /// database or its log), which a killed writer can leave in a state a connection that
        /// cannot write it never gets a snapshot from (`SQLITE_PROTOCOL` after its retries).
        /// With `mainFileOnly`, the log and its index are not read at all (`immutable=1`): for
        /// a store whose log SQLite ignores (``WALReport/isIgnored``). A read-only connection
        /// would otherwise look for a snapshot in the index a killed writer left, which never
        /// matches the ignored log: `SQLITE_PROTOCOL`, after seconds of retries.
        init(path: String, sharedMemoryWritable: Bool = false, mainFileOnly: Bool = false) throws {
            self.path = path
            var info = stat()
            let hasSharedMemory = !mainFileOnly && stat(path + "-shm", &info) == 0
            let sharedMemory = sharedMemoryWritable ? "?mode=ro" : "?mode=ro&readonly_shm=1"
            let uri = "file:" + Self.percentEncoded(path) + (hasSharedMemory ? sharedMemory : "?mode=ro&immutable=1")
            let status = sqlite3_open_v2(uri, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nil)
            guard status == SQLITE_OK else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "code \(status)"
                sqlite3_close_v2(handle)
                handle = nil
                throw StorageError.corruptStore(path: path, reason: "it cannot be opened read-only: \(message)")
            }
            sqlite3_busy_timeout(handle, 10_000)
        }

        deinit { sqlite3_close_v2(handle) }

        /// The extended result code of the last failed statement (`SQLITE_OK` when none failed).
        private(set) var lastErrorCode = SQLITE_OK

        /// True when the last failure says the file is in use, not damaged: another process
        /// held a lock, or SQLite could not take a consistent snapshot while others wrote
        /// (`SQLITE_BUSY`, `SQLITE_LOCKED`, `SQLITE_PROTOCOL`).
        var lastErrorIsTransient: Bool {
            [SQLITE_BUSY, SQLITE_LOCKED, SQLITE_PROTOCOL].contains(lastErrorCode & 0xFF)
        }

        /// Every row of `sql` (each column as a ``Column``), and the error that stopped the
        /// scan early, if any: the rows read before it are kept.
        func rows(_ sql: String) -> (rows: [[Column]], error: String?) {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
                lastErrorCode = sqlite3_extended_errcode(handle)
                return ([], String(cString: sqlite3_errmsg(handle)))
            }
            defer { sqlite3_finalize(statement) }
            var result: [[Column]] = []
            while true {
                let status = sqlite3_step(statement)
                if status == SQLITE_DONE { return (result, nil) }
                guard status == SQLITE_ROW else {
                    lastErrorCode = sqlite3_extended_errcode(handle)
                    return (result, String(cString: sqlite3_errmsg(handle)))
                }
                var row: [Column] = []
                for column in 0..<sqlite3_column_count(statement) {
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_NULL: row.append(.null)
                    case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                    case SQLITE_TEXT:
                        // Every byte: a name may hold a NUL, where a C string would end. (The
                        // length is asked after the text, the order SQLite's documentation gives.)
                        let text = sqlite3_column_text(statement, column)
                        let count = Int(sqlite3_column_bytes(statement, column))
                        row.append(.text(text.map {
                            String(decoding: UnsafeRawBufferPointer(start: $0, count: count), as: UTF8.self)
                        } ?? ""))
                    default:
                        let count = Int(sqlite3_column_bytes(statement, column))
                        let data = sqlite3_column_blob(statement, column).map { Data(bytes: $0, count: count) } ?? Data()
                        row.append(.blob(data))
                    }
                }
                result.append(row)
            }
        }

        /// `PRAGMA quick_check` (or the slower `integrity_check` when `full`): empty when sound.
        func integrityProblems(full: Bool) -> [String] {
            let (rows, error) = rows(full ? "PRAGMA integrity_check" : "PRAGMA quick_check")
            if let error { return [error] }
            let lines = rows.compactMap { row -> String? in
                if case let .text(text)? = row.first { return text }
                return nil
            }
            return lines == ["ok"] ? [] : lines
        }

        private static func percentEncoded(_ path: String) -> String {
            var result = ""
            for byte in path.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "/"), UInt8(ascii: "-"),
                     UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                    result.append(Character(UnicodeScalar(byte)))
                default:
                    result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
                }
            }
            return result
        }
    }

    /// One column value from ``ReadOnlyConnection/rows(_:)``.
    enum Column: Equatable {
        case null
        case integer(Int64)
        case text(String)
        case blob(Data)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

extension SQLiteStorage: StorageMaintenance {
    /// The full check: the write-ahead log's checksums, `integrity_check`, the schema, and every
    /// record's checksum, all through a read-only connection.
    public static func check(options: PluginOptions) -> StorageCheckReport {
        let path = options.string("path") ?? ""
        guard FileManager.default.fileExists(atPath: path) else { return .missing(at: path) }
        var problems: [String] = []
        do {
            var notes: [String] = []
            let wal = try SQLiteInspection.inspectWAL(at: path + "-wal")
            let mainFileOnly = Self.readsMainFileOnly(wal, path)
            if let wal {
                if let damage = wal.damage { problems.append(damage) }
                if mainFileOnly, wal.damage != nil {
                    notes.append("the records below are the main database file's, as SQLite reads the store while its log is ignored")
                }
                if let frame = wal.failedLastCommitFrame {
                    notes.append("frame \(frame) of the write-ahead log, a whole commit frame, fails its checksum: SQLite ignores that last transaction. "
                        + "A write cut by a power loss leaves this (that transaction was never acknowledged); "
                        + "if there was no power loss, the log was altered and its last transaction is lost")
                }
                if wal.partialFrameBytes > 0 {
                    notes.append("the write-ahead log ends in \(wal.partialFrameBytes) bytes of an unfinished frame: SQLite ignores them. "
                        + "A writer stopped while writing a transaction leaves this (that transaction never committed); "
                        + "if no writer was stopped, the log was cut and its last transaction is lost")
                }
            }
            if let header = FileManager.default.contents(atPath: path)?.prefix(20), header.count == 20,
               header[header.startIndex + 18] > 2 {
                // The write version: SQLite opens such a file read-only, so the store would be
                // refused on opening (SQLiteStorage.checkWritable), though every page is sound.
                problems.append("the header's write version (byte 18) is \(header[header.startIndex + 18]), which SQLite does not write: "
                    + "it opens the file read-only, so Touchstone refuses the store. --export-store copies its intact records to a new store")
            }
            let connection = try SQLiteInspection.ReadOnlyConnection(path: path, mainFileOnly: mainFileOnly)
            problems += connection.integrityProblems(full: true).prefix(20)
            // The size check that opening makes: bytes past the last page are damage too.
            if case let .integer(count)? = connection.rows("PRAGMA page_count").rows.first?.first,
               case let .integer(size)? = connection.rows("PRAGMA page_size").rows.first?.first {
                do {
                    try SQLiteStorage.checkFileSize(path: path, pageCount: count, pageSize: size)
                } catch let StorageError.corruptStore(_, reason) {
                    problems.append(reason + ": opening refuses the store. --export-store copies its intact records to a new store")
                } catch {
                    problems.append("\(error)")
                }
            }
            let tables = connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'records'")
            if tables.error == nil, tables.rows.isEmpty {
                problems.append("the Touchstone schema is missing its records table: nothing can be salvaged from it")
                return StorageCheckReport(location: path, intactRecords: 0, problems: problems, notes: notes)
            }
            let (records, damaged, error) = intactRecords(connection)
            problems += damaged
            if let error { problems.append("reading the records stopped: \(error)") }
            problems += DeviceRecordPair.problems(records)
            return StorageCheckReport(location: path, intactRecords: records.count, problems: problems, notes: notes)
        } catch {
            problems.append("\(error)")
            return StorageCheckReport(location: path, intactRecords: 0, problems: problems)
        }
    }

    /// Whether check and export read the main file alone: when SQLite ignores the log (its
    /// header fails) and no other process has the store open. A killed writer's index then
    /// still points into the ignored log, and a read-only connection retries on it for seconds
    /// and reads nothing; a live writer's index is current, so it is read as usual.
    private static func readsMainFileOnly(_ wal: SQLiteInspection.WALReport?, _ path: String) -> Bool {
        (wal?.isIgnored ?? false) && !SQLiteInspection.sharedMemoryIsInUse(path)
    }

    /// Copies every record whose checksum holds into a new SQLite store at `destination`.
    public static func export(options: PluginOptions, to destination: String) throws -> StorageExportReport {
        let path = options.string("path") ?? ""
        try StorageError.refuseOwnFile(destination: destination, store: path)
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StorageError.ioFailure(reason: "'\(destination)' exists already; export writes a new store only")
        }
        // As the encrypted-file export says it (not "cannot be opened": it is not there).
        guard FileManager.default.fileExists(atPath: path) else { throw StorageError.ioFailure(reason: "there is no store at '\(path)'") }
        let wal = try SQLiteInspection.inspectWAL(at: path + "-wal")
        let mainFileOnly = Self.readsMainFileOnly(wal, path)
        let connection = try SQLiteInspection.ReadOnlyConnection(path: path, mainFileOnly: mainFileOnly)
        let (intact, damaged, error) = intactRecords(connection)
        let (records, repaired) = DeviceRecordPair.exportable(intact)
        let unread = error.map { ["the rest of the records could not be read: \($0)"] } ?? []
        let log = wal?.damage.map { [$0 + (mainFileOnly ? "; the records copied are the main database file's" : "")] } ?? []
        let target = try SQLiteStorage(path: destination)
        try target.commit(records.map { .put($0) })
        return StorageExportReport(destination: destination, copied: records.count, skipped: log + damaged + unread + repaired)
    }

    /// The records whose checksums hold, a line for each that does not, and the error that
    /// stopped the scan (if one did).
    private static func intactRecords(_ connection: SQLiteInspection.ReadOnlyConnection)
        -> (records: [Touchstone.Record], damaged: [String], error: String?) {
        let (rows, error) = connection.rows("SELECT namespace, name, value, attributes, checksum FROM records")
        var records: [Touchstone.Record] = []
        var damaged: [String] = []
        for row in rows {
            guard row.count == 5, case let .text(namespace) = row[0], case let .text(name) = row[1],
                  case let .text(attributes) = row[3], case let .integer(stored) = row[4] else {
                damaged.append("a row has missing or mistyped columns")
                continue
            }
            let key = RecordKey(RecordNamespace(rawValue: namespace), name)
            let value: Data
            switch row[2] {
            case let .blob(data): value = data
            case .null: value = Data()
            default:
                damaged.append("record '\(key)': its value has the wrong type")
                continue
            }
            guard stored == checksum(key, value, attributes),
                  let parsed = attributes == "{}" ? [:] : try? JSONDecoder().decode([String: String].self, from: Data(attributes.utf8)) else {
                damaged.append("record '\(key)': its checksum does not match (the file was altered)")
                continue
            }
            records.append(Touchstone.Record(key: key, value: value, attributes: parsed))
        }
        return (records, damaged, error)
    }
}
