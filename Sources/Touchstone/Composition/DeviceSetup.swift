/// What a new device starts with — a passcode and enrolled identities — as a test phone is set
/// up before the app's first run: a composition's `"device"` key.
///
/// ```json
/// { "device": { "passcode": "1234", "enrolled": ["thumb"] } }
/// ```
///
/// It is applied once, when the authenticator's store holds no device yet (an in-memory store
/// always, so every process of a test run starts the same; a file store on its first open).
/// A store that holds a device keeps the state it has: a passcode the app removed stays
/// removed. The passcode is written with the new device, in one transaction; the identities
/// are then enrolled through the sensor, as the REPL's `enroll` does. Everything is checked
/// before the store is touched: a setting that cannot be applied (a passcode a PAM device does
/// not keep, a sensor that cannot enroll, a name the sensor would refuse) fails the build with
/// the setting's name and writes nothing.
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

    /// Throws ``ConfigurationError/invalidSetting(name:reason:)`` naming `device.passcode` or
    /// `device.enrolled` when this setup cannot be applied to a device with `sensor` and
    /// `passcodeFactor`, before any store is opened.
    func check(sensor: (any BiometricSensor)?, passcodeFactor: any PasscodeFactor) throws {
        if let passcode {
            do {
                try Device.checkPasscodeText(passcode, factor: passcodeFactor)
            } catch let error as UsageError {
                throw ConfigurationError.invalidSetting(name: "device.passcode", reason: error.description)
            }
        }
        guard !enrolled.isEmpty else { return }
        func invalid(_ reason: String) -> ConfigurationError { .invalidSetting(name: "device.enrolled", reason: reason) }
        guard let sensor else { throw invalid("this device has no biometric sensor to enroll on") }
        guard sensor is any EnrollingSensor else { throw invalid(UsageError.enrollmentNotSupported(sensor: type(of: sensor).descriptor.id).description) }
        guard enrolled.count <= Device.maximumIdentities else { throw invalid(UsageError.tooManyIdentities(limit: Device.maximumIdentities).description) }
        for (index, name) in enrolled.enumerated() {
            guard Device.isIdentityName(name) else { throw invalid(UsageError.invalidIdentityName(name).description) }
            guard !enrolled[..<index].contains(name) else { throw invalid("'\(name)' is listed twice") }
        }
    }

    /// Enrolls ``enrolled`` on `device`, a device this build just created.
    func enroll(on device: Device) throws {
        for name in enrolled { try device.enroll(name) }
    }
}
