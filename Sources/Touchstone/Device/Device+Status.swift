/// Biometry lockout state, readable without prompting anyone.
public struct BiometryStatus: Sendable, Equatable {
    /// The sensor's modality.
    public var biometryType: BiometryType
    /// How many identities are enrolled.
    public var enrolledCount: Int
    /// Consecutive failed matches so far (device-wide).
    public var consecutiveFailures: Int
    /// The count that locks biometry out (5).
    public var lockoutThreshold: Int
    /// Whether biometry is locked out now.
    public var isLockedOut: Bool {
        consecutiveFailures >= lockoutThreshold
    }
    /// Failures left before lockout (0 when locked).
    public var failuresBeforeLockout: Int {
        max(0, lockoutThreshold - consecutiveFailures)
    }
    /// How to clear the lockout, when locked.
    public var howToClear: String? {
        isLockedOut ? "enter the device passcode (deviceOwnerAuthentication or the lock screen)" : nil
    }
}

/// Device passcode attempt state, readable without prompting anyone.
public struct PasscodeStatus: Sendable, Equatable {
    /// Whether a passcode is set.
    public var isSet: Bool
    /// Consecutive wrong passcodes counted so far.
    public var failures: Int
    /// The time left before another entry is accepted, when a delay runs.
    public var delayRemaining: Duration?
    /// The delay the next wrong passcode would start; nil when it would disable the device.
    public var nextDelay: Duration?
    /// Whether the device is disabled.
    public var isDisabled: Bool
    /// Wrong passcodes left before the device is disabled.
    public var attemptsBeforeDisabled: Int {
        isDisabled ? 0 : max(0, PasscodeLadder.disableAfterFailures - failures)
    }
}

extension Device {
    /// Biometry lockout status, without prompting.
    public func biometryStatus() throws -> BiometryStatus {
        let snapshot = try snapshot()
        return BiometryStatus(
            biometryType: biometryType,
            enrolledCount: snapshot.state.identities.count,
            consecutiveFailures: snapshot.counters.consecutiveBiometricFailures,
            lockoutThreshold: biometryType.attemptRules.lockoutThreshold)
    }

    /// Passcode status, without prompting.
    public func passcodeStatus() throws -> PasscodeStatus {
        let snapshot = try snapshot()
        let now = clock.now
        var remaining: Duration?
        if let retryAt = snapshot.counters.passcodeRetryAt, now < retryAt {
            remaining = now.duration(to: retryAt)
        }
        return PasscodeStatus(
            isSet: passcodeIsSet(snapshot.state),
            failures: snapshot.counters.passcodeFailures,
            delayRemaining: remaining,
            nextDelay: PasscodeLadder.delay(afterFailures: snapshot.counters.passcodeFailures + 1),
            isDisabled: snapshot.counters.isDisabled)
    }

    /// The error that keeps biometry from being used by `appID` now, in the precedence order
    /// of REFERENCE §3 (Apple's `LAContext.h`): hardware → enrollment → lockout → passcode. Nil when usable.
    /// (`appID` is the empty string when no app asks.)
    func biometricProblem(appID: String, snapshot: Snapshot, requiresPasscodeSet: Bool) -> AuthenticationError? {
        // Read through the optional in place (a `guard let` binding took a reference to the
        // box and dropped it again on every evaluation).
        switch sensorBox?.hardwareState(for: appID) {
        case nil:
            return AuthenticationError(.biometryNotAvailable, message: "This device has no biometric sensor.")
        case .present:
            break
        case .absent:
            return AuthenticationError(.biometryNotAvailable, message: "No biometric hardware is present.")
        case .denied:
            return AuthenticationError(.biometryNotAvailable, message: "The app is not permitted to use biometry.",
                                       recovery: "Allow it in the device's settings.")
        case .disconnected:
            return sensorBox?.isRemovable == true
                ? AuthenticationError(.biometryDisconnected)
                : AuthenticationError(.biometryNotAvailable, message: "The biometric hardware is disconnected.")
        case .notPaired:
            return sensorBox?.isRemovable == true
                ? AuthenticationError(.biometryNotPaired)
                : AuthenticationError(.biometryNotAvailable, message: "The biometric hardware is not paired.")
        }
        // (`sensorBox` is not nil past the switch: `== true` above and below is no silent
        // "not locked out".)
        // Apple's LAContext.h order for biometric policies: not available → not enrolled →
        // locked out, and passcodeNotSet only "when biometry is available, enrolled and not
        // locked out" (REFERENCE §3).
        if !snapshot.isEnrolled {
            return AuthenticationError(.biometryNotEnrolled, recovery: "Enroll an identity in the device's settings.")
        }
        if sensorBox?.attemptRules.isLockedOut(after: snapshot.counters.consecutiveBiometricFailures) == true {
            return AuthenticationError(.biometryLockout, recovery: "Enter the device passcode to unlock biometry.")
        }
        if requiresPasscodeSet, !passcodeIsSet(snapshot) {
            return AuthenticationError(.passcodeNotSet, recovery: "Set a device passcode first.")
        }
        return nil
    }
}
