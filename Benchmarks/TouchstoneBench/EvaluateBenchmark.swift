import BenchAllocationCounter
import Crypto
import Foundation
import TouchstoneBuiltins

/// `touchstone-bench evaluate`: successful biometric evaluations per second through the full
/// engine (simulated sensor, in-memory storage, domain state, trace), beside two floors
/// measured in the same run:
/// - the HMAC floor: one swift-crypto HMAC-SHA256 over the enrolled set (the domain-state
///   computation, done fresh every time) plus one direct sensor call;
/// - the sensor floor: the sensor call alone (the scripted person's queue and the capture),
///   the least any evaluation must do.
/// Both floors call the sensor as the engine's driver does: the awaited `capture` (the
/// scripted person's queued answer, returned without suspending).
/// Neither floor writes counters, checks rules, builds a trace or reads storage; the engine
/// does all of that on every evaluation (its domain-state value is derived once per device
/// state and app, which is why it can beat the HMAC floor).
///
/// Allocations per evaluation come from the bench's counting allocator hook
/// (`BenchAllocationCounter`). With `--concurrency`, N devices evaluate on N tasks at once.
func runEvaluateBenchmark(iterations: Int = 20_000, rounds: Int = 25, concurrency: [Int] = [1, 2, 4, 8]) async throws {
    let (authenticator, user) = try makeEnrolledBenchDevice()
    let context = authenticator.makeContext()
    let policy = try authenticator.policy(.biometrics)
    guard let sensor = authenticator.device.sensor else { return }

    // The floor's inputs: the same key, app id, epoch and template ids the engine hashes.
    let key = SymmetricKey(size: .bits256)
    let header = Array("biometry\u{0}\(authenticator.appID)\u{0}1".utf8)
    let templateIDs = [Array(RandomSource(seed: 1).hex(16).utf8)]
    let prompt = Prompt(kind: .biometric, reason: "Bench", fallbackButton: nil, cancelButton: "Cancel",
                        biometryType: .touchID, failuresSoFar: 0)

    // The sensor call as the engine's driver makes it.
    func capture() async throws -> CaptureResult {
        try await sensor.capture(prompt)
    }

    func engine(_ count: Int) async throws -> Duration {
        try await ContinuousClock().measure {
            for _ in 0..<count {
                user.enqueue(.present("thumb"))
                let result = try await context.evaluate(policy, reason: "Bench")
                guard result.methods.first == .biometry else { throw BenchmarkError.unexpected("\(result.methods)") }
            }
        }
    }

    func hmacFloor(_ count: Int) async throws -> Duration {
        var sink: UInt8 = 0
        let elapsed = try await ContinuousClock().measure {
            for _ in 0..<count {
                user.enqueue(.present("thumb"))
                guard case .matched = try await capture() else { throw BenchmarkError.unexpected("capture") }
                var hmac = HMAC<SHA256>(key: key)
                hmac.update(data: header)
                for id in templateIDs {
                    hmac.update(data: [0])
                    hmac.update(data: id)
                }
                sink ^= Data(hmac.finalize()).first ?? 0
            }
        }
        if sink == 0xFF { print("") }  // keeps the work observable
        return elapsed
    }

    func sensorFloor(_ count: Int) async throws -> Duration {
        try await ContinuousClock().measure {
            for _ in 0..<count {
                user.enqueue(.present("thumb"))
                guard case .matched = try await capture() else { throw BenchmarkError.unexpected("capture") }
            }
        }
    }

    // Profiling: TOUCHSTONE_BENCH_PROFILE=engine (or sensor_floor) runs only that loop, for
    // perf record or perf stat.
    switch ProcessInfo.processInfo.environment["TOUCHSTONE_BENCH_PROFILE"] {
    case "engine":
        _ = try await engine(iterations)
        return
    case "sensor_floor":
        _ = try await sensorFloor(iterations)
        return
    default:
        break
    }

    // The warm-up sizes the loops: each then runs about as long a round as `iterations`
    // evaluations of the engine take, so no loop is favoured by being shorter. The rounds
    // interleave the three loops, each round starting with the next loop in turn. The ratios
    // are paired: engine time over floor time per evaluation within one round, whose loops
    // ran back to back; their median over the rounds is the figure, with its quartiles. The
    // rates are each loop's best round (interference only adds time). This 2-core VM's speed
    // drifts by ±30% within seconds: the ratio of the best of 3 long rounds, as before, moved
    // from 0.25 to 0.46 over three runs of one binary.
    let measured: [(name: String, run: (Int) async throws -> Duration)] = [
        ("engine", engine), ("floor", hmacFloor), ("sensor_floor", sensorFloor),
    ]
    var cost: [String: Double] = [:]  // seconds per evaluation, from the warm-up
    for (name, run) in measured {
        let warmUp = max(1, iterations / 10)
        cost[name] = try await run(warmUp).seconds / Double(warmUp)
    }
    let roundSeconds = (cost["engine"] ?? 0) * Double(iterations)
    func count(_ name: String) -> Int {
        guard let each = cost[name], each > 0, roundSeconds > 0 else { return iterations }
        return max(1_000, min(10 * iterations, Int(roundSeconds / each)))
    }
    var best: [String: Double] = [:]  // seconds per evaluation, best round
    var floorRatios: [Double] = [], sensorRatios: [Double] = []
    for round in 0..<rounds {
        var times: [String: Double] = [:]
        for offset in measured.indices {
            let (name, run) = measured[(round + offset) % measured.count]
            let evaluations = count(name)
            let each = try await run(evaluations).seconds / Double(evaluations)
            times[name] = each
            best[name] = min(best[name] ?? .infinity, each)
        }
        if let engineTime = times["engine"], let floorTime = times["floor"], let sensorTime = times["sensor_floor"] {
            floorRatios.append(engineTime / floorTime)
            sensorRatios.append(engineTime / sensorTime)
        }
    }
    func rate(_ name: String) -> Double { best[name].map { 1 / $0 } ?? 0 }
    let engineRate = rate("engine")
    for (name, _) in measured {
        report("evaluate.\(name).rate", rate(name), "evaluations/s")
    }
    for (name, _) in measured {
        report("evaluate.\(name).latency", (best[name] ?? 0) * 1e9, "ns")
    }
    // Engine time over floor time (lower is better): the median of the paired rounds and
    // its quartiles.
    let floorRatio = quantile(floorRatios, 0.5), sensorRatio = quantile(sensorRatios, 0.5)
    report("evaluate.ratio", floorRatio, "x")
    report("evaluate.ratio.p25", quantile(floorRatios, 0.25), "x")
    report("evaluate.ratio.p75", quantile(floorRatios, 0.75), "x")
    report("evaluate.sensor_ratio", sensorRatio, "x")
    report("evaluate.sensor_ratio.p25", quantile(sensorRatios, 0.25), "x")
    report("evaluate.sensor_ratio.p75", quantile(sensorRatios, 0.75), "x")

    // Allocations per evaluation, counted over a shorter run of each.
    let counted = min(iterations, 10_000)
    for (name, run) in measured {
        bench_allocation_reset()
        bench_allocation_counting(1)
        _ = try await run(counted)
        bench_allocation_counting(0)
        report("evaluate.\(name).allocations", Double(bench_allocation_count()) / Double(counted), "allocations/evaluation")
    }

    // Goals (1 = met, 0 = missed): at least 1,000,000 evaluations/s; the speed budget of the
    // state-machine engine (issue 37): at most 0.3x the HMAC floor's time, within 3.5x of the
    // sensor floor.
    report("evaluate.goal.rate_at_least_1000000", engineRate >= 1_000_000 ? 1 : 0, "met")
    report("evaluate.goal.ratio_at_most_0.3", floorRatio <= 0.3 ? 1 : 0, "met")
    report("evaluate.goal.sensor_ratio_at_most_3.5", sensorRatio <= 3.5 ? 1 : 0, "met")

    for tasks in concurrency {
        try await runConcurrentEvaluations(tasks: tasks, iterations: 50_000)
    }
}

