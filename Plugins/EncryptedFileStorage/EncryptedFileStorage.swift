import _CryptoExtras
import Crypto
import Foundation
import Synchronization
import Touchstone

/// Durable storage in one encrypted file: an append-only log of sealed transactions.
///
/// - **Key**: from a key file (`key-file`: 32 random bytes, created with mode 0600 with a new
///   store; refused when other users may read it; never replaced when the store exists) or
///   from a passphrase (`passphrase`, or better `passphrase-env` naming an environment
///   variable, so the secret never sits in a configuration) through PBKDF2-HMAC-SHA256 with
///   `kdf-rounds` iterations (at least 210,000) and a random salt kept in the file header.
/// - **Cost of a write**: each ``transaction(_:)`` appends one AES-256-GCM sealed frame holding
///   only its own changes, so a write costs the same in a store of 100 records as of 100,000.
///   When the log holds much more than the live records, the next write compacts: the live
///   records go to a new file (temporary file, fsync, rename, directory fsync).
/// - **Crash safety**: a write is three synced steps (announce, append, commit; see
///   ``EncryptedFileFormat``); a process killed at any point leaves the last committed state,
///   and a transaction that returned is on disk.
/// - **Tamper evidence**: frames are chained (each one authenticates its index and the tag of
///   the one before) and two MAC'd commit slots record how many there are: a flipped, cut,
///   added, removed, reordered or replayed byte or frame, or a wrong key, is a
///   ``StorageError/corruptStore(path:reason:)``, and the file is left exactly as it was. Not
///   detected: the whole file (or its last transaction together with its commit slot) put back
///   from an earlier copy — closing that needs a counter kept outside the file.
/// - **Several processes**: writers take an exclusive `flock` on `<path>.lock`, readers a shared
///   one while they load; a reader notices another process's write by the file's identity and
///   reads only the frames added since. ``generation`` is the transaction sequence.
///
/// Version-1 stores (one sealed document) are read and rewritten in this format by their
/// first write.
public final class EncryptedFileStorage: StorageBackend {
    public static let descriptor = PluginDescriptor(
        id: "storage.encrypted-file", kind: .storage,
        summary: "an append-only log of AES-GCM sealed transactions in one file; keyed by a key file or a passphrase",
        options: [
            OptionSpec("path", .string, "the store file"),
            OptionSpec("key-file", .string, "a 32-byte key file (created with mode 0600 with a new store)"),
            OptionSpec("passphrase", .string, secret: true, "a passphrase, not empty (prefer passphrase-env: options may be shown by config)"),
            OptionSpec("passphrase-env", .string, "the name of an environment variable holding the passphrase"),
            OptionSpec("kdf-rounds", .integer(210_000...10_000_000), default: "210000",
                       "PBKDF2-SHA256 iterations for a new passphrase store"),
            OptionSpec("busy-timeout", .duration, default: "10s",
                       "how long to wait for another process holding the file's lock (0s to 24d)"),
        ])

    /// The longest ``busyTimeout`` (the SQLite store's bound, for one rule across stores).
    static let longestBusyTimeout: Duration = .seconds(24 * 86_400)

    /// Where the key comes from.
    public enum KeySource: Sendable {
        /// A 32-byte key file, created (mode 0600) with a new store.
        case keyFile(String)
        /// A passphrase, stretched with PBKDF2-SHA256 (`rounds` for a new store).
        case passphrase(String, rounds: Int)
    }

    /// The store file.
    public let path: String
    private let lockPath: String
    private let state: Mutex<State>

    /// The log is compacted when it is larger than this many times the live records...
    static let compactionFactor = 4
    /// ...and larger than this (small stores are never compacted).
    static let compactionFloor: UInt64 = 1 << 20

