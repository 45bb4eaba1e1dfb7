/// The evaluation state machine: runs a policy's steps over the user's actions, applying the
/// attempt, lockout and passcode rules, and writes the trace.
///
/// Every rule lives in one place below and is named in the trace by a ``Rule``.
struct EvaluationRun {
    let context: AuthenticationContext
    let device: Device
    let appID: String
    /// The policy's name (for the trace) and rule, read once.
    let policyName: String
    let rule: PolicyRule
    let reason: String
    let handle: EvaluationHandle
    let settings: EvaluationSettings

    private var steps: [TraceStep] = {
        var steps: [TraceStep] = []
        steps.reserveCapacity(6)
        return steps
    }()
    private var counts = CounterSnapshot(evaluationFailures: 0, biometricFailures: 0, passcodeFailures: 0)
    /// The device time read for the steps since the last suspension: no time passes between
    /// steps recorded without awaiting (nothing advances the clock there), so one reading
    /// serves them all. Cleared after every `await` and after a `wait` action.
    private var stamp: Timestamp?
    /// The device state at the moment of a biometric success, for the context's domain state.
    private(set) var capturedSnapshot: Device.Snapshot?

    init(context: AuthenticationContext, policy: any Policy, reason: String,
         handle: EvaluationHandle, settings: EvaluationSettings) {
        self.context = context
        self.device = context.authenticator.device
        self.appID = context.authenticator.appID
        self.policyName = policy.name
        self.rule = policy.rule
        self.reason = reason
        self.handle = handle
        self.settings = settings
    }

    // MARK: Running

