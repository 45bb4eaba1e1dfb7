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

    private var trace: TraceRecorder
    private var counts = CounterSnapshot(evaluationFailures: 0, biometricFailures: 0, passcodeFailures: 0)
    /// The device time read for the steps since the last suspension: no virtual time passes
    /// between steps recorded without awaiting (nothing advances the clock there), so one
    /// reading serves them all — on the wall clock, steps microseconds apart share it, across
    /// policy steps too. Cleared after every `await` and after a `wait` action.
    private var stamp: Timestamp?
    /// The device state at the moment of a biometric success, for the context's domain state.
    private(set) var capturedSnapshot: Device.Snapshot?

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
    private mutating func checkPreflight() throws -> Device.Snapshot {
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
    nonisolated(nonsending) private mutating func runSteps(snapshot: Device.Snapshot) async throws -> [AuthenticationMethod] {
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
    private mutating func finish(_ methods: consuming [AuthenticationMethod]) throws -> EvaluationResult {
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

    private mutating func makeTrace(result: AuthenticationError.Code?, failure: String?) -> Trace {
        trace.seal(result: result, failure: failure)
    }

    /// Device time now (see ``stamp``).
    private mutating func now() -> Timestamp {
        if let stamp { return stamp }
        let now = device.currentTime()
        stamp = now
        return now
    }

    private mutating func record(_ event: consuming TraceEvent, rule: Rule? = nil) {
        trace.append(TraceStep(at: now(), event: event, rule: rule, before: counts, after: counts))
    }

    private mutating func record(_ event: consuming TraceEvent, rule: Rule? = nil, after: CounterSnapshot) {
        trace.append(TraceStep(at: now(), event: event, rule: rule, before: counts, after: after))
        counts = after
    }

    private mutating func fail(_ code: AuthenticationError.Code, rule: Rule?, message: String? = nil) -> AuthenticationError {
        record(.finished(code), rule: rule)
        return AuthenticationError(code, message: message)
    }

    private var interruptionProbe: @Sendable () -> Bool {
        { [handle] in handle.interruptedWith != nil }
    }

    private mutating func checkInterrupted() throws {
        if let code = handle.interruptedWith {
            record(.interrupted(code), rule: code == .appCancel ? .invalidateCancels : .secondEvaluationCancelsFirst)
            throw fail(code, rule: nil)
        }
    }

    // MARK: Biometry

    /// The state of a biometric step's prompt loop, between captures.
    struct BiometricScan {
        /// The device's sensor box. Unowned: the device holds it for its whole life, and the
        /// run (which holds the device) outlives every scan, so the reference is never taken
        /// and dropped per evaluation.
        unowned(unsafe) let box: Device.SensorBox
        let rules: AttemptRules
        let passcodeFallback: Bool
        let companionUsable: Bool
        /// Failed matches in this step so far.
        var failures = 0
        /// The prompt kind and fallback button last traced (a prompt is traced when they change).
        var shown: (kind: Prompt.Kind, fallbackButton: String?)?
        /// The records just read, while nothing can have changed them in this evaluation: until
        /// the first capture that suspends, action, retry or write.
        var unchanged: Device.Snapshot?
    }

    /// Where a biometric step stands when it cannot go on without waiting, or how it ended.
    enum BiometryStop {
        case decided(AuthenticationMethod)
        /// Switched to the passcode prompt (traced).
        case passcode
        /// Handed to the companion.
        case companion
        /// A prompt shown (and traced) whose capture must be awaited.
        case capture(BiometricScan, Prompt)
    }

    /// What one capture led to.
    private enum ScanStep {
        case decided(AuthenticationMethod)
        /// Show the prompt again (after a failure, a retry or a `wait`).
        case again
        /// Switched to the passcode prompt (traced).
        case passcode
    }

    /// A biometric step, from its checks to its last capture.
    nonisolated(nonsending) private mutating func biometry(passcodeFallback: Bool, orCompanion: Bool,
                                   snapshot current: Device.Snapshot?, checked: Bool) async throws -> AuthenticationMethod {
        try await complete(beginBiometry(passcodeFallback: passcodeFallback, orCompanion: orCompanion,
                                         snapshot: current, checked: checked))
    }

    /// Finishes a biometric step from where it stopped: awaits each capture the sensor has to
    /// wait for, the passcode prompt or the companion.
    nonisolated(nonsending) private mutating func complete(_ stop: BiometryStop) async throws -> AuthenticationMethod {
        var stop = stop
        while true {
            switch stop {
            case let .decided(method): return method
            case .passcode: return try await passcode()
            case .companion: return try await companion()
            case .capture(var scan, let prompt):
                let reading = try await scan.box.sensor.capture(prompt)
                stamp = nil
                scan.unchanged = nil
                stop = try self.scan(&scan, from: (reading, prompt))
            }
        }
    }

    /// The prompt loop of a biometric step as far as it goes without waiting: shows each prompt
    /// and handles each capture the sensor answers at once (a queued scripted answer), from
    /// `awaited` — a capture just awaited and its prompt — when given.
    @inline(__always)
    private mutating func scan(_ scan: inout BiometricScan, from awaited: (CaptureResult, Prompt)?) throws -> BiometryStop {
        if let (reading, prompt) = awaited {
            switch try handle(reading, on: prompt, in: &scan) {
            case let .decided(method): return .decided(method)
            case .passcode: return .passcode
            case .again: break
            }
        }
        while true {
            let prompt = try showPrompt(&scan)
            guard let reading = try scan.box.immediateCapture(prompt) else { return .capture(scan, prompt) }
            switch try handle(reading, on: prompt, in: &scan) {
            case let .decided(method): return .decided(method)
            case .passcode: return .passcode
            case .again: continue
            }
        }
    }

    /// The checks before a biometric step's first prompt — biometry unusable (switch to the
    /// passcode or the companion, or fail), the reuse window, interaction not allowed — then
    /// its prompts as far as they go without waiting.
    @inline(__always)
    private mutating func beginBiometry(passcodeFallback: Bool, orCompanion: Bool,
                                        snapshot current: consuming Device.Snapshot?, checked: Bool) throws -> BiometryStop {
        let snapshot = try current.take() ?? device.snapshot()
        let companionUsable = orCompanion && device.isCompanionUsable
        if !checked, let problem = device.biometricProblem(appID: appID, snapshot: snapshot, requiresPasscodeSet: rule.requiresPasscodeSet) {
            if passcodeFallback {
                record(.switchedToPasscode, rule: .passcodeWhenBiometryUnusable)
                return .passcode
            }
            if companionUsable { return .companion }
            throw fail(problem.code, rule: .precedence, message: problem.message)
        }
        if let unlocked = snapshot.counters.lastBiometricUnlock, settings.reuseDuration > .zero {
            let age = unlocked.duration(to: now())
            if age >= .zero, age <= settings.reuseDuration {
                record(.reused(unlockedAgo: age), rule: .reuseWindow)
                return .decided(.reuse)
            }
        }
        if settings.interactionNotAllowed {
            throw fail(.notInteractive, rule: .interactionNotAllowed)
        }
        guard let box = device.sensorBox else { throw fail(.biometryNotAvailable, rule: .precedence) }
        var scan = BiometricScan(box: box, rules: box.attemptRules, passcodeFallback: passcodeFallback,
                                 companionUsable: companionUsable, unchanged: consume snapshot)
        return try self.scan(&scan, from: nil)
    }

    /// The prompt for the next capture, traced when it differs from the one on screen.
    @inline(__always)
    private mutating func showPrompt(_ scan: inout BiometricScan) throws -> Prompt {
        try checkInterrupted()
        let rules = scan.rules
        let failures = scan.failures
        let scanning = failures < rules.failuresPerEvaluation
        let fallbackButton = failures >= rules.fallbackButtonAfterFailures ? fallbackTitle(passcodeFallback: scan.passcodeFallback) : nil
        let kind: Prompt.Kind = !scanning ? .biometricButtonsOnly
            : failures > 0 && !rules.endsWithAuthenticationFailed ? .biometricTryAgain : .biometric
        if scan.shown.map({ $0.kind != kind || $0.fallbackButton != fallbackButton }) ?? true {
            record(.prompt(kind, fallbackButton: fallbackButton),
                   rule: fallbackButton != nil && scan.shown?.fallbackButton == nil
                       ? (rules.fallbackButtonAfterFailures > 1 ? .faceIDFallbackAfterSecondFailure : .fallbackAfterFirstFailure)
                       : nil)
            scan.shown = (kind, fallbackButton)
        }
        // Built last, after the trace step, which needs only its kind (with the awaited capture
        // handled before the loop instead of threaded through it: 634 -> 619 ns an evaluation,
        // median of five interleaved runs).
        return Prompt(kind: kind, reason: reason, fallbackButton: fallbackButton, cancelButton: cancelTitle,
                      biometryType: scan.box.biometryType, failuresSoFar: failures, isInterrupted: interruptionProbe)
    }

    /// What the capture `reading` of `prompt` leads to: a match (after the lockout check), a
    /// counted failure and the attempt limits, a retry, a lost sensor, or the person's action.
    @inline(__always)
    private mutating func handle(_ reading: CaptureResult, on prompt: Prompt, in scan: inout BiometricScan) throws -> ScanStep {
        try checkInterrupted()
        let rules = scan.rules
        let scanning = scan.failures < rules.failuresPerEvaluation
        var matchedID: String?
        switch reading {
        case let .matched(id) where scanning:
            matchedID = id
        case .noMatch where scanning:
            matchedID = nil
        case .matched, .noMatch:
            let presented: UserAction = if case let .matched(id) = reading { .present(id) } else { .noMatch }
            throw device.interaction.misfit(presented, on: prompt)
        case let .retry(reason):
            record(.captureRetry(reason), rule: .retryNotCounted)
            scan.unchanged = nil
            return .again
        case let .unavailable(state):
            throw fail(scan.box.isRemovable && state == .disconnected ? .biometryDisconnected : .biometryNotAvailable,
                       rule: .sensorLostDuringCapture)
        case let .action(action):
            record(.action(action.withoutSecret))
            scan.unchanged = nil
            if action == .approveOnCompanion, scan.companionUsable {
                record(.companionApproved, rule: .companionApproval)
                return .decided(.companion)
            }
            if action == .fallback, prompt.fallbackButton != nil {
                if scan.passcodeFallback {
                    record(.switchedToPasscode, rule: .fallbackOpensPasscode)
                    return .passcode
                }
                throw fail(.userFallback, rule: .fallbackEndsWithUserFallback)
            }
            try handleCommon(action, on: prompt)
            return .again
        }
        // The records as stored now (another process may have counted failures while this
        // one scanned). A capture that answered at once (a decided, queued answer) scanned
        // for no time: the records read just before it are as current as a second read, as
        // the same race with another process exists after any read. The enrolled set
        // recorded there is current for every change made through Touchstone; only a match
        // on an identity it lacks asks the sensor again.
        var current = try scan.unchanged.take() ?? device.storedSnapshot()
        var enrolled = matchedID.map { current.state.hasIdentity($0) } ?? false
        if let name = matchedID, !enrolled {
            current = try device.snapshot()
            enrolled = current.state.hasIdentity(name)
        }
        if let name = matchedID, enrolled {
            // Another evaluation (another process) may have locked biometry while this one
            // was scanning: the count is read and reset in one transaction, so a match
            // never slips past a lockout.
            let stored = current.counters.consecutiveBiometricFailures
            var lockedAt: Int? = rules.isLockedOut(after: stored) ? stored : nil
            if lockedAt == nil, stored != 0 {
                lockedAt = try device.update { _, counters -> Int? in
                    guard !rules.isLockedOut(after: counters.consecutiveBiometricFailures) else { return counters.consecutiveBiometricFailures }
                    counters.consecutiveBiometricFailures = 0
                    return nil
                }
            }
            guard let lockedAt else {
                // The state matched against is the state the domain state is derived from.
                if capturedSnapshot == nil { capturedSnapshot = consume current }
                var after = counts
                after.biometricFailures = 0
                record(.matched(name), rule: .matchResetsFailures, after: after)
                return .decided(.biometry)
            }
            // The match came too late: biometry was locked out meanwhile. Traced as the match
            // it was, with the lockout that refuses it (nothing more is counted).
            var after = counts
            after.biometricFailures = lockedAt
            record(.matched(name), rule: .fiveFailuresLockOut, after: after)
            if scan.passcodeFallback {
                record(.switchedToPasscode, rule: .passcodeAfterBiometricLimit)
                return .passcode
            }
            throw fail(.biometryLockout, rule: .fiveFailuresLockOut)
        }
        // A failed match.
        scan.failures += 1
        let failures = scan.failures
        let consecutive = try device.update { _, counters -> Int in
            // Locked out meanwhile by another evaluation: nothing more to count.
            if !rules.isLockedOut(after: counters.consecutiveBiometricFailures) {
                counters.consecutiveBiometricFailures += 1
            }
            return counters.consecutiveBiometricFailures
        }
        var after = counts
        after.evaluationFailures = failures
        after.biometricFailures = consecutive
        if rules.isLockedOut(after: consecutive) {
            record(.notMatched, rule: .fiveFailuresLockOut, after: after)
            if scan.passcodeFallback {
                record(.switchedToPasscode, rule: .passcodeAfterBiometricLimit)
                return .passcode
            }
            throw fail(.biometryLockout, rule: .fiveFailuresLockOut)
        }
        if failures >= rules.failuresPerEvaluation {
            if scan.passcodeFallback {
                record(.notMatched, after: after)
                record(.switchedToPasscode, rule: .passcodeAfterBiometricLimit)
                return .passcode
            }
            if rules.endsWithAuthenticationFailed {
                record(.notMatched, after: after)
                throw fail(.authenticationFailed, rule: .touchIDThreeFailuresEnd)
            }
            record(.notMatched, rule: .faceIDTwoFailuresStopScanning, after: after)
        } else {
            record(.notMatched, after: after)
        }
        return .again
    }

    /// The fallback button's title: nil shows the default ("Enter Password", or "Enter Passcode"
    /// when the button leads to the device passcode), the empty string hides it (REFERENCE §5).
    private func fallbackTitle(passcodeFallback: Bool) -> String? {
        guard let title = settings.fallbackTitle else {
            return AuthenticationContext.defaultFallbackTitle(passcodeFallback: passcodeFallback)
        }
        return title.isEmpty ? nil : title
    }

    /// The cancel button's title: nil **or the empty string** shows the default ("Cancel",
    /// REFERENCE §5).
    private var cancelTitle: String {
        guard let title = settings.cancelTitle, !title.isEmpty else { return AuthenticationContext.defaultCancelTitle }
        return title
    }

    // MARK: Passcode

    nonisolated(nonsending) private mutating func passcode() async throws -> AuthenticationMethod {
        let snapshot = try device.snapshot()
        if snapshot.counters.isDisabled { throw fail(.authenticationFailed, rule: .deviceDisabled) }
        guard device.passcodeIsSet(snapshot) else { throw fail(.passcodeNotSet, rule: .precedence) }
        if settings.interactionNotAllowed { throw fail(.notInteractive, rule: .interactionNotAllowed) }
        let prompt = Prompt(kind: .passcode, reason: reason, fallbackButton: nil, cancelButton: cancelTitle,
                            biometryType: device.biometryType, failuresSoFar: 0,
                            isInterrupted: interruptionProbe)
        record(.prompt(.passcode, fallbackButton: nil))
        while true {
            try checkInterrupted()
            let action = try await device.interaction.nextAction(for: prompt)
            stamp = nil
            try checkInterrupted()
            // The entry itself is not kept: a trace lives on in the context and the device.
            record(.action(action.withoutSecret))
            guard case let .passcode(entry) = action else {
                try handleCommon(action, on: prompt)
                continue
            }
            var after = counts
            switch try device.submitPasscode(entry) {
            case .accepted:
                after.passcodeFailures = 0
                after.biometricFailures = 0
                record(.passcodeAccepted, rule: .passcodeCorrectClearsCounts, after: after)
                return .passcode
            case let .rejected(failures, delay):
                after.passcodeFailures = failures
                record(.passcodeRejected(delay: delay), rule: .passcodeDelayLadder, after: after)
            case .repeatedNotCounted:
                record(.passcodeRepeated, rule: .passcodeRepeatNotCounted)
            case let .refused(remaining):
                record(.passcodeRefused(remaining: remaining), rule: .passcodeRefusedDuringDelay)
            case let .disabledNow(erased):
                after.passcodeFailures = erased ? 0 : PasscodeLadder.disableAfterFailures
                record(.deviceDisabled(erased: erased), rule: .passcodeTenthFailureDisables, after: after)
                throw fail(.authenticationFailed, rule: .passcodeTenthFailureDisables)
            case .deviceDisabled:
                throw fail(.authenticationFailed, rule: .deviceDisabled)
            case .notSet:
                throw fail(.passcodeNotSet, rule: .precedence)
            }
        }
    }

    // MARK: Companion

    nonisolated(nonsending) private mutating func companion() async throws -> AuthenticationMethod {
        guard device.isCompanionUsable else { throw fail(.companionNotAvailable, rule: .precedence) }
        if settings.interactionNotAllowed { throw fail(.notInteractive, rule: .interactionNotAllowed) }
        let prompt = Prompt(kind: .companion, reason: reason, fallbackButton: nil, cancelButton: cancelTitle,
                            biometryType: device.biometryType, failuresSoFar: 0,
                            isInterrupted: interruptionProbe)
        record(.prompt(.companion, fallbackButton: nil))
        while true {
            try checkInterrupted()
            let action = try await device.interaction.nextAction(for: prompt)
            stamp = nil
            try checkInterrupted()
            record(.action(action.withoutSecret))
            if action == .approveOnCompanion {
                record(.companionApproved, rule: .companionApproval)
                return .companion
            }
            try handleCommon(action, on: prompt)
        }
    }

    // MARK: Actions every prompt understands

    /// Cancel, system cancel, invalidate and wait; anything else does not fit `prompt`.
    private mutating func handleCommon(_ action: UserAction, on prompt: Prompt) throws {
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

extension Device {
    /// Whether a companion is paired and reachable.
    var isCompanionUsable: Bool {
        guard let companion else { return false }
        return companion.isPaired && companion.isReachable
    }

    /// The error an evaluation of `rule` would fail with before prompting anyone, or nil.
    /// Order (our rule): disabled device, then per step: unavailable policy, hardware,
    /// passcode, enrollment, lockout (biometric steps), passcode (passcode steps), companion.
    func preflight(_ rule: PolicyRule, appID: String, snapshot: Snapshot) -> AuthenticationError? {
        if snapshot.counters.isDisabled {
            return AuthenticationError(.authenticationFailed, message: "The device is disabled after too many wrong passcodes.")
        }
        let passcodeMissing = !passcodeIsSet(snapshot)
        for step in rule.steps {
            switch step {
            case let .unavailable(code):
                return AuthenticationError(code, message: "This policy is not available on Linux.",
                                           recovery: "It needs a watch's wrist detection; use another policy.")
            case .biometry(passcodeFallback: true, _):
                if rule.requiresPasscodeSet, passcodeMissing {
                    return AuthenticationError(.passcodeNotSet, recovery: "Set a device passcode first.")
                }
            case let .biometry(passcodeFallback: false, orCompanion):
                if orCompanion, isCompanionUsable {
                    // The companion can stand in for biometry, not for the passcode a biometric
                    // policy needs (REFERENCE §6).
                    if rule.requiresPasscodeSet, passcodeMissing {
                        return AuthenticationError(.passcodeNotSet, recovery: "Set a device passcode first.")
                    }
                } else if let problem = biometricProblem(appID: appID, snapshot: snapshot, requiresPasscodeSet: rule.requiresPasscodeSet) {
                    return problem
                }
            case .passcode:
                if passcodeMissing {
                    return AuthenticationError(.passcodeNotSet, recovery: "Set a device passcode first.")
                }
            case .companion:
                if !isCompanionUsable {
                    return AuthenticationError(.companionNotAvailable)
                }
            }
        }
        return nil
    }
}
