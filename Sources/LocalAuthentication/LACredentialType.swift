#if !canImport(Darwin)
import Foundation

/// The kinds of credential `LAContext.setCredential(_:type:)` accepts.
public enum LACredentialType: Int, Sendable, Hashable, CaseIterable {
    /// An application password: an extra encryption factor for keychain items created with
    /// `SecAccessControlCreateFlags.applicationPassword`.
    case applicationPassword = 0
    /// A smart-card PIN (macOS). Not simulated: `setCredential(_:type:)` returns false for it.
    case smartCardPIN = -3
}

/// What an `LAContext.evaluateAccessControl(_:operation:localizedReason:reply:)` call is for.
public enum LAAccessControlOperation: Int, Sendable, Hashable, CaseIterable {
    /// Creating a keychain item.
    case createItem = 0
    /// Reading a keychain item.
    case useItem = 1
    /// Creating a key.
    case createKey = 2
    /// Signing with a key.
    case useKeySign = 3
    /// Decrypting with a key.
    case useKeyDecrypt = 4
    /// Key exchange with a key.
    case useKeyKeyExchange = 5
}

/// The longest `touchIDAuthenticationAllowableReuseDuration` honoured: 300 seconds. Larger
/// values are clamped to it.
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = 300
#endif
