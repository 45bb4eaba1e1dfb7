import Logging

/// The kinds of plugin a Touchstone authenticator is composed from.
public enum PluginKind: String, Sendable, Codable, CaseIterable {
    /// A biometric modality: fingerprint, face, iris (``BiometricSensor``).
    case sensor
    /// A paired companion device such as a watch (``CompanionDevice``).
    case companion
    /// The rules of one policy (``Policy``).
    case policy
    /// Durable key/value records (``StorageBackend``).
    case storage
    /// Decides whether the enrolled set changed since a baseline (``ChangeDetector``).
    case detector
    /// The device passcode factor (``PasscodeFactor``).
    case passcode
}

/// What a plugin is: its stable id, kind, a one-line summary and the options it takes.
public struct PluginDescriptor: Sendable, Equatable {
    /// The stable id used in configurations and the REPL, such as `sim.touchid`.
    public var id: String
    /// The slot it fills.
    public var kind: PluginKind
    /// One line for `plugins` listings.
    public var summary: String
    /// The options it accepts, each with type and default.
    public var options: [OptionSpec]

    /// Creates a descriptor.
    public init(id: String, kind: PluginKind, summary: String, options: [OptionSpec] = []) {
        self.id = id
        self.kind = kind
        self.summary = summary
        self.options = options
    }
}

/// One option a plugin takes: its name, type, default and meaning.
public struct OptionSpec: Sendable, Equatable {
    /// The type an option value must parse as.
    public enum ValueType: Sendable, Equatable {
        case string
        case integer(ClosedRange<Int>)
        case boolean
        case duration
        case choice([String])

        var expectation: String {
            switch self {
            case .string: "a string"
            case let .integer(range): "an integer from \(range.lowerBound) to \(range.upperBound)"
            case .boolean: "true or false"
            case .duration: "a duration from \(Duration.compactRangeDescription), such as 90s, 5m or 1h"
            case let .choice(values): "one of \(values.joined(separator: ", "))"
            }
        }

        func normalize(_ raw: String) -> String? {
            switch self {
            case .string:
                return raw
            case let .integer(range):
                guard let value = Int(raw), range.contains(value) else { return nil }
                return String(value)
            case .boolean:
                switch raw.lowercased() {
                case "true", "yes", "on", "1": return "true"
                case "false", "no", "off", "0": return "false"
                default: return nil
                }
            case .duration:
                return Duration(compact: raw) == nil ? nil : raw
            case let .choice(values):
                return values.contains(raw) ? raw : nil
            }
        }
    }

    /// The option's name, as written in `key=value`.
    public var name: String
    /// Its type.
    public var type: ValueType
    /// The value used when the option is not given (nil: no default, the option is optional).
    public var defaultValue: String?
    /// What it does.
    public var summary: String
    /// Whether the value is a secret (a passphrase): shown as `<redacted>` by
    /// ``PluginRegistry/redactingSecrets(in:)-(PluginSelection)`` and the REPL's `config`.
    public var isSecret: Bool

    /// Creates an option description.
    public init(_ name: String, _ type: ValueType, default defaultValue: String? = nil,
                secret isSecret: Bool = false, _ summary: String) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.isSecret = isSecret
        self.summary = summary
    }
}

/// The validated options a plugin is created with.
///
/// Built by the registry from `key=value` text (a configuration file or the REPL), checked
/// against the plugin's ``OptionSpec``s: unknown names and malformed values are rejected with
/// a ``ConfigurationError`` that names the option.
public struct PluginOptions: Sendable, Equatable {
    /// The plugin these options belong to.
    public let pluginID: String
    /// The options as given (normalized), without defaults.
    public let given: [String: String]
    private let specs: [OptionSpec]