    nonisolated(nonsending) mutating func run() async throws -> EvaluationResult {
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
            if steps.last?.event != .finished(error.code) { record(.finished(error.code)) }
            return makeTrace(result: error.code, failure: nil)
        }
        return makeTrace(result: nil, failure: "\(error)")
    }

    private func makeTrace(result: AuthenticationError.Code?, failure: String?) -> Trace {
        Trace(policy: policyName, appID: appID, steps: steps, result: result, failure: failure)
    }

    /// Device time now (see ``stamp``).
    private mutating func now() -> Timestamp {
        if let stamp { return stamp }
        let now = device.now
        stamp = now
        return now
    }

    private mutating func record(_ event: TraceEvent, rule: Rule? = nil) {
        steps.append(TraceStep(at: now(), event: event, rule: rule, before: counts, after: counts))
    }

    private mutating func record(_ event: TraceEvent, rule: Rule? = nil, after: CounterSnapshot) {
        steps.append(TraceStep(at: now(), event: event, rule: rule, before: counts, after: after))
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

    nonisolated(nonsending) private mutating func biometry(passcodeFallback: Bool, orCompanion: Bool,
                                   snapshot current: Device.Snapshot?, checked: Bool) async throws -> AuthenticationMethod {
        let snapshot = try current ?? device.snapshot()
        let companionUsable = orCompanion && device.isCompanionUsable
        if !checked, let problem = device.biometricProblem(appID: appID, snapshot: snapshot, requiresPasscodeSet: rule.requiresPasscodeSet) {
            if passcodeFallback {
                record(.switchedToPasscode, rule: .passcodeWhenBiometryUnusable)
                return try await passcode()
            }
            if companionUsable { return try await companion() }
            throw fail(problem.code, rule: .precedence, message: problem.message)
        }
        if let unlocked = snapshot.counters.lastBiometricUnlock, settings.reuseDuration > .zero {
            let age = unlocked.duration(to: now())
            if age >= .zero, age <= settings.reuseDuration {
                record(.reused(unlockedAgo: age), rule: .reuseWindow)
                return .reuse
            }
        }
        if settings.interactionNotAllowed {
            throw fail(.notInteractive, rule: .interactionNotAllowed)
        }
        guard let box = device.sensorBox else { throw fail(.biometryNotAvailable, rule: .precedence) }
        let biometryType = box.biometryType
        let rules = box.attemptRules
        var failures = 0
        var shown: (Prompt.Kind, String?)?
        // The records just read, while nothing can have changed them in this evaluation: until
        // the first capture that suspends, action, retry or write.
        var unchanged: Device.Snapshot? = snapshot
        while true {
            try checkInterrupted()
            let scanning = failures < rules.failuresPerEvaluation
            let fallbackButton = failures >= rules.fallbackButtonAfterFailures ? fallbackTitle(passcodeFallback: passcodeFallback) : nil
            let prompt = Prompt(
                kind: !scanning ? .biometricButtonsOnly
                    : failures > 0 && !rules.endsWithAuthenticationFailed ? .biometricTryAgain : .biometric,
                reason: reason,
                fallbackButton: fallbackButton, cancelButton: cancelTitle,
                biometryType: biometryType, failuresSoFar: failures, isInterrupted: interruptionProbe)
            if shown.map({ $0.0 != prompt.kind || $0.1 != fallbackButton }) ?? true {
                record(.prompt(prompt.kind, fallbackButton: fallbackButton),
                       rule: fallbackButton != nil && shown?.1 == nil
                           ? (rules.fallbackButtonAfterFailures > 1 ? .faceIDFallbackAfterSecondFailure : .fallbackAfterFirstFailure)
                           : nil)
                shown = (prompt.kind, fallbackButton)
            }
            // A capture decided already (a queued scripted answer) is taken without suspending.
            let reading: CaptureResult
            if let immediate = try box.sensor.immediateCapture(prompt) {
                reading = immediate
            } else {
                reading = try await box.sensor.capture(prompt)
                stamp = nil
                unchanged = nil
            }
            try checkInterrupted()
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
                unchanged = nil
                continue
            case let .unavailable(state):
                throw fail(box.isRemovable && state == .disconnected ? .biometryDisconnected : .biometryNotAvailable,
                           rule: .sensorLostDuringCapture)
            case let .action(action):
                record(.action(action))
                unchanged = nil
                if action == .approveOnCompanion, companionUsable {
                    record(.companionApproved, rule: .companionApproval)
                    return .companion
                }
                if action == .fallback, fallbackButton != nil {
                    if passcodeFallback {
                        record(.switchedToPasscode, rule: .fallbackOpensPasscode)
                        return try await passcode()
                    }
                    throw fail(.userFallback, rule: .fallbackEndsWithUserFallback)
                }
                try await handleCommon(action, on: prompt)
                stamp = nil
                continue
            }
            // The records as stored now (another process may have counted failures while this
            // one scanned). A capture that answered at once (a decided, queued answer) scanned
            // for no time: the records read just before it are as current as a second read, as
            // the same race with another process exists after any read. The enrolled set
            // recorded there is current for every change made through Touchstone; only a match
            // on an identity it lacks asks the sensor again.
            var current = try unchanged ?? device.storedSnapshot()
            unchanged = nil
            if let name = matchedID, !current.state.identities.contains(where: { $0.id == name }) {
                current = try device.snapshot()
            }
            if let name = matchedID, current.state.identities.contains(where: { $0.id == name }) {
                // Another evaluation (another process) may have locked biometry while this one
                // was scanning: the count is read and reset in one transaction, so a match
                // never slips past a lockout.
                var stillLocked = rules.isLockedOut(after: current.counters.consecutiveBiometricFailures)
                if !stillLocked, current.counters.consecutiveBiometricFailures != 0 {
                    stillLocked = try device.update { _, counters -> Bool in
                        guard !rules.isLockedOut(after: counters.consecutiveBiometricFailures) else { return true }
                        counters.consecutiveBiometricFailures = 0
                        return false
                    }
                }
                if !stillLocked {
                    // The state matched against is the state the domain state is derived from.
                    if capturedSnapshot == nil { capturedSnapshot = current }
                    var after = counts
                    after.biometricFailures = 0
                    record(.matched(name), rule: .matchResetsFailures, after: after)
                    return .biometry
                }
            }
            // A failed match (or a match that came too late: biometry is locked out).
            failures += 1
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
                if passcodeFallback {
                    record(.switchedToPasscode, rule: .passcodeAfterBiometricLimit)
                    return try await passcode()
                }
                throw fail(.biometryLockout, rule: .fiveFailuresLockOut)
            }
            if failures >= rules.failuresPerEvaluation {
                if passcodeFallback {
                    record(.notMatched, after: after)
                    record(.switchedToPasscode, rule: .passcodeAfterBiometricLimit)
                    return try await passcode()
                }
                if rules.endsWithAuthenticationFailed {
                    record(.notMatched, after: after)
                    throw fail(.authenticationFailed, rule: .touchIDThreeFailuresEnd)
                }
                record(.notMatched, rule: .faceIDTwoFailuresStopScanning, after: after)
            } else {
                record(.notMatched, after: after)
            }
        }
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
            record(.action(action))
            guard case let .passcode(entry) = action else {
                try await handleCommon(action, on: prompt)
                stamp = nil
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
            record(.action(action))
            if action == .approveOnCompanion {
                record(.companionApproved, rule: .companionApproval)
                return .companion
            }
            try await handleCommon(action, on: prompt)
            stamp = nil
        }
    }

    // MARK: Actions every prompt understands

    /// Cancel, system cancel, invalidate and wait; anything else does not fit `prompt`.
    nonisolated(nonsending) private mutating func handleCommon(_ action: UserAction, on prompt: Prompt) async throws {
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
