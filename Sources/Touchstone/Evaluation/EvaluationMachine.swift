/// One evaluation as a state machine that never suspends: the attempt, lockout and passcode
/// rules, the prompts they lead to, and the trace.
///
/// ```
///   start(): preflight (the errors that come before any prompt), then the policy's first step
///
///   a policy step:
///     biometry ── unusable ──────────────────► passcode prompt, companion prompt, or throw
///              ── reuse window ──────────────► step done
///              ── prompt ─► .capture ◄─┐        step(.captured(reading, on: prompt)):
///                             │        └─ again   failed match, retry, wait
///                             ├─ match ──────► step done
///                             ├─ fallback, limit ► passcode prompt
///                             ├─ approve ────► step done (biometry or companion)
///                             └─ wait ─► .wait ─► step(.waited): the same prompt again
///     passcode / companion ─► .ask ◄─┐          step(.acted(action, on: prompt)):
///                             │      └─ again     wrong passcode
///                             ├─ wait ─► .wait ─► step(.waited): the same prompt again
///                             └─ accepted ───► step done
///
///   step done: the next policy step, or .finish(result) after the last
///   a rule that ends the evaluation: traced, then thrown as its AuthenticationError
/// ```
///
/// The machine is driven by ``AuthenticationContext/evaluate(_:reason:)-(Policy,_)``: it
/// calls ``start()``, performs each ``Action`` — awaits the sensor's capture, the person's
/// next action or the time the person waits — and hands what came back to ``step(_:)``, until the machine finishes or
/// throws; after a throw the driver seals the trace with ``trace(endingWith:)``. Every await
/// is in that loop. The machine's own work is synchronous: the rules, the trace as they
/// decide, and the calls they need on the way — storage reads and counter commits, the
/// passcode check, the sensor's hardware state. Every rule lives in one place and is named in
/// the trace by a ``Rule``.
struct EvaluationMachine: ~Copyable {
    /// What the driver does next.
    enum Action {
        /// Awaits the sensor's capture for `prompt` (on screen; traced when it changed), then calls
        /// ``step(_:)`` with ``Event/captured(_:)``.
        case capture(Prompt, from: Device.SensorBox)
        /// Awaits the person's next action on `prompt` (the passcode keypad or the companion
        /// request, on screen and traced), then calls ``step(_:)`` with ``Event/acted(_:on:)``.
        case ask(Prompt)
        /// The person waits `duration` with `prompt` on screen: the driver lets that much of
        /// the device's time pass (``DeviceClock/elapse(_:unlessInterrupted:)``: a real clock
        /// sleeps, until an interruption at the latest; a manual one moves at once), then
        /// calls ``step(_:)`` with ``Event/waited(_:on:)`` and the time that passed.
        case wait(Duration, on: Prompt)
        /// The evaluation succeeded.
        case finish(EvaluationResult)
    }

    /// What the driver reports: the answer to the last action, with that action's prompt
    /// handed back (the machine does not keep a copy; its one driver is this module's).
    enum Event {
        /// The sensor's answer to the last ``Action/capture(_:from:)``.
        case captured(CaptureResult, on: Prompt)
        /// The person's answer to the last ``Action/ask(_:)``.
        case acted(UserAction, on: Prompt)
        /// This much of the last ``Action/wait(_:on:)`` has passed (all of it, unless the
        /// evaluation was interrupted meanwhile).
        case waited(Duration, on: Prompt)
    }

    /// Where the evaluation stands between actions.
    enum State: Equatable {
        /// Before ``start()``.
        case idle
        /// A biometric prompt is on screen (the loop's state in ``scan``); its capture is
        /// awaited.
        case scanning
        /// The passcode or companion prompt is on screen; the person is awaited.
        case asking
        /// The person waits with a prompt on screen; then the prompt of `then` is shown again.
        case waiting(then: Resume)
        /// Finished, or thrown.
        case over
    }

    /// Which prompt a wait goes back to.
    enum Resume {
        /// The biometric prompt (the loop's state stays in ``scan``).
        case scanning
        /// The passcode or companion prompt.
        case asking
    }

