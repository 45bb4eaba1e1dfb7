/// How many failed matches a modality allows and what happens then (REFERENCE §5).
///
/// Touch ID: the fallback button appears after the first failure; three failures end a
/// biometrics-only evaluation with `authenticationFailed` (or switch to the passcode under
/// the device-owner policy). Face ID: after the first failure the dialog offers Cancel and
/// "Try Face ID Again", no fallback button yet; after the second failure scanning stops and
/// only Cancel and the fallback button remain. Both: five consecutive failures, counted device-wide, lock
/// biometry out.
public struct AttemptRules: Sendable, Equatable {
    /// Failures after which the fallback button is shown (when its title is not empty).
    public var fallbackButtonAfterFailures: Int
    /// Failures after which this evaluation stops scanning.
    public var failuresPerEvaluation: Int
    /// True when reaching ``failuresPerEvaluation`` ends a biometrics-only evaluation with
    /// `authenticationFailed` (Touch ID); false when the dialog only stops scanning and offers
    /// Cancel and fallback (Face ID, Optic ID).
    public var endsWithAuthenticationFailed: Bool
    /// Consecutive failures, across evaluations, contexts and apps, that lock biometry out.
    public var lockoutThreshold: Int

    /// Touch ID: fallback after 1, evaluation ends after 3, lockout at 5.
    public static let touchID = AttemptRules(
        fallbackButtonAfterFailures: 1, failuresPerEvaluation: 3,
        endsWithAuthenticationFailed: true, lockoutThreshold: 5)

    /// Face ID (and Optic ID, our rule): "try again" (no fallback) after 1; scanning stops and
    /// the fallback button appears after 2; lockout at 5.
    public static let faceID = AttemptRules(
        fallbackButtonAfterFailures: 2, failuresPerEvaluation: 2,
        endsWithAuthenticationFailed: false, lockoutThreshold: 5)
}

extension AttemptRules {
    /// Whether `consecutiveFailures` (device-wide) lock biometry out: the one place the
    /// five-failure rule is written.
    public func isLockedOut(after consecutiveFailures: Int) -> Bool {
        consecutiveFailures >= lockoutThreshold
    }
}
