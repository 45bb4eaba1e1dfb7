
/// The biometric step: its checks, prompt loop and captures.
extension EvaluationMachine {
    // MARK: Biometry

    /// The state of a biometric step's prompt loop, between captures.
    struct BiometricScan {
        /// The device's sensor box.
        let box: Device.SensorBox
        let rules: AttemptRules
        let passcodeFallback: Bool
        let companionUsable: Bool
        /// Failed matches in this step so far.
        var failures = 0
        /// The prompt kind and fallback button last traced (a prompt is traced when they change).
        var shown: (kind: Prompt.Kind, fallbackButton: String?)?
    }

    /// How the checks before a biometric step's first prompt end.
    enum BiometryStart {
        /// Decided without a prompt (the reuse window).
        case decided(AuthenticationMethod)
        /// Biometry is unusable: switched to the passcode (traced).
        case passcode
        /// Biometry is unusable: handed to the companion.
        case companion
        /// Scan: the prompt loop begins.
        case scan(BiometricScan)
    }

    /// What one capture led to.
    enum ScanStep {
        case decided(AuthenticationMethod)
        /// Show the prompt again (after a failure or a retry).
        case again
        /// The person waits this long, then the prompt is shown again.
        case wait(Duration)
        /// Switched to the passcode prompt (traced).
        case passcode
    }

    /// The checks before a biometric step's first prompt: biometry unusable (switch to the
    /// passcode or the companion, or fail), the reuse window, interaction not allowed.
    mutating func beginBiometry(passcodeFallback: Bool, orCompanion: Bool, snapshot current: Device.Snapshot?) throws -> BiometryStart {
        let snapshot = try current ?? device.snapshot()
        let companionUsable = orCompanion && device.isCompanionUsable
        if let problem = device.biometricProblem(appID: appID, snapshot: snapshot, requiresPasscodeSet: rule.requiresPasscodeSet) {
            if passcodeFallback {
                record(.switchedToPasscode, rule: .passcodeWhenBiometryUnusable)
                return .passcode
            }
            if companionUsable { return .companion }
            throw fail(problem.code, rule: .precedence, message: problem.message)
        }
        if !settings.provenMethods.isEmpty,
           let method = provenMethod(passcodeFallback: passcodeFallback, companionUsable: companionUsable) {
            record(.proven(method), rule: .contextKeepsItsAuthentication)
            return .decided(method)
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
        return .scan(BiometricScan(box: box, rules: box.attemptRules, passcodeFallback: passcodeFallback,
                                   companionUsable: companionUsable))
    }

    /// What an earlier success on this context proved that a biometric step accepts: biometry
    /// (a reused device unlock counts), and the passcode or the companion where the step falls
    /// back to them.
    private func provenMethod(passcodeFallback: Bool, companionUsable: Bool) -> AuthenticationMethod? {
        let proven = settings.provenMethods
        if proven.contains(.biometry) { return .biometry }
        if proven.contains(.reuse) { return .reuse }
        if passcodeFallback, proven.contains(.passcode) { return .passcode }
        if companionUsable, proven.contains(.companion) { return .companion }
        return nil
    }

    /// Shows the prompt for the next capture (traced when it differs from the one on screen)
    /// and waits for the sensor.
    mutating func showPrompt(_ scan: consuming BiometricScan) throws -> Action {
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
        return requestCapture(prompt(kind, fallbackButton: fallbackButton, biometryType: scan.box.biometryType, failuresSoFar: failures),
                              scan: scan)
    }

    /// Biometry just locked out (traced): the passcode prompt when the step falls back to it,
    /// else the evaluation ends with `biometryLockout`.
    private mutating func lockedOut(_ scan: BiometricScan) throws -> ScanStep {
        guard scan.passcodeFallback else { throw fail(.biometryLockout, rule: .fiveFailuresLockOut) }
        record(.switchedToPasscode, rule: .passcodeAfterBiometricLimit)
        return .passcode
    }

    /// What the capture `reading` of `prompt` leads to: a match (after the lockout check), a
    /// counted failure and the attempt limits, a retry, a lost sensor, or the person's action.
    mutating func handleCapture(_ reading: CaptureResult, on prompt: Prompt, in scan: inout BiometricScan) throws -> ScanStep {
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
            return .again
        case let .unavailable(state):
            throw fail(scan.box.isRemovable && state == .disconnected ? .biometryDisconnected : .biometryNotAvailable,
                       rule: .sensorLostDuringCapture)
        case let .action(action):
            record(.action(action.withoutSecret))
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
            return .wait(try handleCommon(action, on: prompt))
        }
        // The records as stored now (another process may have counted failures while this
        // one scanned). The enrolled set recorded there is current for every change made
        // through Touchstone; only a match on an identity it lacks asks the sensor again.
        var current = try device.storedSnapshot()
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
            return try lockedOut(scan)
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
            return try lockedOut(scan)
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
    func fallbackTitle(passcodeFallback: Bool) -> String? {
        guard let title = settings.fallbackTitle else {
            return AuthenticationContext.defaultFallbackTitle(passcodeFallback: passcodeFallback)
        }
        return title.isEmpty ? nil : title
    }
}
