/// What a biometric sensor reports for one capture.
public enum SensorReading: Sendable, Equatable {
    /// The sensor read the identity presented under this name; the engine decides whether it
    /// matches an enrolled template.
    case identity(String)
    /// The sensor read something that matches nothing.
    case noMatch
    /// The user acted on the dialog instead (cancel, fallback, ...).
    case action(UserAction)
}

/// A biometric modality plugin: fingerprint, face or iris.
///
/// The core never knows whether a sensor is simulated or real. It asks for hardware state
/// and for captures; it keeps the enrolled templates, counters and rules itself.
///
/// ```swift
/// struct MyReader: BiometricSensor {
///     static let descriptor = PluginDescriptor(id: "acme.reader", kind: .sensor, summary: "ACME USB reader")
///     let biometryType = BiometryType.touchID
///     ...
/// }
/// ```
public protocol BiometricSensor: Plugin {
    /// The modality, which selects the attempt rules (REFERENCE §5).
    var biometryType: BiometryType { get }

    /// Whether the sensor is removable (macOS-style): then a disconnected or unpaired sensor
    /// reports `biometryDisconnected` / `biometryNotPaired` instead of `biometryNotAvailable`.
    var isRemovable: Bool { get }

    /// The hardware as `appID` sees it.
    func hardwareState(for appID: String) -> HardwareState

    /// Sets the simulated hardware state (`present`, `absent`, ...). Real sensors throw
    /// ``UsageError/notSimulated(_:)``.
    func setHardwareState(_ state: HardwareState) throws

    /// Waits for the user to present a finger/face/iris or act on `prompt`.
    func capture(_ prompt: Prompt) async throws -> SensorReading

    /// Abandons a pending capture.
    func interrupt()
}

/// The kinds of companion device (LACompanionType).
public enum CompanionType: String, Sendable, Codable, CaseIterable {
    /// An Apple Watch-like wrist device.
    case watch
    /// A Mac-like computer.
    case mac
}

/// A paired companion device plugin (policies 3 and 4).
public protocol CompanionDevice: Plugin {
    /// The companion's type.
    var companionType: CompanionType { get }
    /// Whether it is paired with this device.
    var isPaired: Bool { get }
    /// Whether it is reachable right now.
    var isReachable: Bool { get }
    /// A stable identifier of the pairing (changes when re-paired); feeds the companion state hash.
    var pairingID: String { get }
    /// Changes pairing / reachability (simulated companions); real ones throw.
    func setState(paired: Bool, reachable: Bool) throws
}