    typealias Format = EncryptedFileFormat

    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64
    }

    /// What this process knows of the file on disk.
    private struct FileState {
        var identity: FileIdentity
        var header: Format.Header
        var version: UInt8
        /// Frame and slot keys (version 2).
        var keys: Format.Keys?
        /// Committed frames, where they end, and the last one's tag.
        var count: UInt64 = 0
        var end: UInt64 = 0
        var lastTag: [UInt8] = Format.noTag
        /// The slot that holds the commit (the other one announces pending writes).
        var slotIndex = 0
    }

    private struct State {
        var records: [RecordKey: Record] = [:]
        var sequence: UInt64 = 0
        /// Roughly the bytes the live records take in a compacted file.
        var liveBytes = 0
        /// Nil until the file exists.
        var file: FileState?
        /// The key derivation of this store (the header of a new file).
        var keyHeader: Format.Header
        var master: SymmetricKey
        var lockDescriptor: Int32

        mutating func apply(_ changes: [RecordChange]) {
            for change in changes {
                let key: RecordKey
                switch change {
                case let .put(record): key = record.key
                case let .delete(deleted): key = deleted
                }
                if let old = records[key] { liveBytes -= Format.encodedSize(old) }
                if case let .put(record) = change { liveBytes += Format.encodedSize(record) }
            }
            records.apply(changes)
        }
    }

    /// PBKDF2 iterations accepted, for new stores and in headers (a tampered header cannot
    /// make opening take unbounded time).
    public static let allowedRounds = 210_000...10_000_000

    public convenience init(options: PluginOptions, environment: PluginEnvironment) throws {
        let (path, source) = try Self.configuration(options)
        let busyTimeout = options.duration("busy-timeout") ?? .seconds(10)
        guard busyTimeout <= Self.longestBusyTimeout else {
            throw ConfigurationError.invalidSetting(name: "busy-timeout", reason: "at most 24d")
        }
        try self.init(path: path, key: source, busyTimeout: busyTimeout)
    }

    /// The store file and key source that `options` name.
    static func configuration(_ options: PluginOptions) throws -> (path: String, source: KeySource) {
        guard let path = options.string("path"), !path.isEmpty else {
            throw ConfigurationError.invalidSetting(name: "path", reason: "storage.encrypted-file needs path=<file>")
        }
        let rounds = options.integer("kdf-rounds") ?? 210_000
        var passphrase = options.given["passphrase"]
        if let variable = options.given["passphrase-env"] {
            guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
                throw ConfigurationError.invalidSetting(name: "passphrase-env", reason: "the environment variable '\(variable)' is not set")
            }
            passphrase = value
        }
        if passphrase?.isEmpty == true {
            throw ConfigurationError.invalidSetting(name: "passphrase", reason: "it is empty; an empty passphrase would protect nothing")
        }
        switch (options.given["key-file"], passphrase) {
        case let (keyFile?, nil): return (path, .keyFile(keyFile))
        case let (nil, passphrase?): return (path, .passphrase(passphrase, rounds: rounds))
        case (nil, nil):
            throw ConfigurationError.invalidSetting(name: "key-file", reason: "storage.encrypted-file needs key-file=<file> or a passphrase")
        case (.some, .some):
            throw ConfigurationError.invalidSetting(name: "key-file", reason: "give either key-file or a passphrase, not both")
        }
    }

    /// How long a read or write waits for another process holding the file's lock before it
    /// fails (`busy-timeout`): a stopped or hung process must not freeze every other one.
    public let busyTimeout: Duration

    /// Opens (or prepares to create) the store at `path`, reading and authenticating all of it.
    /// `busyTimeout` (taken within 0 and 24 days) bounds each wait for another process's lock.
    public init(path: String, key source: KeySource, busyTimeout: Duration = .seconds(10)) throws {
        self.path = path
        self.busyTimeout = min(max(busyTimeout, .zero), Self.longestBusyTimeout)
        lockPath = path + ".lock"
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StorageError.ioFailure(reason: "cannot create the directory of '\(path)': \(error.localizedDescription)")
        }
        // A path that exists must be a plain file; refused before the lock file is made
        // beside it (`/dev/urandom` would otherwise leave `/dev/urandom.lock`).
        var info = stat()
        if stat(path, &info) == 0 { try StorageError.requireRegularFile(info, path: path) }
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw StorageError.ioFailure(reason: "cannot open '\(lockPath)': \(Self.lastError)") }
        do {
            try Self.lock(lock, LOCK_SH, path: lockPath, within: self.busyTimeout)
            defer { flock(lock, LOCK_UN) }
            let existing = try Self.readFile(path)
            let stored = existing.flatMap { try? Format.parseHeader($0.bytes[...]).get().header }
            let (keyHeader, master) = try Self.key(source, storedHeader: stored, storeExists: existing != nil, path: path)
            let empty = State(keyHeader: keyHeader, master: master, lockDescriptor: lock)
            state = Mutex(try existing.map { try Self.loadWhole($0, like: empty, path: path) } ?? empty)
        } catch {
            close(lock)
            throw error
        }
    }

    deinit {
        state.withLock { _ = close($0.lockDescriptor) }
    }

    public var location: String { path }

    // MARK: StorageBackend

    public func read(_ key: RecordKey) throws -> Record? {
        try state.withLock { state in
            try refresh(&state, locked: false)
            return state.records[key]
        }
    }

    public func list(namespace: RecordNamespace, prefix: String) throws -> [Record] {
        try state.withLock { state in
            try refresh(&state, locked: false)
            return state.records.records(in: namespace, prefix: prefix)
        }
    }

    public func namespaces() throws -> [RecordNamespace] {
        try state.withLock { state in
            try refresh(&state, locked: false)
            return state.records.namespaces
        }
    }

    public func transaction<T: Sendable>(_ body: (inout StorageTransaction) throws -> T) throws -> T {
        try state.withLock { state in
            try Self.lock(state.lockDescriptor, LOCK_EX, path: lockPath, within: busyTimeout)
            defer { flock(state.lockDescriptor, LOCK_UN) }
            try refresh(&state, locked: true)
            let (result, changes) = try state.records.runTransaction(body)
            guard !changes.isEmpty else { return result }
            guard state.sequence < UInt64.max else {
                throw StorageError.corruptStore(path: path, reason: "the transaction sequence is exhausted")
            }
            let sequence = state.sequence + 1
            if let file = state.file, file.version == Format.version, !needsCompaction(file, liveBytes: state.liveBytes) {
                state.file = try append(Format.Transaction(sequence: sequence, changes: changes), to: file)
                state.apply(changes)
            } else {
                // A new file, a version-1 file, or a log worth compacting: write the live records anew.
                var records = state.records
                records.apply(changes)
                state.file = try rewrite(records, sequence: sequence, keyHeader: state.keyHeader, master: state.master)
                state.apply(changes)
            }
            state.sequence = sequence
            return result
        }
    }

    /// How many records the store holds (what a check reports).
    var recordCount: Int {
        get throws {
            try state.withLock { state in
                try refresh(&state, locked: false)
                return state.records.count
            }
        }
    }

    public var generation: UInt64 {
        get throws {
            try state.withLock { state in
                try refresh(&state, locked: false)
                return state.sequence
            }
        }
    }

    /// Takes the file lock `operation` (`LOCK_SH` or `LOCK_EX`) on `descriptor`, waiting at most
    /// `timeout` for another process that holds it: tried without blocking, then again after
    /// pauses growing from 1 to 20 ms. Past the timeout: an I/O failure naming the lock file
    /// (nothing is damaged; the operation may be retried).
    static func lock(_ descriptor: Int32, _ operation: Int32, path: String, within timeout: Duration) throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause: UInt32 = 1_000
        while flock(descriptor, operation | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                throw StorageError.ioFailure(reason: "cannot lock '\(path)': \(String(cString: strerror(error)))")
            }
            guard clock.now < deadline else {
                throw StorageError.ioFailure(reason: "'\(path)' stayed locked by another process for \(timeout) (busy-timeout): "
                    + "the store is busy or another process is stopped while holding it; try again")
            }
            if error == EWOULDBLOCK {
                usleep(pause)
                pause = min(pause * 2, 20_000)
            }
        }
    }

    // MARK: Reading the file

    /// Catches up with writes by other processes (and notices damage): cheap when nothing
    /// changed (one `stat`), reads only the new frames when the log grew.
    private func refresh(_ state: inout State, locked: Bool) throws {
        let current = Self.identity(path)
        guard current != state.file?.identity else { return }
        if !locked {
            try Self.lock(state.lockDescriptor, LOCK_SH, path: lockPath, within: busyTimeout)
        }
        defer { if !locked { flock(state.lockDescriptor, LOCK_UN) } }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            guard errno == ENOENT else { throw StorageError.ioFailure(reason: "cannot open '\(path)': \(Self.lastError)") }
            guard state.file == nil else { throw StorageError.corruptStore(path: path, reason: "the store file disappeared") }
            return
        }
        defer { close(descriptor) }
        let identity = try Self.identity(of: descriptor, path: path)
        // Nothing is changed until the file checked out: damage leaves the state as it was.
        if let file = state.file, file.version == Format.version,
           identity.device == file.identity.device, identity.inode == file.identity.inode,
           let (transactions, updated) = try readNewFrames(descriptor, identity: identity, file: file) {
            for transaction in transactions {
                state.apply(transaction.changes)
                state.sequence = transaction.sequence
            }
            state.file = updated
            return
        }
        let loaded = try Self.loadWhole((try Self.readAll(descriptor, path: path), identity), like: state, path: path)
        guard loaded.sequence >= state.sequence else {
            throw StorageError.corruptStore(path: path, reason: "the store went back from transaction \(state.sequence) to \(loaded.sequence): an older copy was put back")
        }
        state = loaded
    }

    /// Reads the frames another process appended to the file this process already knows.
    /// Returns the new transactions and what is then known of the file, or nil when the file
    /// must be read whole instead.
    private func readNewFrames(_ descriptor: Int32, identity: FileIdentity,
                               file: FileState) throws -> ([Format.Transaction], FileState)? {
        guard let keys = file.keys else { return nil }
        let slots = try Self.readAll(descriptor, from: UInt64(Format.headerSize), count: 2 * Format.slotSize, path: path)
        let prefix = [UInt8](repeating: 0, count: Format.headerSize) + slots
        let commit = try Self.check(Format.commit(in: prefix[...], header: file.header, keys: keys), path: path)
        let slot = commit.slot
        // Fewer committed frames than this process read: it adopted a killed writer's frame.
        guard slot.count >= file.count, slot.end >= file.end else { return nil }
        let size = UInt64(identity.size)
        guard size >= slot.end else {
            throw StorageError.corruptStore(path: path, reason: "the log was cut: \(size) bytes where \(slot.end) are committed")
        }
        let new = try Self.readAll(descriptor, from: file.end, count: Int(size - file.end), path: path)
        let log = try Self.verifiedLog(new[...], from: (file.count, file.end, file.lastTag), commit: commit, size: size,
                                       header: file.header, keys: keys, path: path)
        var updated = file
        updated.count = log.count
        updated.end = log.end
        updated.lastTag = log.tag
        updated.slotIndex = commit.index
        updated.identity = identity
        return (log.transactions, updated)
    }

    /// Reads and authenticates a whole file: the state it holds, with the keys of `base`.
    private static func loadWhole(_ file: (bytes: [UInt8], identity: FileIdentity), like base: State, path: String) throws -> State {
        var state = State(keyHeader: base.keyHeader, master: base.master, lockDescriptor: base.lockDescriptor)
        let bytes = file.bytes
        let (header, version) = try check(Format.parseHeader(bytes[...]), path: path)
        guard header.kdf == state.keyHeader.kdf, header.rounds == state.keyHeader.rounds, header.kdfSalt == state.keyHeader.kdfSalt else {
            throw StorageError.corruptStore(path: path, reason: "the key derivation in the header changed: the file was altered or replaced")
        }
        if version == Format.legacyVersion {
            let legacy = try check(Format.openLegacy(bytes, key: state.master), path: path)
            state.apply(legacy.records.values.map { .put($0) })
            state.sequence = legacy.sequence
            state.file = FileState(identity: file.identity, header: header, version: version)
            return state
        }
        let keys = Format.Keys(master: state.master, header: header)
        let commit = try check(Format.commit(in: bytes[...], header: header, keys: keys), path: path)
        let start = UInt64(Format.framesStart)
        let log = try verifiedLog(bytes[Format.framesStart...], from: (0, start, Format.noTag), commit: commit,
                                  size: UInt64(bytes.count), header: header, keys: keys, path: path)
        for transaction in log.transactions {
            state.apply(transaction.changes)
            state.sequence = transaction.sequence
        }
        state.file = FileState(identity: file.identity, header: header, version: version, keys: keys,
                               count: log.count, end: log.end, lastTag: log.tag, slotIndex: commit.index)
        return state
    }

    /// The transactions in `bytes` (the file from `known.end` to its end), checked against the
    /// commit slots: every committed frame opens and chains to the last one known; bytes after
    /// the committed end are allowed only when a writer announced them, and a whole announced
    /// frame (its writer was killed before committing it) is adopted as committed.
    private static func verifiedLog(
        _ bytes: ArraySlice<UInt8>, from known: (count: UInt64, end: UInt64, tag: [UInt8]), commit: Format.Commit, size: UInt64,
        header: Format.Header, keys: Format.Keys, path: String
    ) throws -> (transactions: [Format.Transaction], count: UInt64, end: UInt64, tag: [UInt8]) {
        let slot = commit.slot
        guard slot.count >= known.count, slot.end >= known.end, slot.end <= size else {
            throw StorageError.corruptStore(path: path, reason: "the log was cut: \(size) bytes where \(slot.end) are committed")
        }
        let committedBytes = bytes.prefix(Int(slot.end - known.end))
        var frames = Format.openFrames(committedBytes, offset: known.end, index: known.count, previousTag: known.tag,
                                       limit: slot.count - known.count, header: header, keys: keys)
        let end = frames.last?.end ?? known.end
        let tag = frames.last?.tag ?? known.tag
        guard UInt64(frames.count) == slot.count - known.count, end == slot.end, tag == slot.tag else {
            throw StorageError.corruptStore(path: path, reason: "authentication failed: the log was altered (\(known.count + UInt64(frames.count)) of \(slot.count) committed transactions read back)")
        }
        if size > slot.end {
            guard let pending = commit.pendingEnd, size <= pending else {
                throw StorageError.corruptStore(path: path, reason: "there are \(size - slot.end) unexpected bytes after the last committed transaction")
            }
            if size == pending {
                let announced = Format.openFrames(bytes.dropFirst(committedBytes.count), offset: slot.end, index: slot.count,
                                                  previousTag: slot.tag, limit: 1, header: header, keys: keys)
                if let frame = announced.first, frame.end == pending { frames.append(frame) }
            }
        }
        return (frames.map(\.transaction), known.count + UInt64(frames.count), frames.last?.end ?? known.end,
                frames.last?.tag ?? known.tag)
    }

    private static func check<T>(_ result: Result<T, StorageProblem>, path: String) throws -> T {
        switch result {
        case let .success(value): return value
        case let .failure(problem) where problem.keyMismatch:
            // Not reported as damage: nothing says the file is, and salvage cannot open it either.
            throw StorageError.ioFailure(reason: "store '\(path)' cannot be opened: \(problem.reason); the file was not changed")
        case let .failure(problem): throw StorageError.corruptStore(path: path, reason: problem.reason)
        }
    }

    // MARK: Writing the file

    private func needsCompaction(_ file: FileState, liveBytes: Int) -> Bool {
        let log = file.end - UInt64(Format.framesStart)
        let live = UInt64(max(0, liveBytes)).multipliedReportingOverflow(by: UInt64(Self.compactionFactor))
        return log > Self.compactionFloor && (live.overflow || log > live.partialValue)
    }

    /// Appends one transaction: announce its end in the spare slot, append the frame, commit it
    /// in the commit slot, each step synced before the next.
    private func append(_ transaction: Format.Transaction, to file: FileState) throws -> FileState {
        guard let keys = file.keys else { throw StorageError.ioFailure(reason: "the store's keys are missing") }
        let (frame, tag) = try Format.sealFrame(transaction, index: file.count, previousTag: file.lastTag,
                                                header: file.header, keys: keys)
        let (newEnd, overflow) = file.end.addingReportingOverflow(UInt64(frame.count))
        guard !overflow, file.count < UInt64.max else { throw StorageError.ioFailure(reason: "the store file is full") }
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw StorageError.ioFailure(reason: "cannot open '\(path)': \(Self.lastError)") }
        defer { close(descriptor) }
        // The file just read, not one put in its place since (nor a FIFO or a device): the
        // transaction is sealed to follow the frames read.
        let opened = try Self.identity(of: descriptor, path: path)
        guard opened.device == file.identity.device, opened.inode == file.identity.inode else {
            throw StorageError.ioFailure(reason: "'\(path)' was replaced by another file while it was being written; nothing was written (try again)")
        }
        // A killed writer's announced, uncommitted bytes go first.
        if UInt64(file.identity.size) > file.end, ftruncate(descriptor, off_t(file.end)) != 0 {
            throw StorageError.ioFailure(reason: "cannot cut '\(path)' back to its committed end: \(Self.lastError)")
        }
        let spare = 1 - file.slotIndex
        let announce = Format.Slot(count: file.count, end: file.end, tag: file.lastTag, pendingEnd: newEnd)
        try writeSynced(descriptor, announce.sealed(header: file.header, keys: keys), at: Self.slotOffset(spare))
        try writeSynced(descriptor, frame, at: file.end)
        let commit = Format.Slot(count: file.count + 1, end: newEnd, tag: tag, pendingEnd: 0)
        try writeSynced(descriptor, commit.sealed(header: file.header, keys: keys), at: Self.slotOffset(file.slotIndex))
        var updated = file
        updated.count += 1
        updated.end = newEnd
        updated.lastTag = tag
        updated.identity = try Self.identity(of: descriptor, path: path)
        return updated
    }

    private static func slotOffset(_ index: Int) -> UInt64 {
        UInt64(Format.headerSize + index * Format.slotSize)
    }

    private func writeSynced(_ descriptor: Int32, _ bytes: [UInt8], at offset: UInt64) throws {
        try Self.writeAll(descriptor, bytes, at: offset, path: path)
        guard fdatasync(descriptor) == 0 else { throw StorageError.ioFailure(reason: "fsync of '\(path)' failed: \(Self.lastError)") }
    }

    /// Writes a new file holding `records` as one transaction (a new store, a migration or a
    /// compaction), atomically: temporary file, fsync, rename, directory fsync.
    private func rewrite(_ records: [RecordKey: Record], sequence: UInt64, keyHeader: Format.Header,
                         master: SymmetricKey) throws -> FileState {
        let header = keyHeader.renewed()
        let keys = Format.Keys(master: master, header: header)
        let puts = records.values.sorted { ($0.key.namespace, $0.key.name) < ($1.key.namespace, $1.key.name) }.map { RecordChange.put($0) }
        let (frame, tag) = try Format.sealFrame(Format.Transaction(sequence: sequence, changes: puts), index: 0,
                                                previousTag: Format.noTag, header: header, keys: keys)
        let end = UInt64(Format.framesStart + frame.count)
        let commit = Format.Slot(count: 1, end: end, tag: tag, pendingEnd: 0)
        let spare = Format.Slot(count: 0, end: UInt64(Format.framesStart), tag: Format.noTag, pendingEnd: 0)
        let bytes = header.bytes + commit.sealed(header: header, keys: keys) + spare.sealed(header: header, keys: keys) + frame
        try writeAtomically(bytes)
        guard let identity = Self.identity(path) else {
            throw StorageError.ioFailure(reason: "'\(path)' vanished right after it was written")
        }
        return FileState(identity: identity, header: header, version: Format.version, keys: keys, count: 1, end: end,
                         lastTag: tag, slotIndex: 0)
    }

    /// Temporary file, fsync, rename over the store, fsync of the directory.
    private func writeAtomically(_ bytes: [UInt8]) throws {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError.ioFailure(reason: "cannot create '\(temporary)': \(Self.lastError)") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            try Self.writeAll(descriptor, bytes, at: 0, path: temporary)
            guard fsync(descriptor) == 0 else { throw StorageError.ioFailure(reason: "fsync of '\(temporary)' failed: \(Self.lastError)") }
        }
        guard rename(temporary, path) == 0 else {
            throw StorageError.ioFailure(reason: "cannot rename into '\(path)': \(Self.lastError)")
        }
        renamed = true
        Self.syncDirectory(of: path)
    }

    // MARK: File access

    /// The file's bytes and identity, or nil when it does not exist.
    static func readFile(_ path: String) throws -> (bytes: [UInt8], identity: FileIdentity)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw StorageError.ioFailure(reason: "cannot open '\(path)': \(lastError)")
        }
        defer { close(descriptor) }
        let identity = try identity(of: descriptor, path: path)
        return (try readAll(descriptor, path: path), identity)
    }

    /// Everything from the descriptor's current position to its end.
    private static func readAll(_ descriptor: Int32, path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError.ioFailure(reason: "cannot read '\(path)': \(lastError)")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }

    /// Exactly `count` bytes at `offset` (fewer is a cut file).
    private static func readAll(_ descriptor: Int32, from offset: UInt64, count: Int, path: String) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress?.advanced(by: done), count - done, off_t(offset) + off_t(done))
            }
            if read < 0 {
                if errno == EINTR { continue }
                throw StorageError.ioFailure(reason: "cannot read '\(path)': \(lastError)")
            }
            if read == 0 { throw StorageError.corruptStore(path: path, reason: "the file ends before its committed log does") }
            done += read
        }
        return bytes
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: UInt64, path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = pwrite(descriptor, buffer.baseAddress?.advanced(by: done), buffer.count - done, off_t(offset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw StorageError.ioFailure(reason: "cannot write '\(path)': \(lastError)")
                }
                done += written
            }
        }
    }

    private static func syncDirectory(of path: String) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return identity(of: info)
    }

    /// The identity of the file open at `descriptor`, which must be a regular file: a FIFO,
    /// a device such as `/dev/urandom` or a directory given as the store or key path is refused
    /// before it is read (it could block forever or never end). The store's files are opened
    /// with `O_NONBLOCK` for the same reason; a regular file ignores it.
    private static func identity(of descriptor: Int32, path: String) throws -> FileIdentity {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw StorageError.ioFailure(reason: "cannot stat '\(path)': \(lastError)") }
        try StorageError.requireRegularFile(info, path: path)
        return identity(of: info)
    }


    private static func identity(of info: stat) -> FileIdentity {
        // Nanosecond times as (seconds, nanoseconds) pairs folded without overflow: only
        // equality matters.
        FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec))
    }

    // MARK: Keys

    /// The master key and the key-derivation header of a new file. `storedHeader` is the
    /// existing file's header, when it has one that parses.
    static func key(_ source: KeySource, storedHeader: Format.Header?, storeExists: Bool,
                            path: String) throws -> (Format.Header, SymmetricKey) {
        switch source {
        case let .keyFile(keyPath):
            if let storedHeader, storedHeader.kdf != 0 {
                throw StorageError.corruptStore(path: path, reason: "the store is keyed by a passphrase, not a key file")
            }
            let key = try storeExists ? loadKeyFile(keyPath, store: path) : loadOrCreateKeyFile(keyPath)
            return (Format.Header(kdf: 0, rounds: 0, kdfSalt: Format.noTag, fileID: []), key)
        case let .passphrase(passphrase, rounds):
            if let storedHeader {
                guard storedHeader.kdf == 1 else {
                    throw StorageError.corruptStore(path: path, reason: "the store is keyed by a key file, not a passphrase")
                }
                guard allowedRounds.contains(Int(storedHeader.rounds)) else {
                    throw StorageError.corruptStore(path: path, reason: "the header is damaged")
                }
                return (storedHeader, try derive(passphrase, salt: storedHeader.kdfSalt, rounds: Int(storedHeader.rounds)))
            }
            guard allowedRounds.contains(rounds), let stored = UInt32(exactly: rounds) else {
                throw ConfigurationError.invalidSetting(name: "kdf-rounds", reason: "\(rounds) is outside \(allowedRounds)")
            }
            let salt = Format.randomBytes(16)
            return (Format.Header(kdf: 1, rounds: stored, kdfSalt: salt, fileID: []), try derive(passphrase, salt: salt, rounds: rounds))
        }
    }

    private static func derive(_ passphrase: String, salt: [UInt8], rounds: Int) throws -> SymmetricKey {
        do {
            return try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(passphrase.utf8), salt: salt, using: .sha256, outputByteCount: 32,
                unsafeUncheckedRounds: rounds)
        } catch {
            throw StorageError.ioFailure(reason: "the passphrase key could not be derived")
        }
    }

    /// Creates a key file for a new store (mode 0600, `O_EXCL`), or reads the one there.
    private static func loadOrCreateKeyFile(_ keyPath: String) throws -> SymmetricKey {
        let created = open(keyPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            guard errno == EEXIST else { throw StorageError.ioFailure(reason: "cannot create key file '\(keyPath)': \(lastError)") }
            return try loadKeyFile(keyPath, store: nil)
        }
        let key = Format.randomBytes(32)
        defer { close(created) }
        try writeAll(created, key, at: 0, path: keyPath)
        guard fsync(created) == 0 else { throw StorageError.ioFailure(reason: "fsync of '\(keyPath)' failed") }
        syncDirectory(of: keyPath)
        return SymmetricKey(data: key)
    }

    /// Reads an existing key file; when the store exists a missing key file is an error (a new
    /// key could not read the store), and none is created.
    private static func loadKeyFile(_ keyPath: String, store: String?) throws -> SymmetricKey {
        var info = stat()
        guard stat(keyPath, &info) == 0 else {
            if errno == ENOENT, let store {
                throw StorageError.ioFailure(reason: "key file '\(keyPath)' is missing, but the store '\(store)' exists: restore the key file (a new key cannot read the store; no key was created)")
            }
            throw StorageError.ioFailure(reason: "cannot stat key file '\(keyPath)': \(lastError)")
        }
        try StorageError.requireRegularFile(info, path: keyPath)
        guard info.st_mode & 0o077 == 0 else {
            throw StorageError.ioFailure(reason: "key file '\(keyPath)' may be read by other users; run chmod 600 on it")
        }
        guard let file = try readFile(keyPath), file.bytes.count == 32 else {
            throw StorageError.ioFailure(reason: "key file '\(keyPath)' is not a key: a key file holds exactly 32 bytes (the store was left untouched; give the key file that goes with it)")
        }
        return SymmetricKey(data: file.bytes)
    }

    static var lastError: String { String(cString: strerror(errno)) }
}
