import Foundation
import Testing

/// Where the pseudo-terminal driver and python are.
enum PTYDriver {
    static let script = Binary.packageRoot.appendingPathComponent("Tests/pty/pty_session.py")
    static let python: URL? = ["/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"]
        .map { URL(fileURLWithPath: $0) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
}

/// The interactive REPL in a pseudo-terminal, driven by `Tests/pty/pty_session.py`: TAB
/// completion, Ctrl-C, Ctrl-D, history across restarts, no echo and no history for passcodes.
/// Without python3 (scripts/install-deps.sh installs it) or the built binary every test fails
/// saying which is missing: never a silent skip.
@Suite(.serialized)
struct TerminalTests {
    static let driver = PTYDriver.script
    static let python = PTYDriver.python

    /// A fresh state directory, so history starts empty.
    let state: URL = FileManager.default.temporaryDirectory
        .appendingPathComponent("touchstone-pty-\(getpid())-\(UUID().uuidString)")

    var historyFile: URL { state.appendingPathComponent("touchstone/history") }

    /// Runs the steps (JSON array text); fails the test with the transcript when a step fails.
    @discardableResult
    func drive(_ steps: String, driverOptions: [String] = []) throws -> String {
        let python = try #require(Self.python, "python3 is needed to drive the pseudo-terminal: run scripts/install-deps.sh")
        let binary = try #require(Binary.touchstone, "the touchstone binary was not found: build the package first (swift build)")
        let run = try Binary.run(python, [Self.driver.path] + driverOptions + [
            "--timeout", "20", "--env", "XDG_STATE_HOME=\(state.path)", "--env", "XDG_DATA_HOME=\(state.path)/data-\(UUID().uuidString)", "--env", "NO_COLOR=1",
            "--steps", steps, "--", binary.path, "--memory", "--seed", "1",
        ])
        if run.status != 0 { Issue.record("pty session failed:\n\(run.output)") }
        return run.output
    }

    func history() -> String {
        (try? String(contentsOf: historyFile, encoding: .utf8)) ?? ""
    }