    let context: AuthenticationContext
    let device: Device
    let appID: String
    /// The policy's rule, read once.
    let rule: PolicyRule
    let reason: String
    let handle: EvaluationHandle
    let settings: EvaluationSettings

    private(set) var state = State.idle
    /// The biometric step's prompt loop while ``State/scanning``. (Kept beside the state, not
    /// in it: taken out and put back in place, never copied, between captures.)
    private var scan: BiometricScan?
    /// The policy step under way, and the methods of the steps done.
    private var stepIndex = 0
    private var methods: [AuthenticationMethod] = []

    var trace: TraceRecorder
    var counts = CounterSnapshot(evaluationFailures: 0, biometricFailures: 0, passcodeFailures: 0)
    /// The device time read for the steps since the last event: no virtual time passes
    /// between steps recorded without waiting (nothing advances the clock there), so one
    /// reading serves them all. Cleared at every event (time passes while the driver awaits).
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

    // MARK: Transitions

    /// Reads the device state, applies the preflight (the errors that come before any prompt)
    /// and enters the policy's first step.
    mutating func start() throws -> Action {
        precondition(state == .idle, "an evaluation machine starts once")
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
        return try enterStep(snapshot: snapshot)
    }

    /// Goes on from `event`, the answer to the last action, to the next action.
    mutating func step(_ event: consuming Event) throws -> Action {
        stamp = nil  // time may have passed while the driver waited
        let current = state
        state = .over  // until the next action, should this event end the evaluation
        // The event is taken apart once (consumed: its prompt is moved, not copied).
        switch consume event {
        case let .captured(reading, prompt):
            guard current == .scanning, var scan = scan.take() else {
                preconditionFailure("a capture answers a scan, not the evaluation's \(current) state")
            }
            switch try handleCapture(reading, on: prompt, in: &scan) {
            case let .decided(method): return try stepSucceeded(method)
            case .passcode: return try enterPersonPrompt(.passcode)
            case .again: return try showPrompt(scan)
            case let .wait(duration):
                self.scan = consume scan
                return wait(duration, on: prompt, then: .scanning)
            }
        case let .acted(action, prompt):
            guard current == .asking else {
                preconditionFailure("an action answers a prompt of the person's, not the evaluation's \(current) state")
            }
            switch try answer(action, on: prompt) {
            case let .decided(method): return try stepSucceeded(method)
            case .again:
                // The same keypad again, counting the entry it turned down.
                var again = prompt
                again.failuresSoFar += 1
                return try ask(again)
            case let .wait(duration): return wait(duration, on: prompt, then: .asking)
            }
        case let .waited(duration, prompt):
            guard case let .waiting(then) = current else {
                preconditionFailure("a wait answers a wait, not the evaluation's \(current) state")
            }
            record(.waited(duration))
            switch then {
            case .scanning:
                guard let scan = scan.take() else { preconditionFailure("waiting to scan without a scan") }
                return try showPrompt(scan)
            case .asking:
                return try ask(prompt)
            }
        }
    }

    /// Enters the policy step ``stepIndex``; the first sees `snapshot`, the state the
    /// preflight just checked. Past the last step (or for a policy of none, which a plugin
    /// may define), the evaluation succeeds.
    private mutating func enterStep(snapshot: Device.Snapshot?) throws -> Action {
        guard stepIndex < rule.steps.count else { return try finish() }
        switch rule.steps[stepIndex] {
        case let .biometry(passcodeFallback, orCompanion):
            switch try beginBiometry(passcodeFallback: passcodeFallback, orCompanion: orCompanion, snapshot: snapshot) {
            case let .decided(method): return try stepSucceeded(method)
            case .passcode: return try enterPersonPrompt(.passcode)
            case .companion: return try enterPersonPrompt(.companion)
            case let .scan(scan): return try showPrompt(scan)
            }
        case .passcode:
            return try enterPersonPrompt(.passcode)
        case .companion:
            return try enterPersonPrompt(.companion)
        case let .unavailable(code):
            throw fail(code, rule: .unavailableOnLinux)
        }
    }

