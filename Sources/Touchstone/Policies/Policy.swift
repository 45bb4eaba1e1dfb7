/// One factor step of a policy: what the user must get through, in order.
public enum FactorStep: Sendable, Equatable {
    /// A biometric match.
    /// - `passcodeFallback`: when biometry is unusable (missing, not enrolled, locked out),
    ///   when the attempt limit is reached, or when the fallback button is pressed, the device
    ///   passcode is asked for instead (LAPolicy.deviceOwnerAuthentication). Without it those
    ///   situations end the evaluation with their error (deviceOwnerAuthenticationWithBiometrics).
    /// - `orCompanion`: approval on a paired companion also satisfies the step.
    case biometry(passcodeFallback: Bool, orCompanion: Bool)
    /// The device passcode.
    case passcode
    /// Approval on a paired companion device.
    case companion
    /// The step can never be satisfied on this platform: fail with this code.
    case unavailable(AuthenticationError.Code)
}

/// The rules of one policy: which factors, in what order. The engine owns the counting,
/// lockout and delay rules; a policy only says what it asks for.
public struct PolicyRule: Sendable, Equatable {
    /// Steps run in order; every one must succeed.
    public var steps: [FactorStep]
    /// Whether a device passcode must be set for the policy to be usable (`passcodeNotSet`).
    public var requiresPasscodeSet: Bool

    /// Creates a rule.
    public init(steps: [FactorStep], requiresPasscodeSet: Bool) {
        self.steps = steps
        self.requiresPasscodeSet = requiresPasscodeSet
    }

    /// A "biometric policy": its biometry step cannot fall back to the passcode (LAPolicy 1,
    /// 4 and custom biometric compositions). Device-owner (2) is not one. Only these capture
    /// `evaluatedPolicyDomainState` in can-evaluate.
    var isBiometric: Bool {
        steps.contains { if case .biometry(passcodeFallback: false, _) = $0 { true } else { false } }
    }
}

/// A policy plugin: the rules of one LAPolicy (or a custom composition).
///
/// Built-ins (in `StandardPolicies`): `biometrics` (LAPolicy 1), `owner` (2), `companion` (3),
/// `biometrics-or-companion` (4), `wrist` (5) and the custom `biometrics-and-passcode`.
public protocol Policy: Plugin {
    /// The LAPolicy raw value, for standard policies.
    var rawValue: Int? { get }
    /// Names this policy answers to (short name, Apple's full name, aliases).
    var names: [String] { get }
    /// What it asks for.
    var rule: PolicyRule { get }
}

extension Policy {
    /// The short name (the first of ``names``).
    public var name: String { names.first ?? Self.descriptor.id }
}

/// The name of a policy, typed: what ``Authenticator/policy(_:)`` and
/// ``AuthenticationContext/evaluate(_:reason:)-(PolicyName,_)`` take. The standard policies have constants; a
/// policy plugin of your own is named by a string literal (`"acme.two-readers"`). Text from a
/// file or the REPL goes through ``Authenticator/policy(named:)``, which also accepts Apple's
/// full names and raw values.
public struct PolicyName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name as a policy answers to it.
    public let rawValue: String

    /// A policy name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A policy name from a literal.
    public init(stringLiteral value: String) { rawValue = value }

    public var description: String { rawValue }

    /// LAPolicy 1: biometry (no passcode fallback).
    public static let biometrics: PolicyName = "biometrics"
    /// LAPolicy 2: biometry, then the device passcode.
    public static let deviceOwner: PolicyName = "owner"
    /// LAPolicy 3: a paired companion (watch or Mac).
    public static let companion: PolicyName = "companion"
    /// LAPolicy 4: biometry or a companion.
    public static let biometricsOrCompanion: PolicyName = "biometrics-or-companion"
    /// LAPolicy 5: watch wrist detection (not available on Linux).
    public static let wristDetection: PolicyName = "wrist"
    /// Touchstone's two-factor composition: biometry and then the passcode.
    public static let biometricsAndPasscode: PolicyName = "biometrics-and-passcode"
}

