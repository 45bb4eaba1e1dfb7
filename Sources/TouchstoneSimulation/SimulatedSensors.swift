import Foundation
import Synchronization
import Touchstone

/// Shared machinery of the simulated biometric sensors: a settable hardware state, the
/// enrolled templates, and captures answered by the device's ``Interaction`` (a scripted queue
/// in simulations).
final class SimulatedHardware: Sendable {
    let interaction: any Interaction
    let isRemovable: Bool
    let templates: SimulatedTemplates
    /// The hardware state (``code(_:)``): read on every evaluation, so an atomic load rather
    /// than a lock.
    private let state: Atomic<Int>

    private static func code(_ state: HardwareState) -> Int {
        switch state {
        case .present: 0
        case .absent: 1
        case .disconnected: 2
        case .denied: 3
        case .notPaired: 4
        }
    }

    private static func state(_ code: Int) -> HardwareState {
        switch code {
        case 1: .absent
        case 2: .disconnected
        case 3: .denied
        case 4: .notPaired
        default: .present
        }
    }

    static let options: [OptionSpec] = [
        OptionSpec("hardware", .choice(HardwareState.allCases.map(\.optionName)), default: "present",
                   "initial hardware state: present, absent, disconnected, denied (app not permitted) or not-paired"),
        OptionSpec("removable", .boolean, default: "false",
                   "a removable (macOS-style) sensor: disconnected/not-paired report biometryDisconnected/biometryNotPaired"),
    ]

    init(options: PluginOptions, environment: PluginEnvironment, modality: BiometryType) {
        interaction = environment.interaction
        isRemovable = options.boolean("removable")
        templates = SimulatedTemplates(storage: environment.storage, modality: modality, random: environment.random)
        let initial = options.string("hardware").flatMap(HardwareState.init(optionName:)) ?? .present
        state = Atomic(Self.code(initial))
    }

    var current: HardwareState { Self.state(state.load(ordering: .acquiring)) }

    func set(_ newState: HardwareState) {
        state.store(Self.code(newState), ordering: .releasing)
    }

    /// The scripted person presents a name: a match when an identity with that id is enrolled,
    /// otherwise a failed match.
    func capture(_ prompt: Prompt) async throws -> CaptureResult {
        try result(of: try await interaction.nextAction(for: prompt))
    }

    private func result(of action: UserAction) throws -> CaptureResult {
        switch action {
        case let .present(name): try templates.identities().contains { $0.id == name } ? .matched(name) : .noMatch
        case .noMatch: .noMatch
        case let action: .action(action)
        }
    }
}

/// The templates a simulated sensor holds: in the device's store (record `sensor/<modality>`)
/// when composed into a device, in memory otherwise.
///
/// Round-1 stores kept the templates in the core's `device/state` record; while this sensor's
/// record does not exist yet, the templates of its modality are read from there (the first
/// change writes them to the sensor's own record).
final class SimulatedTemplates: Sendable {
    private struct Stored: Codable {
        var schema: Int
        var identities: [SensorIdentity]
    }

    private struct RoundOneState: Decodable {
        struct Template: Decodable { var name: String; var templateID: String }
        var enrollments: [String: [Template]]?
    }

    private static let schema = 1

    /// Where the templates are kept (nil: in memory, changed by nothing but this object).
    let storage: (any StorageBackend)?
    private let key: RecordKey
    private let modality: String
    private let random: RandomSource
    private let memory = Locked<[SensorIdentity]>([])
    /// The decoded list, the storage generation it is known current for, and the record's
    /// bytes it was decoded from (another record's write changes the generation, not these).
    private let cache = Locked<(generation: UInt64, bytes: Data?, identities: [SensorIdentity])?>(nil)

    init(storage: (any StorageBackend)?, modality: BiometryType, random: RandomSource) {
        self.storage = storage
        self.modality = modality.description
        self.key = RecordKey(.sensor, modality.description)
        self.random = random
    }

    /// The enrolled identities, in enrollment order.
    func identities() throws -> [SensorIdentity] {
        guard let storage else { return memory.withLock { $0 } }
        let generation = try storage.generation
        if let current = cache.withLock({ $0.flatMap { $0.generation == generation ? $0.identities : nil } }) {
            return current
        }
        let cached = cache.withLock { $0 }
        let record = try storage.read(key)
        if let cached, let record, cached.bytes == record.value {
            cache.withLock { $0 = (generation, record.value, cached.identities) }
            return cached.identities
        }
        let identities = try read { $0 == key ? record : try storage.read($0) }
        cache.withLock { $0 = (generation, record?.value, identities) }
        return identities
    }

