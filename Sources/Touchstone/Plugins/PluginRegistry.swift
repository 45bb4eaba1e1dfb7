/// The plugins an application knows about, by id.
///
/// Register every plugin once at startup, in one explicit list (like swift-log's
/// `LoggingSystem.bootstrap`). `TouchstoneBuiltins` provides `PluginRegistry.builtIn` with all
/// of Touchstone's own plugins; add yours to a copy:
///
/// ```swift
/// var registry = PluginRegistry.builtIn
/// try registry.register(MyReader.self)
/// ```
public struct PluginRegistry: Sendable {
    private var types: [String: any Plugin.Type] = [:]
    private var order: [String] = []
    /// Where compositions get their simulated parts (the manual clock of `"clock": "virtual"`
    /// and the scripted person), when the simulation module is registered. `builtIn` sets it.
    public var simulation: SimulationSupport?

    /// An empty registry.
    public init() {}

    /// Adds a plugin type. Fails if its id is taken.
    public mutating func register(_ type: any Plugin.Type) throws(ConfigurationError) {
        let id = type.descriptor.id
        guard types[id] == nil else { throw .duplicatePlugin(id: id) }
        types[id] = type
        order.append(id)
    }

    /// Descriptors of every registered plugin, optionally of one kind, in registration order.
    public func descriptors(of kind: PluginKind? = nil) -> [PluginDescriptor] {
        order.compactMap { types[$0]?.descriptor }.filter { kind == nil || $0.kind == kind }
    }

    /// The descriptor of `id`, or an error listing the known ids (of `kind`, when given).
    public func descriptor(_ id: String, kind: PluginKind? = nil) throws(ConfigurationError) -> PluginDescriptor {
        guard let type = types[id] else {
            throw .unknownPlugin(id: id, kind: kind, known: descriptors(of: kind).map(\.id))
        }
        let descriptor = type.descriptor
        if let kind, descriptor.kind != kind {
            throw .wrongKind(id: id, expected: kind, actual: descriptor.kind)
        }
        return descriptor
    }

    /// Validates `selection`'s options against the plugin's specs without creating it.
    public func validate(_ selection: PluginSelection, kind: PluginKind) throws(ConfigurationError) {
        let descriptor = try descriptor(selection.id, kind: kind)
        _ = try PluginOptions(selection.options, for: descriptor)
    }

    /// The maintenance entry points of the storage plugin `selection` names, with its
    /// validated options; nil when that backend has none (``StorageMaintenance``).
    public func maintenance(for selection: PluginSelection) throws(ConfigurationError)
        -> (type: any StorageMaintenance.Type, options: PluginOptions)? {
        let descriptor = try descriptor(selection.id, kind: .storage)
        let options = try PluginOptions(selection.options, for: descriptor)
        guard let type = types[selection.id] as? any StorageMaintenance.Type else { return nil }
        return (type, options)
    }

    /// Creates the plugin named by `selection` for the slot of `kind`, as that kind.
    public func instance(
        _ selection: PluginSelection, kind: PluginKind, environment: PluginEnvironment
    ) throws -> PluginInstance {
        let descriptor = try descriptor(selection.id, kind: kind)
        guard let type = types[selection.id] else {
            throw ConfigurationError.unknownPlugin(id: selection.id, kind: kind, known: descriptors(of: kind).map(\.id))
        }
        let options = try PluginOptions(selection.options, for: descriptor)
        return try type.makeInstance(options: options, environment: environment.forPlugin(selection.id))
    }

    /// Creates the plugin named by `selection` as the kind `extract` takes from the instance
    /// (`{ if case let .sensor(s) = $0 { s } else { nil } }`): no dynamic cast.
    func make<P>(
        _ selection: PluginSelection, kind: PluginKind, environment: PluginEnvironment,
        extract: (PluginInstance) -> P?
    ) throws -> P {
        let made = try instance(selection, kind: kind, environment: environment)
        guard let typed = extract(made) else {
            throw ConfigurationError.wrongKind(id: selection.id, expected: kind, actual: try descriptor(selection.id).kind)
        }
        return typed
    }

