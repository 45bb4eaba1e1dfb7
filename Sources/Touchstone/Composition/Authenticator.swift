/// A device as one app sees it: the device, the app id, the policies on offer and the change
/// detector. Create contexts from it.
///
/// ```swift
/// let authenticator = try AuthenticatorBuilder(registry: .builtIn).build()
/// try authenticator.device.setPasscode("1234")
/// try authenticator.device.enroll("thumb")
/// let context = authenticator.makeContext()
/// ```
public final class Authenticator: Sendable {
    /// The shared device.
    public let device: Device
    /// The app id.
    public let appID: String
    /// The policies on offer.
    public let policies: [any Policy]
    /// The change detector.
    public let detector: any ChangeDetector
    /// The composition this was built from.
    public let composition: Composition
    /// The registry it was built with.
    public let registry: PluginRegistry

    init(device: Device, appID: String, policies: [any Policy], detector: any ChangeDetector,
         composition: Composition, registry: PluginRegistry) {
        self.device = device
        self.appID = appID
        self.policies = policies
        self.detector = detector
        self.composition = composition
        self.registry = registry
    }

    /// The same device as another app sees it (its own domain state and baselines).
    public func forApp(_ appID: String) -> Authenticator {
        var composition = composition
        composition.app = appID
        return Authenticator(device: device, appID: appID, policies: policies, detector: detector,
                             composition: composition, registry: registry)
    }

    /// A new context.
    public func makeContext() -> AuthenticationContext {
        AuthenticationContext(authenticator: self)
    }

    /// The policy answering to `name`: a short name (`biometrics`, `owner`), Apple's full
    /// name (`deviceOwnerAuthenticationWithBiometrics`), the plugin id or the raw value (`1`).
    public func policy(named name: String) throws -> any Policy {
        let lowered = name.lowercased()
        if let raw = Int(name), let policy = policies.first(where: { $0.rawValue == raw }) {
            return policy
        }
        if let policy = policies.first(where: { type(of: $0).descriptor.id == name || $0.names.contains { $0.lowercased() == lowered } }) {
            return policy
        }
        throw ConfigurationError.unknownPolicy(name: name, known: policies.map { policy in
            policy.rawValue.map { "\(policy.name) (\($0))" } ?? policy.name
        })
    }

    /// The policy `name` (``PolicyName/biometrics``, ``PolicyName/deviceOwner``, ...).
    public func policy(_ name: PolicyName) throws -> any Policy {
        try policy(named: name.rawValue)
    }

    /// The policy with LAPolicy raw value `rawValue`.
    public func policy(rawValue: Int) throws -> any Policy {
        try policy(named: String(rawValue))
    }

    // MARK: Change detection, through the configured detector

    /// Saves the current state as the baseline of `account`.
    public func saveBaseline(account: String = "default") throws {
        try detector.saveBaseline(account: account, in: self)
    }

    /// Removes the baseline of `account`.
    public func clearBaseline(account: String = "default") throws {
        try detector.clearBaseline(account: account, in: self)
    }

    /// Whether the enrolled set changed since `account`'s baseline.
    public func checkForChange(account: String = "default") throws -> ChangeVerdict {
        try detector.check(account: account, in: self)
    }
}
