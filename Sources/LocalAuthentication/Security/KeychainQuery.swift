#if !canImport(Darwin)
import Foundation
import Touchstone

/// A `SecItem*` dictionary, read into the terms of Touchstone's keychain.
///
/// Items are keyed by class, service (`kSecAttrService`, or `kSecAttrServer` for internet
/// passwords) and account. An item added without a service or account is stored under a
/// placeholder that is never returned as an attribute, so it behaves as Apple's item with an
/// empty service or account.
struct KeychainQuery {
    /// The dictionary is malformed: `errSecParam`.
    struct Invalid: Error {
        let reason: String
    }

    /// `kSecUseAuthenticationUI`.
    enum AuthenticationUI {
        case allow, fail, skip
    }

    /// One matched item.
    struct Found {
        var itemClass: KeychainItemClass
        var service: String
        var account: String
        var accessControl: AccessControl
    }

    /// Stands for a missing service or account.
    static let placeholder = "\u{2400}"

    /// The class; nil for a class Touchstone does not simulate (keys, certificates, identities).
    let itemClass: KeychainItemClass?
    let service: String?
    let account: String?
    let value: Data?
    let accessControl: AccessControl?
    let returnData: Bool
    let returnAttributes: Bool
    let limitAll: Bool
    let context: LAContext?
    let prompt: String?
    let authenticationUI: AuthenticationUI

    init(_ dictionary: [String: Any]) throws {
        guard let classValue = dictionary[kSecClass] else { throw Invalid(reason: "kSecClass is missing") }
        switch try Self.string(classValue, kSecClass) {
        case kSecClassGenericPassword: itemClass = .genericPassword
        case kSecClassInternetPassword: itemClass = .internetPassword
        case kSecClassKey, kSecClassCertificate, kSecClassIdentity: itemClass = nil
        case let other: throw Invalid(reason: "unknown kSecClass '\(other)'")
        }
        let serviceKey = itemClass == .internetPassword ? kSecAttrServer : kSecAttrService
        service = try dictionary[serviceKey].map { try Self.string($0, serviceKey) }
        account = try dictionary[kSecAttrAccount].map { try Self.string($0, kSecAttrAccount) }
        if let raw = dictionary[kSecValueData] {
            guard let data = Self.data(raw) else { throw Invalid(reason: "kSecValueData must be Data") }
            value = data
        } else {
            value = nil
        }
        if let raw = dictionary[kSecAttrAccessControl] {
            guard let access = raw as? SecAccessControl else { throw Invalid(reason: "kSecAttrAccessControl must be a SecAccessControl") }
            accessControl = access.accessControl
        } else if let raw = dictionary[kSecAttrAccessible] {
            let name = try Self.string(raw, kSecAttrAccessible)
            guard let accessibility = accessibility(name) else { throw Invalid(reason: "unknown kSecAttrAccessible '\(name)'") }
            accessControl = try AccessControl(accessibility)
        } else {
            accessControl = nil
        }
        returnData = try dictionary[kSecReturnData].map { try Self.bool($0, kSecReturnData) } ?? false
        returnAttributes = try dictionary[kSecReturnAttributes].map { try Self.bool($0, kSecReturnAttributes) } ?? false
        switch try dictionary[kSecMatchLimit].map({ try Self.string($0, kSecMatchLimit) }) {
        case nil, kSecMatchLimitOne: limitAll = false
        case kSecMatchLimitAll: limitAll = true
        case let other?:
            // Apple also accepts a number; 1 means one, anything larger "up to n" (here: all).
            guard let count = Int(other), count > 0 else { throw Invalid(reason: "unknown kSecMatchLimit '\(other)'") }
            limitAll = count > 1
        }
        if let raw = dictionary[kSecUseAuthenticationContext] {
            guard let context = raw as? LAContext else { throw Invalid(reason: "kSecUseAuthenticationContext must be an LAContext") }
            self.context = context
        } else {
            context = nil
        }
        prompt = try dictionary[kSecUseOperationPrompt].map { try Self.string($0, kSecUseOperationPrompt) }
        switch try dictionary[kSecUseAuthenticationUI].map({ try Self.string($0, kSecUseAuthenticationUI) }) {
        case nil, kSecUseAuthenticationUIAllow: authenticationUI = .allow
        case kSecUseAuthenticationUIFail: authenticationUI = .fail
        case kSecUseAuthenticationUISkip: authenticationUI = .skip
        case let other?: throw Invalid(reason: "unknown kSecUseAuthenticationUI '\(other)'")
        }
    }

    /// The service an added item is stored under.
    var storedService: String { Self.stored(service) }
    /// The account an added item is stored under.
    var storedAccount: String { Self.stored(account) }

    /// The prompt's reason: `kSecUseOperationPrompt`, else the context's `localizedReason`,
    /// else the engine's default ("Access \"<service>\"").
    var reason: String? {
        if let prompt, !prompt.isEmpty { return prompt }
        if let reason = context?.localizedReason, !reason.isEmpty { return reason }
        return nil
    }

    /// The items of the query's class whose service and account match the given ones.
    func matches(in keychain: Keychain, includingInvalidated: Bool = false) throws -> [Found] {
        guard let itemClass else { return [] }
        return try keychain.items(service: service.map(Self.stored)).compactMap { info in
            guard info.itemClass == itemClass, account.map(Self.stored).map({ $0 == info.account }) ?? true,
                  includingInvalidated || !info.isInvalidated else { return nil }
            return Found(itemClass: info.itemClass, service: info.service, account: info.account,
                         accessControl: info.accessControl)
        }
    }

    /// The `result` object Apple returns: `Data`, an attribute dictionary (with `kSecValueData`
    /// when data was asked for), or an array of either.
    func shape(_ found: [(Found, Data?)], limitAll: Bool) -> CFTypeRef? {
        let shaped: [Any] = found.map { item, data in
            guard returnAttributes else { return data ?? Data() }
            var attributes = Self.attributes(of: item)
            if returnData, let data { attributes[kSecValueData] = data }
            return attributes
        }
        if limitAll { return shaped as AnyObject }
        return shaped.first.map { $0 as AnyObject }
    }

    /// The attributes Touchstone stores for an item.
    static func attributes(of item: Found) -> [String: Any] {
        var attributes: [String: Any] = [
            kSecClass: item.itemClass == .internetPassword ? kSecClassInternetPassword : kSecClassGenericPassword,
            kSecAttrAccessible: accessibleValue(item.accessControl.accessibility),
        ]
        if item.service != placeholder {
            attributes[item.itemClass == .internetPassword ? kSecAttrServer : kSecAttrService] = item.service
        }
        if item.account != placeholder { attributes[kSecAttrAccount] = item.account }
        if !item.accessControl.flags.isEmpty { attributes[kSecAttrAccessControl] = SecAccessControl(item.accessControl) }
        return attributes
    }

    static func stored(_ part: String?) -> String {
        guard let part, !part.isEmpty else { return placeholder }
        return part
    }

    static func string(_ value: Any, _ key: String) throws -> String {
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return number.stringValue }
        throw Invalid(reason: "\(key) must be a string")
    }

    static func bool(_ value: Any, _ key: String) throws -> Bool {
        if let flag = value as? Bool { return flag }
        if let number = value as? NSNumber { return number.boolValue }
        throw Invalid(reason: "\(key) must be a boolean")
    }

    static func data(_ value: Any) -> Data? {
        if let data = value as? Data { return data }
        if let data = value as? NSData { return Data(referencing: data) }
        return nil
    }
}
#endif
