import Foundation
import GRDB
import TouchstoneBuiltins
import Touchstone

/// `touchstone-bench storage`: keychain add / get / update per second on each storage backend,
/// beside the same durable writes done directly with GRDB (WAL, synchronous=FULL, one
/// transaction per write) in the same run, and the ratio. Also counts the durable commits a
/// biometric counter update makes (goal: at most one).
///
/// Prints `name value unit` lines. Goal (issue 4): the SQLite backend within 1.5x of raw GRDB.
func runStorageBenchmark() async throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-bench-storage-\(getpid())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }

    // Profiling: TOUCHSTONE_BENCH_PROFILE=keychain-memory (or keychain-sqlite) runs only that
    // backend's keychain loops, TOUCHSTONE_BENCH_ITERATIONS items, for perf record.
    if isProfilingKeychain, let profiled = ProcessInfo.processInfo.environment["TOUCHSTONE_BENCH_PROFILE"] {
        let count = ProcessInfo.processInfo.environment["TOUCHSTONE_BENCH_ITERATIONS"].flatMap { Int($0) } ?? 20_000
        let id = "storage." + profiled.dropFirst("keychain-".count)
        for (name, value) in try await keychainThroughput(id: id, directory: root.appendingPathComponent("profile"), count: count).sorted(by: { $0.key < $1.key }) {
            storageReport("storage.profile.\(name)", value, "ops/s")
        }
        return
    }

    // Raw GRDB first, then the backends, twice interleaved, keeping each one's best run.
    var raw: [String: Double] = [:]
    var backends: [String: [String: Double]] = [:]
    let plan: [(id: String, count: Int)] = [("storage.memory", 5000), ("storage.sqlite", 400), ("storage.encrypted-file", 200)]
    for round in 0..<2 {
        for (name, value) in try rawGRDB(directory: root.appendingPathComponent("raw-\(round)"), count: 400) {
            raw[name] = max(raw[name] ?? 0, value)
        }
        for (id, count) in plan {
            let results = try await keychainThroughput(id: id, directory: root.appendingPathComponent("\(id)-\(round)"), count: count)
            for (name, value) in results { backends[id, default: [:]][name] = max(backends[id]?[name] ?? 0, value) }
        }
    }
    for operation in ["add", "get", "update"] {
        storageReport("storage.raw_grdb.\(operation)", raw[operation] ?? 0, "ops/s")
    }
    for (id, _) in plan {
        let short = id.replacingOccurrences(of: "storage.", with: "")
        for operation in ["add", "get", "update"] {
            let rate = backends[id]?[operation] ?? 0
            storageReport("storage.\(short).keychain_\(operation)", rate, "ops/s")
            if let base = raw[operation], rate > 0 {
                storageReport("storage.\(short).keychain_\(operation).ratio_to_grdb", base / rate, "x")
            }
        }
    }
    storageReport("storage.sqlite.goal_ratio_to_grdb", 1.5, "x")

    // Durable commits per biometric counter update (a failed match): the goal is one.
    let commits = try await commitsPerFailedMatch(directory: root.appendingPathComponent("commits"))
    storageReport("storage.sqlite.commits_per_failed_match", commits, "commits")
}

/// Whether `TOUCHSTONE_BENCH_PROFILE` asks for one backend's keychain loops alone.
var isProfilingKeychain: Bool {
    ProcessInfo.processInfo.environment["TOUCHSTONE_BENCH_PROFILE"]?.hasPrefix("keychain-") ?? false
}

private func storageReport(_ name: String, _ value: Double, _ unit: String) {
    print("\(name) \(String(format: value >= 100 ? "%.0f" : "%.3f", value)) \(unit)")
}

private func rate(_ count: Int, _ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(count) / max(seconds, 1e-9)
}

private func rateAsync(_ count: Int, _ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(count) / max(seconds, 1e-9)
}

