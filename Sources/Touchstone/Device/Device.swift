import Crypto
import Foundation
import Logging
import Synchronization

/// One simulated or real device: its biometric sensor, companion, passcode factor, storage,
/// clock and the person in front of it. Every app on the device shares its enrolled
/// identities, passcode and device-wide counters (REFERENCE §1).
///
/// Devices are usually composed by ``AuthenticatorBuilder``; apps reach them through an
/// ``Authenticator`` (device + app id).
public final class Device: Sendable {
    /// Where everything is stored.
    public let storage: any StorageBackend
    /// Device time.
    public let clock: any DeviceClock

    /// Device time now. Not inlined: read here, on the device itself, the clock is used in
    /// place; read through a reference loaded from a mutating evaluation's state, it is
    /// copied out of the device first (two reference counts and an outlined copy).
    @inline(never)
    func currentTime() -> Timestamp { clock.now }
    /// Device randomness.
    public let random: RandomSource
    /// The person in front of the device.
    public let interaction: any Interaction
    /// The biometric sensor, or nil when the device has none.
    public var sensor: (any BiometricSensor)? { sensorBox?.sensor }
    /// The sensor in a box: the evaluation's hot path calls it in place through the box instead
    /// of copying the existential (a value-witness copy) at each use.
    let sensorBox: SensorBox?
    /// Whether the sensor's enrolled set changes only with writes to ``storage`` (see
    /// ``BiometricSensor/enrollmentStorage``): then a snapshot asks the sensor only once per
    /// storage generation.
    let sensorFollowsStorage: Bool
    /// The paired companion, or nil.
    public let companion: (any CompanionDevice)?
    /// The passcode factor.
    public let passcodeFactor: any PasscodeFactor
    /// Whether ten wrong passcodes erase the device's data (REFERENCE §6).
    public let erasesDataAfterTenFailures: Bool
    /// Where the device logs what it does not throw (a sensor that cannot report its enrolled
    /// set, so the recorded set stays in force).
    public let logger: Logger
    /// Whether the passcode factor keeps the passcode in the device's store (read once: a
    /// factor's custody kind does not change; an external one is asked each time).
    let passcodeKeptInStore: Bool

    /// The device records at one moment, decoded. A class so that passing it around the
    /// evaluation hot path costs one reference count, not one per field.
    final class Snapshot: Sendable {
        let state: DeviceState
        let counters: DeviceCounters
        let secretKey: SymmetricKey
        /// Whether ``state`` holds a passcode verifier (read on every evaluation's checks).
        let hasPasscodeVerifier: Bool
        /// Whether ``state`` records any enrolled identity.
        let isEnrolled: Bool
        /// Values derived from ``secretKey`` and ``state`` only (the Secure Enclave's per-app
        /// sealing keys, the keychain's enrolled-set hash, each app's domain state), so that an
        /// evaluation or a key use does not run HKDF / HMAC again while the state is unchanged.
        /// Shared by the snapshots of one state (a counter change keeps it); a new state — an
        /// enrollment change, an OS upgrade, a new passcode — starts an empty one, so a value
        /// can never outlive the inputs it was derived from.
        let derivedKeys: DerivedValues

        init(state: DeviceState, counters: DeviceCounters, secretKey: SymmetricKey, derived: DerivedValues = DerivedValues()) {
            self.state = state
            self.counters = counters
            self.secretKey = secretKey
            self.derivedKeys = derived
            hasPasscodeVerifier = state.passcodeVerifier != nil
            isEnrolled = !(state.enrolled?.isEmpty ?? true)
        }
    }

    /// The memo of values derived from one device state (see ``Snapshot/derivedKeys``).
    final class DerivedValues: Sendable {
        private let values = Locked<[String: Data]>([:])
        /// Each app's `evaluatedPolicyDomainState` (empty data: nothing enrolled), by app id.
        let domainStates = Locked(PerApp())
        /// Each app's history-based `domainState.biometry.stateHash` (empty: nothing enrolled).
        let historyHashes = Locked(PerApp())
        /// Each app's `domainState.stateHash` while no companion is paired and something is enrolled.
        let combinedHashes = Locked(PerApp())

        func withLock<R: Sendable>(_ body: (inout [String: Data]) throws -> R) rethrows -> R {
            try values.withLock { try body(&$0) }
        }
    }

    /// Values by app id. A device nearly always serves one app, so the last app's value is
    /// kept aside and its lookup is one string comparison instead of a hash.
    struct PerApp: Sendable {
        private var lastApp: String?
        private var lastValue: Data?
        private var others: [String: Data] = [:]

