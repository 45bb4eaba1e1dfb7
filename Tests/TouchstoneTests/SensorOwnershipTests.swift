import Foundation
import Testing
@testable import Touchstone
import TouchstoneBuiltins
import TouchstoneTesting

/// A reader that keeps its own prints, as fprintd does: the test changes them "outside
/// Touchstone", scripts what each capture reports, and can make the reader fail.
final class ReaderHardware: Sendable {
    struct State {
        var identities: [SensorIdentity] = []
        var captures: [CaptureResult] = []
        var unreachable = false
        var interrupted = 0
        /// How many times the core asked for the enrolled set.
        var asked = 0
    }
    let state = Locked(State())

    /// Readers by the `reader` option, so a test reaches the instance the registry made.
    static let byName = Locked<[String: ReaderHardware]>([:])

    static func make() -> (name: String, hardware: ReaderHardware) {
        let name = UUID().uuidString
        let hardware = ReaderHardware()
        byName.withLock { $0[name] = hardware }
        return (name, hardware)
    }

    func enrollOutside(_ id: String, generation: String) {
        state.withLock { state in
            state.identities.removeAll { $0.id == id }
            state.identities.append(SensorIdentity(id: id, displayName: id.replacingOccurrences(of: "-", with: " "), generation: generation))
        }
    }
}

/// A verify-only reader: it reports identities and matches, and offers no enrollment.
struct TestReader: BiometricSensor {
    static let descriptor = PluginDescriptor(
        id: "test.reader", kind: .sensor, summary: "a reader that owns its prints (tests)",
        options: [OptionSpec("reader", .string, "which test reader"), OptionSpec("removable", .boolean, default: "false", "removable"),
                  OptionSpec("follows-storage", .boolean, default: "false", "claims its set changes only with the device's storage")])

    let hardware: ReaderHardware
    let isRemovable: Bool
    let enrollmentStorage: (any StorageBackend)?
    var biometryType: BiometryType { .touchID }

    struct Missing: Error {}

    init(options: PluginOptions, environment: PluginEnvironment) throws {
        guard let hardware = ReaderHardware.byName.withLock({ $0[options.string("reader") ?? ""] }) else { throw Missing() }
        self.hardware = hardware
        isRemovable = options.boolean("removable")
        enrollmentStorage = options.boolean("follows-storage") ? environment.storage : nil
    }

    func hardwareState(for appID: String) -> HardwareState {
        hardware.state.withLock { $0.unreachable } ? .disconnected : .present
    }

    func enrolledIdentities() throws -> [SensorIdentity] {
        try hardware.state.withLock { state in
            state.asked += 1
            if state.unreachable { throw Missing() }
            return state.identities
        }
    }

    func capture(_ prompt: Prompt) async throws -> CaptureResult {
        hardware.state.withLock { state in state.captures.isEmpty ? .action(.cancel) : state.captures.removeFirst() }
    }

    func interrupt() {
        hardware.state.withLock { $0.interrupted += 1 }
    }
}

/// A passcode the system keeps (as PAM does): "is set" and the check come from outside.
struct SystemPasscode: PasscodeFactor {
    static let descriptor = PluginDescriptor(id: "test.system-passcode", kind: .passcode, summary: "a passcode the system keeps (tests)")
    static let password = "correct horse"

    init(options: PluginOptions, environment: PluginEnvironment) {}

    var custody: PasscodeCustody { .external(description: "the login password of the test user", isSet: true) }

    func makeVerifier(for passcode: String, random: RandomSource) throws -> Data {
        throw UsageError.passcodeKeptOutside("the login password of the test user")
    }

    func check(_ entry: String, against verifier: Data?) throws -> PasscodeCheck {
        PasscodeCheck(isCorrect: entry == Self.password, digest: nil)
    }
}

@Suite("Sensors own their identities")
struct SensorOwnershipTests {
    /// A device whose sensor is the test reader, built with the test kit over a registry that
    /// has the reader (and a system passcode) registered.
    struct ReaderRig {
        let kit: TestDevice
        let hardware: ReaderHardware
        var authenticator: Authenticator { kit.authenticator }
        var device: Device { kit.device }

