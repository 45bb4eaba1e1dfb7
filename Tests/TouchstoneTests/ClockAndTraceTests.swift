import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

@Suite("Virtual clock, durations and traces")
struct ClockAndTraceTests {
    @Test("a sleeper on the virtual clock wakes when time is advanced past its deadline")
    func virtualSleep() async throws {
        let clock = VirtualClock()
        let deadline = Timestamp(sinceEpoch: .seconds(60))
        let sleeper = Task { try await clock.sleep(until: deadline) }
        clock.advance(by: .seconds(59))
        clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(clock.now == deadline)
    }

    @Test("a virtual clock started past its last reading reads the last reading, and time never goes back")
    func virtualClockStartClamped() {
        let late = Timestamp.latestReading.advanced(by: .seconds(3_600))
        let clock = VirtualClock(start: late)
        #expect(clock.now == .latestReading)
        #expect(clock.remaining == .zero)
        clock.advance(by: .seconds(1))
        #expect(clock.now == .latestReading)
        #expect(VirtualClock(start: Timestamp(sinceEpoch: .seconds(5))).now == Timestamp(sinceEpoch: .seconds(5)))
    }

    @Test("a cancelled sleeper on the virtual clock throws CancellationError")
    func virtualSleepCancelled() async throws {
        let clock = VirtualClock()
        let sleeper = Task { try await clock.sleep(until: Timestamp(sinceEpoch: .seconds(3600))) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test("the virtual clock read without its lock while another task advances it: never a torn or backward time")
    func virtualClockLockFreeRead() async throws {
        let clock = VirtualClock()
        // Each step changes both components of the time (seconds and attoseconds), so a read
        // mixing two writes would land between the multiples of the step.
        let step = Duration.milliseconds(1_500)
        let steps = 20_000
        let advancer = Task {
            for _ in 0..<steps { clock.advance(by: step) }
        }
        let readers = (0..<2).map { _ in
            Task { () -> (backward: Int, torn: Int) in
                var last = Timestamp.epoch
                var backward = 0, torn = 0
                for _ in 0..<50_000 {
                    let now = clock.now
                    if now < last { backward += 1 }
                    let (seconds, attoseconds) = now.sinceEpoch.components
                    let milliseconds = seconds * 1_000 + attoseconds / 1_000_000_000_000_000
                    if milliseconds % 1_500 != 0 || attoseconds % 1_000_000_000_000_000 != 0 { torn += 1 }
                    last = now
                }
                return (backward, torn)
            }
        }
        await advancer.value
        for reader in readers {
            let result = await reader.value
            #expect(result.backward == 0)
            #expect(result.torn == 0)
        }
        #expect(clock.now == Timestamp.epoch.advanced(by: step * steps))
    }

    /// A simulated Touch ID device with a passcode and `thumb` enrolled, on `clock`, and the
    /// scripted person at it.
    static func enrolledDevice(on clock: any DeviceClock) throws -> (Authenticator, ScriptedInteraction) {
        let user = ScriptedInteraction()
        var composition = Composition()
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        let authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition).build(clock: clock, interaction: user)
        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("thumb")
        return (authenticator, user)
    }

    @Test("a person's wait is the device clock's to let pass: a clock that moves by itself is asked, and the core never advances it")
    func waitElapsesOnTheDeviceClock() async throws {
        let clock = SelfMovingClock()
        let (authenticator, user) = try Self.enrolledDevice(on: clock)
        user.enqueue([.wait(.seconds(90)), .noMatch, .wait(.milliseconds(5)), .present("thumb")])
        let result = try await authenticator.makeContext().evaluate(.biometrics, reason: "Unlock")
        #expect(clock.elapsed == [.seconds(90), .milliseconds(5)])
        #expect(result.trace.steps.map(\.event).filter { if case .waited = $0 { true } else { false } }
                    == [.waited(.seconds(90)), .waited(.milliseconds(5))])
    }

