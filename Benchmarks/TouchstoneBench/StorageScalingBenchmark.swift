import Foundation
import TouchstoneBuiltins

/// The second half of `touchstone-bench storage` (issue 8 §4): what opening a store and one
/// durable write cost as the store grows, on both file backends.
///
/// For each backend a store is filled with 0 (the baseline), 100, 10,000, 20,000 and 100,000
/// records in one transaction, closed, and then:
/// - `open`: the best of several opens (create the backend, read one record), and
/// - `write`: the mean of a run of one-record commits (a new keychain-sized record each),
/// are measured and printed beside the empty-store figure as a ratio. Goals: SQLite opens
/// within 1.25x of empty at 20,000 records; an encrypted-file write costs within 3x from 100
/// to 5,000 records (printed as `write.ratio_100_to_5000`).
func runStorageScalingBenchmark(sizes: [Int] = [0, 100, 5_000, 10_000, 20_000, 100_000]) throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-bench-scaling-\(getpid())")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }

    for backend in ["storage.sqlite", "storage.encrypted-file"] {
        let short = backend.replacingOccurrences(of: "storage.", with: "")
        var open: [Int: Double] = [:]
        var write: [Int: Double] = [:]
        for size in sizes {
            let directory = root.appendingPathComponent("\(short)-\(size)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let selection = scalingSelection(backend, in: directory)
            try fill(selection, records: size)
            open[size] = try bestOpenSeconds(selection, runs: 7)
            write[size] = try meanWriteSeconds(selection)
            try? FileManager.default.removeItem(at: directory)
        }
        let emptyOpen = open[0] ?? .nan
        let emptyWrite = write[0] ?? .nan
        for size in sizes {
            let label = size == 0 ? "empty" : "\(size)"
            scalingReport("storage.\(short).open.\(label)", (open[size] ?? .nan) * 1e3, "ms")
            scalingReport("storage.\(short).write.\(label)", (write[size] ?? .nan) * 1e3, "ms")
            if size > 0 {
                scalingReport("storage.\(short).open.\(label).ratio_to_empty", (open[size] ?? .nan) / emptyOpen, "x")
                scalingReport("storage.\(short).write.\(label).ratio_to_empty", (write[size] ?? .nan) / emptyWrite, "x")
            }
        }
        if let small = write[100], let large = write[5_000] {
            scalingReport("storage.\(short).write.ratio_100_to_5000", large / small, "x")
        }
    }
    scalingReport("storage.sqlite.open.goal_ratio_at_20000", 1.25, "x")
    scalingReport("storage.encrypted-file.write.goal_ratio_100_to_5000", 3, "x")
}

private func scalingReport(_ name: String, _ value: Double, _ unit: String) {
    print("\(name) \(String(format: "%.3f", value)) \(unit)")
}

private func scalingSelection(_ backend: String, in directory: URL) -> PluginSelection {
    switch backend {
    case "storage.encrypted-file":
        return PluginSelection(backend, options: ["path": directory.appendingPathComponent("device.store").path,
                                                  "key-file": directory.appendingPathComponent("device.key").path])
    default:
        return PluginSelection(backend, options: ["path": directory.appendingPathComponent("device.sqlite").path])
    }
}

private func openBackend(_ selection: PluginSelection) throws -> any StorageBackend {
    let environment = PluginEnvironment(clock: VirtualClock(), random: RandomSource(seed: 1), interaction: ScriptedInteraction())
    return try PluginRegistry.builtIn.make(selection, kind: .storage, as: (any StorageBackend).self, environment: environment)
}

/// A keychain-sized record: a 200-byte value and the attributes an item carries.
private func benchRecord(_ name: String) -> Record {
    Record(key: RecordKey("keychain", name), value: Data(repeating: 0x61, count: 200),
           attributes: ["service": "bench", "account": name, "accessible": "whenUnlocked"])
}

/// Fills a new store with `records` records in one transaction and closes it.
private func fill(_ selection: PluginSelection, records: Int) throws {
    let backend = try openBackend(selection)
    guard records > 0 else { return }
    try backend.transaction { transaction in
        for index in 0..<records { transaction.put(benchRecord("item-\(index)")) }
    }
}

private func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// The best of `runs` opens, each followed by one read (what a device does first).
private func bestOpenSeconds(_ selection: PluginSelection, runs: Int) throws -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        best = min(best, try seconds {
            let backend = try openBackend(selection)
            _ = try backend.read(RecordKey("keychain", "item-0"))
        })
    }
    return best
}

/// The mean cost of one-record commits: at least 5 and at most 200 of them, stopping after
/// about 1.5 s so that a backend whose writes grow with the store still finishes.
private func meanWriteSeconds(_ selection: PluginSelection) throws -> Double {
    let backend = try openBackend(selection)
    var total = 0.0
    var count = 0
    while count < 200, count < 5 || total < 1.5 {
        total += try seconds { try backend.commit([.put(benchRecord("write-\(count)"))]) }
        count += 1
    }
    return total / Double(count)
}
