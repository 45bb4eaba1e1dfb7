import Touchstone
import TouchstoneSimulation

/// A problem with what was typed: an unknown command, a missing or malformed argument, a
/// failed `expect`. Every case says what would have been accepted.
public enum CommandError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No command by this name; `suggestion` is the nearest known one.
    case unknownCommand(String, suggestion: String?)
    /// The command's arguments do not fit its usage line.
    case usage(command: String, problem: String, usage: String)
    /// The line cannot be split into words (an unterminated quote).
    case syntax(String)
    /// An `expect` did not hold.
    case expectationFailed(expectation: String, actual: String)
    /// The command needs something that is not there (no evaluation yet, no sensor...).
    case unavailable(String)

    /// The error's name, as printed in `--json` output.
    public var name: String {
        switch self {
        case .unknownCommand: "unknownCommand"
        case .usage: "usage"
        case .syntax: "syntax"
        case .expectationFailed: "expectationFailed"
        case .unavailable: "unavailable"
        }
    }

    /// A stable number for `--json` output.
    public var code: Int {
        switch self {
        case .unknownCommand: 1
        case .usage: 2
        case .syntax: 3
        case .expectationFailed: 4
        case .unavailable: 5
        }
    }

    public var description: String {
        switch self {
        case let .unknownCommand(name, suggestion):
            return "unknown command '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "") + " (type help for the list)"
        case let .usage(command, problem, usage):
            return "\(command): \(problem); usage: \(usage) (see help \(command))"
        case let .syntax(problem):
            return "cannot read the line: \(problem)"
        case let .expectationFailed(expectation, actual):
            return "expected \(expectation), but \(actual)"
        case let .unavailable(what):
            return what
        }
    }
}

/// Any error a command can end with, reduced to what the REPL prints: a domain, a numeric
/// code, a case name and a message (LAError cases as `biometryLockout (-8)`).
public struct ErrorReport: Sendable, Equatable {
    /// `com.apple.LocalAuthentication` for LAErrors, `touchstone.<kind>` otherwise.
    public var domain: String
    /// The raw code (LAError raw values for LAErrors).
    public var code: Int
    /// The case name, e.g. `biometryLockout`.
    public var name: String
    /// What happened and, where it helps, what to do next.
    public var message: String
    /// Whether the device's store is damaged (a corrupt record or store, also as a keychain
    /// item that cannot be decoded): a script stops there (see `REPLHost`).
    public var isStoreDamage = false
    /// What the command still reports about its failure (see ``FailureWithResult``), or nil.
    public var result: JSONValue?
    /// The LAError behind a keychain or key error that a prompt caused (a cancelled prompt's
    /// userCancel under errSecUserCanceled), or nil.
    public var authenticationCode: AuthenticationError.Code?

    /// Creates a report from its parts.
    public init(domain: String, code: Int, name: String, message: String) {
        self.domain = domain
        self.code = code
        self.name = name
        self.message = message
    }

    /// Classifies `error`.
    public init(_ error: any Error) {
        if let failure = error as? FailureWithResult {
            self.init(failure.base)
            result = .object(failure.result)
            return
        }
        self = Self.classify(error)
        isStoreDamage = Self.isStoreDamage(error)
    }

    private static func isStoreDamage(_ error: any Error) -> Bool {
        switch error {
        case let error as AnnotatedError: isStoreDamage(error.base)
        case let error as StorageError: error.isDamage
        case let error as KeychainError: error.kind == .corrupt
        default: false
        }
    }

    private static func classify(_ error: any Error) -> ErrorReport {
        switch error {
        case let error as AnnotatedError:
            var report = classify(error.base)
            report.message += " " + error.note
            return report
        case let error as AuthenticationError:
            let next = error.recovery ?? nextStep(for: error.code)
            return ErrorReport(domain: AuthenticationError.domain, code: error.code.rawValue, name: error.code.name,
                               message: next.map { "\(error.message) \($0)" } ?? error.message)
        case let error as any ReportableError:
            return error.errorReport
        case let error as CommandError:
            return ErrorReport(domain: "touchstone.repl", code: error.code, name: error.name, message: error.description)
        case let error as UsageError:
            let (code, name) = classify(error)
            return ErrorReport(domain: "touchstone.usage", code: code, name: name, message: error.description)
        case let error as ConfigurationError:
            let (code, name) = classify(error)
            return ErrorReport(domain: "touchstone.configuration", code: code, name: name, message: error.description)
        case let error as SimulationError:
            let (code, name) = switch error {
            case .noScriptedOutcome: (1, "noScriptedOutcome")
            case .unexpectedOutcome: (2, "unexpectedOutcome")
            }
            return ErrorReport(domain: "touchstone.simulation", code: code, name: name, message: error.description)
        case let error as KeychainError:
            var report = ErrorReport(domain: osStatusDomain, code: Int(error.osStatus), name: error.status.name,
                                     message: "[\(error.kind.rawValue)] \(error.message)"
                                         + (error.authenticationCode.map { " (LAError \($0.name) \($0.rawValue))" } ?? ""))
            report.authenticationCode = error.authenticationCode
            return report
        case let error as StorageError:
            let (code, name) = switch error {
            case .corruptRecord: (1, "corruptRecord")
            case .corruptStore: (2, "corruptStore")
            case .ioFailure: (3, "ioFailure")
            }
            return ErrorReport(domain: "touchstone.storage", code: code, name: name, message: error.description)
        default:
            return ErrorReport(domain: "touchstone.other", code: 0, name: String(describing: type(of: error)),
                               message: String(describing: error))
        }
    }

