/// One identity a biometric sensor holds: a finger, a face, an iris.
///
/// The sensor owns its identities (a real reader keeps its own prints); the core only asks
/// which are enrolled and which one a capture matched.
public struct SensorIdentity: Sendable, Codable, Hashable {
    /// A stable id, unique on the sensor (`right-index-finger`, `thumb`).
    public var id: String
    /// The name shown to people.
    public var displayName: String
    /// The enrollment generation: changes whenever the same identity is enrolled again, so a
    /// re-enrolled finger is a new template (domain states change).
    public var generation: String

    /// Creates an identity.
    public init(id: String, displayName: String? = nil, generation: String) {
        self.id = id
        self.displayName = displayName ?? id
        self.generation = generation
    }
}

/// What a biometric sensor reports for one capture.
public enum CaptureResult: Sendable, Equatable {
    /// The capture matched the enrolled identity with this id.
    case matched(String)
    /// The capture matched no enrolled identity: one failed attempt, counted by the core.
    case noMatch
    /// The person acted on the dialog instead (cancel, fallback, ...).
    case action(UserAction)
    /// The capture was unusable (finger moved, too short a swipe): not counted, the prompt
    /// stays up. The text (`verify-swipe-too-short`) goes to the trace.
    case retry(String)
    /// The sensor went away during the capture (`disconnected` or `absent`).
    case unavailable(HardwareState)
}

/// A biometric modality plugin: fingerprint, face or iris.
///
/// The core never knows whether a sensor is simulated or real. The sensor owns its enrolled
/// identities and decides whether a capture matches one of them; the core owns the rules
/// (attempt limits, lockout, counters) and derives domain state from what the sensor reports.
///
/// ```swift
/// struct MyReader: BiometricSensor {
///     static let descriptor = PluginDescriptor(id: "acme.reader", kind: .sensor, summary: "ACME USB reader")
///     let biometryType = BiometryType.touchID
///     var isRemovable: Bool { true }
///     init(options: PluginOptions, environment: PluginEnvironment) throws {}
///     func hardwareState(for appID: String) -> HardwareState { .present }
///     func enrolledIdentities() throws -> [SensorIdentity] { [] }
///     func capture(_ prompt: Prompt) async throws -> CaptureResult { .noMatch }
///     func interrupt() {}
/// }
/// ```
public protocol BiometricSensor: Plugin {
    /// The modality, which selects the attempt rules (REFERENCE §5). Read once, when the
    /// device is composed: it does not change over the sensor's life.
    var biometryType: BiometryType { get }

    /// Whether the sensor is removable (macOS-style): then a disconnected or unpaired sensor
    /// reports `biometryDisconnected` / `biometryNotPaired` instead of `biometryNotAvailable`.
    /// Read once, when the device is composed.
    var isRemovable: Bool { get }

    /// The hardware as `appID` sees it. Called synchronously on every evaluation and status
    /// check, on the caller's executor: keep it quick (a real sensor may cache, or bound its
    /// own wait).
    func hardwareState(for appID: String) -> HardwareState

    /// The identities enrolled now, in enrollment order. Called whenever the core needs the
    /// enrolled set (each evaluation, status, domain state): a change made outside Touchstone
    /// is seen the next time.
    func enrolledIdentities() throws -> [SensorIdentity]

    /// The storage whose writes are the only way this sensor's enrolled set changes — the
    /// simulated sensors keep their templates in the device's store —, or nil, the default: a
    /// real reader's set changes outside Touchstone and is asked for every time. When it is the
    /// device's storage, the core asks ``enrolledIdentities()`` again only after that storage
    /// changed.
    var enrollmentStorage: (any StorageBackend)? { get }

    /// Waits for the person to present a finger/face/iris or act on `prompt`.
    func capture(_ prompt: Prompt) async throws -> CaptureResult

    /// Abandons a pending capture (the evaluation was cancelled or invalidated).
    func interrupt()
}

extension BiometricSensor {
    public var enrollmentStorage: (any StorageBackend)? { nil }
}

/// One step of an enrollment, as the sensor reports it.
public struct EnrollmentProgress: Sendable, Equatable {
    /// The sensor's word for the step (`enroll-stage-passed`, `enroll-retry-scan`).
    public var result: String
    /// Stages done so far, when the sensor counts them.
    public var stage: Int?
    /// Stages needed, when known.
    public var stages: Int?

    /// Creates a progress report.
    public init(result: String, stage: Int? = nil, stages: Int? = nil) {
        self.result = result
        self.stage = stage
        self.stages = stages
    }
}

/// A sensor through which identities can be enrolled and removed. A reader whose system
/// forbids it (or a sensor that only verifies) does not adopt it; the core then refuses
/// `enroll` with a clear error.
public protocol EnrollingSensor: BiometricSensor {
    /// Enrolls the identity `id` (a new one, or, when `replacing`, the same one again with a
    /// new generation), reporting each step. Returns the identity as now enrolled. Blocks until
    /// the enrollment ends; ``BiometricSensor/interrupt()`` cancels it.
    func enroll(_ id: String, replacing: Bool, progress: @escaping @Sendable (EnrollmentProgress) -> Void) throws -> SensorIdentity

    /// Removes the identity `id`.
    func remove(_ id: String) throws

    /// Removes every identity (a device erased after ten wrong passcodes).
    func removeAll() throws
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
}