    @Test("a wait on a clock that moves by itself ends as soon as the app invalidates the context, and the trace shows the time that passed")
    func wallClockWaitIsInterruptible() async throws {
        let contextBox = Locked<AuthenticationContext?>(nil)
        let clock = SteppingClock(mark: Timestamp(sinceEpoch: .seconds(1))) { contextBox.withLock { $0 }?.invalidate() }
        let (authenticator, user) = try Self.enrolledDevice(on: clock)
        let context = authenticator.makeContext()
        contextBox.withLock { $0 = context }
        user.enqueue([.wait(.seconds(3_600))])
        await #expect {
            try await context.evaluate(.biometrics, reason: "Unlock")
        } throws: { ($0 as? AuthenticationError)?.code == .appCancel }
        let trace = try #require(context.lastTrace)
        #expect(trace.steps.map(\.event).contains(.waited(.seconds(1))), "\(trace)")
        #expect(clock.now == Timestamp(sinceEpoch: .seconds(1)))
    }

    @Test("durations parse and print compactly")
    func durations() {
        #expect(Duration(compact: "90s") == .seconds(90))
        #expect(Duration(compact: "5m") == .seconds(300))
        #expect(Duration(compact: "1h30m") == .seconds(5400))
        #expect(Duration(compact: "250ms") == .milliseconds(250))
        #expect(Duration(compact: "42") == .seconds(42))
        #expect(Duration(compact: "soon") == nil)
        #expect(Duration(compact: "-5s") == nil)
        #expect(Duration.seconds(90).compactDescription == "1m30s")
        #expect(Duration.seconds(3600).compactDescription == "1h")
        #expect(Duration.zero.compactDescription == "0s")
    }

    @Test("timestamps round-trip through storage encoding")
    func timestampCoding() throws {
        let stamp = Timestamp(sinceEpoch: .seconds(1_700_000_000) + .nanoseconds(5))
        let data = try JSONEncoder().encode(stamp)
        #expect(try JSONDecoder().decode(Timestamp.self, from: data) == stamp)
    }

    @Test("a trace shows each step, the counters around it and the rule that decided")
    func traceContents() async throws {
        let rig = try TestDevice()
        #expect(try await rig.outcome("biometrics", .failures(3)) == .authenticationFailed)
        let trace = try #require(rig.device.lastTrace)
        #expect(trace.policy == "biometrics")
        #expect(trace.result == .authenticationFailed)
        #expect(trace.rules == [.fallbackAfterFirstFailure, .touchIDThreeFailuresEnd])
        let failures = trace.steps.filter { $0.event == .notMatched }
        #expect(failures.map(\.after.biometricFailures) == [1, 2, 3])
        #expect(failures.map(\.after.evaluationFailures) == [1, 2, 3])
        #expect(trace.description.contains("(rule touchid.three-failures-end-evaluation)"))
        #expect(trace.description.contains("bio=2 -> eval=3 bio=3") || trace.description.contains("eval=2 bio=2 pass=0 -> eval=3 bio=3 pass=0"))
    }

    @Test("a trace longer than its first buffer keeps every step, in order")
    func traceGrowsPastFirstBuffer() async throws {
        let rig = try TestDevice()  // passcode 1234
        // Fallback to the passcode, then wrong entries (no delay for the first four) and the
        // right one: more steps than the recorder's first buffer holds.
        rig.enqueue(.noMatch, .fallback, .passcode("0001"), .passcode("0002"), .passcode("0003"),
                    .passcode("0004"), .passcode("1234"))
        let result = try await rig.authenticator.makeContext().evaluate(.deviceOwner, reason: "Grow")
        let steps = result.trace.steps
        #expect(steps.count > TraceRecorder.initialCapacity)
        #expect(steps.first?.event == .checked(nil))
        #expect(steps.last?.event == .finished(nil))
        let rejected = steps.filter { if case .passcodeRejected = $0.event { true } else { false } }
        #expect(rejected.map(\.after.passcodeFailures) == [1, 2, 3, 4])
        #expect(steps.contains { $0.event == .passcodeAccepted })
        #expect(Array(steps) == (0..<steps.count).map { steps[$0] })
        #expect(rig.device.lastTrace == result.trace)
    }

    @Test("a trace does not keep the passcodes entered: each is recorded as an empty entry")
    func traceKeepsNoPasscode() async throws {
        let rig = try TestDevice()  // passcode 1234
        rig.enqueue(.noMatch, .fallback, .passcode("0001"), .passcode("1234"))
        let result = try await rig.authenticator.makeContext().evaluate(.deviceOwner, reason: "Unlock")
        let entries = result.trace.steps.compactMap { step -> String? in
            if case let .action(.passcode(entry)) = step.event { entry } else { nil }
        }
        #expect(entries == ["", ""])
        #expect(!result.trace.description.contains("0001") && !result.trace.description.contains("1234"))
        #expect(result.trace.description.contains("user: passcode:****"))
    }

    @Test("a trace handed out is never written again: later steps go to a copy")
    func sealedTraceIsImmutable() {
        var recorder = TraceRecorder(policy: "biometrics", appID: "com.example")
        let counts = CounterSnapshot(evaluationFailures: 0, biometricFailures: 0, passcodeFailures: 0)
        func step(_ event: TraceEvent) -> TraceStep {
            TraceStep(at: .epoch, event: event, rule: nil, before: counts, after: counts)
        }
        recorder.append(step(.checked(nil)))
        recorder.append(step(.matched("thumb")))
        let first = recorder.seal(result: nil, failure: nil)
        for index in 0..<20 { recorder.append(step(.waited(.seconds(index)))) }
        let second = recorder.seal(result: .userCancel, failure: nil)
        #expect(first.steps.count == 2)
        #expect(first.steps.map(\.event) == [.checked(nil), .matched("thumb")])
        #expect(first.result == nil)
        #expect(second.steps.count == 22)
        #expect(second.steps.last?.event == .waited(.seconds(19)))
        #expect(second.result == .userCancel)
        #expect(first != second)
        #expect(first.policy == "biometrics" && second.appID == "com.example")
    }

    @Test("every rule has a summary")
    func ruleSummaries() {
        for rule in Rule.allCases { #expect(!rule.summary.isEmpty) }
    }

    @Test("a script outcome parses into user actions")
    func outcomeParsing() {
        #expect(UserAction(script: "thumb") == .present("thumb"))
        #expect(UserAction(script: "nomatch") == .noMatch)
        #expect(UserAction(script: "passcode:0000") == .passcode("0000"))
        #expect(UserAction(script: "wait:90s") == .wait(.seconds(90)))
        #expect(UserAction(script: "wait:never") == nil)
        #expect(UserAction(script: "two words") == nil)
    }

    @Test("seeded randomness is reproducible; the system source is not")
    func randomness() {
        #expect(RandomSource(seed: 3).bytes(16) == RandomSource(seed: 3).bytes(16))
        #expect(RandomSource(seed: 3).bytes(16) != RandomSource(seed: 4).bytes(16))
        #expect(RandomSource.system.bytes(16) != RandomSource.system.bytes(16))
    }
}

