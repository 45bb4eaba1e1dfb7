import Foundation

/// Which plugins, with which options, make up an authenticator: what a configuration file
/// holds, what the REPL's `config` prints, and what ``AuthenticatorBuilder`` builds.
///
/// The core names no plugin: ``init(sensor:passcode:storage:detector:clock:)`` takes every
/// slot. `TouchstonePortable` adds `Composition()`, the simulated Touch ID device on a virtual
/// clock, and the reading of configuration files (`Composition.load(from:)`).
///
/// ```json
/// {
///   "app": "com.example.notes",
///   "seed": 7,
///   "clock": "virtual",
///   "sensor": { "id": "sim.faceid" },
///   "passcode": { "id": "passcode.sim", "options": { "rounds": 1000 } },
///   "storage": "storage.memory",
///   "detector": "detector.domain-state"
/// }
/// ```
/// Every key is optional when ``parse(_:path:defaults:)`` is given the defaults (the portable
/// `parse` and `load` give `Composition()`'s); without defaults, `sensor` (or `null`),
/// `passcode`, `storage` and `detector` are required. `null` clears an optional setting
/// (`seed`, `sensor`, `companion`, `policies`, `keychainAccessGroups`, `device`).
public struct Composition: Sendable, Equatable {
    /// Which clock the device runs on.
    public enum ClockKind: String, Sendable, Codable, CaseIterable {
        /// A ``ManualClock`` from the simulation module: time moves only when advanced
        /// (simulation, tests, scripts).
        case virtual
        /// ``WallClock``: real time.
        case wall
    }

    /// The app id (bundle id) the authenticator acts for.
    public var app: String = "com.example.app"
    /// Seed for reproducible randomness; nil uses the system CSPRNG.
    public var seed: UInt64?
    /// The device clock.
    public var clock: ClockKind
    /// The biometric sensor; nil for a device without one.
    public var sensor: PluginSelection?
    /// The companion device; nil for none.
    public var companion: PluginSelection?
    /// The passcode factor.
    public var passcode: PluginSelection
    /// The storage backend.
    public var storage: PluginSelection
    /// The change detector.
    public var detector: PluginSelection
    /// The policies offered; nil offers every registered policy.
    public var policies: [PluginSelection]?
    /// Whether ten wrong passcodes erase the device (REFERENCE §6).
    public var eraseDataAfterTenFailedPasscodes = false
    /// The keychain access groups the app is entitled to (its `keychain-access-groups` and app
    /// groups, which begin with `group.`), besides its application identifier,
    /// `<teamID>.<app id>`, which it always has (as iOS counts the `application-identifier`
    /// entitlement). An item added without a group goes to the first keychain access group
    /// listed, else the application identifier, never an app group (as on iOS). With a list, a `SecItem` call that
    /// names another group fails with `errSecMissingEntitlement` (-34018), as on iOS; nil
    /// (the default) entitles the app to every group (our rule: no entitlements file to read).
    public var keychainAccessGroups: [String]?
    /// The app's team id (ten characters, `A`–`Z` and `0`–`9`): App Attest's App ID and the
    /// app's own keychain access group are `<teamID>.<app>`. Default ``defaultTeamID``.
    public var teamID = Composition.defaultTeamID
    /// `TOUCHSTONE`: the team id of a composition that names none (our choice: any fixed id
    /// serves a simulation).
    public static let defaultTeamID = "TOUCHSTONE"
    /// The App Attest environment the app is signed for (its
    /// `com.apple.developer.devicecheck.appattest-environment` entitlement): it picks the aaguid
    /// of attestations. Default ``AppAttestEnvironment/development``, as a development build has.
    public var appAttestEnvironment = AppAttestEnvironment.development
    /// What a new device starts with (a passcode, enrolled identities); nil for nothing. Applied
    /// only when the store holds no device yet (see ``DeviceSetup``).
    public var device: DeviceSetup?

    /// The App Attest environment of an app (Apple's entitlement values).
    public enum AppAttestEnvironment: String, Sendable, Codable, CaseIterable {
        /// Attestations carry the aaguid `appattestdevelop`.
        case development
        /// Attestations carry the aaguid `appattest` followed by seven zero bytes.
        case production
    }

