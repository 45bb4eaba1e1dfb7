import Foundation

/// A storage area: the namespace records of one kind live in. The areas Touchstone itself
/// writes are named here; a plugin names its own (`"acme.reader"`) with a literal.
public struct RecordNamespace: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    /// The namespace as stored.
    public let rawValue: String

    /// A namespace.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A namespace from a literal.
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    public static func < (lhs: RecordNamespace, rhs: RecordNamespace) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The device's state and counters.
    public static let device: RecordNamespace = "device"
    /// A sensor's own records (the simulated sensors' templates, fprintd's generations).
    public static let sensor: RecordNamespace = "sensor"
    /// The simulation's virtual time.
    public static let clock: RecordNamespace = "clock"
    /// Keychain items.
    public static let keychain: RecordNamespace = "keychain"
    /// Secure Enclave keys.
    public static let keys: RecordNamespace = "keys"
    /// The domain-state detector's baselines.
    public static let domainStateBaselines: RecordNamespace = "baseline.domain-state"
    /// The event detector's baselines.
    public static let eventBaselines: RecordNamespace = "baseline.events"
}

/// The address of one stored record: a namespace (`device`, `keychain`...) and a name inside it.
public struct RecordKey: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The record's namespace.
    public var namespace: RecordNamespace
    /// The record's name within the namespace.
    public var name: String

    /// Creates a key.
    public init(_ namespace: RecordNamespace, _ name: String) {
        self.namespace = namespace
        self.name = name
    }

    public var description: String { "\(namespace)/\(name)" }
}

/// One stored record: bytes plus text attributes that backends may index.
public struct Record: Sendable, Equatable {
    /// Where it is stored.
    public var key: RecordKey
    /// Its contents.
    public var value: Data
    /// Searchable attributes (never secrets).
    public var attributes: [String: String]

    /// Creates a record.
    public init(key: RecordKey, value: Data, attributes: [String: String] = [:]) {
        self.key = key
        self.value = value
        self.attributes = attributes
    }
}

/// One change in an atomic batch.
public enum RecordChange: Sendable, Equatable {
    /// Writes (inserts or replaces) a record.
    case put(Record)
    /// Removes a record, if present.
    case delete(RecordKey)
}

/// An open read-modify-write transaction: reads see the store plus this transaction's own
/// writes; the writes are committed together, durably, when the body returns.
public struct StorageTransaction {
    private let readStored: (RecordKey) throws -> Record?
    /// The writes so far, in order.
    public private(set) var changes: [RecordChange] = []

    /// Creates a transaction reading committed records through `read`. Backends call this.
    public init(read: @escaping (RecordKey) throws -> Record?) {
        readStored = read
    }

    /// The record at `key` as this transaction sees it.
    public func read(_ key: RecordKey) throws -> Record? {
        for change in changes.reversed() {
            switch change {
            case let .put(record) where record.key == key: return record
            case let .delete(deleted) where deleted == key: return nil
            default: continue
            }
        }
        return try readStored(key)
    }

    /// Writes `record`.
    public mutating func put(_ record: Record) {
        changes.append(.put(record))
    }

    /// Deletes `key`.
    public mutating func delete(_ key: RecordKey) {
        changes.append(.delete(key))
    }
}

/// A storage backend plugin: durable key/value records.
///
/// The device keeps everything in it: enrolled templates, the passcode verifier, the
/// device-wide counters and deadlines, domain-state baselines and (later) keychain items.
/// Backends guarantee:
/// - ``transaction(_:)`` is atomic: all of its writes land or none does, and no other writer
///   (task or process) interleaves between its reads and its writes;
/// - a transaction that returned is durable: a crash afterwards cannot lose it (a lockout
///   counter is never reset by killing the process);
/// - ``generation`` changes whenever any writer commits, so callers may cache decoded records.
public protocol StorageBackend: Plugin, AnyObject {
    /// A short human description of where data lives (`memory`, a file path).
    var location: String { get }

    /// Reads one record.
    func read(_ key: RecordKey) throws -> Record?

    /// Every record of `namespace` whose name starts with `prefix`, sorted by name.
    func list(namespace: RecordNamespace, prefix: String) throws -> [Record]

    /// The namespaces that hold at least one record, sorted.
    func namespaces() throws -> [RecordNamespace]

    /// Runs `body` as one atomic, durable read-modify-write transaction.
    ///
    /// Inside `body`, read through `transaction` only: the backend is busy with this
    /// transaction, and calling it again from `body` (`read`, `list`, another `transaction`)
    /// deadlocks or traps in the built-in backends (a non-recursive lock; GRDB's "not
    /// reentrant" check). The core reads through ``StorageTransaction/read(_:)`` there.
    func transaction<T: Sendable>(_ body: (inout StorageTransaction) throws -> T) throws -> T

