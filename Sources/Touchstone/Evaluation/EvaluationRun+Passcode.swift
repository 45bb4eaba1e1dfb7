
/// The passcode and companion steps.
extension EvaluationRun {
    // MARK: Passcode

    nonisolated(nonsending) mutating func passcode() async throws -> AuthenticationMethod {
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

    nonisolated(nonsending) mutating func companion() async throws -> AuthenticationMethod {
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
}
