import Foundation
import Testing
import TestSupport
import Touchstone
import TouchstoneBuiltins
@testable import TouchstoneCommands
@testable import TouchstoneREPL

/// Seeded fuzzing of the REPL through the in-process session: lines built from the REPL's own
/// vocabulary, then mutated (huge, negative and malformed numbers, unicode, control
/// characters, megabyte lines, unknown plugins and options). The process must not trap, and
/// every line must give exactly one result: a success or an error with a message.
@Suite("Fuzzing")
struct FuzzTests {
    typealias Generator = SeededGenerator

    /// Well-formed lines of every command (the seeds the mutations start from). Passcode and
    /// storage plugins keep cheap options and a private directory, so the run stays fast and
    /// writes nowhere else.
    static func seedLines(directory: String) -> [String] {
        [
            "passcode set 1234", "passcode enter 1234", "passcode enter 9999", "passcode clear", "passcode status",
            "enroll thumb", "enroll index", "unenroll thumb", "reenroll index", "enroll ring",
            #"evaluate biometrics "Unlock" thumb"#, #"evaluate biometrics "x" nomatch nomatch nomatch"#,
            #"evaluate owner "x" nomatch passcode:1234"#, #"evaluate biometrics "x" wait:5m cancel"#,
            #"evaluate companion "x" companion"#, #"evaluate biometrics "x" systemcancel"#,
            "can biometrics", "can owner", "can companion", "status", "device", "state", "trace", "help", "help evaluate",
            "clock", "clock advance 5m", "clock advance 90s", "clock advance 1h30m",
            "context new", "context set reuse 60s", "context set fallback-title Other", "context set cancel-title \"\"",
            "context set interaction allowed", "context set credential secret", "context invalidate", "context show",
            "baseline save", "baseline clear", "check", "os-upgrade", "unlock thumb",
            "keychain add svc acct value", "keychain add svc acct2 value access=biometryCurrentSet",
            #"keychain get svc acct thumb"#, "keychain list", "keychain delete svc acct",
            "sensor hardware absent", "sensor hardware present", "app com.example.other", "app com.example.app",
            "use sensor sim.faceid", "use sensor sim.touchid removable=true", "use companion sim.companion type=mac",
            "use passcode passcode.sim rounds=1000 min-length=4", "use detector detector.events",
            "use storage storage.memory", "use storage storage.sqlite path=\(directory)/fuzz.sqlite busy-timeout=1s",
            "use policy policy.biometrics", "plugins", "plugins sensor", "config",
            "expect ok", "expect error biometryLockout", "expect output thumb",
        ]
    }

    /// Replacement words that tend to break parsers.
    static let hostileWords = [
        "999999999999999999m", "5m9223372036854775807s", "999999999999999999h", "9223372036854775807",
        "-9223372036854775808", "18446744073709551616", "-1", "0", "-0", "1e308", "NaN", "0x10", "1m30",
        "wait:999999999999999999m", "wait:-5s", "passcode:", "passcode:\u{0}", "rounds=999999999999",
        "rounds=-1", "busy-timeout=999999999999999999d", "min-length=0", "hardware=broken", "nosuch=1",
        "sim.nothing", "storage.nothing", "\u{202E}reversed", "é", "👍🏽", "\u{7}", "\u{1B}[2J", "\t", "\"", "'",
        "\\", "\"unterminated", "''", "\"\"", "a=b=c", "=", ":", "thumb:", String(repeating: "x", count: 70),
    ]