        subscript(appID: String) -> Data? {
            get { appID == lastApp ? lastValue : others[appID] }
            set {
                if let lastApp, lastApp != appID { others[lastApp] = lastValue }
                lastApp = appID
                lastValue = newValue
                others[appID] = nil
            }
        }
    }

    /// Holds the composed sensor (see ``sensorBox``) and its constant attributes, read once
    /// when the device is composed (``BiometricSensor/biometryType`` and
    /// ``BiometricSensor/isRemovable`` do not change over a sensor's life).
    final class SensorBox: Sendable {
        let sensor: any BiometricSensor
        let biometryType: BiometryType
        let attemptRules: AttemptRules
        let isRemovable: Bool

        init(_ sensor: any BiometricSensor) {
            self.sensor = sensor
            biometryType = sensor.biometryType
            attemptRules = biometryType.attemptRules
            isRemovable = sensor.isRemovable
        }

        // The two sensor calls of every evaluation, made here, not inlined: on the box itself
        // the sensor is used in place; through a box loaded by the caller it is copied out first
        // (an outlined existential copy, a retain and a release; as ``Device/currentTime()``).

        /// The sensor's ``BiometricSensor/hardwareState(for:)``.
        @inline(never)
        func hardwareState(for appID: String) -> HardwareState { sensor.hardwareState(for: appID) }
    }

    /// The decoded device records and the bytes they were decoded from.
    private struct Cache: Sendable {
        /// The storage generation the snapshot is known to be current for; nil after a write.
        var generation: UInt64?
        /// The generation at which the sensor reported the snapshot's enrolled set (used only
        /// when ``Device/sensorFollowsStorage``).
        var sensorAgreedAt: UInt64?
        var snapshot: Snapshot?
        var stateBytes: Data?
        var countersBytes: Data?
    }

    private let cache = Locked(Cache())

    struct Activity: Sendable {
        var activeEvaluation: EvaluationHandle?
        /// The trace of the device's most recent evaluation (``lastTrace``).
        var lastTrace: Trace?
        var subscribers: [UInt64: AsyncStream<EnrollmentChange>.Continuation] = [:]
        var nextSubscriberID: UInt64 = 0
        var passcodeRemovalHooks: [@Sendable () throws -> Void] = []
        var changeSubscribers: [UInt64: AsyncStream<Void>.Continuation] = [:]
    }

    let activity = Locked(Activity())

