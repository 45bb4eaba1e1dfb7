#if !canImport(Darwin)
/// The authentication policies a context can evaluate, with Apple's raw values (REFERENCE §2).
///
/// ```swift
/// let context = LAContext()
/// var error: NSError?
/// if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) { /* offer biometric sign-in */ }
/// ```
public enum LAPolicy: Int, Sendable, Hashable, CaseIterable {
    /// Biometrics only; the fallback button ends the evaluation with `LAError.userFallback`.
    case deviceOwnerAuthenticationWithBiometrics = 1
    /// Biometrics first, the device passcode as fallback; the passcode alone when biometry is
    /// missing, not enrolled or locked out.
    case deviceOwnerAuthentication = 2
    /// A paired companion device (watch or Mac).
    case deviceOwnerAuthenticationWithCompanion = 3
    /// Biometrics or a paired companion.
    case deviceOwnerAuthenticationWithBiometricsOrCompanion = 4
    /// Watch wrist detection; always `biometryNotAvailable` on Linux (REFERENCE §2, our rule).
    case deviceOwnerAuthenticationWithWristDetection = 5

    /// The old name of ``deviceOwnerAuthenticationWithCompanion``.
    @available(macOS, deprecated: 15.0, renamed: "deviceOwnerAuthenticationWithCompanion")
    public static var deviceOwnerAuthenticationWithWatch: LAPolicy { .deviceOwnerAuthenticationWithCompanion }

    /// The old name of ``deviceOwnerAuthenticationWithBiometricsOrCompanion``.
    @available(macOS, deprecated: 15.0, renamed: "deviceOwnerAuthenticationWithBiometricsOrCompanion")
    public static var deviceOwnerAuthenticationWithBiometricsOrWatch: LAPolicy { .deviceOwnerAuthenticationWithBiometricsOrCompanion }
}
#endif
