import Foundation

/// The result of checking one passcode entry.
public struct PasscodeCheck: Sendable, Equatable {
    /// Whether the entry is the device passcode.
    public var isCorrect: Bool
    /// A salted digest of the entry, used only to recognise the same wrong passcode typed twice
    /// in a row (which does not count again). Never the passcode itself.
    public var digest: Data

    /// Creates a check result.
    public init(isCorrect: Bool, digest: Data) {
        self.isCorrect = isCorrect
        self.digest = digest
    }
}

/// The device passcode factor plugin: turns a passcode into a stored verifier and checks
/// entries against it.
///
/// The escalation rules (delays, disabling) belong to the core (``PasscodeLadder``); a factor
/// only answers "is this the passcode". The simulated factor stores a salted slow hash; a real
/// one may ask the operating system.
public protocol PasscodeFactor: Plugin {
    /// Makes the verifier to store for `passcode` (a salted slow hash; never the passcode).
    func makeVerifier(for passcode: String, random: RandomSource) throws -> Data

    /// Checks `entry` against `verifier`.
    func check(_ entry: String, against verifier: Data) throws -> PasscodeCheck
}

/// The escalating delays after wrong device passcodes (REFERENCE §6).
///
/// | failed attempts | delay before the next attempt |
/// |---|---|
/// | 1–4 | none |
/// | 5 | 1 minute |
/// | 6 | 5 minutes |
/// | 7, 8 | 15 minutes |
/// | 9 | 1 hour |
/// | 10 | the device is disabled |
public enum PasscodeLadder {
    /// Failed attempts after which the device is disabled.
    public static let disableAfterFailures = 10

    /// The delay imposed after the `failures`-th consecutive wrong passcode, or nil when that
    /// many failures disable the device.
    public static func delay(afterFailures failures: Int) -> Duration? {
        switch failures {
        case ..<5: .zero
        case 5: .seconds(60)
        case 6: .seconds(5 * 60)
        case 7, 8: .seconds(15 * 60)
        case 9: .seconds(60 * 60)
        default: nil
        }
    }
}
