import Crypto
import Foundation

/// The class of a keychain item (`kSecClass`). Items are keyed by class, service and account.
public enum KeychainItemClass: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `kSecClassGenericPassword`.
    case genericPassword
    /// `kSecClassInternetPassword` (the service is the server).
    case internetPassword
    /// `kSecClassKey` items the `Security` module keeps here: RSA, P-384 and P-521 keys (P-256
    /// keys are in the ``KeyStore``).
    case key
    /// `kSecClassCertificate` items the `Security` module keeps here (a certificate's DER and
    /// the attributes iOS derives from it).
    case certificate
    /// Records a framework keeps for itself (`LARightStore`'s rights): no `SecItem*` call
    /// matches them, as an app's keychain queries never see them on iOS.
    case system

    /// Looks a class up by name (`genericPassword`, `generic`, `internetPassword`, `internet`);
    /// the two classes the frameworks keep for themselves have no name here.
    public init?(name: String) {
        switch name.lowercased() {
        case "genericpassword", "generic", "generic-password": self = .genericPassword
        case "internetpassword", "internet", "internet-password": self = .internetPassword
        default: return nil
        }
    }

    public var description: String { rawValue }
}

/// The value of one descriptive attribute of a keychain item (a label, a comment, a port...):
/// stored with the item, matched by queries and returned with its attributes, never secret.
/// Attribute names are the caller's (the `Security` module uses Apple's `kSecAttr*` keys).
public enum KeychainAttributeValue: Codable, Sendable, Hashable {
    /// Text.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A whole number (ports, four-character codes).
    case integer(Int64)
    /// A flag.
    case bool(Bool)
}

/// What can be said about a stored item without authenticating: never its value.
public struct KeychainItemInfo: Sendable, Equatable, CustomStringConvertible {
    /// The item's class.
    public var itemClass: KeychainItemClass
    /// The service (or server).
    public var service: String
    /// The account.
    public var account: String
    /// Accessibility class and access-control flags.
    public var accessControl: AccessControl
    /// Whether reading needs an authentication (the flags have constraints).
    public var requiresAuthentication: Bool { accessControl.flags.requiresAuthentication }
    /// Whether the item was invalidated by an enrollment change (biometryCurrentSet); reads
    /// return errSecItemNotFound, and it still exists: adding the same item again is
    /// errSecDuplicateItem until it is deleted (REFERENCE §9).
    public var isInvalidated: Bool
    /// Descriptive attributes stored with the item (labels, comments, ports...).
    public var attributes: [String: KeychainAttributeValue] = [:]
    /// When the item was added (device time); nil for items stored before dates were kept.
    public var creationDate: Timestamp?
    /// When the item was last changed (device time); nil for items stored before dates were kept.
    public var modificationDate: Timestamp?
    /// Where the item stands in the order items were added to this app's keychain (1 for the
    /// first), the order `SecItemCopyMatching` returns them in, as iOS does; nil for items
    /// stored before the order was kept. Renaming or updating an item keeps its place.
    public var insertionOrder: UInt64? = nil
    /// Whether the item has a value: false for one added without (`SecItemAdd` without
    /// `kSecValueData`), which iOS reads back with no `kSecValueData` at all.
    public var hasValue = true

    /// `genericPassword api/alice whenUnlocked [biometryCurrentSet] invalidated`.
    public var description: String {
        "\(itemClass) \(service)/\(account) \(accessControl)" + (isInvalidated ? " invalidated" : "")
    }
}

/// What ``Keychain/update(service:account:itemClass:changes:context:reason:)`` changes; nil
/// fields stay as they are.
public struct KeychainItemChanges: Sendable, Equatable {
    /// The new value.
    public var value: Data?
    /// The new protection (accessibility class and flags).
    public var accessControl: AccessControl?
    /// Attributes to set, merged over the stored ones.
    public var attributes: [String: KeychainAttributeValue]?
    /// Attributes to remove before ``attributes`` are merged.
    public var removedAttributes: Set<String> = []
    /// The new service (or server).
    public var service: String?
    /// The new account.
    public var account: String?

    /// `attributes` as these changes leave them: ``removedAttributes`` taken out, then
    /// ``attributes`` merged over.
    public func applied(to attributes: [String: KeychainAttributeValue]) -> [String: KeychainAttributeValue] {
        var merged = attributes
        for name in removedAttributes { merged.removeValue(forKey: name) }
        merged.merge(self.attributes ?? [:]) { _, new in new }
        return merged
    }

    /// Changes to make; nothing by default.
    public init(value: Data? = nil, accessControl: AccessControl? = nil, attributes: [String: KeychainAttributeValue]? = nil,
                service: String? = nil, account: String? = nil) {
        self.value = value
        self.accessControl = accessControl
        self.attributes = attributes
        self.service = service
        self.account = account
    }
}

extension Authenticator {
    /// This app's keychain on the device.
    public var keychain: Keychain { Keychain(self) }
}
