/// The prompts only the person answers: the passcode keypad and the companion request.
extension EvaluationMachine {
    /// A prompt only the person answers.
    enum PersonPrompt {
        case passcode
        case companion
    }

    /// Enters the passcode or companion prompt after its checks, traces it and asks the person.
    mutating func enterPersonPrompt(_ which: PersonPrompt) throws -> Action {
        let kind: Prompt.Kind
        switch which {
        case .passcode:
            let snapshot = try device.snapshot()
            if snapshot.counters.isDisabled { throw fail(.authenticationFailed, rule: .deviceDisabled) }
            guard device.passcodeIsSet(snapshot) else { throw fail(.passcodeNotSet, rule: .precedence) }
            kind = .passcode
        case .companion:
            guard device.isCompanionUsable else { throw fail(.companionNotAvailable, rule: .precedence) }
            kind = .companion
        }
        let method: AuthenticationMethod = which == .passcode ? .passcode : .companion
        if settings.provenMethods.contains(method) {
            record(.proven(method), rule: .contextKeepsItsAuthentication)
            return try stepSucceeded(method)
        }
        if settings.interactionNotAllowed { throw fail(.notInteractive, rule: .interactionNotAllowed) }
        record(.prompt(kind, fallbackButton: nil))
        return try ask(prompt(kind, fallbackButton: nil, biometryType: device.biometryType, failuresSoFar: 0))
    }

    /// What an action on the passcode or companion prompt leads to.
    enum PersonStep {
        /// The step is satisfied by this method.
        case decided(AuthenticationMethod)
        /// The prompt stays (a wrong passcode, a refused or repeated one).
        case again
        /// The person waits this long, then the prompt stays.
        case wait(Duration)
    }

    /// The person's `action` on the passcode or companion `prompt`.
    mutating func answer(_ action: UserAction, on prompt: Prompt) throws -> PersonStep {
        try checkInterrupted()
        // A passcode entry itself is not kept: a trace lives on in the context and the device.
        record(.action(action.withoutSecret))
        switch (prompt.kind, action) {
        case let (.passcode, .passcode(entry)):
            return try submit(passcode: entry).map(PersonStep.decided) ?? .again
        case (.companion, .approveOnCompanion):
            record(.companionApproved, rule: .companionApproval)
            return .decided(.companion)
        default:
            return .wait(try handleCommon(action, on: prompt))
        }
    }

    /// Checks an entered passcode against the device's and applies the ladder of delays.
    private mutating func submit(passcode entry: String) throws -> AuthenticationMethod? {
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
        return nil
    }
}
