// NotesLock — the lock screen of a notes app, written as an iOS developer writes it: only
// `import LocalAuthentication` (Apple's framework on iOS, Touchstone's module on Linux).
//
// The person signs in once with the account password and may turn on biometric unlock: the
// app keeps its session key in a keychain item protected by `.biometryCurrentSet`. Later an
// unlock is one fingerprint (or face). A cancel keeps the lock screen; the fallback button, a
// lockout or missing biometry ask for the password; and when the enrolled fingers or faces
// changed, the item is gone and the app asks for the password and turns biometric unlock off,
// as Apple recommends. `Tests/` (NotesLockTests) tests each of these with TouchstoneTesting.

import Foundation
import LocalAuthentication

/// The lock screen's model: what it shows and what each button does.
@MainActor
public final class NotesLock {
    /// What the app shows.
    public enum Screen: Equatable, Sendable {
        /// The sign-in form (account password).
        case signedOut
        /// The lock screen: an unlock button (biometry when turned on) and the password field.
        case locked
        /// The notes.
        case unlocked
    }

    /// What an unlock attempt came to.
    public enum UnlockResult: Equatable, Sendable {
        /// Biometry matched and the session key was read: the notes are open.
        case unlocked
        /// The person cancelled (or the system did): stay on the lock screen, say nothing.
        case cancelled
        /// Show the password field, and say why.
        case usePassword(PasswordReason)
    }

    /// Why the app asks for the password instead.
    public enum PasswordReason: Equatable, Sendable {
        /// Biometric unlock is not turned on.
        case biometricUnlockOff
        /// The person pressed the fallback button ("Use Password").
        case fallback
        /// Too many failed matches: biometry is locked out until the device passcode is entered.
        case lockedOut
        /// Biometry failed (three failed matches end the prompt).
        case failed
        /// No biometry on this device, nothing enrolled, or no device passcode.
        case biometryUnavailable
        /// The enrolled fingers or faces changed since biometric unlock was turned on: it was
        /// turned off, and must be turned on again after a password sign-in.
        case biometryChanged
    }

    /// The keychain item holding the session key.
    nonisolated static let service = "com.example.noteslock"
    nonisolated static let account = "session-key"
    /// The plain item that says biometric unlock is on.
    nonisolated static let switchAccount = "biometric-unlock"

    nonisolated static func query(account: String) -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: account]
    }

    /// What the app shows now.
    public private(set) var screen: Screen = .signedOut

    private let accountPassword: String

    /// A lock screen for the account whose password is `accountPassword` (the server's part,
    /// stubbed). Starts on the lock screen when biometric unlock was turned on earlier.
    public init(accountPassword: String) {
        self.accountPassword = accountPassword
        if isBiometricUnlockOn { screen = .locked }
    }

    /// The label of the biometric unlock button (`Unlock with Touch ID`), or nil when the device
    /// cannot do biometric authentication now.
    public var biometricButtonTitle: String? {
        let context = LAContext()
        var error: NSError?
        guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) else { return nil }
        switch context.biometryType {
        case .touchID: return "Unlock with Touch ID"
        case .faceID: return "Unlock with Face ID"
        case .opticID: return "Unlock with Optic ID"
        default: return nil
        }
    }

    /// Whether biometric unlock is turned on: the app's switch, kept in a plain keychain item
    /// beside the protected session key (which an enrollment change makes unreadable).
    public var isBiometricUnlockOn: Bool {
        SecItemCopyMatching(Self.query(account: Self.switchAccount) as CFDictionary, nil) == errSecSuccess
    }

    /// Signs in with the account password; true when it was right.
    @discardableResult
    public func signIn(password: String) -> Bool {
        guard password == accountPassword else { return false }
        screen = .unlocked
        return true
    }

    /// Turns biometric unlock on after a sign-in: one biometric check ("Turn on Touch ID"), then
    /// a fresh session key in a keychain item that only the fingers or faces enrolled now can
    /// open. Returns false when the person declined or biometry is unusable.
    public func turnOnBiometricUnlock() async -> Bool {
        guard screen == .unlocked else { return false }
        let context = LAContext()
        do {
            guard try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics,
                                                   localizedReason: "Turn on biometric unlock for your notes") else { return false }
        } catch {
            return false
        }
        guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                                           .biometryCurrentSet, nil) else { return false }
        deleteSessionKey()
        let sessionKey = Data((0..<32).map { _ in UInt8.random(in: 0 ... 255) })
        var item = Self.query(account: Self.account)
        item[kSecValueData as String] = sessionKey
        item[kSecAttrAccessControl as String] = access
        guard SecItemAdd(item as CFDictionary, nil) == errSecSuccess else { return false }
        var on = Self.query(account: Self.switchAccount)
        on[kSecValueData as String] = Data("on".utf8)
        return SecItemAdd(on as CFDictionary, nil) == errSecSuccess
    }

    /// Locks the notes (the app went to the background).
    public func lock() {
        if screen == .unlocked { screen = .locked }
    }

    /// The unlock button: a biometric prompt, then the session key read with the evaluated
    /// context (no second prompt).
    public func unlock() async -> UnlockResult {
        guard isBiometricUnlockOn else { return .usePassword(.biometricUnlockOff) }
        let context = LAContext()
        context.localizedFallbackTitle = "Use Password"
        do {
            _ = try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Unlock your notes")
        } catch let error as LAError {
            switch error.code {
            case .userCancel, .systemCancel, .appCancel: return .cancelled
            case .userFallback: return .usePassword(.fallback)
            case .biometryLockout: return .usePassword(.lockedOut)
            case .authenticationFailed: return .usePassword(.failed)
            default: return .usePassword(.biometryUnavailable)
            }
        } catch {
            return .usePassword(.biometryUnavailable)
        }
        var query = Self.query(account: Self.account)
        query[kSecReturnData as String] = true
        query[kSecUseAuthenticationContext as String] = context
        var result: CFTypeRef?
        switch SecItemCopyMatching(query as CFDictionary, &result) {
        case errSecSuccess where result is Data:
            screen = .unlocked
            return .unlocked
        case errSecUserCanceled:
            return .cancelled
        default:
            // errSecItemNotFound: the enrolled set changed and the item is gone for good.
            deleteSessionKey()
            return .usePassword(.biometryChanged)
        }
    }

    /// Signs out: forgets the session key, so biometric unlock is off.
    public func signOut() {
        deleteSessionKey()
        screen = .signedOut
    }

    /// Forgets the session key and turns biometric unlock off.
    private func deleteSessionKey() {
        SecItemDelete(Self.query(account: Self.account) as CFDictionary)
        SecItemDelete(Self.query(account: Self.switchAccount) as CFDictionary)
    }
}