    /// Enrolls `id` with a fresh template (a new generation when `replacing`).
    func enroll(_ id: String, replacing: Bool) throws -> SensorIdentity {
        let identity = SensorIdentity(id: id, generation: random.hex(16))
        try modify { identities in
            if let index = identities.firstIndex(where: { $0.id == id }) {
                guard replacing else { throw UsageError.alreadyEnrolled(name: id) }
                identities[index] = identity
            } else {
                guard !replacing else { throw UsageError.notEnrolled(name: id) }
                guard identities.count < Device.maximumIdentities else {
                    throw UsageError.tooManyIdentities(limit: Device.maximumIdentities)
                }
                identities.append(identity)
            }
        }
        return identity
    }

    /// Removes `id`.
    func remove(_ id: String) throws {
        try modify { identities in
            guard let index = identities.firstIndex(where: { $0.id == id }) else { throw UsageError.notEnrolled(name: id) }
            identities.remove(at: index)
        }
    }

    /// Removes every identity.
    func removeAll() throws {
        try modify { $0.removeAll() }
    }

    /// Reads, changes and writes the list in one storage transaction.
    private func modify(_ change: (inout [SensorIdentity]) throws -> Void) throws {
        guard let storage else { return try memory.withLock { try change(&$0) } }
        let key = key
        try storage.transaction { transaction in
            var identities = try read(transaction.read)
            try change(&identities)
            let bytes = try JSONEncoder().encode(Stored(schema: Self.schema, identities: identities))
            transaction.put(Record(key: key, value: bytes))
        }
        cache.withLock { $0 = nil }
    }

    /// The key of round-1 templates in the device state record, as stored.
    private static let legacyTemplatesKey = Data(#""enrollments""#.utf8)

    private func read(_ read: (RecordKey) throws -> Record?) throws -> [SensorIdentity] {
        if let record = try read(key) {
            do {
                return try JSONDecoder().decode(Stored.self, from: record.value).identities
            } catch {
                throw StorageError.corruptRecord(key: key.description, reason: "\(error)")
            }
        }
        guard let state = try read(RecordKey(.device, "state")) else { return [] }
        // Only round-1 state records carry templates, under the key `enrollments`, which
        // JSONEncoder writes as plain bytes: without them there is nothing to decode (the
        // device decodes and checks its state record itself).
        guard state.value.range(of: Self.legacyTemplatesKey) != nil else { return [] }
        do {
            let roundOne = try JSONDecoder().decode(RoundOneState.self, from: state.value)
            return (roundOne.enrollments?[modality] ?? []).map { SensorIdentity(id: $0.name, generation: $0.templateID) }
        } catch {
            throw StorageError.corruptRecord(key: state.key.description, reason: "\(error)")
        }
    }
}

extension HardwareState {
    /// The spelling used in options and the REPL (`not-paired`).
    public var optionName: String {
        self == .notPaired ? "not-paired" : rawValue
    }

    /// Parses ``optionName`` (also accepts `notPaired`).
    public init?(optionName: String) {
        if optionName == "not-paired" { self = .notPaired } else { self.init(rawValue: optionName) }
    }
}

/// Controls only a simulation has: set the hardware state of a simulated sensor (a real
/// reader's state is what the hardware says).
public protocol SimulatedHardwareControl: Sendable {
    /// Sets the hardware state (`present`, `absent`, ...).
    func setHardwareState(_ state: HardwareState)
}

/// What the three simulated biometric sensors share: a settable hardware state, templates in
/// the device's store, and captures answered by the device's scripted user. Each sensor only
/// names its modality.
protocol SimulatedBiometricSensor: EnrollingSensor, SimulatedHardwareControl {
    var hardware: SimulatedHardware { get }
}

extension SimulatedBiometricSensor {
    public var isRemovable: Bool { hardware.isRemovable }
    public func hardwareState(for appID: String) -> HardwareState { hardware.current }
    public func setHardwareState(_ state: HardwareState) { hardware.set(state) }
    public func enrolledIdentities() throws -> [SensorIdentity] { try hardware.templates.identities() }
    public var enrollmentStorage: (any StorageBackend)? { hardware.templates.storage }
    public func capture(_ prompt: Prompt) async throws -> CaptureResult { try await hardware.capture(prompt) }
    public func interrupt() {}

