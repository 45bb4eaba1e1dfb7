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
    }

    private let state = Locked(State())
    /// Moves on each commit, stored inside the commit's lock after its writes, so a reader
    /// that sees a value sees at least those writes (read without the lock: an evaluation
    /// checks it several times).
    private let commits = Atomic<UInt64>(0)

    public init(options: PluginOptions, environment: PluginEnvironment) {}

    /// An empty store, without going through the registry.
    public init() {}

    public var location: String { "memory" }

    public func read(_ key: RecordKey) throws -> Record? {
        state.withLock { $0.records[key] }
    }

    public func list(namespace: RecordNamespace, prefix: String) throws -> [Record] {
        state.withLock { $0.records.records(in: namespace, prefix: prefix) }
    }

    public func namespaces() throws -> [RecordNamespace] {
        state.withLock { $0.records.namespaces }
    }

    public func transaction<T: Sendable>(_ body: (inout StorageTransaction) throws -> T) throws -> T {
        try state.withLock { state in
            // The transaction's read snapshot is released when it returns, so applying the
            // writes does not copy the dictionary.
            let (result, changes) = try state.records.runTransaction(body)
            guard !changes.isEmpty else { return result }
            state.records.apply(changes)
            commits.wrappingAdd(1, ordering: .releasing)
            return result
        }
    }

    public var generation: UInt64 {
        commits.load(ordering: .acquiring)
    }
}
