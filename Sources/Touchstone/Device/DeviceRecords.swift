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

    /// Whether the enrolled set holds the identity `id` (read in place: ``identities`` hands
    /// out a copy of the array, a retain and a release on every evaluation's match).
    func hasIdentity(_ id: String) -> Bool {
        enrolled?.contains { $0.id == id } ?? false
    }

    /// The stored record's bytes: exactly what `JSONEncoder` with sorted keys writes
    /// (`DeviceStateCodingTests` compares them), written directly. Opening a new device and
    /// every enrollment change write this record; the coder's first use alone cost ~0.2 ms of
    /// the REPL's start (issue 14). Round-1 records that still carry their legacy templates
    /// (never written by this version, only kept) go through `JSONEncoder`.
    func storedJSON() throws -> Data {
        guard legacyEnrollments == nil else { return try RecordCoding.encoder.encode(self) }
        var json = JSONText.Writer(escapingSlash: true)
        json.beginObject()
        if let enrolled {
            json.key("enrolled")
            json.beginArray()
            for identity in enrolled {
                json.beginObject()
                json.key("displayName")
                json.string(identity.displayName)
                json.key("generation")
                json.string(identity.generation)
                json.key("id")
                json.string(identity.id)
                json.endObject()
            }
            json.endArray()
        }
        json.key("enrollmentSequence")
        json.integer(enrollmentSequence)
        json.key("osEpoch")
        json.integer(osEpoch)
        if let passcodeVerifier {
            json.key("passcodeVerifier")
            json.data(passcodeVerifier)
        }
        if let schema {
            json.key("schema")
            json.integer(schema)
        }
        json.key("secret")
        json.data(secret)
        json.endObject()
        return Data(json.bytes)
    }
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
        var json = JSONText.Writer(escapingSlash: true)
        json.beginObject()
        func integer(_ name: String, _ value: (some BinaryInteger)?) {
            guard let value else { return }
            json.key(name)
            json.integer(value)
        }
        func bool(_ name: String, _ value: Bool?) {
            guard let value else { return }
            json.key(name)
            json.bool(value)
        }
        // Keys in sorted order; optional values only when present (as `encodeIfPresent`);
        // times as whole nanoseconds.
        integer("consecutiveBiometricFailures", consecutiveBiometricFailures)
        bool("isDisabled", isDisabled)
        integer("lastBiometricUnlock", lastBiometricUnlock?.nanosecondsSinceEpoch)
        integer("lastPasscodeUnlock", lastPasscodeUnlock?.nanosecondsSinceEpoch)
        if let lastWrongPasscodeDigest {
            json.key("lastWrongPasscodeDigest")
            json.data(lastWrongPasscodeDigest)
        }
        integer("lockedAt", lockedAt?.nanosecondsSinceEpoch)
        integer("passcodeFailures", passcodeFailures)
        bool("passcodeRequiredToUnlock", passcodeRequiredToUnlock)
        integer("passcodeRetryAt", passcodeRetryAt?.nanosecondsSinceEpoch)
        integer("restartedAt", restartedAt?.nanosecondsSinceEpoch)
        integer("schema", schema)
        json.endObject()
        return Data(json.bytes)
    }
}

extension RecordKey {
    static let deviceState = RecordKey(.device, "state")
    static let deviceCounters = RecordKey(.device, "counters")
}

// MARK: Ranges

extension DeviceState {
    /// The state as decoded, if every number is in its range; a record outside (altered by
    /// hand, or damage the checksum missed) is damage, never a trap or a changed rule.
    func validated() throws -> DeviceState {
        let key = RecordKey.deviceState
        try DeviceRecordRanges.requireSchema(schema, upTo: Self.currentSchema, key)
        try DeviceRecordRanges.require((0...DeviceRecordRanges.sequenceLimit).contains(osEpoch), key, "its OS epoch (\(osEpoch)) is out of range")
        try DeviceRecordRanges.require((0...DeviceRecordRanges.sequenceLimit).contains(enrollmentSequence), key,
                                       "its enrollment sequence (\(enrollmentSequence)) is out of range")
        try DeviceRecordRanges.require((16...64).contains(secret.count), key, "its device secret is \(secret.count) bytes")
        return self
    }
}

extension DeviceCounters {
    /// The counters as decoded, if every count is in its range (see
    /// ``DeviceState/validated()``): a negative count would lengthen a limit, a huge one trap.
    func validated() throws -> DeviceCounters {
        let key = RecordKey.deviceCounters
        try DeviceRecordRanges.requireSchema(schema, upTo: Self.currentSchema, key)
        try DeviceRecordRanges.require((0...DeviceRecordRanges.failureLimit).contains(consecutiveBiometricFailures), key,
                                       "its consecutive biometric failure count (\(consecutiveBiometricFailures)) is out of range")
        try DeviceRecordRanges.require((0...PasscodeLadder.disableAfterFailures).contains(passcodeFailures), key,
                                       "its passcode failure count (\(passcodeFailures)) is out of 0 to \(PasscodeLadder.disableAfterFailures)")
        return self
    }
}

/// The ranges stored device records are held to.
enum DeviceRecordRanges {
    /// Counts that only grow by one per change (enrollment changes, OS upgrades): far above
    /// any use, far below a trap.
    static let sequenceLimit = 1 << 48
    /// Consecutive failed matches: counting stops at the lockout (five); the bound leaves room
    /// for sensors with other rules.
    static let failureLimit = 1_000
    static let advice = ". touchstone --export-store NEW-FILE copies the intact records to a new store"

    /// Throws the record `key`'s damage, `reason`, unless `holds`.
    static func require(_ holds: Bool, _ key: RecordKey, _ reason: @autoclosure () -> String) throws {
        guard !holds else { return }
        throw StorageError.corruptRecord(key: key.description, reason: reason() + advice)
    }

    /// A schema this version reads: absent (round-1 records) or 1 to `current`. A later one is
    /// a newer Touchstone's record, not damage: the store is refused, never changed (an
    /// export would leave the record behind and the device would lose its secret).
    static func requireSchema(_ schema: Int?, upTo current: Int, _ key: RecordKey) throws {
        guard let schema else { return }
        if schema > current {
            throw StorageError.ioFailure(reason: "record '\(key)' was written by a newer Touchstone (schema \(schema); this one reads 1 to \(current)): "
                + "use that version or a later one; the store was not changed")
        }
        try require(schema >= 1, key, "its schema is \(schema); this Touchstone reads 1 to \(current)")
    }

    /// A line for each device record among `records` that decodes out of range (for a store
    /// check); records that do not decode at all are the checksum's and decoder's business.
    static func problems(in records: [Record]) -> [(key: RecordKey, line: String, isDamage: Bool)] {
        records.compactMap { record in
            do {
                switch record.key {
                case .deviceState: _ = try RecordCoding.decode(DeviceState.self, from: record).validated()
                case .deviceCounters: _ = try RecordCoding.decode(DeviceCounters.self, from: record).validated()
                default: break
                }
                return nil
            } catch let error as StorageError {
                return (record.key, "\(error)", error.isDamage)
            } catch {
                return (record.key, "\(error)", true)
            }
        }
    }
}
