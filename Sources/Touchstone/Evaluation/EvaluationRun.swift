/// The evaluation state machine: runs a policy's steps over the user's actions, applying the
/// attempt, lockout and passcode rules, and writes the trace.
///
/// Every rule lives in one place below and is named in the trace by a ``Rule``.
struct EvaluationRun {
    let context: AuthenticationContext
    let device: Device
    let appID: String
    /// The policy's rule, read once.
    let rule: PolicyRule
    let reason: String
    let handle: EvaluationHandle
    let settings: EvaluationSettings

    var trace: TraceRecorder
    var counts = CounterSnapshot(evaluationFailures: 0, biometricFailures: 0, passcodeFailures: 0)
    /// The device time read for the steps since the last suspension: no virtual time passes
    /// between steps recorded without awaiting (nothing advances the clock there), so one
    /// reading serves them all — on the wall clock, steps microseconds apart share it, across
    /// policy steps too. Cleared after every `await` and after a `wait` action.
    var stamp: Timestamp?
    /// The device state at the moment of a biometric success, for the context's domain state.
    var capturedSnapshot: Device.Snapshot?

    init(context: AuthenticationContext, policy: any Policy, reason: String,
         handle: EvaluationHandle, settings: EvaluationSettings) {
        self.context = context
        self.device = context.authenticator.device
        self.appID = context.authenticator.appID
        self.trace = TraceRecorder(policy: policy.name, appID: appID)
        self.rule = policy.rule
        self.reason = reason
        self.handle = handle
        self.settings = settings
    }

    // MARK: Running

    /// Where an evaluation that could not finish without waiting goes on (see ``start()``).
    enum Resumption {
        /// The policy's steps, from the first, after the preflight (a policy of several steps,
        /// or whose only step is not biometric).
        case steps(Device.Snapshot)
        /// The one biometric step, where it stopped.
        case biometry(BiometryStop)
    }

    /// How ``start()`` left the evaluation.
    enum Start {
        /// It finished.
        case finished(EvaluationResult)
        /// It must wait: ``resume(from:)`` goes on from here. Boxed, so that an evaluation that
        /// finishes at once does not carry the space of a stopped biometric step around.
        indirect case waiting(Resumption)
    }

    /// Runs the evaluation as far as it can go without waiting: the preflight, and for a
    /// policy of one biometric step every prompt a capture answers at once (a queued scripted
    /// answer). Returns the result, or where it must wait (for the sensor or the person):
    /// ``resume(from:)`` goes on from there. The rules are those of the awaited path — the same
    /// functions run either way — so a sensor that answers at once costs no suspension.
    mutating func start() throws -> Start {
        let snapshot = try checkPreflight()
        guard rule.steps.count == 1, case let .biometry(passcodeFallback, orCompanion) = rule.steps[0] else {
            return .waiting(.steps(snapshot))
        }
        let stop = try beginBiometry(passcodeFallback: passcodeFallback, orCompanion: orCompanion,
                                     snapshot: consume snapshot, checked: !passcodeFallback && !orCompanion)
        if case let .decided(method) = stop { return .finished(try finish(AuthenticationMethod.alone(method))) }
        return .waiting(.biometry(stop))
    }

    /// Goes on from where ``start()`` had to wait, to the end.
    nonisolated(nonsending) mutating func resume(from resumption: Resumption) async throws -> EvaluationResult {
        switch resumption {
        case let .steps(snapshot):
            return try finish(try await runSteps(snapshot: snapshot))
        case let .biometry(stop):
            return try finish(AuthenticationMethod.alone(try await complete(stop)))
        }
    }

    // The step functions below are `@inline(__always)`: inlined into `start()`, their enum
    // results and the scan state fold away (measured: 735 -> 697 ns an evaluation).

    /// Reads the device state, applies the preflight (the errors that come before any prompt)
    /// and traces its outcome; returns the state it checked.
    @inline(__always)
    mutating func checkPreflight() throws -> Device.Snapshot {
        let snapshot = try device.snapshot()
        counts.biometricFailures = snapshot.counters.consecutiveBiometricFailures
        counts.passcodeFailures = snapshot.counters.passcodeFailures
        if let problem = device.preflight(rule, appID: appID, snapshot: snapshot) {
            let decidedBy: Rule
            if snapshot.counters.isDisabled {
                decidedBy = .deviceDisabled
            } else if case .unavailable = rule.steps.first {
                decidedBy = .unavailableOnLinux
            } else {
                decidedBy = .precedence
            }
            record(.checked(problem.code), rule: decidedBy)
            throw problem
        }
        record(.checked(nil))
        return snapshot
    }

