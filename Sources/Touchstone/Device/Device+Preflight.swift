/// What an evaluation checks before it prompts anyone (REFERENCE §3), from the device's state.
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