/// `evaluate.concurrency.N.rate`: N devices, each with its own in-memory store and context,
/// evaluating on N tasks at once (one device shows one prompt at a time: a second evaluation
/// on the same device cancels the first, REFERENCE §5). Shows whether anything device-wide is
/// shared across devices; on this 2-core machine the rate cannot grow past 2 tasks. The best of
/// three rounds, as for the single-context figures (one round moved by ±30% on this VM).
func runConcurrentEvaluations(tasks: Int, iterations: Int, rounds: Int = 3) async throws {
    let devices = try (0..<tasks).map { _ in try makeEnrolledBenchDevice() }
    let perTask = max(1, iterations / tasks)
    var best = Duration.seconds(1_000)
    for _ in 0..<rounds {
        best = min(best, try await concurrentRound(devices, perTask: perTask))
    }
    report("evaluate.concurrency.\(tasks).rate", Double(perTask * tasks) / best.seconds, "evaluations/s")
}

/// One round of ``runConcurrentEvaluations(tasks:iterations:rounds:)``: its duration.
private func concurrentRound(_ devices: [(Authenticator, ScriptedInteraction)], perTask: Int) async throws -> Duration {
    try await ContinuousClock().measure {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (authenticator, user) in devices {
                group.addTask {
                    let context = authenticator.makeContext()
                    let policy = try authenticator.policy(.biometrics)
                    for _ in 0..<perTask {
                        user.enqueue(.present("thumb"))
                        _ = try await context.evaluate(policy, reason: "Bench")
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

enum BenchmarkError: Error, CustomStringConvertible {
    case unexpected(String)
    var description: String {
        switch self {
        case let .unexpected(what): "benchmark saw an unexpected result: \(what)"
        }
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The `q` quantile of `values` (0.5: the median), interpolated between the two nearest; 0
/// for none.
func quantile(_ values: [Double], _ q: Double) -> Double {
    let sorted = values.sorted()
    guard let first = sorted.first else { return 0 }
    let position = q * Double(sorted.count - 1)
    let below = Int(position.rounded(.down))
    guard below + 1 < sorted.count else { return sorted.last ?? first }
    let fraction = position - Double(below)
    return sorted[below] + (sorted[below + 1] - sorted[below]) * fraction
}

/// Prints one metric as `name value unit`.
func report(_ name: String, _ value: Double, _ unit: String) {
    let formatted = value >= 100 || value == value.rounded() ? String(format: "%.0f", value) : String(format: "%.3f", value)
    print("\(name) \(formatted) \(unit)")
}

/// The in-memory device the engine benchmarks share: seed 1, a passcode, one enrolled finger
/// ("thumb"), and the scripted user that answers its prompts.
func makeEnrolledBenchDevice() throws -> (Authenticator, ScriptedInteraction) {
    var builder = AuthenticatorBuilder(registry: .builtIn)
    builder.composition.seed = 1
    try builder.use(.passcode, "passcode.sim", options: ["rounds": "1000"])
    let user = ScriptedInteraction()
    let authenticator = try builder.build(interaction: user)
    try authenticator.device.setPasscode("1234")
    try authenticator.device.enroll("thumb")
    return (authenticator, user)
}
