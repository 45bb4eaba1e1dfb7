import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `touchstone-bench repl`: time from process start to the REPL's first prompt (in a
/// pseudo-terminal, as a person would see it) and the throughput of a 10,000-command script,
/// each beside the same measure for `BenchHello`, a Swift executable that only prints and exits
/// (built the default way: the Swift runtime in shared libraries), and for `BenchHelloStatic`,
/// the same program linked as `touchstone` is (the Swift runtime linked in). The ratios are to
/// `BenchHello`, the issue's baseline; the `_static` lines show what the linking alone gives.
///
/// Prints `name value unit` lines. Goals (issue 3): first prompt within 50 ms in a release
/// build, the 10,000-command script in under 1 s.
func runReplBenchmark() async throws {
    let directory = Bundle.main.executableURL?.deletingLastPathComponent()
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let touchstone = directory.appendingPathComponent("touchstone")
    let hello = directory.appendingPathComponent("BenchHello")
    let helloStatic = directory.appendingPathComponent("BenchHelloStatic")
    for binary in [touchstone, hello, helloStatic] where !FileManager.default.isExecutableFile(atPath: binary.path) {
        throw ReplBenchmarkError("missing \(binary.path); build all products first (swift build -c release)")
    }
    let runs = 21

    // 1. Start to first prompt, in a pseudo-terminal.
    let prompts = try interleavedTimes(runs: runs, [
        { try timeToOutput(touchstone, arguments: ["--memory"], marker: "touchstone> ") },
        { try timeToOutput(hello, arguments: [], marker: "hello> ") },
        { try timeToOutput(helloStatic, arguments: [], marker: "hello> ") },
    ])
    let replPrompt = quantile(prompts[0], 0.5), helloPrompt = quantile(prompts[1], 0.5), helloStaticPrompt = quantile(prompts[2], 0.5)
    replReport("repl.first_prompt.median", replPrompt, "ms")
    replReport("repl.first_prompt.min", prompts[0].min() ?? 0, "ms")
    replReport("baseline.hello_first_output.median", helloPrompt, "ms")
    replReport("baseline.hello_static_first_output.median", helloStaticPrompt, "ms")
    replReport("repl.first_prompt.ratio_to_baseline", replPrompt / max(helloPrompt, 0.001), "x")
    replReport("repl.first_prompt.ratio_to_static_baseline", replPrompt / max(helloStaticPrompt, 0.001), "x")
    replReport("repl.first_prompt.goal", 50, "ms")

    // 2. A 10,000-command script.
    let script = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-bench-\(getpid()).touchstone")
    try makeScript(commands: 10_000).write(to: script, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: script) }
    let exits = try interleavedTimes(runs: 5, [
        { try timeToExit(touchstone, arguments: ["--memory", "--seed", "1", script.path]) },
        { try timeToExit(hello, arguments: []) },
        { try timeToExit(helloStatic, arguments: []) },
    ])
    let scriptTime = quantile(exits[0], 0.5), helloRun = quantile(exits[1], 0.5), helloStaticRun = quantile(exits[2], 0.5)
    replReport("repl.script_10000.median", scriptTime, "ms")
    replReport("repl.script_10000.per_command", scriptTime * 1000 / 10_000, "us")
    replReport("repl.script_10000.commands_per_second", 10_000 / (scriptTime / 1000), "cmd/s")
    replReport("baseline.hello_run.median", helloRun, "ms")
    replReport("baseline.hello_static_run.median", helloStaticRun, "ms")
    replReport("repl.script_10000.ratio_to_baseline", scriptTime / max(helloRun, 0.001), "x")
    replReport("repl.script_10000.ratio_to_static_baseline", scriptTime / max(helloStaticRun, 0.001), "x")
    replReport("repl.script_10000.goal", 1000, "ms")
}