    /// The current step is done by `method`: the next step, or the end.
    mutating func stepSucceeded(_ method: AuthenticationMethod) throws -> Action {
        // A one-step policy (nearly all) shares a constant array instead of allocating one.
        methods = methods.isEmpty && rule.steps.count == 1 ? AuthenticationMethod.alone(method) : methods + [method]
        stepIndex += 1
        return try enterStep(snapshot: nil)
    }

    /// The successful end: the device state for the domain state, the last trace step, the result.
    private mutating func finish() throws -> Action {
        if capturedSnapshot == nil, methods.contains(where: { $0 == .biometry || $0 == .reuse }) {
            capturedSnapshot = try device.snapshot()
        }
        record(.finished(nil))
        state = .over
        return .finish(EvaluationResult(methods: methods, trace: trace.seal(result: nil, failure: nil)))
    }

    /// Puts `prompt` on screen for the sensor (``Action/capture(_:from:)``).
    mutating func requestCapture(_ prompt: consuming Prompt, scan: consuming BiometricScan) -> Action {
        let box = scan.box
        self.scan = consume scan
        state = .scanning
        return .capture(prompt, from: box)
    }

    /// Lets the person wait `duration` on `prompt` (``Action/wait(_:on:)``), then resumes `then`.
    private mutating func wait(_ duration: Duration, on prompt: consuming Prompt, then: Resume) -> Action {
        state = .waiting(then: then)
        return .wait(duration, on: prompt)
    }

    /// Puts `prompt` on screen for the person (``Action/ask(_:)``), unless the evaluation was
    /// interrupted meanwhile.
    mutating func ask(_ prompt: consuming Prompt) throws -> Action {
        try checkInterrupted()
        state = .asking
        return .ask(prompt)
    }

    // MARK: The trace

    /// The trace of a machine that threw `error`.
    mutating func trace(endingWith error: any Error) -> Trace {
        state = .over
        stamp = nil  // the error may come out of the driver's wait
        if let error = error as? AuthenticationError {
            if trace.last?.event != .finished(error.code) { record(.finished(error.code)) }
            return trace.seal(result: error.code, failure: nil)
        }
        return trace.seal(result: nil, failure: "\(error)")
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

    // MARK: Interruption and the actions every prompt understands

    var interruptionProbe: @Sendable () -> Bool {
        { [handle] in handle.interruptedWith != nil }
    }

    mutating func checkInterrupted() throws {
        if let code = handle.interruptedWith {
            record(.interrupted(code), rule: code == .appCancel ? .invalidateCancels : .secondEvaluationCancelsFirst)
            throw fail(code, rule: nil)
        }
    }

    /// A prompt of `kind` with this evaluation's reason, button titles and interruption probe.
    func prompt(_ kind: Prompt.Kind, fallbackButton: String?, biometryType: BiometryType, failuresSoFar: Int) -> Prompt {
        Prompt(kind: kind, reason: reason, fallbackButton: fallbackButton, cancelButton: cancelTitle,
               biometryType: biometryType, failuresSoFar: failuresSoFar, isInterrupted: interruptionProbe)
    }

    /// The cancel button's title: nil **or the empty string** shows the default ("Cancel",
    /// REFERENCE §5).
    var cancelTitle: String {
        guard let title = settings.cancelTitle, !title.isEmpty else { return AuthenticationContext.defaultCancelTitle }
        return title
    }

    /// The actions every prompt understands: cancel, system cancel and invalidate end the
    /// evaluation; `wait` returns its duration, for the driver to let pass. Any other action
    /// does not fit `prompt`.
    mutating func handleCommon(_ action: UserAction, on prompt: Prompt) throws -> Duration {
        switch action {
        case .cancel:
            throw fail(.userCancel, rule: .userCancel)
        case .systemCancel:
            throw fail(.systemCancel, rule: .systemCancel)
        case .invalidate:
            context.markInvalidated()
            throw fail(.appCancel, rule: .invalidateCancels)
        case let .wait(duration):
            return duration
        default:
            throw device.interaction.misfit(action, on: prompt)
        }
    }
}