    /// One mutated line: a seed line with some words replaced, dropped, duplicated or garbled.
    static func mutate(_ line: String, using generator: inout Generator) -> String {
        var words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            guard !words.isEmpty else { break }
            let index = Int.random(in: 0..<words.count, using: &generator)
            switch Int.random(in: 0..<7, using: &generator) {
            case 0: words[index] = hostileWords.randomElement(using: &generator) ?? ""
            case 1: words.remove(at: index)
            case 2: words.insert(words[index], at: index)
            case 3: words[index] = String(words[index].shuffled(using: &generator))
            case 4:
                let number = [Int64.max, Int64.min, Int64.random(in: .min ... .max, using: &generator), 0, -1][Int.random(in: 0..<5, using: &generator)]
                let units = ["", "s", "m", "h", "d", "ms", "min", "y"]
                words[index] = String(number) + (units.randomElement(using: &generator) ?? "")
            case 5:
                let scalar = Unicode.Scalar(UInt32.random(in: 0...0x2FFFF, using: &generator)) ?? "?"
                words[index].insert(Character(scalar), at: words[index].startIndex)
            default: words.append(hostileWords.randomElement(using: &generator) ?? "")
            }
        }
        return words.joined(separator: " ")
    }

    @Test("20,000 mutated REPL lines: no trap, exactly one result each")
    func mutatedLinesNeverCrash() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-fuzz-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var composition = Composition()
        composition.seed = 1
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        let session = try CommandSession(composition: composition)
        let seeds = Self.seedLines(directory: directory)
        var generator = Generator(state: 20_251_122)
        var successes = 0, errors = 0
        for index in 0..<20_000 {
            let line: String
            switch index % 10 {
            case 0: line = seeds[index / 10 % seeds.count]                          // keep the device busy
            case 9 where index % 4_000 == 9: line = "enroll " + String(repeating: "é", count: 1 << 19)  // a 1 MB line
            default: line = Self.mutate(seeds.randomElement(using: &generator) ?? "help", using: &generator)
            }
            let record = await session.execute(line)
            switch record.outcome {
            case .success: successes += 1
            case let .failure(report):
                errors += 1
                #expect(!report.message.isEmpty, "line \(index): an error without a message")
            }
        }
        print("fuzz: 20000 lines, \(successes) succeeded, \(errors) errors, 0 traps")
        #expect(successes + errors == 20_000)
        #expect(successes > 1_000, "the device stayed usable")
    }

    @Test("the numbers that used to trap are range errors naming the command", arguments: [
        ("clock advance 999999999999999999m", "clock"),
        ("clock advance 5m9223372036854775807s", "clock"),
        ("context set reuse 999999999999999999h", "context"),
        (#"evaluate biometrics "x" wait:999999999999999999m"#, "evaluate"),
        ("use storage storage.sqlite path=/tmp/never.sqlite busy-timeout=999999999999999999d", "use"),
    ])
    func formerTrapsAreErrors(_ line: String, _ command: String) async throws {
        var composition = Composition()
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        let record = await (try CommandSession(composition: composition)).execute(line)
        guard case let .failure(report) = record.outcome else {
            Issue.record("'\(line)' succeeded")
            return
        }
        #expect(record.command == command)
        #expect(report.message.contains("36500d"), "the message gives the allowed range: \(report.message)")
    }

    @Test("the virtual clock stops at its limit instead of wrapping, and a restart keeps the time")
    func clockNeverWraps() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-clock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var composition = Composition()
        composition.storage = PluginSelection("storage.sqlite", options: ["path": directory.appendingPathComponent("d.sqlite").path])
        do {
            let session = try CommandSession(composition: composition)
            #expect(await session.execute("clock advance 36500d").ok)
            let tooFar = await session.execute("clock advance 36500d")
            #expect(!tooFar.ok, "past the clock's last reading, a day short of the 73000-day limit")
            #expect(tooFar.text.contains("advance by at most 36499d"))
            #expect(await session.execute("clock advance 36499d").ok)
            let refused = await session.execute("clock advance 1s")
            #expect(!refused.ok, "past the clock's last reading")
            #expect(refused.text.contains("cannot go past"))
            // 9,300,000,000 s is past the limit too: refused, not wrapped.
            #expect(!(await session.execute("clock advance 9300000000").ok))
        }
        let restarted = try CommandSession(composition: composition)
        #expect(await restarted.execute("clock").text.contains("t+72999d"))
    }

    /// A session with passcode 1234 and `thumb` enrolled, its clock as far as it goes (a second
    /// 36500d used to reach the 73000-day limit itself; now it is refused and 36499d gets there).
    private func sessionAtClockEnd() async throws -> CommandSession {
        var composition = Composition()
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        let session = try CommandSession(composition: composition)
        #expect(await session.execute("passcode set 1234").ok)
        #expect(await session.execute("enroll thumb").ok)
        #expect(await session.execute("clock advance 36500d").ok)
        _ = await session.execute("clock advance 36500d")
        _ = await session.execute("clock advance 36499d")
        #expect(!(await session.execute("clock advance 1s").ok))
        return session
    }

    @Test("passcode.delay-ladder at the clock's last reading: the delay still holds")
    func passcodeDelayAtClockLimit() async throws {
        let session = try await sessionAtClockEnd()
        for index in 1...5 {
            #expect(await session.execute("passcode enter 000\(index)").text.contains("passcode rejected (\(index) wrong)"))
        }
        // The fifth wrong passcode started a one-minute delay. Before, its deadline was cut to
        // the clock's own limit, so it ended at once and every entry was checked.
        let refused = await session.execute("passcode enter 0006")
        #expect(refused.text.contains("1m remaining"), "\(refused.text)")
        // Time stops at the clock's last reading, so the delay never runs out.
        #expect(!(await session.execute("clock advance 1m").ok))
        #expect(await session.execute("passcode enter 1234").text.contains("1m remaining"))
    }

    @Test("wait: past the clock's last reading is refused, not cut short")
    func waitPastClockLimit() async throws {
        let session = try await sessionAtClockEnd()
        let refused = await session.execute(#"evaluate biometrics "x" wait:1s thumb"#)
        #expect(!refused.ok)
        #expect(refused.text.contains("cannot go past"), "\(refused.text)")
        #expect(!(await session.execute("trace").text.contains("waited")))
        #expect(await session.execute("clock").text.contains("t+72999d"))
    }

    @Test("enrolling past the sensor's limit is a clear error, and cheap")
    func enrollmentIsCapped() async throws {
        var composition = Composition()
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        let session = try CommandSession(composition: composition)
        for index in 0..<Device.maximumIdentities {
            #expect(await session.execute("enroll finger\(index)").ok)
        }
        let refused = await session.execute("enroll one-too-many")
        #expect(refused.error?.name == "tooManyIdentities")
        #expect(refused.text.contains("at most 10"))
    }
}