/// A clock that moves by itself, as ``WallClock`` does, whose `elapse` records each wait and
/// moves its time at once instead of sleeping (so the test takes no real time).
private final class SelfMovingClock: DeviceClock {
    private let state = Locked<(now: Timestamp, elapsed: [Duration])>((.epoch, []))

    var now: Timestamp { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }
    var elapsed: [Duration] { state.withLock { $0.elapsed } }

    func sleep(until deadline: Timestamp, tolerance: Duration?) async throws {
        state.withLock { $0.now = max($0.now, deadline) }
    }

    func elapse(_ duration: Duration, unlessInterrupted isInterrupted: @Sendable () -> Bool) async throws -> Duration {
        state.withLock {
            $0.elapsed.append(duration)
            $0.now = $0.now.advanced(by: duration)
        }
        return duration
    }
}

/// A clock that moves by itself whose sleeps take no real time (each moves its time to the
/// deadline at once), and which runs `onPassing` once when its time passes `mark`; it keeps the
/// default, sleeping `elapse`.
private final class SteppingClock: DeviceClock {
    private let state = Locked<(now: Timestamp, fired: Bool)>((.epoch, false))
    private let mark: Timestamp
    private let onPassing: @Sendable () -> Void

    init(mark: Timestamp, onPassing: @escaping @Sendable () -> Void) {
        self.mark = mark
        self.onPassing = onPassing
    }

    var now: Timestamp { state.withLock { $0.now } }
    var minimumResolution: Duration { .nanoseconds(1) }

    func sleep(until deadline: Timestamp, tolerance: Duration?) async throws {
        let fire = state.withLock { state -> Bool in
            state.now = max(state.now, deadline)
            guard !state.fired, state.now >= mark else { return false }
            state.fired = true
            return true
        }
        if fire { onPassing() }
    }
}