    /// Each step of the policy in turn (the first sees the state the preflight checked).
    nonisolated(nonsending) mutating func runSteps(snapshot: Device.Snapshot) async throws -> [AuthenticationMethod] {
        var methods: [AuthenticationMethod] = []
        for (index, step) in rule.steps.enumerated() {
            let method: AuthenticationMethod
            switch step {
            case let .biometry(passcodeFallback, orCompanion):
                // The first step sees the state just checked; later ones read it again.
                // Preflight already ran the biometric checks on this snapshot for a first step
                // with neither fallback.
                method = try await biometry(passcodeFallback: passcodeFallback, orCompanion: orCompanion,
                                            snapshot: index == 0 ? snapshot : nil,
                                            checked: index == 0 && !passcodeFallback && !orCompanion)
            case .passcode:
                method = try await passcode()
            case .companion:
                method = try await companion()
            case let .unavailable(code):
                throw fail(code, rule: .unavailableOnLinux)
            }
            // (No `stamp = nil` here: the steps clear it after each of their own awaits.)
            // A one-step policy (nearly all) shares a constant array instead of allocating one.
            methods = methods.isEmpty && rule.steps.count == 1 ? AuthenticationMethod.alone(method) : methods + [method]
        }
        return methods
    }

    /// The successful end: the device state for the domain state, the last trace step, the result.
    @inline(__always)
    mutating func finish(_ methods: consuming [AuthenticationMethod]) throws -> EvaluationResult {
        if capturedSnapshot == nil, methods.contains(where: { $0 == .biometry || $0 == .reuse }) {
            capturedSnapshot = try device.snapshot()
        }
        record(.finished(nil))
        return EvaluationResult(methods: methods, trace: makeTrace(result: nil, failure: nil))
    }

    /// The trace of a run that threw `error`.
    mutating func trace(endingWith error: any Error) -> Trace {
        stamp = nil  // the error may come out of an await
        if let error = error as? AuthenticationError {
            if trace.last?.event != .finished(error.code) { record(.finished(error.code)) }
            return makeTrace(result: error.code, failure: nil)
        }
        return makeTrace(result: nil, failure: "\(error)")
    }

    mutating func makeTrace(result: AuthenticationError.Code?, failure: String?) -> Trace {
        trace.seal(result: result, failure: failure)
    }

    /// Device time now (see ``stamp``).
    mutating func now() -> Timestamp {
        if let stamp { return stamp }
        let now = device.currentTime()
        stamp = now
        return now
    }

    mutating func record(_ event: consuming TraceEvent, rule: Rule? = nil) {
        trace.append(TraceStep(at: now(), event: event, rule: rule, before: counts, after: counts))
    }

    mutating func record(_ event: consuming TraceEvent, rule: Rule? = nil, after: CounterSnapshot) {
        trace.append(TraceStep(at: now(), event: event, rule: rule, before: counts, after: after))
        counts = after
    }

    mutating func fail(_ code: AuthenticationError.Code, rule: Rule?, message: String? = nil) -> AuthenticationError {
        record(.finished(code), rule: rule)
        return AuthenticationError(code, message: message)
    }

    var interruptionProbe: @Sendable () -> Bool {
        { [handle] in handle.interruptedWith != nil }
    }

    mutating func checkInterrupted() throws {
        if let code = handle.interruptedWith {
            record(.interrupted(code), rule: code == .appCancel ? .invalidateCancels : .secondEvaluationCancelsFirst)
            throw fail(code, rule: nil)
        }
    }

    // MARK: Actions every prompt understands

    /// Cancel, system cancel, invalidate and wait; anything else does not fit `prompt`.
    mutating func handleCommon(_ action: UserAction, on prompt: Prompt) throws {
        switch action {
        case .cancel:
            throw fail(.userCancel, rule: .userCancel)
        case .systemCancel:
            throw fail(.systemCancel, rule: .systemCancel)
        case .invalidate:
            context.markInvalidated()
            throw fail(.appCancel, rule: .invalidateCancels)
        case let .wait(duration):
            guard let clock = device.clock.manual else {
                throw UsageError.notSimulated("wait:\(duration.compactDescription) (the device runs on the wall clock)")
            }
            guard clock.remaining >= duration else {
                throw UsageError.clockLimit(requested: duration, now: clock.now)
            }
            clock.advance(by: duration)
            stamp = nil
            record(.waited(duration))
        default:
            throw device.interaction.misfit(action, on: prompt)
        }
    }
}
