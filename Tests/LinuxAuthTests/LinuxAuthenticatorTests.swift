import Foundation
import LinuxFprintd
import LinuxPAM
import Testing
import TouchstoneBuiltins
import Touchstone

/// The REFERENCE §5/§6 story through the authenticator, with `linux.fprintd` on a private
/// fprintd (its own, so it runs beside the client suite) and `linux.pam` on pam_matrix.
@Suite(.serialized)
final class LinuxAuthenticatorTests {
    static let environment: Result<FprintTestEnvironment, EnvironmentFailure> = {
        do { return .success(try FprintTestEnvironment.start()) } catch let failure as EnvironmentFailure {
            return .failure(failure)
        } catch {
            return .failure(EnvironmentFailure(description: "\(error)"))
        }
    }()

    let environment: FprintTestEnvironment
    let confdir: String
    let authenticator: Authenticator
    let player: FingerPlayer
    var device: Device { authenticator.device }

    /// A device composed of linux.fprintd + linux.pam, with no prints on the reader.
    init() async throws {
        environment = try Self.environment.get()
        confdir = try makePAMConfdir()
        let client = FprintdClient(busAddress: environment.busAddress)
        try await client.deleteAllFingers()
        var composition = Composition()
        composition.seed = 11
        composition.sensor = PluginSelection("linux.fprintd", options: ["bus": environment.busAddress, "scan-timeout": "5s"])
        composition.passcode = PluginSelection("linux.pam", options: ["service": "touchstone-test", "user": "alice", "confdir": confdir])
        authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition)
            .build(clock: VirtualClock(), interaction: ScriptedInteraction())
        player = try FingerPlayer(environment)
    }

    deinit {
        player.stop()
        try? FileManager.default.removeItem(atPath: confdir)
    }

    /// Enrolls `finger` through the device, scanning `print` at every stage.
    @discardableResult
    private func enroll(_ finger: String, print: String) throws -> [EnrollmentProgress] {
        player.queue([Array(repeating: "SCAN \(print)", count: 5)])
        let steps = Locked<[EnrollmentProgress]>([])
        try device.enroll(finger) { step in steps.withLock { $0.append(step) } }
        return steps.withLock { $0 }
    }

    /// A biometrics-only evaluation in which the finger scans `prints`, one per capture; the
    /// error code, or nil on success.
    private func evaluate(_ prints: [String], context: AuthenticationContext? = nil) async throws -> AuthenticationError.Code? {
        player.queue(prints.map { ["SCAN \($0)"] })
        do {
            _ = try await (context ?? authenticator.makeContext()).evaluate(authenticator.policy(named: "biometrics"), reason: "Unlock")
            return nil
        } catch let error as AuthenticationError {
            return error.code
        }
    }

    @Test func enrollThroughTheDeviceReportsStagesAndMatches() async throws {
        let steps = try enroll("right-index-finger", print: "print-a")
        #expect(steps.map(\.result) == Array(repeating: "enroll-stage-passed", count: 4) + ["enroll-completed"])
        #expect(steps.last?.stage == 5 && steps.last?.stages == 5)
        #expect(try device.enrolledNames() == ["right-index-finger"])
        #expect(try await evaluate(["print-a"]) == nil)
        #expect(player.leftover.queued == 0 && player.leftover.failure == nil)
    }

    @Test func threeFailuresEndATouchIDEvaluationFiveLockAndThePAMPasswordClears() async throws {
        try enroll("right-index-finger", print: "print-a")
        #expect(try await evaluate(["print-x", "print-x", "print-x"]) == .authenticationFailed)
        #expect(try device.counters.consecutiveBiometricFailures == 3)
        #expect(try await evaluate(["print-x", "print-x"]) == .biometryLockout)
        #expect(try device.biometryStatus().isLockedOut)
        // The login password through PAM: a wrong one counts on the ladder, the right one clears.
        #expect(try device.enterPasscode("battery staple") == .rejected(failures: 1, delay: .zero))
        #expect(try device.enterPasscode("correct horse") == .accepted)
        #expect(try !device.biometryStatus().isLockedOut)
        #expect(try await evaluate(["print-a"]) == nil)
        #expect(player.leftover.failure == nil)
    }

    @Test func aRetryIsNotAFailedAttempt() async throws {
        try enroll("left-thumb", print: "print-a")
        player.queue([["RETRY 1"], ["SCAN print-a"]])
        _ = try await authenticator.makeContext().evaluate(authenticator.policy(named: "biometrics"), reason: "Unlock")
        #expect(try device.counters.consecutiveBiometricFailures == 0)
    }

    @Test func enrollingASecondFingerChangesTheDomainState() async throws {
        try enroll("right-index-finger", print: "print-a")
        let before = authenticator.makeContext()
        #expect(try await evaluate(["print-a"], context: before) == nil)
        try enroll("left-index-finger", print: "print-b")
        // libfprint's virtual_device cannot identify: fprintd's "any" then verifies the first
        // enrolled finger only, so the match uses print-a.
        let after = authenticator.makeContext()
        #expect(try await evaluate(["print-a"], context: after) == nil)
        #expect(before.evaluatedPolicyDomainState != nil)
        #expect(before.evaluatedPolicyDomainState != after.evaluatedPolicyDomainState)
    }

    @Test func thePAMPasscodeIsTheLoginPassword() throws {
        #expect(try device.isPasscodeSet)
        #expect(throws: UsageError.self) { try device.setPasscode("0000") }
        #expect(throws: UsageError.self) { try device.clearPasscode() }
        do {
            try device.setPasscode("0000")
        } catch {
            #expect("\(error)".contains("login password of alice"))
        }
    }

    @Test func noFingerWithinTheScanTimeoutIsASystemCancel() async throws {
        try enroll("right-index-finger", print: "print-a")
        var composition = Composition()
        composition.sensor = PluginSelection("linux.fprintd", options: ["bus": environment.busAddress, "scan-timeout": "1s"])
        composition.passcode = PluginSelection("linux.pam", options: ["service": "touchstone-test", "user": "alice", "confdir": confdir])
        let quick = try AuthenticatorBuilder(registry: .builtIn, composition: composition)
            .build(clock: VirtualClock(), interaction: ScriptedInteraction())
        do {
            _ = try await quick.makeContext().evaluate(quick.policy(named: "biometrics"), reason: "Unlock")
            Issue.record("an evaluation without a finger succeeded")
        } catch let error as AuthenticationError {
            #expect(error.code == .systemCancel)
        }
        #expect(try quick.device.counters.consecutiveBiometricFailures == 0)
    }

    @Test func aBiometryCurrentSetItemIsInvalidatedByASecondFinger() async throws {
        try enroll("right-index-finger", print: "print-a")
        try authenticator.keychain.add(Data("s3cret".utf8), service: "api", account: "alice",
                                       accessControl: AccessControl(flags: [.biometryCurrentSet]))
        player.queue([["SCAN print-a"]])
        #expect(try await authenticator.keychain.read(service: "api", account: "alice") == Data("s3cret".utf8))
        try enroll("left-index-finger", print: "print-b")
        player.queue([["SCAN print-a"]])
        await #expect(throws: KeychainError.self) {
            _ = try await authenticator.keychain.read(service: "api", account: "alice")
        }
    }

    @Test func invalidatingTheContextStopsTheScanWithoutCounting() async throws {
        try enroll("right-index-finger", print: "print-a")
        let context = authenticator.makeContext()
        let policy = try authenticator.policy(named: "biometrics")
        let evaluation = Task { try await context.evaluate(policy, reason: "Unlock") }
        // The reader's socket answers once fprintd has the reader open: the scan is waiting.
        try await environment.reader.send("SET_SCAN_TYPE swipe")
        let invalidated = ContinuousClock.now
        context.invalidate()
        do {
            _ = try await evaluation.value
            Issue.record("an invalidated evaluation succeeded")
        } catch let error as AuthenticationError {
            #expect([.appCancel, .systemCancel, .invalidContext].contains(error.code))
        }
        #expect(ContinuousClock.now - invalidated < .seconds(2))
        #expect(try device.counters.consecutiveBiometricFailures == 0)
        // The reader was released: the next evaluation scans.
        #expect(try await evaluate(["print-a"]) == nil)
    }

    @Test func fiveFailuresLockBiometryForEveryProcessOnTheStore() async throws {
        try enroll("right-index-finger", print: "print-a")
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-linux-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        }
        func process() throws -> Authenticator {
            var composition = Composition()
            composition.sensor = PluginSelection("linux.fprintd", options: ["bus": environment.busAddress, "scan-timeout": "5s"])
            composition.passcode = PluginSelection("linux.pam", options: ["service": "touchstone-test", "user": "alice", "confdir": confdir])
            composition.storage = PluginSelection("storage.sqlite", options: ["path": store])
            return try AuthenticatorBuilder(registry: .builtIn, composition: composition)
                .build(clock: VirtualClock(), interaction: ScriptedInteraction())
        }
        let first = try process(), second = try process()
        func evaluate(_ authenticator: Authenticator, _ prints: [String]) async throws -> AuthenticationError.Code? {
            player.queue(prints.map { ["SCAN \($0)"] })
            do {
                _ = try await authenticator.makeContext().evaluate(authenticator.policy(named: "biometrics"), reason: "Unlock")
                return nil
            } catch let error as AuthenticationError {
                return error.code
            }
        }
        #expect(try await evaluate(first, ["print-x", "print-x", "print-x"]) == .authenticationFailed)
        #expect(try await evaluate(second, ["print-x", "print-x"]) == .biometryLockout)
        #expect(try first.device.biometryStatus().isLockedOut)
        #expect(try first.device.enterPasscode("correct horse") == .accepted)
        #expect(try !second.device.biometryStatus().isLockedOut)
    }

    @Test func anUnpluggedReaderIsBiometryNotAvailable() async throws {
        let own = try FprintTestEnvironment.start()
        defer { own.stop() }
        var composition = Composition()
        composition.sensor = PluginSelection("linux.fprintd", options: ["bus": own.busAddress, "scan-timeout": "5s"])
        composition.passcode = PluginSelection("linux.pam", options: ["service": "touchstone-test", "user": "alice", "confdir": confdir])
        let unplugged = try AuthenticatorBuilder(registry: .builtIn, composition: composition)
            .build(clock: VirtualClock(), interaction: ScriptedInteraction())
        let ownPlayer = try FingerPlayer(own)
        defer { ownPlayer.stop() }
        ownPlayer.queue([Array(repeating: "SCAN print-a", count: 5), ["UNPLUG"]])
        try unplugged.device.enroll("right-index-finger")
        do {
            _ = try await unplugged.makeContext().evaluate(unplugged.policy(named: "biometrics"), reason: "Unlock")
            Issue.record("an evaluation on an unplugged reader succeeded")
        } catch let error as AuthenticationError {
            #expect(error.code == .biometryNotAvailable)
        }
        // The reader is gone for fprintd now: canEvaluate says so too.
        #expect(try unplugged.makeContext().canEvaluate(unplugged.policy(named: "biometrics"))?.code == .biometryNotAvailable)
    }

    @Test func noDaemonIsBiometryNotAvailable() throws {
        let bare = try FprintTestEnvironment.start(withFprintd: false)
        defer { bare.stop() }
        var composition = Composition()
        composition.sensor = PluginSelection("linux.fprintd", options: ["bus": bare.busAddress])
        composition.passcode = PluginSelection("linux.pam", options: ["service": "touchstone-test", "user": "alice", "confdir": confdir])
        let lonely = try AuthenticatorBuilder(registry: .builtIn, composition: composition)
            .build(clock: VirtualClock(), interaction: ScriptedInteraction())
        #expect(try lonely.makeContext().canEvaluate(lonely.policy(named: "biometrics"))?.code == .biometryNotAvailable)
        #expect(throws: FprintdError.self) { try lonely.device.enroll("right-index-finger") }
    }

    /// The built `touchstone` executable: `$TOUCHSTONE_BINARY` (scripts/tsan.sh names an
    /// unsanitized build), else beside the test bundle or a few directories up.
    private static func touchstoneBinary() -> String? {
        if let path = ProcessInfo.processInfo.environment["TOUCHSTONE_BINARY"], FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var directory = me.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("touchstone").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// The shared objects the dynamic loader opened while `touchstone --memory` ran `script`
    /// (glibc's `LD_DEBUG=files` trace), with the session's output after them.
    private func loaderTrace(_ touchstone: String, script: String) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-libs-\(UUID().uuidString).touchstone")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return try runTool("/bin/sh", ["-c", "LD_DEBUG=files \"$0\" --memory \"$1\" 2>&1", touchstone, file.path])
    }

    @Test func theREPLLoadsLibsystemdAndLibpamOnlyWhenTheirPluginsWork() throws {
        let touchstone = try #require(Self.touchstoneBinary(), "the touchstone binary is built beside the tests")
        let simulated = try loaderTrace(touchstone, script: "can biometrics\nenroll thumb\nevaluate biometrics \"Unlock\" thumb\n")
        #expect(simulated.contains("file=libedit.so.2"), "LD_DEBUG traced the loader: \(simulated.suffix(400))")
        #expect(simulated.contains("ok"))
        #expect(!simulated.contains("libsystemd.so.0"), "libsystemd was loaded without linux.fprintd")
        #expect(!simulated.contains("libpam.so.0"), "libpam was loaded without linux.pam")

        let real = try loaderTrace(touchstone, script: """
            use sensor linux.fprintd bus=\(environment.busAddress)
            use passcode linux.pam service=touchstone-test user=alice confdir=\(confdir)
            can biometrics
            passcode enter wrong-password

            """)
        #expect(real.contains("file=libsystemd.so.0"), "linux.fprintd opened libsystemd: \(real.suffix(600))")
        #expect(real.contains("file=libpam.so.0"), "linux.pam opened libpam: \(real.suffix(600))")
    }

    @Test func ctrlCInTheREPLCancelsARealCapture() throws {
        try enroll("right-index-finger", print: "print-a")
        let touchstone = try #require(Self.touchstoneBinary(), "the touchstone binary is built beside the tests")
        let steps: [[String: Any]] = [
            ["expect": "touchstone>"],
            ["send": "use sensor linux.fprintd bus=\(environment.busAddress) scan-timeout=20s\r"], ["expect": "device kept"],
            ["send": "passcode set 1234\r"], ["expect": "touchstone>"],
            ["send": "evaluate biometrics \"Unlock\"\r"], ["expect": "touch the sensor (Ctrl-C cancels)"],
            // Well inside the 20 s scan timeout, so only the Ctrl-C can end the capture in time; 10 s,
            // not 3, because a loaded two-core CI machine once took longer than 3 s to answer.
            ["key": "ctrl-c"], ["expect": "userCancel (-2)", "timeout": 10],
            ["send": "status\r"], ["expect": "0 of 5 consecutive failures"],
            ["send": "quit\r"], ["exit": 0],
        ]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: steps), as: UTF8.self)
        let script = repositoryRoot.appendingPathComponent("Tests/pty/pty_session.py").path
        _ = try runTool("/usr/bin/python3", [script, "--quiet", "--steps", json, "--", touchstone, "--memory"])
    }
}