    /// Validates `raw` against `descriptor`'s options.
    public init(_ raw: [String: String], for descriptor: PluginDescriptor) throws(ConfigurationError) {
        var normalized: [String: String] = [:]
        for (name, value) in raw {
            guard let spec = descriptor.options.first(where: { $0.name == name }) else {
                throw .unknownOption(plugin: descriptor.id, option: name, known: descriptor.options.map(\.name))
            }
            guard let value = spec.type.normalize(value) else {
                throw .badOptionValue(plugin: descriptor.id, option: name, value: value, expected: spec.type.expectation)
            }
            if spec.isSecret, value == PluginRegistry.redactedValue {
                // A composition printed by `config` and read back: the secret was never in it.
                let instead = descriptor.options.contains { $0.name == name + "-env" }
                    ? " or name an environment variable holding it with \(name)-env=" : ""
                throw .invalidSetting(name: name, reason: "\(descriptor.id) got '\(value)', the placeholder config prints instead of a secret; give the \(name) itself\(instead)")
            }
            normalized[name] = value
        }
        pluginID = descriptor.id
        given = normalized
        specs = descriptor.options
    }

    /// The text value of `name`, or its default.
    public func string(_ name: String) -> String? {
        given[name] ?? specs.first(where: { $0.name == name })?.defaultValue
    }

    /// The integer value of `name`, or its default.
    public func integer(_ name: String) -> Int? {
        string(name).flatMap { Int($0) }
    }

    /// The boolean value of `name`, or its default (false when neither).
    public func boolean(_ name: String) -> Bool {
        string(name) == "true"
    }

    /// The duration value of `name`, or its default.
    public func duration(_ name: String) -> Duration? {
        string(name).flatMap { Duration(compact: $0) }
    }
}

/// What a plugin gets from the device it is composed into.
public struct PluginEnvironment: Sendable {
    /// The device clock.
    public let clock: any DeviceClock
    /// Randomness: seeded in simulation, the system CSPRNG for real use.
    public let random: RandomSource
    /// The person in front of the device (scripted in simulation).
    public let interaction: any Interaction
    /// The device's store, for plugins that keep records of their own there (the simulated
    /// sensors keep their enrolled templates in it). Nil while the storage plugin itself is
    /// being created, and for plugins made outside a device.
    public let storage: (any StorageBackend)?
    /// Where the plugin logs what it does not throw: a daemon that does not answer, a fallback
    /// taken, an answer it did not expect — at `info` or below (swift-log's advice for
    /// libraries). The registry adds the plugin's id as `touchstone.plugin` metadata; the
    /// application chooses the handler and level (the REPL: standard error, `--log-level`,
    /// default `warning`).
    public var logger: Logger

    /// Creates an environment. `logger` defaults to `Logger.touchstoneSilent`, which
    /// discards everything.
    public init(clock: any DeviceClock, random: RandomSource, interaction: any Interaction,
                storage: (any StorageBackend)? = nil, logger: Logger = .touchstoneSilent) {
        self.clock = clock
        self.random = random
        self.interaction = interaction
        self.storage = storage
        self.logger = logger
    }

    /// This environment with `storage` as the device's store.
    public func with(storage: any StorageBackend) -> PluginEnvironment {
        PluginEnvironment(clock: clock, random: random, interaction: interaction, storage: storage, logger: logger)
    }

    /// This environment as the plugin `id` sees it: its logger carries `touchstone.plugin: id`.
    func forPlugin(_ id: String) -> PluginEnvironment {
        var environment = self
        environment.logger[metadataKey: "touchstone.plugin"] = .string(id)
        return environment
    }
}

/// A Touchstone plugin: a type with a stable id that the registry can create from options.
///
/// Each plugin kind refines this protocol (``BiometricSensor``, ``Policy``, ``StorageBackend``,
/// ``ChangeDetector``, ``PasscodeFactor``, ``CompanionDevice``). A plugin is registered once,
/// at startup, in one explicit list:
///
/// ```swift
/// var registry = PluginRegistry()
/// try registry.register(SimulatedFingerprintSensor.self)
/// try registry.register(MemoryStorage.self)
/// ```
public protocol Plugin: Sendable {
    /// The plugin's id, kind, summary and options.
    static var descriptor: PluginDescriptor { get }