    /// Creates the plugin named by `selection` as a `P` (one of the plugin-kind protocols).
    public func make<P>(
        _ selection: PluginSelection,
        kind: PluginKind,
        as _: P.Type = P.self,
        environment: PluginEnvironment
    ) throws -> P {
        let descriptor = try descriptor(selection.id, kind: kind)
        guard let type = types[selection.id] else {
            throw ConfigurationError.unknownPlugin(id: selection.id, kind: kind, known: descriptors(of: kind).map(\.id))
        }
        let options = try PluginOptions(selection.options, for: descriptor)
        let instance = try type.init(options: options, environment: environment.forPlugin(selection.id))
        guard let typed = instance as? P else {
            throw ConfigurationError.wrongKind(id: selection.id, expected: kind, actual: descriptor.kind)
        }
        return typed
    }
}

extension PluginRegistry {
    /// The text that replaces secret option values when a selection is shown.
    public static let redactedValue = "<redacted>"

    /// `selection` with the values of its secret options (``OptionSpec/isSecret``) replaced by
    /// ``redactedValue``, for printing. Unknown plugins are returned unchanged.
    public func redactingSecrets(in selection: PluginSelection) -> PluginSelection {
        guard let descriptor = try? descriptor(selection.id) else { return selection }
        var redacted = selection
        for option in descriptor.options where option.isSecret && selection.options[option.name] != nil {
            redacted.options[option.name] = Self.redactedValue
        }
        return redacted
    }

    /// `composition` with every secret option value, and a new device's passcode, redacted, for
    /// printing.
    public func redactingSecrets(in composition: Composition) -> Composition {
        var redacted = composition
        redacted.sensor = composition.sensor.map(redactingSecrets(in:))
        redacted.companion = composition.companion.map(redactingSecrets(in:))
        redacted.passcode = redactingSecrets(in: composition.passcode)
        redacted.storage = redactingSecrets(in: composition.storage)
        redacted.detector = redactingSecrets(in: composition.detector)
        redacted.policies = composition.policies?.map(redactingSecrets(in:))
        if redacted.device?.passcode != nil { redacted.device?.passcode = Self.redactedValue }
        return redacted
    }
}

/// A plugin chosen for a slot: its id and options as text, as written in a configuration file
/// or typed in the REPL (`use sensor sim.faceid hardware=absent`).
public struct PluginSelection: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The plugin id.
    public var id: String
    /// Options as `key: value` text.
    public var options: [String: String]

    /// Creates a selection.
    public init(_ id: String, options: [String: String] = [:]) {
        self.id = id
        self.options = options
    }

    /// `id key=value ...` with keys sorted.
    public var description: String {
        ([id] + options.keys.sorted().map { "\($0)=\(options[$0] ?? "")" }).joined(separator: " ")
    }

    private enum CodingKeys: String, CodingKey { case id, options }

    public init(from decoder: any Decoder) throws {
        // Accept the short form `"sim.touchid"` as well as `{"id": ..., "options": {...}}`.
        if let single = try? decoder.singleValueContainer(), let id = try? single.decode(String.self) {
            self.init(id)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(String.self, forKey: .id)
        var options: [String: String] = [:]
        if container.contains(.options) {
            let raw = try container.decode([String: OptionText].self, forKey: .options)
            options = raw.mapValues(\.text)
        }
        self.init(id, options: options)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        if !options.isEmpty { try container.encode(options, forKey: .options) }
    }
}

/// An option value in a configuration file: a string, number or boolean, kept as text.
private struct OptionText: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            text = value ? "true" : "false"
        } else if let value = try? container.decode(Int.self) {
            text = String(value)
        } else if let value = try? container.decode(Double.self) {
            text = String(value)
        } else {
            text = try container.decode(String.self)
        }
    }
}

/// What the simulation module lends a composition: a manual clock for `"clock": "virtual"` and
/// the scripted person who answers prompts. The core knows neither type, as swift-nio's core
/// does not know its embedded event loop.
public struct SimulationSupport: Sendable {
    /// Makes a fresh manual clock (at the epoch).
    public var makeManualClock: @Sendable () -> any ManualClock
    /// Makes a fresh scripted person (an empty queue).
    public var makeInteraction: @Sendable () -> any Interaction

    /// Creates the support from its two factories.
    public init(makeManualClock: @escaping @Sendable () -> any ManualClock,
                makeInteraction: @escaping @Sendable () -> any Interaction) {
        self.makeManualClock = makeManualClock
        self.makeInteraction = makeInteraction
    }
}