    /// A value that changes whenever the store changes (by any writer).
    var generation: UInt64 { get throws }
}

extension StorageBackend {
    /// Commits `changes` atomically.
    public func commit(_ changes: [RecordChange]) throws {
        try transaction { transaction in
            for change in changes {
                switch change {
                case let .put(record): transaction.put(record)
                case let .delete(key): transaction.delete(key)
                }
            }
        }
    }

    /// Every record of `namespace`.
    public func list(namespace: RecordNamespace) throws -> [Record] {
        try list(namespace: namespace, prefix: "")
    }
}

/// Helpers for backends that hold their records in a dictionary (in memory, or decoded from
/// one file): the transaction and listing rules live here once.
extension Dictionary where Key == RecordKey, Value == Record {
    /// Runs `body` as a transaction reading these records; returns its result and its writes,
    /// in order. The dictionary itself is not changed (apply the writes with ``apply(_:)``).
    public func runTransaction<T>(_ body: (inout StorageTransaction) throws -> T) rethrows -> (result: T, changes: [RecordChange]) {
        let snapshot = self
        var transaction = StorageTransaction(read: { snapshot[$0] })
        let result = try body(&transaction)
        return (result, transaction.changes)
    }

    /// Applies `changes` in order.
    public mutating func apply(_ changes: [RecordChange]) {
        for change in changes {
            switch change {
            case let .put(record): self[record.key] = record
            case let .delete(key): removeValue(forKey: key)
            }
        }
    }

    /// The namespaces that hold at least one record, sorted.
    public var namespaces: [RecordNamespace] {
        Set(keys.map(\.namespace)).sorted()
    }

    /// The records of `namespace` whose names start with `prefix`, sorted by name.
    public func records(in namespace: RecordNamespace, prefix: String) -> [Record] {
        // Bytes, as SQLite compares them: a name whose next character is a combining mark
        // (`svc/` then U+0301) still starts with the prefix, which `hasPrefix` would deny.
        values.filter { $0.key.namespace == namespace && $0.key.name.startsWithBytes(of: prefix) }
            .sorted { $0.key.name < $1.key.name }
    }
}

extension String {
    /// Whether this string's UTF-8 bytes begin with `prefix`'s: one `memcmp`, where
    /// `utf8.starts(with:)` walks the views byte by byte through generic indices.
    func startsWithBytes(of prefix: String) -> Bool {
        var name = self, prefix = prefix
        return name.withUTF8 { name in
            prefix.withUTF8 { prefix in
                guard let start = prefix.baseAddress else { return true }  // empty
                guard name.count >= prefix.count, let nameStart = name.baseAddress else { return false }
                return memcmp(nameStart, start, prefix.count) == 0
            }
        }
    }
}

/// JSON coding of stored values, with corruption reported as ``StorageError``.
enum RecordCoding {
    /// Shared coders (Foundation's are thread-safe); one per call costs more than small values.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    static let decoder = JSONDecoder()

    static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder.encode(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, from record: Record) throws -> T {
        do {
            return try decoder.decode(type, from: record.value)
        } catch {
            throw StorageError.corruptRecord(key: record.key.description, reason: "\(error)")
        }
    }
}

extension StorageError {
    /// Refuses an export `destination` that is the store at `store` or one of the files kept
    /// beside it (`-wal`, `-shm`, `-journal`, `.lock`...): a new store written there would
    /// damage the one being salvaged. Paths are compared with their folders' links resolved.
    package static func refuseOwnFile(destination: String, store: String) throws {
        func resolved(_ path: String) -> String {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent).path
        }
        let target = resolved(destination), own = resolved(store)
        let beside = ["", "-wal", "-shm", "-journal", ".lock"].map { own + $0 }
        guard !beside.contains(target), !target.hasPrefix(own + ".creating-") else {
            throw StorageError.ioFailure(reason: "'\(destination)' is the store's own file or one kept beside it "
                + "(its -wal, -shm or lock file): export to a new file elsewhere")
        }
    }

    /// Refuses a device, a FIFO or a directory (`info` is the path's `stat`) as a store or key
    /// file, before it is read: reading one could block forever, or never end.
    package static func requireRegularFile(_ info: stat, path: String) throws {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StorageError.ioFailure(reason: "'\(path)' is not a regular file (a device, pipe or directory): a store and its key file must be plain files")
        }
    }
}