    /// A new stream registered in one of ``Activity``'s subscriber tables, removed from it when
    /// the caller stops iterating.
    func subscribe<Element: Sendable>(
        _ table: any WritableKeyPath<Activity, [UInt64: AsyncStream<Element>.Continuation]> & Sendable,
        buffering: AsyncStream<Element>.Continuation.BufferingPolicy
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: buffering)
        let id = activity.withLock { activity -> UInt64 in
            activity.nextSubscriberID += 1
            activity[keyPath: table][activity.nextSubscriberID] = continuation
            return activity.nextSubscriberID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.activity.withLock { $0[keyPath: table].removeValue(forKey: id) }
        }
        return stream
    }
    /// Secure Enclave keys as swift-crypto objects, by private scalar: a key is still unsealed
    /// (AES-GCM opened) on every use, but its public point is not recomputed each time.
    let unsealedKeys = Locked<[Data: UnsealedKey]>([:])

    /// Whether this open created the device: its store held none (``DeviceSetup`` applies then).
    public let isNewDevice: Bool

    /// Opens the device stored in `storage`, creating it when the store is empty: with a fresh
    /// device secret and, when `setup` gives one, its passcode, in one transaction (`setup` is
    /// checked there first; its identities are the caller's to enroll, ``DeviceSetup``).
    /// `logger` defaults to `Logger.touchstoneSilent`, which discards everything.
    public init(
        storage: any StorageBackend,
        sensor: (any BiometricSensor)?,
        companion: (any CompanionDevice)? = nil,
        passcodeFactor: any PasscodeFactor,
        clock: any DeviceClock,
        random: RandomSource,
        interaction: any Interaction,
        erasesDataAfterTenFailures: Bool = false,
        setup: DeviceSetup? = nil,
        logger: Logger = .touchstoneSilent
    ) throws {
        self.storage = storage
        self.logger = logger
        self.sensorBox = sensor.map(SensorBox.init)
        let sensorFollowsStorage = sensor?.enrollmentStorage.map { $0 as AnyObject === storage as AnyObject } ?? false
        self.sensorFollowsStorage = sensorFollowsStorage
        self.companion = companion
        self.passcodeFactor = passcodeFactor
        self.clock = clock
        self.random = random
        self.interaction = interaction
        self.erasesDataAfterTenFailures = erasesDataAfterTenFailures
        if case .device = passcodeFactor.custody { passcodeKeptInStore = true } else { passcodeKeptInStore = false }
        let sensorType = sensorBox?.biometryType ?? .none
        let (opened, created) = try storage.transaction { transaction -> (Cache, Bool) in
            let stateRecord = try transaction.read(.deviceState)
            let countersExist = try transaction.read(.deviceCounters) != nil
            // A device writes its state and counters together, from its first transaction on:
            // one without the other is a damaged store, never a new device (a new state would
            // replace the passcode, secret and enrollments; new counters would lift a lockout
            // or a passcode delay).
            guard let stateRecord else {
                if countersExist { throw Self.missingState }
                var state = DeviceState(secret: random.bytes(32))
                // Checked before anything is put: a setup that cannot be applied leaves no device.
                state.passcodeVerifier = try setup?.checkedPasscodeVerifier(
                    sensor: sensor, sensorFollowsStorage: sensorFollowsStorage, passcodeFactor: passcodeFactor, random: random)
                let stateBytes = try state.storedJSON()
                let counters = DeviceCounters()
                let countersBytes = counters.storedJSON()
                transaction.put(Record(key: .deviceState, value: stateBytes))
                transaction.put(Record(key: .deviceCounters, value: countersBytes))
                return (Cache(snapshot: Snapshot(state: state, counters: counters, secretKey: SymmetricKey(data: state.secret)),
                              stateBytes: stateBytes, countersBytes: countersBytes), true)
            }
            guard countersExist else { throw Self.missingCounters }
            var state = try RecordCoding.decode(DeviceState.self, from: stateRecord).validated()
            if Self.migrate(&state, sensorType: sensorType) {
                transaction.put(Record(key: .deviceState, value: try state.storedJSON()))
            }
            return (Cache(snapshot: nil, stateBytes: nil, countersBytes: nil), false)
        }
        isNewDevice = created
        // A new device's records are known without reading them back: the first snapshot
        // finds the same bytes in storage and decodes nothing (storedSnapshot compares them).
        cache.withLock { $0 = opened }
        // whenPasscodeSetThisDeviceOnly keychain items go with the passcode (REFERENCE §9).
        onPasscodeRemoval { [storage] in try Keychain.deletePasscodeBoundItems(in: storage) }
    }

    /// Brings a stored state up to ``DeviceState/currentSchema``; true when it changed.
    ///
    /// Round 1 (no schema): the core kept the templates itself, per modality. The templates of
    /// the composed sensor's modality become the recorded enrolled set (ids = names,
    /// generations = template ids, so domain-state values stay as they were); the simulated
    /// sensors adopt the same templates from the untouched legacy field.
    static func migrate(_ state: inout DeviceState, sensorType: BiometryType) -> Bool {
        guard (state.schema ?? 1) < DeviceState.currentSchema else { return false }
        if state.enrolled == nil {
            state.enrolled = (state.legacyEnrollments?[sensorType.description] ?? []).map {
                SensorIdentity(id: $0.name, generation: $0.templateID)
            }
        }
        state.schema = DeviceState.currentSchema
        return true
    }

    // MARK: Reading and writing device records

    /// The current state and counters, with the enrolled set as the sensor reports it now.
    ///
    /// The sensor owns its identities: when its report differs from the set the core recorded
    /// (an enrollment here, in another process, or outside Touchstone), the change is recorded
    /// first — the enrollment sequence moves on and subscribers hear of it. A sensor that cannot
    /// answer (a daemon gone) leaves the recorded set in force; its hardware state and capture
    /// report the problem. A sensor whose templates are in a damaged store throws that
    /// ``StorageError`` (a corrupt record or store; an I/O failure counts as no answer).
    func snapshot() throws -> Snapshot {
        let (stored, generation, sensorAgreed) = try storedSnapshotAndGeneration()
        guard let box = sensorBox, !sensorAgreed else { return stored }
        let reported: [SensorIdentity]
        do {
            reported = try box.sensor.enrolledIdentities()
        } catch let error as StorageError where error.isDamage {
            // The sensor keeps its templates in a damaged store: reported, not taken for a
            // sensor that cannot answer.
            throw error
        } catch {
            logger.debug("the sensor could not report its enrolled set; the recorded set stays in force", error: error)
            return stored
        }
        guard reported != stored.state.identities else {
            if sensorFollowsStorage {
                cache.withLock { if $0.generation == generation { $0.sensorAgreedAt = generation } }
            }
            return stored
        }
        return try recordEnrolledSet(reported) ?? storedSnapshot()
    }

    /// Records `reported` as the enrolled set when it differs from the recorded one; returns
    /// the snapshot written (nil when another writer had recorded it already).
    @discardableResult
    func recordEnrolledSet(_ reported: [SensorIdentity]) throws -> Snapshot? {
        let now = clock.now
        let change = try update { state, _ -> EnrollmentChange? in
            guard state.identities != reported else { return nil }
            state.enrolled = reported
            state.enrollmentSequence += 1
            return EnrollmentChange(sequence: state.enrollmentSequence, at: now)
        }
        guard let change else { return nil }
        publish(change)
        return cache.withLock { $0.snapshot }
    }

    /// The device records as stored (one decode per storage generation; when another record
    /// changed — a keychain item, a baseline — they are re-read but decoded again only if
    /// their bytes changed).
    func storedSnapshot() throws -> Snapshot {
        try storedSnapshotAndGeneration().snapshot
    }

    /// ``storedSnapshot()``, the storage generation it is current for, and whether the sensor
    /// already reported its enrolled set at that generation (see ``sensorFollowsStorage``).
    private func storedSnapshotAndGeneration() throws -> (snapshot: Snapshot, generation: UInt64, sensorAgreed: Bool) {
        let generation = try storage.generation
        // The usual case — nothing written since — takes only the snapshot out of the lock.
        if let current = cache.withLock({ cache -> (Snapshot, Bool)? in
            guard cache.generation == generation, let snapshot = cache.snapshot else { return nil }
            return (snapshot, sensorFollowsStorage && cache.sensorAgreedAt == generation)
        }) {
            return (current.0, generation, current.1)
        }
        let cached = cache.withLock { $0 }
        guard let stateRecord = try storage.read(.deviceState) else {
            throw StorageError.corruptRecord(key: RecordKey.deviceState.description, reason: "the record is missing")
        }
        let countersBytes = try storage.read(.deviceCounters)?.value
        let snapshot = try decode(stateRecord, countersBytes: countersBytes, reusing: cached)
        cache.withLock {
            $0 = Cache(generation: generation, snapshot: snapshot, stateBytes: stateRecord.value, countersBytes: countersBytes)
        }
        return (snapshot, generation, false)
    }

    /// The device records as `transaction` sees them, for code already inside a storage
    /// transaction (where ``snapshot()`` would re-enter the backend).
    func snapshot(in transaction: StorageTransaction) throws -> Snapshot {
        guard let stateRecord = try transaction.read(.deviceState) else {
            throw StorageError.corruptRecord(key: RecordKey.deviceState.description, reason: "the record is missing")
        }
        return try decodeSnapshot(stateRecord, countersBytes: try transaction.read(.deviceCounters)?.value)
    }

    /// The snapshot of these record bytes: `known`'s when they are the bytes it was decoded
    /// from, with only the counters decoded again when just they differ (another writer counted
    /// a failure), and decoded in full otherwise.
    private func decode(_ stateRecord: Record, countersBytes: Data?, reusing known: Cache) throws -> Snapshot {
        guard let previous = known.snapshot, known.stateBytes == stateRecord.value else {
            return try decodeSnapshot(stateRecord, countersBytes: countersBytes)
        }
        if known.countersBytes == countersBytes { return previous }
        return Snapshot(state: previous.state, counters: try decodeCounters(countersBytes), secretKey: previous.secretKey,
                        derived: previous.derivedKeys)
    }

    private func decodeSnapshot(_ stateRecord: Record, countersBytes: Data?) throws -> Snapshot {
        let state = try RecordCoding.decode(DeviceState.self, from: stateRecord).validated()
        return Snapshot(state: state, counters: try decodeCounters(countersBytes), secretKey: SymmetricKey(data: state.secret))
    }

    /// A device's counters found without its state (see ``missingCounters``).
    private static let missingState = StorageError.corruptRecord(
        key: RecordKey.deviceState.description,
        reason: "the record is missing while the device's counters exist: the store lost it. "
            + "touchstone --export-store NEW-FILE copies the rest to a new store, where the device starts afresh")

    /// A device's state found without its counters: they are written together, from the
    /// device's first transaction on, so this is a damaged store.
    private static let missingCounters = StorageError.corruptRecord(
        key: RecordKey.deviceCounters.description,
        reason: "the record is missing while the device's state exists: the store lost it. "
            + "touchstone --export-store NEW-FILE copies the rest to a new store, where the device starts afresh")

    private func decodeCounters(_ bytes: Data?) throws -> DeviceCounters {
        guard let bytes else { throw Self.missingCounters }
        return try RecordCoding.decode(DeviceCounters.self, from: Record(key: .deviceCounters, value: bytes)).validated()
    }

    /// Atomically reads, changes and durably writes the device records. Only records that
    /// changed are written, so a counter update is one record in one commit.
    @discardableResult
    func update<T: Sendable>(_ body: (inout DeviceState, inout DeviceCounters) throws -> T,
                             alsoInCommit more: ((T, inout StorageTransaction) throws -> Void)? = nil) throws -> T {
        var previousState: DeviceState?
        var previousCounters: DeviceCounters?
        let (result, written) = try storage.transaction { transaction -> (T, Cache) in
            guard let stateRecord = try transaction.read(.deviceState) else {
                throw StorageError.corruptRecord(key: RecordKey.deviceState.description, reason: "the record is missing")
            }
            var countersBytes = try transaction.read(.deviceCounters)?.value
            let current = try decode(stateRecord, countersBytes: countersBytes, reusing: cache.withLock { $0 })
            var state = current.state
            var counters = current.counters
            previousState = current.state
            previousCounters = current.counters
            let result = try body(&state, &counters)
            var stateBytes = stateRecord.value
            if state != current.state {
                stateBytes = try state.storedJSON()
                transaction.put(Record(key: .deviceState, value: stateBytes))
            }
            if counters != current.counters {
                counters.schema = DeviceCounters.currentSchema
                countersBytes = counters.storedJSON()
                transaction.put(Record(key: .deviceCounters, value: countersBytes ?? Data()))
            }
            try more?(result, &transaction)
            // The state's derived values carry over when only the counters changed.
            let derived = stateBytes == stateRecord.value ? current.derivedKeys : DerivedValues()
            let snapshot = Snapshot(state: state, counters: counters, secretKey: current.secretKey, derived: derived)
            // The generation after this commit is not known here: the next read re-reads the
            // records and, finding these bytes, skips decoding.
            return (result, Cache(generation: nil, snapshot: snapshot, stateBytes: stateBytes, countersBytes: countersBytes))
        }
        cache.withLock { $0 = written }
        if written.snapshot.map({ $0.state != previousState || $0.counters != previousCounters }) ?? false {
            let subscribers = activity.withLock { Array($0.changeSubscribers.values) }
            for subscriber in subscribers { subscriber.yield(()) }
        }
        return result
    }

    /// The device-wide counters as stored now.
    public var counters: DeviceCounters {
        get throws { try snapshot().counters }
    }

    /// The biometry type of the sensor (`.none` without one).
    public var biometryType: BiometryType { sensorBox?.biometryType ?? .none }

    /// The current OS epoch (moved on by the simulation's OS upgrade).
    public var osEpoch: Int {
        get throws { try snapshot().state.osEpoch }
    }

    /// Moves the OS epoch on: every app's domain-state values change although nothing was
    /// enrolled or removed. The simulation's OS upgrade calls it.
    package func bumpOSEpoch() throws {
        try update { state, _ in state.osEpoch += 1 }
    }

    /// Erases everything the device keeps in its store — device records, the sensor's and
    /// other plugins' records, keychain items, keys, baselines — in one transaction, except the
    /// namespaces in `keeping` (the REPL keeps `clock`, so virtual time never goes back). The
    /// next ``AuthenticatorBuilder/build(reusing:clock:interaction:)`` makes a fresh device.
    public func eraseStore(keeping: Set<RecordNamespace> = []) throws {
        let doomed = try storage.namespaces().filter { !keeping.contains($0) }
            .flatMap { try storage.list(namespace: $0) }
        try storage.commit(doomed.map { .delete($0.key) })
        cache.withLock { $0 = Cache() }
    }

    /// Registers work to run when the passcode is removed (the keychain deletes its
    /// whenPasscodeSetThisDeviceOnly items there).
    public func onPasscodeRemoval(_ hook: @escaping @Sendable () throws -> Void) {
        activity.withLock { $0.passcodeRemovalHooks.append(hook) }
    }
}
