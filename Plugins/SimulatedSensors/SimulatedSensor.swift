import Synchronization
import Touchstone

/// Shared machinery of the simulated biometric sensors: a settable hardware state and captures
/// answered by the device's ``Interaction`` (a scripted queue in simulations).
final class SimulatedHardware: Sendable {
    let interaction: any Interaction
    let isRemovable: Bool
    private let state: Mutex<HardwareState>

    static let options: [OptionSpec] = [
        OptionSpec("hardware", .choice(HardwareState.allCases.map(\.optionName)), default: "present",
                   "initial hardware state: present, absent, disconnected, denied (app not permitted) or not-paired"),
        OptionSpec("removable", .boolean, default: "false",
                   "a removable (macOS-style) sensor: disconnected/not-paired report biometryDisconnected/biometryNotPaired"),
    ]

    init(options: PluginOptions, environment: PluginEnvironment) {
        interaction = environment.interaction
        isRemovable = options.boolean("removable")
        let initial = options.string("hardware").flatMap(HardwareState.init(optionName:)) ?? .present
        state = Mutex(initial)
    }

    var current: HardwareState { state.withLock { $0 } }

    func set(_ newState: HardwareState) {
        state.withLock { $0 = newState }
    }

    func capture(_ prompt: Prompt) async throws -> SensorReading {
        switch try await interaction.nextAction(for: prompt) {
        case let .present(name): .identity(name)
        case .noMatch: .noMatch
        case let action: .action(action)
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

/// What the three simulated biometric sensors share: a settable hardware state and captures
/// answered by the device's scripted user. Each sensor only names its modality.
protocol SimulatedBiometricSensor: BiometricSensor {
    var hardware: SimulatedHardware { get }
}

extension SimulatedBiometricSensor {
    public var isRemovable: Bool { hardware.isRemovable }
    public func hardwareState(for appID: String) -> HardwareState { hardware.current }
    public func setHardwareState(_ state: HardwareState) { hardware.set(state) }
    public func capture(_ prompt: Prompt) async throws -> SensorReading { try await hardware.capture(prompt) }
    public func interrupt() {}
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
        hardware = SimulatedHardware(options: options, environment: environment)
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
        hardware = SimulatedHardware(options: options, environment: environment)
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
        hardware = SimulatedHardware(options: options, environment: environment)
    }
}

/// A simulated companion device (watch or Mac) for policies 3 and 4. Approval is the
/// scripted outcome `companion`.
public final class SimulatedCompanion: CompanionDevice {
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
    private let state: Mutex<State>
    public let companionType: CompanionType
    public let pairingID: String

    public init(options: PluginOptions, environment: PluginEnvironment) {
        companionType = options.string("type").flatMap(CompanionType.init(rawValue:)) ?? .watch
        pairingID = options.string("pairing") ?? "companion-1"
        state = Mutex(State(paired: options.boolean("paired"), reachable: options.boolean("reachable")))
    }

    public var isPaired: Bool { state.withLock { $0.paired } }
    public var isReachable: Bool { state.withLock { $0.paired && $0.reachable } }

    public func setState(paired: Bool, reachable: Bool) {
        state.withLock { $0 = State(paired: paired, reachable: reachable) }
    }
}