    public func enroll(_ id: String, replacing: Bool,
                       progress: @escaping @Sendable (EnrollmentProgress) -> Void) throws -> SensorIdentity {
        let identity = try hardware.templates.enroll(id, replacing: replacing)
        progress(EnrollmentProgress(result: "enroll-completed", stage: 1, stages: 1))
        return identity
    }

    public func remove(_ id: String) throws { try hardware.templates.remove(id) }
    public func removeAll() throws { try hardware.templates.removeAll() }
}

/// A simulated fingerprint sensor (Touch ID rules: 3 failures end an evaluation).
///
/// Options: `hardware` (present, absent, disconnected, denied, not-paired), `removable`.
public struct SimulatedFingerprintSensor: SimulatedBiometricSensor {
    public static let descriptor = PluginDescriptor(
        id: "sim.touchid", kind: .sensor,
        summary: "simulated fingerprint sensor (Touch ID rules), driven by scripted outcomes",
        options: SimulatedHardware.options)

    let hardware: SimulatedHardware
    public var biometryType: BiometryType { .touchID }

    public init(options: PluginOptions, environment: PluginEnvironment) {
        hardware = SimulatedHardware(options: options, environment: environment, modality: .touchID)
    }
}

/// A simulated face sensor (Face ID rules: scanning stops after 2 failures).
public struct SimulatedFaceSensor: SimulatedBiometricSensor {
    public static let descriptor = PluginDescriptor(
        id: "sim.faceid", kind: .sensor,
        summary: "simulated face sensor (Face ID rules), driven by scripted outcomes",
        options: SimulatedHardware.options)

    let hardware: SimulatedHardware
    public var biometryType: BiometryType { .faceID }

    public init(options: PluginOptions, environment: PluginEnvironment) {
        hardware = SimulatedHardware(options: options, environment: environment, modality: .faceID)
    }
}

/// A simulated iris sensor (Optic ID; behaves like Face ID, our rule).
public struct SimulatedIrisSensor: SimulatedBiometricSensor {
    public static let descriptor = PluginDescriptor(
        id: "sim.opticid", kind: .sensor,
        summary: "simulated iris sensor (Optic ID, Face ID rules), driven by scripted outcomes",
        options: SimulatedHardware.options)

    let hardware: SimulatedHardware
    public var biometryType: BiometryType { .opticID }

    public init(options: PluginOptions, environment: PluginEnvironment) {
        hardware = SimulatedHardware(options: options, environment: environment, modality: .opticID)
    }
}

/// A simulated companion device (watch or Mac) for policies 3 and 4. Approval is the
/// scripted outcome `companion`.
public final class SimulatedCompanion: CompanionDevice, SimulatedCompanionControl {
    public static let descriptor = PluginDescriptor(
        id: "sim.companion", kind: .companion,
        summary: "simulated companion device (watch or Mac): paired or not, reachable or not",
        options: [
            OptionSpec("type", .choice(CompanionType.allCases.map(\.rawValue)), default: "watch", "companion type"),
            OptionSpec("paired", .boolean, default: "true", "whether it is paired"),
            OptionSpec("reachable", .boolean, default: "true", "whether it is reachable now"),
            OptionSpec("pairing", .string, default: "companion-1", "pairing identifier; a new value is a new pairing"),
        ])

    private struct State { var paired: Bool; var reachable: Bool }
    private let state: Locked<State>
    public let companionType: CompanionType
    public let pairingID: String

    public init(options: PluginOptions, environment: PluginEnvironment) {
        companionType = options.string("type").flatMap(CompanionType.init(rawValue:)) ?? .watch
        pairingID = options.string("pairing") ?? "companion-1"
        state = Locked(State(paired: options.boolean("paired"), reachable: options.boolean("reachable")))
    }

    public var isPaired: Bool { state.withLock { $0.paired } }
    public var isReachable: Bool { state.withLock { $0.paired && $0.reachable } }

    /// Sets pairing and reachability.
    public func setState(paired: Bool, reachable: Bool) {
        state.withLock { $0 = State(paired: paired, reachable: reachable) }
    }
}

/// Controls only a simulation has: pair, unpair and move a simulated companion in and out of
/// reach.
public protocol SimulatedCompanionControl: Sendable {
    /// Sets pairing and reachability.
    func setState(paired: Bool, reachable: Bool)
}
