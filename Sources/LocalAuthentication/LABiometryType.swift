#if !canImport(Darwin)
/// The kind of biometry the device has, with Apple's raw values (REFERENCE §4).
///
/// Filled by `LAContext.canEvaluatePolicy(_:error:)` whatever it returns; `.none` before.
public enum LABiometryType: Int, Sendable, Hashable, CaseIterable {
    /// No biometry (or `canEvaluatePolicy(_:error:)` was not called yet).
    case none = 0
    /// A fingerprint sensor.
    case touchID = 1
    /// A face sensor.
    case faceID = 2
    /// An iris sensor.
    case opticID = 4

    /// The iOS 11.0 name of ``none``.
    @available(iOS, deprecated: 11.2, renamed: "none")
    @available(macOS, deprecated: 10.13.2, renamed: "none")
    public static var typeNone: LABiometryType { .none }

    /// Apple's iOS 11.0 spelling of ``none`` (`LABiometryType.LABiometryNone`).
    @available(iOS, deprecated: 11.2, renamed: "none")
    @available(macOS, deprecated: 10.13.2, renamed: "none")
    public static var LABiometryNone: LABiometryType { .none }
}
#endif