    /// Whether `text` is a team id: ten characters, each `A`–`Z` or `0`–`9`.
    public static func isTeamID(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// A composition of these plugins, on `clock` (by default the wall clock), for the app
    /// `com.example.app`, with no companion, every registered policy and the system's
    /// randomness.
    public init(sensor: PluginSelection?, passcode: PluginSelection, storage: PluginSelection,
                detector: PluginSelection, clock: ClockKind = .wall) {
        self.sensor = sensor
        self.passcode = passcode
        self.storage = storage
        self.detector = detector
        self.clock = clock
    }

    /// Replaces the plugin in the slot of `kind` (for `policy`, adds or replaces by id).
    public mutating func use(_ kind: PluginKind, _ selection: PluginSelection) {
        switch kind {
        case .sensor: sensor = selection
        case .companion: companion = selection
        case .passcode: passcode = selection
        case .storage: storage = selection
        case .detector: detector = selection
        case .policy:
            var list = policies ?? []
            list.removeAll { $0.id == selection.id }
            list.append(selection)
            policies = list
        }
    }

    /// Parses JSON configuration text; `path` names it in errors. Keys the text leaves out
    /// take their values from `defaults`; with nil, the plugin slots are required.
    public static func parse(_ data: Data, path: String = "<configuration>", defaults: Composition?) throws -> Composition {
        // A key given twice would be taken once, silently (JSONDecoder keeps one of them).
        if let text = String(validating: data, as: UTF8.self), let value = JSONText.parse(text), let key = duplicateKey(in: value) {
            throw ConfigurationError.unreadableConfiguration(path: path, reason: "\(key) is given twice; give each setting once")
        }
        do {
            let decoder = JSONDecoder()
            if let defaults { decoder.userInfo[defaultsKey] = defaults }
            return try decoder.decode(Composition.self, from: data)
        } catch let error as ConfigurationError {
            throw ConfigurationError.unreadableConfiguration(path: path, reason: error.description)
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw ConfigurationError.unreadableConfiguration(path: path, reason: "\(place(context.codingPath)): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw ConfigurationError.unreadableConfiguration(path: path, reason: "not valid JSON (\(context.debugDescription))")
        } catch let DecodingError.typeMismatch(type, context) {
            throw ConfigurationError.unreadableConfiguration(path: path, reason: "\(place(context.codingPath)): expected \(jsonKind(type))")
        } catch let DecodingError.valueNotFound(type, context) {
            throw ConfigurationError.unreadableConfiguration(path: path, reason: "\(place(context.codingPath)): expected \(jsonKind(type)), found null")
        } catch {
            throw ConfigurationError.unreadableConfiguration(path: path, reason: "\(error)")
        }
    }

    /// The first key an object in `value` holds twice, as `'storage.options.path'`, or nil.
    private static func duplicateKey(in value: JSONText.Value, at path: String = "") -> String? {
        switch value {
        case let .object(pairs):
            var seen = Set<String>()
            for (key, member) in pairs {
                let place = path.isEmpty ? key : path + "." + key
                guard seen.insert(key).inserted else { return "'\(place)'" }
                if let duplicate = duplicateKey(in: member, at: place) { return duplicate }
            }
            return nil
        case let .array(elements):
            for (index, element) in elements.enumerated() {
                if let duplicate = duplicateKey(in: element, at: "\(path)[\(index)]") { return duplicate }
            }
            return nil
        default:
            return nil
        }
    }

    /// Where in the file a decoding error is, as JSON names it: `'policies[0].id'`, or the top
    /// level.
    private static func place(_ codingPath: [any CodingKey]) -> String {
        guard !codingPath.isEmpty else { return "the top level" }
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue == "Index \(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return "'\(text)'"
    }

    /// The kind of JSON value a Swift type decodes from, in words.
    private static func jsonKind(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Dictionary") { return "an object ({ ... })" }
        if name.hasPrefix("Array") { return "an array ([ ... ])" }
        switch name {
        case "String": return "a string"
        case "Bool": return "true or false"
        case "Int", "Int64", "Int32", "UInt", "UInt64", "UInt32", "Double", "Float": return "a number"
        default: return "a value of type \(name)"
        }
    }

    /// The `userInfo` key of a decoder's defaults: a ``Composition`` whose values fill the
    /// keys a configuration leaves out (``parse(_:path:defaults:)`` sets it).
    public static let defaultsKey = CodingUserInfoKey(rawValue: "touchstone.composition.defaults")!

    /// The composition as pretty JSON that `Composition.load(from:)` and `--config` accept.
    /// Unset optional settings (no seed, companion, policy list or group list) are left out,
    /// so it reads back the same with `Composition()`'s defaults.
    public func jsonString() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Composition: Codable {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case app, seed, clock, sensor, companion, passcode, storage, detector, policies
        case eraseDataAfterTenFailedPasscodes, keychainAccessGroups, teamID, appAttestEnvironment, device
    }

    /// Any key of a JSON object, for listing the keys a configuration gives.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let raw = try decoder.container(keyedBy: AnyKey.self)
        let known = Set(CodingKeys.allCases.map(\.rawValue))
        if let unknown = raw.allKeys.map(\.stringValue).first(where: { !known.contains($0) }) {
            throw ConfigurationError.invalidSetting(
                name: unknown, reason: "unknown key; known: \(known.sorted().joined(separator: ", "))")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let defaults = decoder.userInfo[Self.defaultsKey] as? Composition {
            self = defaults
        } else {
            // No defaults: every plugin slot is named.
            for key in [CodingKeys.sensor, .passcode, .storage, .detector] where !container.contains(key) {
                throw ConfigurationError.invalidSetting(
                    name: key.rawValue, reason: "missing: without defaults, a composition names its sensor (or null), passcode, storage and detector")
            }
            func required(_ key: CodingKeys) throws -> PluginSelection { try container.decode(PluginSelection.self, forKey: key) }
            self.init(sensor: nil, passcode: try required(.passcode), storage: try required(.storage), detector: try required(.detector))
        }
        app = try container.decodeIfPresent(String.self, forKey: .app) ?? app
        if container.contains(.seed) {
            if try container.decodeNil(forKey: .seed) {
                seed = nil
            } else {
                guard let value = try? container.decode(UInt64.self, forKey: .seed) else {
                    throw ConfigurationError.invalidSetting(name: "seed", reason: "must be a whole number from 0 to \(UInt64.max)")
                }
                seed = value
            }
        }
        if let name = try container.decodeIfPresent(String.self, forKey: .clock) {
            guard let kind = ClockKind(rawValue: name) else {
                throw ConfigurationError.invalidSetting(
                    name: "clock", reason: "'\(name)' is not a clock; known: \(ClockKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            clock = kind
        }
        if container.contains(.sensor) {
            sensor = try container.decodeNil(forKey: .sensor) ? nil : try container.decode(PluginSelection.self, forKey: .sensor)
        }
        if container.contains(.companion) { companion = try container.decodeIfPresent(PluginSelection.self, forKey: .companion) }
        passcode = try container.decodeIfPresent(PluginSelection.self, forKey: .passcode) ?? passcode
        storage = try container.decodeIfPresent(PluginSelection.self, forKey: .storage) ?? storage
        detector = try container.decodeIfPresent(PluginSelection.self, forKey: .detector) ?? detector
        if container.contains(.policies) { policies = try container.decodeIfPresent([PluginSelection].self, forKey: .policies) }
        eraseDataAfterTenFailedPasscodes = try container.decodeIfPresent(Bool.self, forKey: .eraseDataAfterTenFailedPasscodes) ?? eraseDataAfterTenFailedPasscodes
        if container.contains(.keychainAccessGroups), try container.decodeNil(forKey: .keychainAccessGroups) {
            keychainAccessGroups = nil
        } else if let groups = try container.decodeIfPresent([String].self, forKey: .keychainAccessGroups) {
            guard groups.allSatisfy({ UsageError.isPlainWord($0, maxBytes: 255) }) else {
                throw ConfigurationError.invalidSetting(
                    name: "keychainAccessGroups", reason: "each group is 1 to 255 bytes, without whitespace or control characters")
            }
            keychainAccessGroups = groups
        }
        if let team = try container.decodeIfPresent(String.self, forKey: .teamID) {
            guard Self.isTeamID(team) else {
                throw ConfigurationError.invalidSetting(name: "teamID", reason: "'\(team)' is not a team id: ten characters, A-Z and 0-9")
            }
            teamID = team
        }
        if let name = try container.decodeIfPresent(String.self, forKey: .appAttestEnvironment) {
            guard let environment = AppAttestEnvironment(rawValue: name) else {
                throw ConfigurationError.invalidSetting(
                    name: "appAttestEnvironment",
                    reason: "'\(name)' is not an environment; known: \(AppAttestEnvironment.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            appAttestEnvironment = environment
        }
        if container.contains(.device) { device = try container.decodeIfPresent(DeviceSetup.self, forKey: .device) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(app, forKey: .app)
        try container.encodeIfPresent(seed, forKey: .seed)
        try container.encode(clock, forKey: .clock)
        if let sensor { try container.encode(sensor, forKey: .sensor) } else { try container.encodeNil(forKey: .sensor) }
        try container.encodeIfPresent(companion, forKey: .companion)
        try container.encode(passcode, forKey: .passcode)
        try container.encode(storage, forKey: .storage)
        try container.encode(detector, forKey: .detector)
        try container.encodeIfPresent(policies, forKey: .policies)
        if eraseDataAfterTenFailedPasscodes { try container.encode(true, forKey: .eraseDataAfterTenFailedPasscodes) }
        try container.encodeIfPresent(keychainAccessGroups, forKey: .keychainAccessGroups)
        // Written only when not the default, so configurations from before them read the same.
        if teamID != Self.defaultTeamID { try container.encode(teamID, forKey: .teamID) }
        if appAttestEnvironment != .development { try container.encode(appAttestEnvironment, forKey: .appAttestEnvironment) }
        try container.encodeIfPresent(device, forKey: .device)
    }
}