    /// `biometryLockout (-8): message` for LAErrors and `errSecItemNotFound (-25300): message` for
    /// keychain statuses (the codes Apple code sees); `name: message` otherwise. A message may
    /// echo what was typed or read from a file: its control characters (other than new lines
    /// and tabs) are written as `\u{…}`, so they never reach the terminal.
    public var text: String {
        let message = UsageError.escapingUnprintable(message, keeping: ["\n", "\t"])
        return [AuthenticationError.domain, Self.osStatusDomain, "com.apple.devicecheck.error"].contains(domain)
            ? "\(name) (\(code)): \(message)" : "\(name): \(message)"
    }

    /// The domain of keychain (OSStatus) errors.
    static let osStatusDomain = "NSOSStatusErrorDomain"

    /// The `error` object of `--json` output.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("domain", .string(domain)), ("code", .int(code)), ("name", .string(name)),
                                              ("message", .string(message))]
        if let authenticationCode {
            members.append(("laError", .object([("code", .int(authenticationCode.rawValue)), ("name", .string(authenticationCode.name))])))
        }
        return .object(members)
    }

    /// Whether `expected` (a case name, an alias such as `touchIDLockout`, or a raw code such as
    /// `-8`) names this error.
    public func matches(_ expected: String) -> Bool {
        if expected == String(code) || expected.lowercased() == name.lowercased() { return true }
        // Keychain errors also answer to the kind printed in brackets (`itemNotFound`, `invalidated`).
        if domain == Self.osStatusDomain, message.lowercased().hasPrefix("[\(expected.lowercased())]") { return true }
        if domain == AuthenticationError.domain, let code = AuthenticationError.Code(name: expected) {
            return code.rawValue == self.code
        }
        // A keychain or key error a prompt caused also answers to the LAError behind it, which
        // is what an app sees from SecKeyCreateSignature (REFERENCE §10): userCancel, -2.
        if let authenticationCode {
            if expected == String(authenticationCode.rawValue) { return true }
            if let code = AuthenticationError.Code(name: expected) { return code == authenticationCode }
        }
        return false
    }

    /// What to do next in the REPL, for codes whose error carries no recovery text.
    static func nextStep(for code: AuthenticationError.Code) -> String? {
        switch code {
        case .biometryLockout: "Unlock with the passcode: evaluate owner \"...\" passcode:<code>, or passcode enter <code>."
        case .passcodeNotSet: "Set one: passcode set <code>."
        case .biometryNotEnrolled: "Enroll one: enroll <name>."
        case .biometryNotAvailable: "Check the hardware: sensor present."
        case .invalidContext: "Make a new context: context new."
        case .notInteractive: "Allow interaction: context set interaction allowed."
        case .companionNotAvailable: "A paired, reachable companion is needed: use companion sim.companion paired=true reachable=true."
        default: nil
        }
    }

    private static func classify(_ error: UsageError) -> (Int, String) {
        switch error {
        case .emptyLocalizedReason: (1, "emptyLocalizedReason")
        case .invalidIdentityName: (2, "invalidIdentityName")
        case .notEnrolled: (3, "notEnrolled")
        case .alreadyEnrolled: (4, "alreadyEnrolled")
        case .invalidPasscode: (5, "invalidPasscode")
        case .notSimulated: (6, "notSimulated")
        case .tooManyIdentities: (7, "tooManyIdentities")
        case .passcodeRequiredToUnlock: (8, "passcodeRequiredToUnlock")
        case .enrollmentNotSupported: (9, "enrollmentNotSupported")
        case .passcodeKeptOutside: (10, "passcodeKeptOutside")
        case .clockLimit: (11, "clockLimit")
        }
    }

    private static func classify(_ error: ConfigurationError) -> (Int, String) {
        switch error {
        case .unknownPlugin: (1, "unknownPlugin")
        case .wrongKind: (2, "wrongKind")
        case .unknownOption: (3, "unknownOption")
        case .badOptionValue: (4, "badOptionValue")
        case .duplicatePlugin: (5, "duplicatePlugin")
        case .unreadableConfiguration: (6, "unreadableConfiguration")
        case .unknownPolicy: (7, "unknownPolicy")
        case .invalidSetting: (8, "invalidSetting")
        }
    }
}

/// A failure that still has a result to report (`passcode enter` with a wrong passcode: which
/// answer it got and the passcode status), shown beside the error in `--json`.
public struct FailureWithResult: Error, Sendable {
    /// The error itself.
    public var base: any Error
    /// The `result` object of the JSON form.
    public var result: [(String, JSONValue)]

    /// Wraps `base` with `result`.
    public init(_ base: any Error, result: [(String, JSONValue)]) {
        self.base = base
        self.result = result
    }
}

/// An error with a note the REPL adds (the biometry type after `can`, unused outcomes after
/// `evaluate`); reported as the underlying error with the note appended to its message.
public struct AnnotatedError: Error, Sendable {
    /// The error itself.
    public var base: any Error
    /// What to add.
    public var note: String

    /// Wraps `base` with `note`.
    public init(_ base: any Error, note: String) {
        self.base = base
        self.note = note
    }
}

/// An error of a command registered above this layer (the REPL's `login` commands) that
/// reports itself: its domain, code, name and message, as every command error shows them.
public protocol ReportableError: Error {
    /// How the REPL shows this error (text and `--json`).
    var errorReport: ErrorReport { get }
}
