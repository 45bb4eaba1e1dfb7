import Foundation

/// What a new device starts with — a passcode and enrolled identities — as a test phone is set
/// up before the app's first run: a composition's `"device"` key.
///
/// ```json
/// { "device": { "passcode": "1234", "enrolled": ["thumb"] } }
/// ```
///
/// It is applied when the authenticator's store holds no device yet: a new in-memory store
/// (every process of a test run starts the same), a file store on its first open. A device
/// that exists keeps the state it has — a passcode the app removed stays removed — and a
/// composition changed later (the REPL's `use`) does not apply it again.
///
/// It is checked in the transaction that creates the device, before anything is written: a
/// setting that cannot be applied (an empty passcode, one the passcode plugin refuses or does
/// not keep, as PAM's; a name no sensor accepts; a sensor that cannot enroll or keeps its
/// enrollments outside the device's store, as a real reader does) fails the build with the
/// setting's name and leaves the store without a device. The passcode is written with the new
/// device; the identities are enrolled right after, through the sensor, as the REPL's `enroll`
/// does, so another process that opens the store in between sees the device without them.
public struct DeviceSetup: Sendable, Equatable, Codable {
    /// The passcode a new device has; nil for none.
    public var passcode: String?
    /// The identities a new device has enrolled, in order.
    public var enrolled: [String]

    /// A setup with `passcode` and `enrolled`.
    public init(passcode: String? = nil, enrolled: [String] = []) {
        self.passcode = passcode
        self.enrolled = enrolled
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case passcode, enrolled
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let unknown = try decoder.container(keyedBy: Composition.AnyKey.self).allKeys.map(\.stringValue)
            .filter { CodingKeys(rawValue: $0) == nil }
        if let key = unknown.first {
            throw ConfigurationError.invalidSetting(
                name: "device.\(key)", reason: "unknown key; known: \(CodingKeys.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        passcode = try container.decodeIfPresent(String.self, forKey: .passcode)
        enrolled = try container.decodeIfPresent([String].self, forKey: .enrolled) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(passcode, forKey: .passcode)
        if !enrolled.isEmpty { try container.encode(enrolled, forKey: .enrolled) }
    }

    /// The passcode verifier a new device starts with (nil without a passcode), after checking
    /// that this setup can be applied to a device with `sensor` and `passcodeFactor` whose
    /// sensor keeps its enrollments in the device's store when `sensorFollowsStorage`. Throws
    /// ``ConfigurationError/invalidSetting(name:reason:)`` naming `device.passcode` or
    /// `device.enrolled`.
    func checkedPasscodeVerifier(sensor: (any BiometricSensor)?, sensorFollowsStorage: Bool,
                                 passcodeFactor: any PasscodeFactor, random: RandomSource) throws -> Data? {
        func invalid(_ setting: String, _ reason: String) -> ConfigurationError { .invalidSetting(name: "device.\(setting)", reason: reason) }
        if !enrolled.isEmpty {
            guard let sensor else { throw invalid("enrolled", "this device has no biometric sensor to enroll on") }
            guard sensor is any EnrollingSensor else {
                throw invalid("enrolled", UsageError.enrollmentNotSupported(sensor: type(of: sensor).descriptor.id).description)
            }
            guard sensorFollowsStorage else {
                throw invalid("enrolled", "\(type(of: sensor).descriptor.id) keeps its enrollments outside the device's store: enroll on the reader itself")
            }
            guard enrolled.count <= Device.maximumIdentities else {
                throw invalid("enrolled", UsageError.tooManyIdentities(limit: Device.maximumIdentities).description)
            }
            for (index, name) in enrolled.enumerated() {
                guard Device.isIdentityName(name) else { throw invalid("enrolled", UsageError.invalidIdentityName(name).description) }
                guard !enrolled[..<index].contains(name) else { throw invalid("enrolled", "'\(name)' is listed twice") }
            }
        }
        guard let passcode else { return nil }
        // A redacted configuration (the REPL's `config`) fed back is no passcode of the user's.
        guard passcode != PluginRegistry.redactedValue else {
            throw invalid("passcode", "\(PluginRegistry.redactedValue) is the placeholder `config` prints: write the passcode itself")
        }
        do {
            try Device.checkPasscodeText(passcode, factor: passcodeFactor)
            return try passcodeFactor.makeVerifier(for: passcode, random: random)
        } catch let error as UsageError {
            throw invalid("passcode", error.description)
        }
    }

    /// Enrolls ``enrolled`` on `device`, a device this build just created.
    func enroll(on device: Device) throws {
        for name in enrolled { try device.enroll(name) }
    }
}
