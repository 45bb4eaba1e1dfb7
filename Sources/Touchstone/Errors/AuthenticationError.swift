/// Why an evaluation (or a can-evaluate query) did not succeed: the LAError vocabulary of
/// Apple's LocalAuthentication, with the same raw codes (REFERENCE §3).
///
/// ```swift
/// do {
///     try await context.evaluate(.biometrics, reason: "Unlock your notes")
/// } catch let error as AuthenticationError where error.code == .biometryLockout {
///     // run the passcode unlock flow
/// }
/// ```
public struct AuthenticationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The LAError code, with Apple's raw values.
    public enum Code: Int, Sendable, CaseIterable, Codable {
        /// Touch ID: 3 failed matches in one evaluation (never produced by Face ID); also every
        /// evaluation on a disabled device (our rule).
        case authenticationFailed = -1
        /// The user pressed Cancel.
        case userCancel = -2
        /// The user pressed the fallback button under a biometrics-only policy.
        case userFallback = -3
        /// The system interrupted the evaluation (another one started, the app moved away).
        case systemCancel = -4
        /// No device passcode is set; biometric policies need one too.
        case passcodeNotSet = -5
        /// No hardware, hardware disconnected, or the app is not permitted to use it.
        case biometryNotAvailable = -6
        /// Hardware present, no identity enrolled.
        case biometryNotEnrolled = -7
        /// Too many consecutive failed matches; the device passcode is needed.
        case biometryLockout = -8
        /// The app invalidated the context during the evaluation.
        case appCancel = -9
        /// The context was invalidated before this call.
        case invalidContext = -10
        /// No companion device paired or reachable.
        case companionNotAvailable = -11
        /// A removable biometric sensor is not paired.
        case biometryNotPaired = -12
        /// A removable biometric sensor is disconnected.
        case biometryDisconnected = -13
        /// Invalid dimensions (macOS only; never produced on Linux).
        case invalidDimensions = -14
        /// Interaction is not allowed (`interactionNotAllowed`) or the app is not in the foreground.
        case notInteractive = -1004

        /// Apple's case name, e.g. `biometryLockout`.
        public var name: String {
            switch self {
            case .authenticationFailed: "authenticationFailed"
            case .userCancel: "userCancel"
            case .userFallback: "userFallback"
            case .systemCancel: "systemCancel"
            case .passcodeNotSet: "passcodeNotSet"
            case .biometryNotAvailable: "biometryNotAvailable"
            case .biometryNotEnrolled: "biometryNotEnrolled"
            case .biometryLockout: "biometryLockout"
            case .appCancel: "appCancel"
            case .invalidContext: "invalidContext"
            case .companionNotAvailable: "companionNotAvailable"
            case .biometryNotPaired: "biometryNotPaired"
            case .biometryDisconnected: "biometryDisconnected"
            case .invalidDimensions: "invalidDimensions"
            case .notInteractive: "notInteractive"
            }
        }

        /// Looks a code up by Apple's case name (including the deprecated `touchID*` aliases)
        /// or by its raw value written as text (`"-8"`).
        public init?(name: String) {
            if let raw = Int(name), let code = Code(rawValue: raw) {
                self = code
                return
            }
            let aliases: [String: Code] = [
                "touchIDNotAvailable": .biometryNotAvailable,
                "touchIDNotEnrolled": .biometryNotEnrolled,
                "touchIDLockout": .biometryLockout,
            ]
            if let code = aliases[name] ?? Code.allCases.first(where: { $0.name.lowercased() == name.lowercased() }) {
                self = code
            } else {
                return nil
            }
        }

        /// How apps act on this code (seed 004).
        public var category: Category {
            switch self {
            case .userCancel, .systemCancel, .appCancel: .cancel
            case .passcodeNotSet, .biometryNotAvailable, .biometryNotEnrolled,
                 .biometryNotPaired, .biometryDisconnected, .companionNotAvailable: .permission
            case .biometryLockout: .lockout
            case .authenticationFailed: .failure
            case .userFallback: .fallback
            case .invalidContext, .invalidDimensions, .notInteractive: .programming
            }
        }

        /// The default human explanation of the code.
        var defaultMessage: String {
            switch self {
            case .authenticationFailed: "The user failed to provide valid credentials."
            case .userCancel: "The user pressed Cancel."
            case .userFallback: "The user chose the fallback button."
            case .systemCancel: "The system cancelled the evaluation."
            case .passcodeNotSet: "No device passcode is set."
            case .biometryNotAvailable: "Biometry is not available on this device."
            case .biometryNotEnrolled: "No biometric identity is enrolled."
            case .biometryLockout: "Biometry is locked out after too many failed attempts."
            case .appCancel: "The app invalidated the context during the evaluation."
            case .invalidContext: "The context was invalidated."
            case .companionNotAvailable: "No companion device is paired or reachable."
            case .biometryNotPaired: "The removable biometric sensor is not paired."
            case .biometryDisconnected: "The removable biometric sensor is disconnected."
            case .invalidDimensions: "Invalid dimensions."
            case .notInteractive: "The evaluation needs the user, but interaction is not allowed."
            }
        }
    }

    /// How an app is expected to react to an error (seed 004's categories).
    public enum Category: String, Sendable {
        /// userCancel, systemCancel, appCancel: do nothing.
        case cancel
        /// passcodeNotSet, biometryNotAvailable, biometryNotEnrolled: send the user to settings.
        case permission
        /// biometryLockout: run the unlock flow (device-owner policy, so the passcode clears it).
        case lockout
        /// authenticationFailed: the app shows its own message.
        case failure
        /// userFallback: the app's own fallback, e.g. its password screen.
        case fallback
        /// invalidContext, notInteractive: a bug or state in the calling code.
        case programming
    }

    /// The error domain Apple uses for these codes.
    public static let domain = "com.apple.LocalAuthentication"

    /// The code.
    public var code: Code
    /// What happened, for people.
    public var message: String
    /// What to do next, when there is something useful to say.
    public var recovery: String?

    /// Creates an error with `code`; the message defaults to the code's standard explanation.
    public init(_ code: Code, message: String? = nil, recovery: String? = nil) {
        self.code = code
        self.message = message ?? code.defaultMessage
        self.recovery = recovery
    }

    /// `biometryLockout (-8): Biometry is locked out ...`.
    public var description: String {
        var text = "\(code.name) (\(code.rawValue)): \(message)"
        if let recovery { text += " \(recovery)" }
        return text
    }
}