        init(removable: Bool = false, systemPasscode: Bool = false, followsStorage: Bool = false) throws {
            let (name, hardware) = ReaderHardware.make()
            var registry = PluginRegistry.builtIn
            try registry.register(TestReader.self)
            try registry.register(SystemPasscode.self)
            var composition = Composition()
            composition.seed = 3
            composition.sensor = PluginSelection("test.reader", options: ["reader": name, "removable": removable ? "true" : "false",
                                                                           "follows-storage": followsStorage ? "true" : "false"])
            composition.passcode = systemPasscode
                ? PluginSelection("test.system-passcode")
                : PluginSelection("passcode.sim", options: ["rounds": "1000"])
            kit = try TestDevice(registry: registry, composition: composition,
                                 passcode: systemPasscode ? nil : "1234", enrolled: [])
            self.hardware = hardware
        }

        func evaluate(_ captures: [CaptureResult], context: AuthenticationContext? = nil) async throws -> EvaluationResult {
            hardware.state.withLock { $0.captures = captures }
            return try await (context ?? authenticator.makeContext()).evaluate(authenticator.policy(named: "biometrics"), reason: "Unlock")
        }

        func code(_ captures: [CaptureResult]) async throws -> AuthenticationError.Code? {
            do {
                _ = try await evaluate(captures)
                return nil
            } catch let error as AuthenticationError {
                return error.code
            }
        }
    }

    @Test("a sensor whose set follows the device's storage is asked once per storage generation; any write makes the core ask again; a real reader is asked every time")
    func enrolledSetIsAskedOncePerStorageGeneration() async throws {
        let rig = try ReaderRig(followsStorage: true)
        rig.hardware.enrollOutside("thumb", generation: "g1")
        try rig.authenticator.keychain.add(Data("v".utf8), service: "s", account: "a")  // a write
        rig.hardware.state.withLock { $0.asked = 0 }
        for _ in 0..<3 { #expect(try rig.device.enrolledIdentities().map(\.id) == ["thumb"]) }
        // The first snapshot saw the new print and recorded it (a write); the next asked once
        // at the new generation; the rest asked nothing.
        #expect(rig.hardware.state.withLock { $0.asked } == 2)
        // A change the storage does not see is not seen (the sensor promised there is none)...
        rig.hardware.enrollOutside("index", generation: "g2")
        #expect(try rig.device.enrolledIdentities().map(\.id) == ["thumb"])
        // ...until the storage changes: then the sensor is asked again and the print recorded.
        try rig.authenticator.keychain.add(Data("v".utf8), service: "s", account: "b")
        #expect(try rig.device.enrolledIdentities().map(\.id) == ["thumb", "index"])

        let real = try ReaderRig()
        real.hardware.enrollOutside("thumb", generation: "g1")
        _ = try real.device.enrolledIdentities()
        real.hardware.state.withLock { $0.asked = 0 }
        for _ in 0..<3 { _ = try real.device.enrolledIdentities() }
        #expect(real.hardware.state.withLock { $0.asked } == 3)
    }

    @Test("the enrolled set is what the sensor reports: no prints is biometryNotEnrolled, a print enrolled outside Touchstone is seen at once")
    func theEnrolledSetIsWhatTheSensorReports() async throws {
        let rig = try ReaderRig()
        #expect(try rig.authenticator.makeContext().canEvaluate(rig.authenticator.policy(named: "biometrics"))?.code == .biometryNotEnrolled)
        rig.hardware.enrollOutside("right-index-finger", generation: "g1")
        #expect(try rig.device.enrolledIdentities() == [SensorIdentity(id: "right-index-finger", displayName: "right index finger", generation: "g1")])
        #expect(try rig.authenticator.makeContext().canEvaluate(rig.authenticator.policy(named: "biometrics")) == nil)
        let result = try await rig.evaluate([.matched("right-index-finger")])
        #expect(result.methods == [.biometry])
    }

    @Test("an enrollment change made outside Touchstone is an enrollment change: the sequence moves, domain state changes, subscribers hear of it, biometryCurrentSet items are invalidated")
    func anOutsideChangeIsAnEnrollmentChange() async throws {
        let rig = try ReaderRig()
        rig.hardware.enrollOutside("right-index-finger", generation: "g1")
        let context = rig.authenticator.makeContext()
        _ = try await rig.evaluate([.matched("right-index-finger")], context: context)
        let before = try #require(context.evaluatedPolicyDomainState)
        let sequence = try rig.device.enrollmentSequence()
        try rig.authenticator.keychain.add("s3cret", service: "api", account: "alice",
                                           accessControl: AccessControl(flags: [.biometryCurrentSet]))
        var changes = rig.device.enrollmentChanges().makeAsyncIterator()

        // The same finger enrolled again outside: a new generation, a new template.
        rig.hardware.enrollOutside("right-index-finger", generation: "g2")
        #expect(try rig.device.enrollmentSequence() == sequence + 1)
        #expect(await changes.next()?.sequence == sequence + 1)
        let after = rig.authenticator.makeContext()
        _ = try await rig.evaluate([.matched("right-index-finger")], context: after)
        #expect(after.evaluatedPolicyDomainState != before)
        rig.hardware.state.withLock { $0.captures = [.matched("right-index-finger")] }
        await #expect(throws: KeychainError.self) {
            _ = try await rig.authenticator.keychain.read(service: "api", account: "alice")
        }
    }

