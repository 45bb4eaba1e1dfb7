// VaultKit: the code of an iOS app's secrets screen, unchanged for Linux. Nothing here knows
// about Touchstone: on Linux the four Apple imports are Touchstone's modules of Apple's names.
import CommonCrypto
import CryptoKit
import Foundation
import LocalAuthentication
import Security

/// A secret kept behind the fingers or face enrolled today, an app unlock, and a signing key
/// in the Secure Enclave.
public struct Vault: Sendable {
    /// What went wrong, with the keychain's status where there is one.
    public enum Failure: Error, Equatable {
        /// A keychain call answered this `OSStatus`.
        case keychain(OSStatus)
        /// An access control could not be made.
        case accessControl(String)
    }

    /// The keychain service the vault's items live under.
    public let service: String

    /// A vault whose items live under `service`.
    public init(service: String = "com.example.vault") {
        self.service = service
    }

    /// Whether a biometric prompt can be shown now (hardware present, something enrolled, not
    /// locked out).
    public func canUseBiometrics() -> Bool {
        var error: NSError?
        return LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
    }

    /// Stores `secret` for `account`, readable only after a match of a finger or face enrolled
    /// now: enrolling another one makes it unreadable (`.biometryCurrentSet`).
    public func store(_ secret: Data, account: String) throws {
        let access = try accessControl(kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, [.biometryCurrentSet])
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        SecItemDelete(item as CFDictionary)
        var add = item
        add[kSecAttrAccessControl as String] = access
        add[kSecValueData as String] = secret
        let status = SecItemAdd(add as CFDictionary, nil)
        guard status == errSecSuccess else { throw Failure.keychain(status) }
    }

    /// The secrets stored, by account. Only their attributes are asked for, but the items are
    /// protected, and iOS opens a protected item for any lookup (its attributes, or only
    /// whether it is there): listing shows the prompt once, with `reason`, and one match opens
    /// them all.
    public func records(reason: String) throws -> [Record] {
        var result: CFTypeRef?
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecReturnAttributes as String: true,
            kSecMatchLimit as String: kSecMatchLimitAll,
            kSecUseOperationPrompt as String: reason,
        ]
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw Failure.keychain(status) }
        let items = result as? [[String: Any]] ?? []
        return items.compactMap { item in
            (item[kSecAttrAccount as String] as? String).map { Record(service: service, account: $0) }
        }.sorted { $0.account < $1.account }
    }

    /// Reads the secret of `account`; the system shows the biometric prompt with `reason`.
    public func read(account: String, reason: String) throws -> Data {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecReturnData as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne,
            kSecUseOperationPrompt as String: reason,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess, let data = result as? Data else { throw Failure.keychain(status) }
        return data
    }

    /// Unlocks the app: biometrics, or the device passcode after the fallback button.
    public func unlock(reason: String) async -> Bool {
        do {
            return try await LAContext().evaluatePolicy(.deviceOwnerAuthentication, localizedReason: reason)
        } catch {
            return false
        }
    }

    /// A new P-256 signing key in the Secure Enclave that signs only after a biometric match.
    public func makeSigningKey() throws -> SecureEnclave.P256.Signing.PrivateKey {
        let access = try accessControl(kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .biometryCurrentSet])
        return try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
    }

    /// The SHA-256 fingerprint of a public key as a server shows it (lowercase hex), with
    /// CommonCrypto as much iOS code still computes it.
    public func fingerprint(of publicKey: Data) -> String {
        var digest = [UInt8](repeating: 0, count: Int(CC_SHA256_DIGEST_LENGTH))
        publicKey.withUnsafeBytes { bytes in
            _ = CC_SHA256(bytes.baseAddress, CC_LONG(publicKey.count), &digest)
        }
        return digest.map { String(format: "%02x", $0) }.joined()
    }

    private func accessControl(_ protection: CFString, _ flags: SecAccessControlCreateFlags) throws -> SecAccessControl {
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(nil, protection, flags, &error) else {
            throw Failure.accessControl(error.map { "\($0.takeRetainedValue())" } ?? "unknown error")
        }
        return access
    }
}

/// One secret the vault keeps: the service it is under and its account.
public struct Record: Sendable, Equatable {
    public let service: String
    public let account: String

    public init(service: String, account: String) {
        self.service = service
        self.account = account
    }
}
