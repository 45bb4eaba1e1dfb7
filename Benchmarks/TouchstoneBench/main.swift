// touchstone-bench: Touchstone's benchmarks. Each prints one metric per line as
// `name value unit`, measures its baseline in the same run and prints the ratio.
//
//   swift run -c release touchstone-bench evaluate   # engine vs. HMAC + sensor floor and sensor-only
//                                                    # floor, allocations, 1/2/4/8 concurrent devices
//   swift run -c release touchstone-bench evaluate --concurrency 1,4   # only these task counts
//   swift run -c release touchstone-bench repl       # REPL start-up and script throughput
//   swift run -c release touchstone-bench storage    # keychain on each backend vs. raw GRDB, then open
//                                                    # and write cost by store size vs. empty
//   swift run -c release touchstone-bench storage-scaling   # only the second half
//   swift run -c release touchstone-bench keys       # Secure Enclave signing vs. bare P-256 signing
//   swift run -c release touchstone-bench security   # SecItemCopyMatching / SecItemUpdate vs. the Keychain API
//   swift run -c release touchstone-bench appattest  # App Attest attestation and assertion vs. bare P-384 / P-256 signing
//   swift run -c release touchstone-bench all
//   TOUCHSTONE_BENCH_PROFILE=engine TOUCHSTONE_BENCH_ITERATIONS=3000000 \
//     .build/release/touchstone-bench evaluate   # only the engine loop (or sensor_floor), for perf
//   TOUCHSTONE_BENCH_PROFILE=keychain-sqlite TOUCHSTONE_BENCH_ITERATIONS=20000 \
//     .build/release/touchstone-bench storage    # only that backend's keychain loops (or keychain-memory)

import Foundation

let benchmarks = ["evaluate", "repl", "storage", "keys", "security", "appattest"]
var requested = Array(CommandLine.arguments.dropFirst())
var concurrency = [1, 2, 4, 8]
if let flag = requested.firstIndex(of: "--concurrency") {
    let values = flag + 1 < requested.count ? requested[flag + 1].split(separator: ",").compactMap { Int($0) } : []
    guard !values.isEmpty, values.allSatisfy({ (1...64).contains($0) }) else {
        FileHandle.standardError.write(Data("--concurrency takes task counts from 1 to 64, such as 1,2,4,8\n".utf8))
        exit(2)
    }
    concurrency = values
    requested.removeSubrange(flag...min(flag + 1, requested.count - 1))
}
let selection = requested.isEmpty || requested == ["all"] ? benchmarks : requested

#if DEBUG
print("warning: this is a debug build; run benchmarks with `swift run -c release touchstone-bench`")
#endif

do {
    for name in selection {
        switch name {
        case "evaluate":
            // TOUCHSTONE_BENCH_ITERATIONS shortens the run (for profilers such as callgrind).
            if let text = ProcessInfo.processInfo.environment["TOUCHSTONE_BENCH_ITERATIONS"], let count = Int(text), count > 0 {
                try await runEvaluateBenchmark(iterations: count, rounds: 1, concurrency: concurrency)
            } else {
                try await runEvaluateBenchmark(concurrency: concurrency)
            }
        case "repl": try await runReplBenchmark()
        case "storage":
            try await runStorageBenchmark()
            if !isProfilingKeychain { try runStorageScalingBenchmark() }
        case "storage-scaling": try runStorageScalingBenchmark()
        case "keys": try await runKeysBenchmark()
        case "security": try await runSecurityBenchmark()
        case "appattest": try runAppAttestBenchmark()
        default:
            FileHandle.standardError.write(Data("unknown benchmark '\(name)'; known: \(benchmarks.joined(separator: ", ")), storage-scaling, all\n".utf8))
            exit(2)
        }
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