/// Each measure's times over `runs` rounds, the measures taken in turn within a round so that
/// a noisy moment of the machine touches all of them alike.
private func interleavedTimes(runs: Int, _ measures: [() throws -> Double]) throws -> [[Double]] {
    var times = Array(repeating: [Double](), count: measures.count)
    for _ in 0..<runs {
        for (index, measure) in measures.enumerated() { times[index].append(try measure()) }
    }
    return times
}

struct ReplBenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private func replReport(_ name: String, _ value: Double, _ unit: String) {
    print("\(name) \(String(format: "%.2f", value)) \(unit)")
}


private func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    let (seconds, attoseconds) = elapsed.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

/// A script mixing the REPL's everyday commands: enrolment, can, evaluations with outcomes,
/// status, state, clock, expectations. One passcode set (a slow hash) at the top, with a low
/// PBKDF2 round count as a throwaway simulation would use.
private func makeScript(commands: Int) -> String {
    var lines = ["use passcode passcode.sim rounds=1000", "passcode set 1234", "enroll thumb", "baseline save"]
    let cycle = [
        "can biometrics", "expect ok",
        "evaluate biometrics \"Unlock\" thumb", "expect ok",
        "evaluate biometrics \"Unlock\" nomatch thumb", "status",
        "check", "clock advance 1s", "state", "device",
    ]
    var index = 0
    while lines.count < commands {
        lines.append(cycle[index % cycle.count])
        index += 1
    }
    return lines.joined(separator: "\n") + "\n"
}

/// Runs `executable` with output to /dev/null; milliseconds until it exits.
private func timeToExit(_ executable: URL, arguments: [String]) throws -> Double {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let start = ContinuousClock.now
    try process.run()
    process.waitUntilExit()
    let time = milliseconds(since: start)
    guard process.terminationStatus == 0 else {
        throw ReplBenchmarkError("\(executable.lastPathComponent) exited with \(process.terminationStatus)")
    }
    return time
}

/// Starts `executable` on a new pseudo-terminal; milliseconds until `marker` appears on it.
private func timeToOutput(_ executable: URL, arguments: [String], marker: String) throws -> Double {
    // posix_openpt/grantpt/unlockpt/ptsname are hidden from Swift's Glibc module: open the
    // multiplexer and use its ioctls (Linux) instead.
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    guard master >= 0 else { throw ReplBenchmarkError("cannot open /dev/ptmx") }
    defer { close(master) }
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard ioctl(master, UInt(0x4004_5431) /* TIOCSPTLCK */, &unlock) == 0,
          ioctl(master, UInt(0x8004_5430) /* TIOCGPTN */, &number) == 0 else {
        throw ReplBenchmarkError("cannot set up a pseudo-terminal")
    }
    let name = "/dev/pts/\(number)"
    let slave = open(name, O_RDWR | O_NOCTTY)
    guard slave >= 0 else { throw ReplBenchmarkError("cannot open \(name)") }
    let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["TERM"] = environment["TERM"] ?? "xterm"
    environment["NO_COLOR"] = "1"
    environment["XDG_STATE_HOME"] = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-bench-state").path
    process.environment = environment
    process.standardInput = terminal
    process.standardOutput = terminal
    process.standardError = terminal
    let start = ContinuousClock.now
    try process.run()
    var seen = [UInt8]()
    let wanted = Array(marker.utf8)
    var buffer = [UInt8](repeating: 0, count: 4096)
    var elapsed = 0.0
    reading: while true {
        var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 5_000) > 0 else { break reading }
        let count = read(master, &buffer, buffer.count)
        if count <= 0 { break reading }
        seen.append(contentsOf: buffer[0..<count])
        if seen.count >= wanted.count, contains(seen, wanted) {
            elapsed = milliseconds(since: start)
            break reading
        }
    }
    if process.isRunning { kill(process.processIdentifier, SIGHUP) }
    process.waitUntilExit()
    guard elapsed > 0 else { throw ReplBenchmarkError("\(executable.lastPathComponent) never printed \(marker)") }
    return elapsed
}

private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
        return true
    }
    return false
}
