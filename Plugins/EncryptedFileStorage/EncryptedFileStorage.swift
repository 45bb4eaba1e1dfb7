import _CryptoExtras
import Crypto
import Foundation
import Synchronization
import Touchstone

/// Durable storage in one encrypted file: every record, sealed together with AES-256-GCM.
///
/// - **Key**: from a key file (`key-file`: 32 random bytes, created with mode 0600 when
///   missing; refused when other users may read it) or from a passphrase (`passphrase`, or
///   better `passphrase-env` naming an environment variable, so the secret never sits in a
///   configuration) through PBKDF2-HMAC-SHA256 with `kdf-rounds` iterations (at least
///   210,000) and a random salt kept in the file header.
/// - **Atomic writes**: the new contents go to a temporary file in the same directory, which
///   is fsynced, renamed over the store, and the directory fsynced; a crash leaves either the
///   old or the new file, never a mix. Each ``transaction(_:)`` is one such write.
/// - **Tamper evidence**: the header is authenticated with the contents; a flipped, cut or
///   added byte, or a wrong key, is a ``StorageError/corruptStore(path:reason:)`` and the file
///   is left exactly as it was.
/// - **Several processes**: writers take an exclusive `flock` on `<path>.lock` and re-read the
///   file first; readers notice another process's write by the file's identity (inode, size,
///   times) and reload it. ``generation`` is the write sequence stored inside the file.
///
/// File layout: `TSES` · version 1 · KDF (0 key file, 1 PBKDF2) · rounds (UInt32, big-endian)
/// · salt (16 bytes) · AES-GCM nonce · ciphertext · tag.
public final class EncryptedFileStorage: StorageBackend {
    public static let descriptor = PluginDescriptor(
        id: "storage.encrypted-file", kind: .storage,
        summary: "one AES-GCM encrypted file, written atomically; keyed by a key file or a passphrase",
        options: [
            OptionSpec("path", .string, "the store file"),
            OptionSpec("key-file", .string, "a 32-byte key file (created with mode 0600 when missing)"),
            OptionSpec("passphrase", .string, secret: true, "a passphrase (prefer passphrase-env: options may be shown by config)"),
            OptionSpec("passphrase-env", .string, "the name of an environment variable holding the passphrase"),
            OptionSpec("kdf-rounds", .integer(210_000...10_000_000), default: "210000",
                       "PBKDF2-SHA256 iterations for a new passphrase store"),
        ])

    /// Where the key comes from.
    public enum KeySource: Sendable {
        /// A 32-byte key file, created (mode 0600) when missing.
        case keyFile(String)
        /// A passphrase, stretched with PBKDF2-SHA256 (`rounds` for a new store).
        case passphrase(String, rounds: Int)
    }