    /// Creates the plugin from validated options.
    init(options: PluginOptions, environment: PluginEnvironment) throws

    /// Creates the plugin as the kind it is. Every kind protocol implements this (a
    /// ``BiometricSensor`` answers `.sensor(...)`), so a plugin does not: only a type that
    /// conforms to two kind protocols has to choose. The registry creates plugins through it
    /// because a dynamic cast to the kind (`plugin as? any BiometricSensor`) looks the
    /// conformance up in every loaded library the first time, ~40 µs each at start-up.
    static func makeInstance(options: PluginOptions, environment: PluginEnvironment) throws -> PluginInstance
}

/// A created plugin, as the kind it is.
public enum PluginInstance: Sendable {
    case sensor(any BiometricSensor)
    case companion(any CompanionDevice)
    case policy(any Policy)
    case storage(any StorageBackend)
    case detector(any ChangeDetector)
    case passcode(any PasscodeFactor)

    /// The plugin, whatever its kind.
    public var plugin: any Plugin {
        switch self {
        case let .sensor(plugin): plugin
        case let .companion(plugin): plugin
        case let .policy(plugin): plugin
        case let .storage(plugin): plugin
        case let .detector(plugin): plugin
        case let .passcode(plugin): plugin
        }
    }
}

extension Plugin {
    /// For a type that conforms to no kind protocol: the plugin, cast to its descriptor's kind.
    public static func makeInstance(options: PluginOptions, environment: PluginEnvironment) throws -> PluginInstance {
        let plugin = try Self(options: options, environment: environment)
        let instance: PluginInstance? = switch descriptor.kind {
        case .sensor: (plugin as? any BiometricSensor).map { .sensor($0) }
        case .companion: (plugin as? any CompanionDevice).map { .companion($0) }
        case .policy: (plugin as? any Policy).map { .policy($0) }
        case .storage: (plugin as? any StorageBackend).map { .storage($0) }
        case .detector: (plugin as? any ChangeDetector).map { .detector($0) }
        case .passcode: (plugin as? any PasscodeFactor).map { .passcode($0) }
        }
        guard let instance else {
            throw ConfigurationError.wrongKind(id: descriptor.id, expected: descriptor.kind, actual: descriptor.kind)
        }
        return instance
    }
}

extension BiometricSensor {
    /// `.sensor(Self(...))`.
    public static func makeInstance(options: PluginOptions, environment: PluginEnvironment) throws -> PluginInstance {
        .sensor(try Self(options: options, environment: environment))
    }
}

extension CompanionDevice {
    /// `.companion(Self(...))`.
    public static func makeInstance(options: PluginOptions, environment: PluginEnvironment) throws -> PluginInstance {
        .companion(try Self(options: options, environment: environment))
    }
}

extension Policy {
    /// `.policy(Self(...))`.
    public static func makeInstance(options: PluginOptions, environment: PluginEnvironment) throws -> PluginInstance {
        .policy(try Self(options: options, environment: environment))
    }
}

extension StorageBackend {
    /// `.storage(Self(...))`.
    public static func makeInstance(options: PluginOptions, environment: PluginEnvironment) throws -> PluginInstance {
        .storage(try Self(options: options, environment: environment))
    }
}

extension ChangeDetector {
    /// `.detector(Self(...))`.
    public static func makeInstance(options: PluginOptions, environment: PluginEnvironment) throws -> PluginInstance {
        .detector(try Self(options: options, environment: environment))
    }
}

extension PasscodeFactor {
    /// `.passcode(Self(...))`.
    public static func makeInstance(options: PluginOptions, environment: PluginEnvironment) throws -> PluginInstance {
        .passcode(try Self(options: options, environment: environment))
    }
}
