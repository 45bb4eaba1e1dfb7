import Crypto
import Foundation
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
///   reads only the frames added since. ``generation`` is the transaction sequence. Processes
///   that open a path where no store exists yet may each choose a salt (or make a key file):
///   the first to write makes the store, and the others take its salt (a key file is linked
///   into place whole, so the others read that one).
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
    /// Where the key comes from: a store that another process creates after this one opened
    /// the path (both found no file) is keyed by that process's salt, derived again from it.
    private let source: KeySource
    private let state: Locked<State>

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
    struct FileState {
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

    /// How long a read or write waits for another process holding the file's lock before it
    /// fails (`busy-timeout`): a stopped or hung process must not freeze every other one.
    public let busyTimeout: Duration

    /// Opens (or prepares to create) the store at `path`, reading and authenticating all of it.
    /// `busyTimeout` (taken within 0 and 24 days) bounds each wait for another process's lock.
    public init(path: String, key source: KeySource, busyTimeout: Duration = .seconds(10)) throws {
        self.path = path
        self.source = source
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
            state = Locked(try existing.map { try Self.loadWhole($0, like: empty, path: path) } ?? empty)
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
        let bytes = try Self.readAll(descriptor, path: path)
        var base = state
        if state.file == nil, let header = try? Format.parseHeader(bytes[...]).get().header, !header.derivesKey(like: state.keyHeader) {
            // Another process created the store after this one opened the path: its key
            // derivation (a passphrase's salt) is the store's. (A file this process had read
            // before that comes back with another one was replaced: loadWhole refuses it.)
            (base.keyHeader, base.master) = try Self.key(source, storedHeader: header, storeExists: true, path: path)
        }
        let loaded = try Self.loadWhole((bytes, identity), like: base, path: path)
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
        guard header.derivesKey(like: state.keyHeader) else {
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
}
