import Synchronization
import Touchstone

/// In-memory storage: the reference implementation of the ``StorageBackend`` contract, for
/// simulations and tests. Transactions are atomic (one lock) and "durable" for the life of the
/// process; nothing survives it.
public final class MemoryStorage: StorageBackend {
    public static let descriptor = PluginDescriptor(
        id: "storage.memory", kind: .storage,
        summary: "in-memory records; a throwaway device that lives as long as the process")

    private struct State {
        var records: [RecordKey: Record] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())

    public init(options: PluginOptions, environment: PluginEnvironment) {}

    /// An empty store, without going through the registry.
    public init() {}

    public var location: String { "memory" }

    public func read(_ key: RecordKey) throws -> Record? {
        state.withLock { $0.records[key] }
    }

    public func list(namespace: String, prefix: String) throws -> [Record] {
        state.withLock { state in
            state.records.values
                .filter { $0.key.namespace == namespace && $0.key.name.hasPrefix(prefix) }
                .sorted { $0.key.name < $1.key.name }
        }
    }

    public func transaction<T: Sendable>(_ body: (inout StorageTransaction) throws -> T) throws -> T {
        try state.withLock { state in
            // Reads see a snapshot that is released before the writes are applied, so the
            // dictionary is not copied on write.
            let (result, changes) = try { () throws -> (T, [RecordChange]) in
                let records = state.records
                var transaction = StorageTransaction(read: { records[$0] })
                let result = try body(&transaction)
                return (result, transaction.changes)
            }()
            guard !changes.isEmpty else { return result }
            for change in changes {
                switch change {
                case let .put(record): state.records[record.key] = record
                case let .delete(key): state.records.removeValue(forKey: key)
                }
            }
            state.generation &+= 1
            return result
        }
    }

    public var generation: UInt64 {
        state.withLock { $0.generation }
    }
}