    @Test("a retry capture is not a failed attempt: the prompt stays up and the trace says why")
    func aRetryIsNotCounted() async throws {
        let rig = try ReaderRig()
        rig.hardware.enrollOutside("left-thumb", generation: "g1")
        let result = try await rig.evaluate([.retry("verify-swipe-too-short"), .retry("verify-finger-not-centered"),
                                             .noMatch, .retry("verify-remove-and-retry"), .matched("left-thumb")])
        #expect(result.methods == [.biometry])
        let rules = result.trace.steps.compactMap(\.rule)
        #expect(rules.filter { $0 == .retryNotCounted }.count == 3)
        #expect(result.trace.description.contains("verify-swipe-too-short"))
        #expect(try rig.device.counters.consecutiveBiometricFailures == 0)
        // Three real failures still end a Touch ID evaluation, retries between them or not.
        #expect(try await rig.code([.noMatch, .retry("verify-retry-scan"), .noMatch, .retry("verify-retry-scan"), .noMatch]) == .authenticationFailed)
        #expect(try rig.device.counters.consecutiveBiometricFailures == 3)
    }

    @Test("a sensor lost during a capture ends the evaluation: biometryNotAvailable, biometryDisconnected when removable; the failure before it stays counted")
    func aSensorLostDuringACapture() async throws {
        for removable in [false, true] {
            let rig = try ReaderRig(removable: removable)
            rig.hardware.enrollOutside("left-thumb", generation: "g1")
            #expect(try await rig.code([.noMatch, .unavailable(.disconnected)]) == (removable ? .biometryDisconnected : .biometryNotAvailable))
            #expect(try rig.device.counters.consecutiveBiometricFailures == 1)
        }
    }

    @Test("a sensor that cannot answer leaves the recorded set in force and reports its hardware state")
    func anUnreachableSensorKeepsTheRecordedSet() async throws {
        let rig = try ReaderRig()
        rig.hardware.enrollOutside("left-thumb", generation: "g1")
        #expect(try rig.device.enrolledNames() == ["left-thumb"])
        let sequence = try rig.device.enrollmentSequence()
        rig.hardware.state.withLock { $0.unreachable = true }
        #expect(try rig.device.enrolledNames() == ["left-thumb"])
        #expect(try rig.device.enrollmentSequence() == sequence)
        #expect(try rig.authenticator.makeContext().canEvaluate(rig.authenticator.policy(named: "biometrics"))?.code == .biometryNotAvailable)
    }

    @Test("a sensor without the enrolling capability refuses enroll, unenroll and reenroll by name")
    func aVerifyOnlySensorRefusesEnrollment() throws {
        let rig = try ReaderRig()
        rig.hardware.enrollOutside("left-thumb", generation: "g1")
        #expect(throws: UsageError.enrollmentNotSupported(sensor: "test.reader")) { try rig.device.enroll("right-thumb") }
        #expect(throws: UsageError.enrollmentNotSupported(sensor: "test.reader")) { try rig.device.unenroll("left-thumb") }
        #expect(throws: UsageError.enrollmentNotSupported(sensor: "test.reader")) { try rig.device.reenroll("left-thumb") }
        #expect(try rig.device.enrolledNames() == ["left-thumb"])
    }