/// The same work as the keychain, straight through GRDB as a careful user would write it: one
/// row per item in a WAL database with synchronous=FULL, one IMMEDIATE transaction per add and
/// per update, prepared statements cached.
private func rawGRDB(directory: URL, count: Int) throws -> [String: Double] {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // Not `config.journalMode = .wal`: GRDB then also sets synchronous=NORMAL, which would
    // compare the backend's fsync per commit with no fsync at all.
    var config = Configuration()
    config.prepareDatabase { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL")
        try db.execute(sql: "PRAGMA synchronous = FULL")
    }
    let queue = try DatabaseQueue(path: directory.appendingPathComponent("raw.sqlite").path, configuration: config)
    try queue.write { db in
        try db.execute(sql: "CREATE TABLE items (namespace TEXT NOT NULL, name TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (namespace, name)) WITHOUT ROWID")
    }
    let value = Data(repeating: 0x61, count: 200)
    var results: [String: Double] = [:]
    results["add"] = try rate(count) {
        for index in 0..<count {
            try queue.write { db in
                try db.cachedStatement(sql: "INSERT INTO items (namespace, name, value) VALUES ('keychain', ?, ?)")
                    .execute(arguments: ["item-\(index)", value])
            }
        }
    }
    results["get"] = try rate(count * 10) {
        for index in 0..<(count * 10) {
            _ = try queue.read { db in
                try Data.fetchOne(db.cachedStatement(sql: "SELECT value FROM items WHERE namespace = 'keychain' AND name = ?"),
                                  arguments: ["item-\(index % count)"])
            }
        }
    }
    results["update"] = try rate(count) {
        for index in 0..<count {
            try queue.write { db in
                try db.cachedStatement(sql: "UPDATE items SET value = ? WHERE namespace = 'keychain' AND name = ?")
                    .execute(arguments: [Data("updated-\(index)".utf8) + value, "item-\(index)"])
            }
        }
    }
    try queue.close()
    return results
}

/// Keychain add / get / update of unprotected items on the backend `id`.
private func keychainThroughput(id: String, directory: URL, count: Int) async throws -> [String: Double] {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var options: [String: String] = [:]
    switch id {
    case "storage.sqlite": options = ["path": directory.appendingPathComponent("device.sqlite").path]
    case "storage.encrypted-file": options = ["path": directory.appendingPathComponent("device.store").path,
                                              "key-file": directory.appendingPathComponent("device.key").path]
    default: break
    }
    var composition = Composition()
    composition.seed = 1
    composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
    composition.storage = PluginSelection(id, options: options)
    let authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition).build()
    let keychain = authenticator.keychain
    let value = Data(repeating: 0x61, count: 200)
    let gets = id == "storage.memory" ? count : count * 10
    var results: [String: Double] = [:]
    results["add"] = try await rateAsync(count) {
        for index in 0..<count { try keychain.add(value, service: "bench", account: "item-\(index)") }
    }
    results["get"] = try await rateAsync(gets) {
        for index in 0..<gets { _ = try await keychain.read(service: "bench", account: "item-\(index % count)") }
    }
    results["update"] = try await rateAsync(count) {
        for index in 0..<count { try await keychain.update(Data("updated-\(index)".utf8) + value, service: "bench", account: "item-\(index)") }
    }
    return results
}

/// Counts commits on an SQLite store while the engine records failed matches.
private func commitsPerFailedMatch(directory: URL) async throws -> Double {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var registry = PluginRegistry.builtIn
    try registry.register(CountingStorage.self)
    var composition = Composition()
    composition.seed = 1
    composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
    composition.storage = PluginSelection("bench.counting", options: ["path": directory.appendingPathComponent("device.sqlite").path])
    let user = ScriptedInteraction()
    let authenticator = try AuthenticatorBuilder(registry: registry, composition: composition).build(interaction: user)
    guard let counting = authenticator.device.storage as? CountingStorage else { return .nan }
    try authenticator.device.setPasscode("1234")
    try authenticator.device.enroll("thumb")
    let policy = try authenticator.policy(named: "biometrics")
    let before = counting.commits
    let evaluations = 4
    for _ in 0..<evaluations {
        user.enqueue([.noMatch, .cancel])
        let context = authenticator.makeContext()
        _ = try? await context.evaluate(policy, reason: "bench")
    }
    return Double(counting.commits - before) / Double(evaluations)
}

/// An SQLite store that counts the transactions that wrote something (durable commits).
private final class CountingStorage: StorageBackend {
    static let descriptor = PluginDescriptor(
        id: "bench.counting", kind: .storage, summary: "storage.sqlite, counting commits",
        options: [OptionSpec("path", .string, "the database file")])
    private let inner: any StorageBackend
    private let count = Locked(0)

    init(options: PluginOptions, environment: PluginEnvironment) throws {
        inner = try PluginRegistry.builtIn.make(
            PluginSelection("storage.sqlite", options: ["path": options.string("path") ?? ""]),
            kind: .storage, environment: environment)
    }

    var commits: Int { count.withLock { $0 } }
    var location: String { inner.location }
    func read(_ key: RecordKey) throws -> Touchstone.Record? { try inner.read(key) }
    func list(namespace: RecordNamespace, prefix: String) throws -> [Touchstone.Record] { try inner.list(namespace: namespace, prefix: prefix) }
    func namespaces() throws -> [RecordNamespace] { try inner.namespaces() }
    var generation: UInt64 { get throws { try inner.generation } }

    func transaction<T: Sendable>(_ body: (inout StorageTransaction) throws -> T) throws -> T {
        try inner.transaction { transaction in
            let result = try body(&transaction)
            if !transaction.changes.isEmpty { count.withLock { $0 += 1 } }
            return result
        }
    }
}
