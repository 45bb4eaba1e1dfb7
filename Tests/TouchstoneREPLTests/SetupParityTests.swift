import Foundation
import LocalAuthentication
import Testing
import Touchstone
import TouchstoneBuiltins
@testable import TouchstoneCommands

/// `TOUCHSTONE_SETUP` and the REPL run their lines through one command layer: the same lines
/// leave the same device behind, whichever path ran them.
@Suite("TOUCHSTONE_SETUP and the REPL share one command layer") struct SetupParityTests {
    /// A composition both paths build: in memory, seeded, a fast passcode.
    static func composition() -> Composition {
        var composition = Composition()
        composition.seed = 7
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        return composition
    }

    /// Lines valid in both: device, passcode, evaluations (quoted reason or none), time,
    /// keychain for two apps, an OS upgrade, an enrollment change, a baseline.
    static let lines = [
        "# a comment line, skipped by both",
        "passcode set 1234",
        "enroll thumb",
        "enroll index",
        "baseline save",
        "evaluate biometrics 'Unlock notes' nomatch",  // TOUCHSTONE_SETUP used to fail here with Touchstone (3)
        #"evaluate biometrics "Unlock notes" nomatch nomatch nomatch"#,
        "evaluate biometrics nomatch",  // the fifth failure: biometry locked out
        "clock advance 5m",
        "keychain add api alice s3cret access=biometryCurrentSet",
        "app com.example.other",
        "keychain add notes pin 4321",
        "app com.example.app",
        "passcode enter 0000",
        "clock advance 90s",
        "os-upgrade",
        "unenroll index",
    ]

    /// What the device looks like, read through the core and through the layer's commands.
    struct Snapshot: Equatable, CustomStringConvertible {
        var enrolled: [String]
        var biometry: String
        var passcode: String
        var passcodeSet: Bool
        var now: Timestamp
        var savedTime: Timestamp?
        var keychainRecords: [String]
        var readings: [String]

        var description: String {
            ([enrolled.joined(separator: ","), biometry, passcode, "\(passcodeSet)", "\(now)", "\(savedTime.map(String.init(describing:)) ?? "nil")"]
                + keychainRecords + readings).joined(separator: "\n")
        }
    }

    static func snapshot(_ authenticator: Authenticator) async throws -> Snapshot {
        let device = authenticator.device
        let saved = try device.storage.read(Device.virtualTimeRecord).map { try JSONDecoder().decode(Timestamp.self, from: $0.value) }
        let session = try CommandSession(authenticator: authenticator)
        var readings: [String] = []
        for line in ["keychain list", "keychain get api alice", "baseline list", "check", "status", "app com.example.other", "keychain list", "keychain get notes pin"] {
            readings.append("\(line) -> \(await session.execute(line).text)")
        }
        return Snapshot(
            enrolled: try device.enrolledNames(),
            biometry: Format.biometry(try device.biometryStatus()),
            passcode: Format.passcode(try device.passcodeStatus()),
            passcodeSet: try device.isPasscodeSet,
            now: device.clock.now,
            savedTime: saved,
            keychainRecords: try device.storage.list(namespace: Keychain.namespace).map { "\($0.key)" }.sorted(),
            readings: readings)
    }

    /// The device built the way a program using `LocalAuthentication` gets it, with `setup` as
    /// `TOUCHSTONE_SETUP`; on a GCD thread, since the setup blocks its thread while the
    /// asynchronous commands run, which must not starve the small Swift concurrency pool.
    static func setupDevice(_ setup: String) async throws -> Authenticator {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try buildSetupDevice(setup) })
            }
        }
    }

    private static func buildSetupDevice(_ setup: String) throws -> Authenticator {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-parity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = directory.appendingPathComponent("device.json")
        try JSONEncoder().encode(composition()).write(to: configuration)
        return try LocalAuthenticationSystem.makeAuthenticator(environment: [
            LocalAuthenticationSystem.configurationVariable: configuration.path,
            LocalAuthenticationSystem.setupVariable: setup,
        ], support: .builtIn)
    }

    @Test("the same lines through a REPL session and TOUCHSTONE_SETUP leave the same device")
    func sameLinesSameDevice() async throws {
        let repl = try CommandSession(composition: Self.composition())
        for line in Self.lines where !line.hasPrefix("#") {
            let record = await repl.execute(line)
            #expect(record.error.map { LocalAuthenticationSystem.isOutcomeOfAnAttempt($0) } ?? true, "\(line): \(record.text)")
        }
        let expected = try await Self.snapshot(repl.authenticator)
        #expect(expected.enrolled == ["thumb"])
        #expect(try repl.device.biometryStatus().isLockedOut)
        #expect(expected.now == Timestamp.epoch.advanced(by: .seconds(390)))
        #expect(expected.savedTime == expected.now)

        // New lines and `;` both separate commands.
        for script in [Self.lines.joined(separator: "\n"), Self.lines.dropFirst().joined(separator: "; ")] {
            let actual = try await Self.snapshot(try await Self.setupDevice(script))
            #expect(actual == expected, "setup:\n\(actual)\nREPL:\n\(expected)")
        }
    }

    @Test("the line that used to fail in TOUCHSTONE_SETUP counts its failure")
    func aQuotedReasonWorksInSetup() async throws {
        let authenticator = try await Self.setupDevice("passcode set 1234; enroll thumb; evaluate biometrics 'Unlock notes' nomatch")
        #expect(try authenticator.device.biometryStatus().consecutiveFailures == 1)
    }

    @Test("setup commands the old runner lacked: keychain, clock, app, os-upgrade")
    func commandsTheOldRunnerLacked() async throws {
        let authenticator = try await Self.setupDevice("""
            passcode set 1234; enroll thumb
            clock advance 1h   # time kept for the next process
            app com.example.other; keychain add notes pin "4 3 2 1"; app com.example.app
            os-upgrade
            """)
        #expect(authenticator.device.clock.now == Timestamp.epoch.advanced(by: .seconds(3600)))
        let session = try CommandSession(authenticator: authenticator.forApp("com.example.other"))
        #expect(await session.execute("keychain get notes pin").text.contains("4 3 2 1"))
    }

    @Test("a failing setup line is a ConfigurationError naming TOUCHSTONE_SETUP and the line")
    func errorsNameTheLine() async throws {
        for (script, line) in [
            ("enroll thumb; evalute biometrics", "evalute biometrics"),
            ("enroll thumb; enroll thumb", "enroll thumb"),
            ("use sensor sim.faceid", "use sensor sim.faceid"),
            ("passcode set 1234; enroll thumb; evaluate biometrics nomatch thumb thumb", "evaluate biometrics nomatch thumb thumb"),
            (#"evaluate biometrics "Unlock"#, #"evaluate biometrics "Unlock"#),
        ] {
            do {
                _ = try await Self.setupDevice(script)
                Issue.record("\(script) did not fail")
            } catch let error as ConfigurationError {
                guard case let .invalidSetting(name, reason) = error else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(name == "TOUCHSTONE_SETUP")
                #expect(reason.hasPrefix("'\(line)'"), "\(reason)")
            }
        }
    }

    @Test("quotes keep ; and # inside a word")
    func quotesProtectSeparators() {
        #expect(Tokenizer.commands(#"keychain add notes pin "a;b#c"; enroll thumb # done"#)
            == [#"keychain add notes pin "a;b#c""#, "enroll thumb"])
        #expect(Tokenizer.commands("\n; # nothing\n  ") == [])
    }
}