    @Test("the five-failure lockout is the core's, the same for a sensor that owns its prints; the passcode clears it")
    func lockoutIsTheCoresRule() async throws {
        let rig = try ReaderRig()
        rig.hardware.enrollOutside("left-thumb", generation: "g1")
        #expect(try await rig.code(Array(repeating: .noMatch, count: 3)) == .authenticationFailed)
        #expect(try await rig.code(Array(repeating: .noMatch, count: 2)) == .biometryLockout)
        #expect(try rig.device.biometryStatus().isLockedOut)
        #expect(try rig.device.enterPasscode("1234") == .accepted)
        #expect(try !rig.device.biometryStatus().isLockedOut)
    }
}

@Suite("A passcode kept outside Touchstone")
struct ExternalPasscodeTests {
    @Test("set and clear are refused with where the passcode is kept; the system says it is set")
    func setAndClearAreRefused() throws {
        let rig = try SensorOwnershipTests.ReaderRig(systemPasscode: true)
        #expect(try rig.device.isPasscodeSet)
        #expect(throws: UsageError.passcodeKeptOutside("the login password of the test user")) { try rig.device.setPasscode("0000") }
        #expect(throws: UsageError.passcodeKeptOutside("the login password of the test user")) { try rig.device.clearPasscode() }
        #expect(try rig.device.passcodeStatus().isSet)
    }

    @Test("REFERENCE §6 stays in force on top of the system: the ladder, the same wrong entry counted once, a correct one clears the lockout")
    func theLadderStaysInForce() async throws {
        let rig = try SensorOwnershipTests.ReaderRig(systemPasscode: true)
        rig.hardware.enrollOutside("left-thumb", generation: "g1")
        #expect(try await rig.code(Array(repeating: .noMatch, count: 3)) == .authenticationFailed)
        #expect(try await rig.code(Array(repeating: .noMatch, count: 2)) == .biometryLockout)
        for attempt in 1...4 {
            #expect(try rig.device.enterPasscode("wrong \(attempt)") == .rejected(failures: attempt, delay: .zero))
        }
        #expect(try rig.device.enterPasscode("wrong 4") == .repeatedNotCounted(failures: 4))
        #expect(try rig.device.enterPasscode("wrong 5") == .rejected(failures: 5, delay: .seconds(60)))
        #expect(try rig.device.enterPasscode(SystemPasscode.password) == .refused(remaining: .seconds(60)))
        (rig.device.clock as? VirtualClock)?.advance(by: .seconds(60))
        #expect(try rig.device.enterPasscode(SystemPasscode.password) == .accepted)
        #expect(try !rig.device.biometryStatus().isLockedOut)
        #expect(try rig.device.passcodeStatus().failures == 0)
    }
}

@Suite("Interactions other than the scripted one")
struct InteractionMisfitTests {
    /// A person who presses the fallback button whatever the dialog shows.
    struct AlwaysFallback: Interaction {
        func nextAction(for prompt: Prompt) async throws -> UserAction { .fallback }
        func interrupt() {}
    }

    @Test("an action the dialog does not offer is InteractionError.actionNotOffered for a non-scripted person, a SimulationError for a script")
    func anActionNotOfferedIsReportedByTheInteraction() async throws {
        var composition = Composition()
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        let authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition)
            .build(interaction: AlwaysFallback())
        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("thumb")
        await #expect(throws: InteractionError.actionNotOffered(
            action: "fallback", prompt: "biometric", allowed: ["<enrolled name>", "nomatch", "cancel", "systemcancel", "invalidate", "wait:<duration>"])) {
            try await authenticator.makeContext().evaluate(.biometrics, reason: "Unlock")
        }

        let rig = try TestDevice()
        await #expect(throws: SimulationError.self) {
            try await rig.evaluate("biometrics", [.fallback])
        }
    }
}
