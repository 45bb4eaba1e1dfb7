import Foundation

/// The result of checking one passcode entry.
public struct PasscodeCheck: Sendable, Equatable {
    /// Whether the entry is the device passcode.
    public var isCorrect: Bool
    /// A salted digest of the entry, used only to recognise the same wrong passcode typed twice
    /// in a row (which does not count again). Never the passcode itself. Nil lets the core
    /// key one itself (HMAC-SHA256 under the device secret).
    public var digest: Data?

    /// Creates a check result.
    public init(isCorrect: Bool, digest: Data?) {
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
    /// Who keeps the passcode: Touchstone (a verifier in the device's store) or the system.
    var custody: PasscodeCustody { get }

    /// Makes the verifier to store for `passcode` (a salted slow hash; never the passcode).
    /// Called only when ``custody`` is ``PasscodeCustody/device``.
    func makeVerifier(for passcode: String, random: RandomSource) throws -> Data

    /// Checks `entry`: against the stored `verifier` (``PasscodeCustody/device``; never nil
    /// then), or with the system that keeps the passcode (`verifier` is nil).
    ///
    /// Called synchronously, on the executor of whoever evaluates (see
    /// ``AuthenticationContext/evaluate(_:reason:)-(Policy,_)``): a slow check (a slow hash, a
    /// system that delays failures) holds that executor as long.
    func check(_ entry: String, against verifier: Data?) throws -> PasscodeCheck
}

extension PasscodeFactor {
    /// Touchstone keeps the passcode, unless a factor says otherwise.
    public var custody: PasscodeCustody { .device }
}

/// Who keeps the device passcode.
public enum PasscodeCustody: Sendable, Equatable {
    /// Touchstone keeps a verifier in the device's store; the passcode is set and cleared
    /// through Touchstone.
    case device
    /// The system keeps it (the user's login password through PAM). `description` says where,
    /// for people ("the login password of alice (PAM service touchstone)"); `isSet` whether
    /// there is one now. Setting and clearing it through Touchstone are refused.
    case external(description: String, isSet: Bool)
}
