/// The kind of biometry a device has, with LABiometryType's raw values (REFERENCE §4).
public enum BiometryType: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// No biometry.
    case none = 0
    /// A fingerprint sensor.
    case touchID = 1
    /// A face sensor.
    case faceID = 2
    /// An iris sensor.
    case opticID = 4

    public var description: String {
        switch self {
        case .none: "none"
        case .touchID: "touchID"
        case .faceID: "faceID"
        case .opticID: "opticID"
        }
    }

    /// The attempt rules of this modality (REFERENCE §5).
    public var attemptRules: AttemptRules {
        switch self {
        case .touchID: .touchID
        case .faceID, .opticID, .none: .faceID
        }
    }
}

/// The state of biometric hardware as seen by one app.
public enum HardwareState: String, Sendable, Codable, CaseIterable {
    /// Present, connected and permitted.
    case present
    /// No hardware.
    case absent
    /// Hardware exists but is disconnected.
    case disconnected
    /// The app is not permitted to use biometry (the user denied it).
    case denied
    /// A removable sensor that is not paired with this machine.
    case notPaired
}

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