    @Test func tabCompletesCommandsPoliciesAndEnrolledNames() throws {
        defer { try? FileManager.default.removeItem(at: state) }
        try drive(#"""
            [{"expect": "touchstone> "},
             {"send": "enr\t"}, {"expect": "enroll "}, {"send": "thumb\r"}, {"expect": "enrolled thumb"},
             {"expect": "touchstone> "}, {"send": "unenroll th\t"}, {"expect": "unenroll thumb "},
             {"key": "ctrl-c"}, {"expect": "touchstone> "},
             {"send": "use sensor sim.fa\t"}, {"expect": "sim.faceid "}, {"send": "hard\t"}, {"expect": "hardware="},
             {"key": "ctrl-c"}, {"expect": "touchstone> "},
             {"send": "can deviceOwnerAuthenticationWithB\t"}, {"expect": "deviceOwnerAuthenticationWithBiometrics"},
             {"key": "ctrl-c"}, {"expect": "touchstone> "},
             {"key": "ctrl-d"}, {"exit": 0}]
            """#)
    }

    /// A parent may start the REPL with terminal signals blocked (Foundation's `Process`
    /// spawns from dispatch threads, which block nearly all of them). A hang-up must still end
    /// the session, and a resize still reach the editor, while it waits at the prompt.
    @Test func aHangUpEndsTheSessionEvenWhenTheParentBlockedIt() throws {
        defer { try? FileManager.default.removeItem(at: state) }
        try drive(#"""
            [{"expect": "touchstone> "}, {"signal": "WINCH"}, {"send": "status\r"}, {"expect": "consecutive failures"},
             {"expect": "touchstone> "}, {"signal": "HUP"}, {"exit": -1, "timeout": 5}]
            """#, driverOptions: ["--block-signals", "HUP,TERM,WINCH,TSTP,CONT,QUIT"])
    }

    @Test func ctrlCClearsTheLineAndCtrlDLeaves() throws {
        defer { try? FileManager.default.removeItem(at: state) }
        let output = try drive(#"""
            [{"expect": "touchstone> "},
             {"send": "enroll never"}, {"key": "ctrl-c"}, {"expect": "^C"}, {"expect": "touchstone> "},
             {"send": "device\r"}, {"expect": "enrolled: none"},
             {"expect": "touchstone> "}, {"key": "ctrl-d"}, {"exit": 0}]
            """#)
        #expect(!output.contains("enrolled never"))
    }

    @Test func historyIsRecalledAfterARestart() throws {
        defer { try? FileManager.default.removeItem(at: state) }
        try drive(#"""
            [{"expect": "touchstone> "}, {"send": "enroll résumé\r"}, {"expect": "enrolled résumé"},
             {"expect": "touchstone> "}, {"send": "quit\r"}, {"exit": 0}]
            """#)
        #expect(history().contains("enroll"))
        try drive(#"""
            [{"expect": "touchstone> "}, {"key": "up"}, {"expect": "quit"}, {"key": "up"}, {"expect": "enroll résumé"}, {"send": "\r"},
             {"expect": "enrolled résumé"}, {"expect": "touchstone> "}, {"key": "ctrl-d"}, {"exit": 0}]
            """#)
    }

    @Test func passcodesAreNotEchoedAndNotInHistory() throws {
        defer { try? FileManager.default.removeItem(at: state) }
        try drive(#"""
            [{"expect": "touchstone> "}, {"send": "use passcode passcode.sim rounds=1000\r"}, {"expect": "device kept"},
             {"expect": "touchstone> "}, {"send": "passcode set\r"}, {"expect": "new passcode: "},
             {"send": "271828\r"}, {"expect": "passcode set"}, {"absent": "271828"},
             {"expect": "touchstone> "}, {"send": "enroll thumb\r"}, {"expect": "enrolled thumb"},
             {"expect": "touchstone> "}, {"send": "evaluate owner \"Pay\"\r"}, {"expect": "outcome> "},
             {"send": "cancel\r"}, {"expect": "userCancel (-2)"},
             {"expect": "touchstone> "}, {"send": "evaluate owner \"Pay\"\r"}, {"expect": "outcome> "},
             {"send": "nomatch\r"}, {"expect": "outcome> "}, {"send": "fallback\r"}, {"expect": "passcode (empty"},
             {"send": "271828\r"}, {"expect": "succeeded by passcode"}, {"absent": "271828"},
             {"expect": "touchstone> "}, {"send": "passcode enter 314159\r"}, {"expect": "passcode rejected"},
             {"expect": "touchstone> "}, {"send": "evaluate owner \"Pay\" passcode:161803\r"}, {"expect": "touchstone> "},
             {"send": "quit\r"}, {"exit": 0}]
            """#)
        let saved = history()
        #expect(saved.contains("enroll"))
        #expect(!saved.contains("271828"))
        #expect(!saved.contains("314159"))
        #expect(!saved.contains("161803"))
    }

    @Test func aMistypedOutcomeAtTheOutcomePromptIsAskedAgainWithoutCountingAFailure_evaluateWithoutAReasonAsks() throws {
        defer { try? FileManager.default.removeItem(at: state) }
        try drive(#"""
            [{"expect": "touchstone> "}, {"send": "use passcode passcode.sim rounds=1000\r"}, {"expect": "device kept"},
             {"expect": "touchstone> "}, {"send": "passcode set 1234\r"}, {"expect": "passcode set"},
             {"expect": "touchstone> "}, {"send": "enroll thumb\r"}, {"expect": "enrolled thumb"},
             {"expect": "touchstone> "}, {"send": "evaluate biometrics\r"}, {"expect": "prompt: \"Touchstone\""}, {"expect": "outcome> "},
             {"send": "thum\r"}, {"expect": "did you mean thumb?"}, {"expect": "outcome> "},
             {"send": "thumb\r"}, {"expect": "succeeded by biometry (thumb)"},
             {"expect": "touchstone> "}, {"send": "status\r"}, {"expect": "0 of 5 consecutive failures"},
             {"expect": "touchstone> "}, {"send": "quit\r"}, {"exit": 0}]
            """#)
    }
}
