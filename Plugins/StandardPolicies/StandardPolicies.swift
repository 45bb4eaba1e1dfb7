import Touchstone

/// LAPolicy.deviceOwnerAuthenticationWithBiometrics (1): biometrics only; the fallback button
/// ends the evaluation with `userFallback`.
public struct BiometricsPolicy: Policy {
    public static let descriptor = PluginDescriptor(
        id: "policy.biometrics", kind: .policy,
        summary: "LAPolicy 1, deviceOwnerAuthenticationWithBiometrics: biometrics only")
    public init(options: PluginOptions, environment: PluginEnvironment) {}
    public let rawValue: Int? = 1
    public let names: [String] = ["biometrics", "deviceOwnerAuthenticationWithBiometrics"]
    public let rule = PolicyRule(steps: [.biometry(passcodeFallback: false, orCompanion: false)], requiresPasscodeSet: true)
}

/// LAPolicy.deviceOwnerAuthentication (2): biometrics first, the device passcode as fallback;
/// the passcode alone when biometry is missing, not enrolled or locked out.
public struct DeviceOwnerPolicy: Policy {
    public static let descriptor = PluginDescriptor(
        id: "policy.owner", kind: .policy,
        summary: "LAPolicy 2, deviceOwnerAuthentication: biometrics, then the device passcode")
    public init(options: PluginOptions, environment: PluginEnvironment) {}
    public let rawValue: Int? = 2
    public let names: [String] = ["owner", "deviceOwnerAuthentication", "device-owner"]
    public let rule = PolicyRule(steps: [.biometry(passcodeFallback: true, orCompanion: false)], requiresPasscodeSet: true)
}

/// LAPolicy.deviceOwnerAuthenticationWithCompanion (3): approval on a paired companion.
public struct CompanionPolicy: Policy {
    public static let descriptor = PluginDescriptor(
        id: "policy.companion", kind: .policy,
        summary: "LAPolicy 3, deviceOwnerAuthenticationWithCompanion: a paired watch or Mac")
    public init(options: PluginOptions, environment: PluginEnvironment) {}
    public let rawValue: Int? = 3
    public let names: [String] = ["companion", "deviceOwnerAuthenticationWithCompanion"]
    public let rule = PolicyRule(steps: [.companion], requiresPasscodeSet: false)
}

/// LAPolicy.deviceOwnerAuthenticationWithBiometricsOrCompanion (4): either.
public struct BiometricsOrCompanionPolicy: Policy {
    public static let descriptor = PluginDescriptor(
        id: "policy.biometrics-or-companion", kind: .policy,
        summary: "LAPolicy 4, deviceOwnerAuthenticationWithBiometricsOrCompanion: either")
    public init(options: PluginOptions, environment: PluginEnvironment) {}
    public let rawValue: Int? = 4
    public let names: [String] = ["biometrics-or-companion", "deviceOwnerAuthenticationWithBiometricsOrCompanion"]
    public let rule = PolicyRule(steps: [.biometry(passcodeFallback: false, orCompanion: true)], requiresPasscodeSet: true)
}

/// LAPolicy.deviceOwnerAuthenticationWithWristDetection (5): watch-only, so
/// `biometryNotAvailable` on Linux (our rule).
public struct WristDetectionPolicy: Policy {
    public static let descriptor = PluginDescriptor(
        id: "policy.wrist", kind: .policy,
        summary: "LAPolicy 5, deviceOwnerAuthenticationWithWristDetection: watch-only, biometryNotAvailable on Linux")
    public init(options: PluginOptions, environment: PluginEnvironment) {}
    public let rawValue: Int? = 5
    public let names: [String] = ["wrist", "deviceOwnerAuthenticationWithWristDetection"]
    public let rule = PolicyRule(steps: [.unavailable(.biometryNotAvailable)], requiresPasscodeSet: false)
}

/// A custom composition: a biometric match AND the device passcode, in that order.
public struct BiometricsAndPasscodePolicy: Policy {
    public static let descriptor = PluginDescriptor(
        id: "policy.biometrics-and-passcode", kind: .policy,
        summary: "custom: a biometric match and then the device passcode (two factors)")
    public init(options: PluginOptions, environment: PluginEnvironment) {}
    public let rawValue: Int? = nil
    public let names: [String] = ["biometrics-and-passcode"]
    public let rule = PolicyRule(steps: [.biometry(passcodeFallback: false, orCompanion: false), .passcode], requiresPasscodeSet: true)
}
