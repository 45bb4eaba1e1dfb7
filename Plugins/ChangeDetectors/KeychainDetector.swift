import Foundation
import Touchstone

/// The seed 002 detector (REFERENCE §10): the baseline is a marker keychain item protected
/// with `biometryCurrentSet`. When the enrolled set changes the item is invalidated — reading
/// it would return errSecItemNotFound — and the verdict is `changed`.
///
/// Verdicts: no marker → `not-enabled`; marker invalidated → `changed`; marker valid but
/// biometry unusable (locked out, no passcode, hardware gone), so a real read would fail with
/// errSecAuthFailed rather than say anything about the set → `unknown`; otherwise `unchanged`.
/// Unlike the domain-state detector, an OS upgrade does not trigger it, and checking never
/// prompts (the invalidation is visible without reading the value).
public struct KeychainDetector: ChangeDetector {
    public static let descriptor = PluginDescriptor(
        id: "detector.keychain", kind: .detector,
        summary: "a biometryCurrentSet marker item per account; invalidated (errSecItemNotFound) means changed (seed 002)")

    /// The keychain service holding the markers.
    public static let service = "touchstone.change-detector"

    public init(options: PluginOptions, environment: PluginEnvironment) {}

    public func saveBaseline(account: String, in authenticator: Authenticator) throws {
        if let problem = try authenticator.makeContext().canEvaluate(authenticator.policy(rawValue: 1)) {
            throw problem
        }
        let keychain = authenticator.keychain
        try? keychain.delete(service: Self.service, account: account)
        do {
            try keychain.add(
                authenticator.device.random.bytes(16), service: Self.service, account: account,
                accessControl: AccessControl(.afterFirstUnlockThisDeviceOnly, flags: .biometryCurrentSet))
        } catch let error as KeychainError {
            if let code = error.authenticationCode { throw AuthenticationError(code, message: error.message) }
            throw error
        }
    }

    public func clearBaseline(account: String, in authenticator: Authenticator) throws {
        do {
            try authenticator.keychain.delete(service: Self.service, account: account)
        } catch let error as KeychainError where error.kind == .itemNotFound {
            return
        }
    }

    public func check(account: String, in authenticator: Authenticator) throws -> ChangeVerdict {
        let info: KeychainItemInfo
        do {
            info = try authenticator.keychain.info(service: Self.service, account: account)
        } catch let error as KeychainError where error.kind == .itemNotFound {
            return .notEnabled
        }
        if info.isInvalidated { return .changed }
        if try authenticator.makeContext().canEvaluate(authenticator.policy(rawValue: 1)) != nil {
            return .unknown
        }
        return .unchanged
    }

    public func accounts(in authenticator: Authenticator) throws -> [String] {
        try authenticator.keychain.items(service: Self.service).map(\.account)
    }
}
