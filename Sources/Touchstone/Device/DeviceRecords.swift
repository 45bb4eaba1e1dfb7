import Foundation

/// One enrolled identity: a name people use and a template id that is fresh for every
/// enrollment (re-enrolling the same finger yields a different template).
public struct EnrolledTemplate: Sendable, Codable, Equatable {
    /// The name given at enrollment (`thumb`, `alice-face`).
    public var name: String
    /// The random template id.
    public var templateID: String
}

/// The device's persistent identity and enrollment state (record `device/state`).
struct DeviceState: Codable, Equatable, Sendable {
    /// The per-device secret that keys domain-state hashes.
    var secret: Data
    /// Bumped by each simulated OS upgrade.
    var osEpoch: Int = 1
    /// Enrolled templates per modality (keyed by `BiometryType.description`).
    var enrollments: [String: [EnrolledTemplate]] = [:]
    /// Increases with every enrollment change (any modality).
    var enrollmentSequence: Int = 0
    /// The passcode factor's verifier (a salted slow hash), nil when no passcode is set.
    var passcodeVerifier: Data?

    func templates(for type: BiometryType) -> [EnrolledTemplate] {
        enrollments[type.description] ?? []
    }
}

/// The device-wide counters and deadlines (record `device/counters`).
///
/// They live in storage, not in memory, so that restarting the process never resets a
/// lockout or a passcode delay. Each change is one durable commit.
public struct DeviceCounters: Codable, Equatable, Sendable {
    /// Consecutive failed biometric matches, across evaluations, contexts and apps.
    public var consecutiveBiometricFailures: Int = 0
    /// Consecutive wrong passcodes (lock screen and in-app share it).
    public var passcodeFailures: Int = 0
    /// No passcode entry is accepted before this instant.
    public var passcodeRetryAt: Timestamp?
    /// Digest of the last wrong passcode (so the same one typed again is not counted again).
    var lastWrongPasscodeDigest: Data?
    /// Ten wrong passcodes disable the device.
    public var isDisabled: Bool = false
    /// When the device was last unlocked by biometry (for the reuse window).
    public var lastBiometricUnlock: Timestamp?
    /// Since when the device is locked; nil while unlocked (and in records written before the
    /// lock state was kept).
    public var lockedAt: Timestamp?
    /// When the device restarted, until the first passcode unlock after it; nil once unlocked
    /// since the restart.
    public var restartedAt: Timestamp?
    /// True after a restart or a remote lock: the next lock-screen unlock must use the passcode.
    public var passcodeRequiredToUnlock: Bool?
    /// When the passcode last unlocked the device.
    public var lastPasscodeUnlock: Timestamp?

    /// Creates zeroed counters.
    public init() {}
}

extension RecordKey {
    static let deviceState = RecordKey("device", "state")
    static let deviceCounters = RecordKey("device", "counters")
}
