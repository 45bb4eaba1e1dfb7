import Logging

/// Builds an ``Authenticator`` from plugin ids and options: in code, from a configuration
/// file, or from REPL commands — all three go through ``build(reusing:clock:interaction:)``.
///
/// ```swift
/// var builder = AuthenticatorBuilder(registry: .builtIn)
/// try builder.use(.sensor, "sim.faceid")
/// try builder.use(.passcode, "passcode.sim", options: ["rounds": "1000"])
/// builder.composition.app = "com.example.notes"
/// let authenticator = try builder.build()
/// ```
public struct AuthenticatorBuilder: Sendable {
    /// The plugins available.
    public var registry: PluginRegistry
    /// What will be built.
    public var composition: Composition
    /// The logger the device and its plugins log through (each plugin's carries its id as
    /// `touchstone.plugin` metadata). By default `Logger.touchstoneSilent`, which
    /// discards everything: pass one to see why, say, a reader counts as absent.
    public var logger: Logger

    /// A builder over `registry`, starting from `composition`. (`TouchstonePortable` adds
    /// `init(registry:)`, which starts from `Composition()`, the simulated Touch ID device.)
    public init(registry: PluginRegistry, composition: Composition, logger: Logger = .touchstoneSilent) {
        self.registry = registry
        self.composition = composition
        self.logger = logger
    }

    /// Puts plugin `id` with `options` in the slot of `kind`, validating id and options now.
    public mutating func use(_ kind: PluginKind, _ id: String, options: [String: String] = [:]) throws {
        let selection = PluginSelection(id, options: options)
        try registry.validate(selection, kind: kind)
        composition.use(kind, selection)
    }

    /// Builds the authenticator.
    ///
    /// - Parameters:
    ///   - previous: an authenticator whose storage, clock, randomness and interaction are
    ///     kept when its storage selection is unchanged (the REPL swaps a sensor this way
    ///     without losing the device).
    ///   - clock: overrides the composition's clock.
    ///   - interaction: the person in front of the device; by default the registry's
    ///     ``PluginRegistry/simulation`` supplies a scripted one.
    public func build(
        reusing previous: Authenticator? = nil,
        clock: (any DeviceClock)? = nil,
        interaction: (any Interaction)? = nil
    ) throws -> Authenticator {
        let composition = composition
        // An app id names records and shows in messages: 1 to 255 bytes (a bundle id's limit),
        // no whitespace, control or format characters.
        guard UsageError.isPlainWord(composition.app, maxBytes: 255) else {
            throw ConfigurationError.invalidSetting(
                name: "app", reason: "\(UsageError.escaped(composition.app)) is not an app id such as com.example.app (1 to 255 bytes, no spaces or control characters)")
        }
        let keep = previous.flatMap { $0.composition.storage == composition.storage && $0.composition.seed == composition.seed ? $0 : nil }
        let bare = PluginEnvironment(
            clock: try clock ?? keep?.device.clock ?? makeClock(composition.clock),
            random: keep?.device.random ?? composition.seed.map { RandomSource(seed: $0) } ?? .system,
            interaction: try interaction ?? keep?.device.interaction ?? makeInteraction(),
            logger: logger)

        let storage: any StorageBackend = try keep?.device.storage
            ?? registry.make(composition.storage, kind: .storage, environment: bare) { if case let .storage(made) = $0 { made } else { nil } }
        let environment = bare.with(storage: storage)
        let sensor: (any BiometricSensor)? = try composition.sensor.map {
            try registry.make($0, kind: .sensor, environment: environment) { if case let .sensor(made) = $0 { made } else { nil } }
        }
        let companion: (any CompanionDevice)? = try composition.companion.map {
            try registry.make($0, kind: .companion, environment: environment) { if case let .companion(made) = $0 { made } else { nil } }
        }
        let passcode: any PasscodeFactor = try registry.make(composition.passcode, kind: .passcode, environment: environment) {
            if case let .passcode(made) = $0 { made } else { nil }
        }
        let detector: any ChangeDetector = try registry.make(composition.detector, kind: .detector, environment: environment) {
            if case let .detector(made) = $0 { made } else { nil }
        }
        let policySelections = composition.policies ?? registry.descriptors(of: .policy).map { PluginSelection($0.id) }
        let policies: [any Policy] = try policySelections.map {
            try registry.make($0, kind: .policy, environment: environment) { if case let .policy(made) = $0 { made } else { nil } }
        }
        let device = try Device(
            storage: storage, sensor: sensor, companion: companion, passcodeFactor: passcode,
            clock: environment.clock, random: environment.random, interaction: environment.interaction,
            erasesDataAfterTenFailures: composition.eraseDataAfterTenFailedPasscodes,
            setup: composition.device, logger: logger)
        if device.isNewDevice { try composition.device?.enroll(on: device) }
        return Authenticator(device: device, appID: composition.app, policies: policies,
                             detector: detector, composition: composition, registry: registry)
    }

    private func makeClock(_ kind: Composition.ClockKind) throws -> any DeviceClock {
        switch kind {
        case .wall:
            return WallClock()
        case .virtual:
            guard let simulation = registry.simulation else {
                throw ConfigurationError.invalidSetting(
                    name: "clock", reason: "a virtual clock comes from the simulation module: use PluginRegistry.builtIn, set registry.simulation, or pass build(clock:)")
            }
            return simulation.makeManualClock()
        }
    }

    private func makeInteraction() throws -> any Interaction {
        guard let simulation = registry.simulation else {
            throw ConfigurationError.invalidSetting(
                name: "interaction", reason: "no one answers prompts: pass build(interaction:), or use PluginRegistry.builtIn for a scripted person")
        }
        return simulation.makeInteraction()
    }
}