    /// The store file.
    public let path: String
    private let lockPath: String
    private let state: Mutex<State>

    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64
        var changed: Int64
    }

    private struct State {
        var records: [RecordKey: Record] = [:]
        var sequence: UInt64 = 0
        var identity: FileIdentity?
        var header: Data
        var key: Data
        var lockDescriptor: Int32
    }

    private static let magic = Data("TSES".utf8)
    private static let version: UInt8 = 1
    private static let headerSize = 4 + 1 + 1 + 4 + 16
    /// PBKDF2 iterations accepted, for new stores and in headers (a tampered header cannot
    /// make opening take unbounded time).
    public static let allowedRounds = 210_000...10_000_000

    public convenience init(options: PluginOptions, environment: PluginEnvironment) throws {
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
        let source: KeySource
        switch (options.given["key-file"], passphrase) {
        case let (keyFile?, nil): source = .keyFile(keyFile)
        case let (nil, passphrase?): source = .passphrase(passphrase, rounds: rounds)
        case (nil, nil):
            throw ConfigurationError.invalidSetting(name: "key-file", reason: "storage.encrypted-file needs key-file=<file> or a passphrase")
        case (.some, .some):
            throw ConfigurationError.invalidSetting(name: "key-file", reason: "give either key-file or a passphrase, not both")
        }
        try self.init(path: path, key: source)
    }

    /// Opens (or prepares to create) the store at `path`, reading and authenticating it.
    public init(path: String, key source: KeySource) throws {
        self.path = path
        lockPath = path + ".lock"
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StorageError.ioFailure(reason: "cannot create the directory of '\(path)': \(error.localizedDescription)")
        }
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw StorageError.ioFailure(reason: "cannot open '\(lockPath)': \(Self.lastError)") }
        // Read the existing header (if any) to learn the salt and rounds.
        let existing = try Self.readFile(path)
        let header: Data
        let key: Data
        switch source {
        case let .keyFile(keyPath):
            key = try Self.loadOrCreateKeyFile(keyPath)
            header = Self.makeHeader(kdf: 0, rounds: 0, salt: Data(count: 16))
            if let existing, existing.data.count >= Self.headerSize, existing.data[5] != 0 {
                close(lock)
                throw StorageError.corruptStore(path: path, reason: "the store is keyed by a passphrase, not a key file")
            }
        case let .passphrase(passphrase, rounds):
            if let existing, existing.data.count >= Self.headerSize, existing.data.prefix(4) == Self.magic {
                let bytes = [UInt8](existing.data.prefix(Self.headerSize))
                guard bytes[5] == 1 else {
                    close(lock)
                    throw StorageError.corruptStore(path: path, reason: "the store is keyed by a key file, not a passphrase")
                }
                let storedRounds = Int(bytes[6]) << 24 | Int(bytes[7]) << 16 | Int(bytes[8]) << 8 | Int(bytes[9])
                guard Self.allowedRounds.contains(storedRounds) else {
                    close(lock)
                    throw StorageError.corruptStore(path: path, reason: "the header is damaged")
                }
                let salt = Data(bytes[10..<26])
                header = Data(bytes)
                key = try Self.derive(passphrase, salt: salt, rounds: storedRounds)
            } else {
                guard Self.allowedRounds.contains(rounds) else {
                    close(lock)
                    throw ConfigurationError.invalidSetting(name: "kdf-rounds", reason: "\(rounds) is outside \(Self.allowedRounds)")
                }
                let salt = Self.randomBytes(16)
                header = Self.makeHeader(kdf: 1, rounds: rounds, salt: salt)
                key = try Self.derive(passphrase, salt: salt, rounds: rounds)
            }
        }
        var initial = State(header: header, key: key, lockDescriptor: lock)
        if let existing {
            do {
                try Self.load(existing, into: &initial, path: path)
            } catch {
                close(lock)
                throw error
            }
        }
        state = Mutex(initial)
    }

    deinit {
        state.withLock { _ = close($0.lockDescriptor) }
    }

    public var location: String { path }

    // MARK: StorageBackend

    public func read(_ key: RecordKey) throws -> Record? {
        try state.withLock { state in
            try refresh(&state)
            return state.records[key]
        }
    }

    public func list(namespace: String, prefix: String) throws -> [Record] {
        try state.withLock { state in
            try refresh(&state)
            return state.records.records(in: namespace, prefix: prefix)
        }
    }

    public func transaction<T: Sendable>(_ body: (inout StorageTransaction) throws -> T) throws -> T {
        try state.withLock { state in
            guard flock(state.lockDescriptor, LOCK_EX) == 0 else {
                throw StorageError.ioFailure(reason: "cannot lock '\(lockPath)': \(Self.lastError)")
            }
            defer { flock(state.lockDescriptor, LOCK_UN) }
            try refresh(&state)
            let (result, changes) = try state.records.runTransaction(body)
            guard !changes.isEmpty else { return result }
            // Changed on a copy: the store keeps its records if the write fails.
            var records = state.records
            records.apply(changes)
            let sequence = state.sequence &+ 1
            let sealed = try Self.seal(records: records, sequence: sequence, header: state.header, key: state.key)
            try writeAtomically(sealed)
            state.records = records
            state.sequence = sequence
            state.identity = Self.identity(path)
            return result
        }
    }

    public var generation: UInt64 {
        get throws {
            try state.withLock { state in
                try refresh(&state)
                return state.sequence
            }
        }
    }

    // MARK: Reading the file

    /// Reloads the file when another writer replaced it.
    private func refresh(_ state: inout State) throws {
        let current = Self.identity(path)
        guard current != state.identity else { return }
        guard let file = try Self.readFile(path) else {
            throw StorageError.corruptStore(path: path, reason: "the store file disappeared")
        }
        try Self.load(file, into: &state, path: path)
    }

    private static func load(_ file: (data: Data, identity: FileIdentity), into state: inout State, path: String) throws {
        let data = file.data
        guard data.count >= headerSize + 12 + 16 else {
            throw StorageError.corruptStore(path: path, reason: "the file is too short to be a store")
        }
        let header = data.prefix(headerSize)
        guard header.prefix(4) == magic else {
            throw StorageError.corruptStore(path: path, reason: "it is not a Touchstone encrypted store")
        }
        guard header[header.startIndex + 4] == version else {
            throw StorageError.corruptStore(path: path, reason: "unknown format version \(header[header.startIndex + 4])")
        }
        let plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: data.dropFirst(headerSize))
            plaintext = try AES.GCM.open(box, using: SymmetricKey(data: state.key), authenticating: header)
        } catch {
            throw StorageError.corruptStore(path: path, reason: "authentication failed: the file was altered or the key is wrong")
        }
        let contents: Contents
        do {
            contents = try JSONDecoder().decode(Contents.self, from: plaintext)
        } catch {
            throw StorageError.corruptStore(path: path, reason: "the decrypted contents are not a record set")
        }
        var records: [RecordKey: Record] = [:]
        for stored in contents.records {
            let key = RecordKey(stored.namespace, stored.name)
            records[key] = Record(key: key, value: stored.value, attributes: stored.attributes)
        }
        state.records = records
        state.sequence = contents.sequence
        state.identity = file.identity
        state.header = Data(header)
    }

    /// The file's contents and identity, or nil when it does not exist.
    private static func readFile(_ path: String) throws -> (data: Data, identity: FileIdentity)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw StorageError.ioFailure(reason: "cannot open '\(path)': \(lastError)")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw StorageError.ioFailure(reason: "cannot stat '\(path)': \(lastError)") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError.ioFailure(reason: "cannot read '\(path)': \(lastError)")
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return (data, identity(of: info))
    }

    private static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return identity(of: info)
    }

    private static func identity(of info: stat) -> FileIdentity {
        FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec))
    }

    // MARK: Writing the file

    private struct StoredRecord: Codable {
        var namespace: String
        var name: String
        var value: Data
        var attributes: [String: String]
    }

    private struct Contents: Codable {
        var sequence: UInt64
        var records: [StoredRecord]
    }

    private static func seal(records: [RecordKey: Record], sequence: UInt64, header: Data, key: Data) throws -> Data {
        let contents = Contents(
            sequence: sequence,
            records: records.values.sorted { ($0.key.namespace, $0.key.name) < ($1.key.namespace, $1.key.name) }
                .map { StoredRecord(namespace: $0.key.namespace, name: $0.key.name, value: $0.value, attributes: $0.attributes) })
        do {
            let plaintext = try JSONEncoder().encode(contents)
            let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key), authenticating: header)
            guard let combined = box.combined else { throw StorageError.ioFailure(reason: "sealing failed") }
            return header + combined
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError.ioFailure(reason: "sealing the store failed")
        }
    }

    /// Temporary file, fsync, rename over the store, fsync of the directory.
    private func writeAtomically(_ data: Data) throws {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError.ioFailure(reason: "cannot create '\(temporary)': \(Self.lastError)") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            try Self.writeAll(descriptor, data, path: temporary)
            guard fsync(descriptor) == 0 else { throw StorageError.ioFailure(reason: "fsync of '\(temporary)' failed: \(Self.lastError)") }
        }
        guard rename(temporary, path) == 0 else {
            throw StorageError.ioFailure(reason: "cannot rename into '\(path)': \(Self.lastError)")
        }
        renamed = true
        Self.syncDirectory(of: path)
    }

    private static func writeAll(_ descriptor: Int32, _ data: Data, path: String) throws {
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress?.advanced(by: offset), buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw StorageError.ioFailure(reason: "cannot write '\(path)': \(lastError)")
                }
                offset += written
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

    // MARK: Keys

    private static func makeHeader(kdf: UInt8, rounds: Int, salt: Data) -> Data {
        var header = magic
        header.append(version)
        header.append(kdf)
        let value = UInt32(clamping: rounds)
        header.append(contentsOf: [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
        header.append(salt)
        return header
    }

    private static func derive(_ passphrase: String, salt: Data, rounds: Int) throws -> Data {
        do {
            let key = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(passphrase.utf8), salt: salt, using: .sha256, outputByteCount: 32,
                unsafeUncheckedRounds: rounds)
            return key.withUnsafeBytes { Data($0) }
        } catch {
            throw StorageError.ioFailure(reason: "the passphrase key could not be derived")
        }
    }

    /// Reads the 32-byte key file, or creates it (mode 0600, `O_EXCL`) when missing.
    private static func loadOrCreateKeyFile(_ keyPath: String) throws -> Data {
        let created = open(keyPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if created >= 0 {
            let key = randomBytes(32)
            defer { close(created) }
            try writeAll(created, key, path: keyPath)
            guard fsync(created) == 0 else { throw StorageError.ioFailure(reason: "fsync of '\(keyPath)' failed") }
            syncDirectory(of: keyPath)
            return key
        }
        guard errno == EEXIST else { throw StorageError.ioFailure(reason: "cannot create key file '\(keyPath)': \(lastError)") }
        var info = stat()
        guard stat(keyPath, &info) == 0 else { throw StorageError.ioFailure(reason: "cannot stat key file '\(keyPath)': \(lastError)") }
        guard info.st_mode & 0o077 == 0 else {
            throw StorageError.ioFailure(reason: "key file '\(keyPath)' may be read by other users; run chmod 600 on it")
        }
        guard let file = try readFile(keyPath), file.data.count == 32 else {
            throw StorageError.corruptStore(path: keyPath, reason: "a key file holds exactly 32 bytes")
        }
        return file.data
    }

    private static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    private static var lastError: String { String(cString: strerror(errno)) }
}
