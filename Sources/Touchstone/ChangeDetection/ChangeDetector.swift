/// A change detector's answer: has the enrolled set changed since the baseline was saved?
public enum ChangeVerdict: String, Sendable, Codable, CaseIterable {
    /// No baseline is stored: the feature (e.g. biometric login) is off.
    case notEnabled = "not-enabled"
    /// The current state equals the baseline.
    case unchanged
    /// The current state differs: clear the baseline and make the user sign in another way.
    case changed
    /// The current state cannot be read (biometry locked out, hardware unavailable): neither
    /// "changed" nor "unchanged" can be said (seed 000).
    case unknown
}

/// A change-detector plugin: keeps a baseline per app and account, and compares.
///
/// Baselines live in the authenticator's storage, under the app's id, so different apps and
/// different accounts in one app have their own.
public protocol ChangeDetector: Plugin {
    /// Stores the current state as the baseline of `account`. Throws the
    /// ``AuthenticationError`` that keeps the current state from being read.
    func saveBaseline(account: String, in authenticator: Authenticator) throws

    /// Removes the baseline of `account`.
    func clearBaseline(account: String, in authenticator: Authenticator) throws

    /// Compares the current state with the baseline of `account`.
    func check(account: String, in authenticator: Authenticator) throws -> ChangeVerdict

    /// Accounts that have a baseline in this app, sorted.
    func accounts(in authenticator: Authenticator) throws -> [String]
}
