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
