import Foundation
import Logging
import Touchstone

/// The device passcode is the user's login password, checked through PAM (issue 11).
///
/// The passcode is kept by the system, not by Touchstone: it is set when the user exists;
/// `passcode set` / `passcode clear` are refused with an error saying it is the login password.
/// A wrong password (`PAM_AUTH_ERR`) counts on the REFERENCE §6 ladder, which stays in force on
/// top of whatever PAM does. The entry never reaches a trace, a log or the store; the working
/// copy handed to PAM is wiped after use.
///
/// Options: `service` (default `touchstone`: `/etc/pam.d/touchstone`, see
/// `Examples/LinuxLogin/pam.d/touchstone`), `user` (default: the user running Touchstone),
/// `confdir` (a private PAM service directory, for tests).
public struct LinuxPAMPasscode: PasscodeFactor {
    /// The plugin's id `linux.pam` and options.
    public static let descriptor = PluginDescriptor(
        id: "linux.pam", kind: .passcode,
        summary: "the user's login password, checked through PAM",
        options: [
            OptionSpec("service", .string, default: "touchstone", "the PAM service (a file in /etc/pam.d, or in confdir)"),
            OptionSpec("user", .string, default: "", "whose password (default: the user running Touchstone)"),
            OptionSpec("confdir", .string, default: "", "a private PAM service directory instead of /etc/pam.d (tests)"),
        ])

    /// The PAM checker the factor uses.
    public let checker: PAMChecker

    /// Creates the factor from its options.
    public init(options: PluginOptions, environment: PluginEnvironment) throws {
        let user = options.string("user").flatMap { $0.isEmpty ? nil : $0 }
        let confdir = options.string("confdir").flatMap { $0.isEmpty ? nil : $0 }
        checker = PAMChecker(service: options.string("service") ?? "touchstone", user: user, confdir: confdir)
        logger = environment.logger
    }

    /// Says when PAM does not know the user (counted as a wrong passcode, which alone would
    /// look like a mistyped password).
    private let logger: Logger

    /// Kept by the system; set when PAM's user exists (in the password database, or, with a
    /// private `confdir`, whenever the service file is there: test modules keep their own users).
    public var custody: PasscodeCustody {
        let place = "the login password of \(checker.user) (PAM service \(checker.service))"
        let isSet = checker.confdir == nil ? checker.userExists : checker.serviceFile != nil
        return .external(description: place, isSet: isSet)
    }

    /// Never called for an external passcode; refused if it is.
    public func makeVerifier(for passcode: String, random: RandomSource) throws -> Data {
        throw UsageError.passcodeKeptOutside("the login password of \(checker.user) (PAM service \(checker.service))")
    }

    /// Asks PAM. `PAM_AUTH_ERR` and an unknown user are a wrong passcode; an account PAM
    /// refuses after a right password (expired, must change) is a clear error; no service file
    /// is a clear error naming it. The digest is left to the core (a keyed hash).
    public func check(_ entry: String, against verifier: Data?) throws -> PasscodeCheck {
        switch try checker.check(password: entry) {
        case .success:
            return PasscodeCheck(isCorrect: true, digest: nil)
        case .wrongPassword:
            return PasscodeCheck(isCorrect: false, digest: nil)
        case .unknownUser:
            logger.info("PAM does not know the user; the entry counts as a wrong passcode",
                        metadata: ["pam.user": "\(checker.user)", "pam.service": "\(checker.service)"])
            return PasscodeCheck(isCorrect: false, digest: nil)
        case let .accountRefused(code, message):
            throw PAMError.failed(step: "pam_acct_mgmt", code: code, message: message)
        }
    }
}
