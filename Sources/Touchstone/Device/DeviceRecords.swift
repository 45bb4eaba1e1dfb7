import Foundation

/// A round-1 enrollment record: the core kept the templates itself then. Read only to migrate
/// (``DeviceState/legacyEnrollments``); nothing writes it any more.
struct LegacyTemplate: Sendable, Codable, Equatable {
    var name: String
    var templateID: String
}

/// The device's persistent identity and enrollment state (record `device/state`).
struct DeviceState: Codable, Equatable, Sendable {
    /// The layout of this record: absent in round-1 stores (schema 1), ``currentSchema`` since
    /// sensors own their identities.
    var schema: Int?
    /// The per-device secret that keys domain-state hashes.
    var secret: Data
    /// Bumped by each simulated OS upgrade.
    var osEpoch: Int = 1
    /// The enrolled identities as the sensor last reported them: the core's record of the
    /// enrolled set, from which domain state is derived and against which a new report is
    /// compared (a difference is an enrollment change, even one made outside Touchstone).
    /// Nil in round-1 records.
    var enrolled: [SensorIdentity]?
    /// Round-1 templates per modality (keyed by `BiometryType.description`): kept as stored so
    /// that simulated sensors can adopt them; never written by the core.
    var legacyEnrollments: [String: [LegacyTemplate]]?
    /// Increases with every enrollment change (any modality).
    var enrollmentSequence: Int = 0
    /// The passcode factor's verifier (a salted slow hash), nil when no passcode is set.
    var passcodeVerifier: Data?

    /// The schema this version writes.
    static let currentSchema = 2

    private enum CodingKeys: String, CodingKey {
        case schema, secret, osEpoch, enrolled, enrollmentSequence, passcodeVerifier
        case legacyEnrollments = "enrollments"
    }

    init(secret: Data) {
        self.schema = Self.currentSchema
        self.secret = secret
        self.enrolled = []
    }

    /// The enrolled set as the core last recorded it.
    var identities: [SensorIdentity] { enrolled ?? [] }
}

/// The device-wide counters and deadlines (record `device/counters`).
///
/// They live in storage, not in memory, so that restarting the process never resets a
/// lockout or a passcode delay. Each change is one durable commit.
public struct DeviceCounters: Codable, Equatable, Sendable {
    /// The layout of this record: absent in round-1 stores, ``currentSchema`` since then.
    var schema: Int? = DeviceCounters.currentSchema
    /// The schema this version writes.
    static let currentSchema = 2
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

    /// The stored record's bytes, written directly: exactly what `JSONEncoder` with sorted keys
    /// writes for these counters (`DeviceCountersCodingTests` compares them), without its cost
    /// — every failed match writes the counters, and the coder cost more than the rest of the
    /// update. Decoding stays with `JSONDecoder`.
    func storedJSON() -> Data {
        var json = "{"
        func field(_ name: String, _ value: String) {
            if json.utf8.count > 1 { json += "," }
            json += "\"" + name + "\":" + value
        }
        func time(_ instant: Timestamp) -> String { String(instant.nanosecondsSinceEpoch) }
        // Keys in sorted order; optional values only when present (as `encodeIfPresent`).
        field("consecutiveBiometricFailures", String(consecutiveBiometricFailures))
        field("isDisabled", isDisabled ? "true" : "false")
        if let lastBiometricUnlock { field("lastBiometricUnlock", time(lastBiometricUnlock)) }
        if let lastPasscodeUnlock { field("lastPasscodeUnlock", time(lastPasscodeUnlock)) }
        if let lastWrongPasscodeDigest {
            // Base64 holds no character JSON must escape except `/`, which JSONEncoder writes as `\/`.
            field("lastWrongPasscodeDigest", "\"" + lastWrongPasscodeDigest.base64EncodedString().replacingOccurrences(of: "/", with: "\\/") + "\"")
        }
        if let lockedAt { field("lockedAt", time(lockedAt)) }
        field("passcodeFailures", String(passcodeFailures))
        if let passcodeRequiredToUnlock { field("passcodeRequiredToUnlock", passcodeRequiredToUnlock ? "true" : "false") }
        if let passcodeRetryAt { field("passcodeRetryAt", time(passcodeRetryAt)) }
        if let restartedAt { field("restartedAt", time(restartedAt)) }
        if let schema { field("schema", String(schema)) }
        return Data((json + "}").utf8)
    }
}

extension RecordKey {
    static let deviceState = RecordKey(.device, "state")
    static let deviceCounters = RecordKey(.device, "counters")
}
