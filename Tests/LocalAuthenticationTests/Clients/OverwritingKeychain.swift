#if !canImport(Darwin)
import Foundation
import Security

// Client code in the style of KeychainAccess's `set` (our own code): look the item up without
// a prompt (`kSecUseAuthenticationUIFail`), and
// when it exists overwrite it with `SecItemUpdate` whose attributes carry **everything** again
// — value, `kSecAttrAccessible` (or `kSecAttrAccessControl`), label, comment, synchronizable —
// else add it. Queries say `kSecAttrSynchronizable: kSecAttrSynchronizableAny`.

/// An error of the store: the `OSStatus` and Apple's text for it.
struct KeychainStoreError: Error, Equatable {
    let status: OSStatus
    var message: String { (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)" }
}

/// A KeychainAccess-like store for one service.
struct OverwritingKeychain: Sendable {
    let service: String
    var accessibility: String = kSecAttrAccessibleAfterFirstUnlock as String
    var accessControlFlags: SecAccessControlCreateFlags?
    var label: String?
    var comment: String?

    private func query(key: String? = nil) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
        ]
        if let key { query[kSecAttrAccount as String] = key }
        return query
    }

    private func attributes(value: Data) throws(KeychainStoreError) -> [String: Any] {
        var attributes: [String: Any] = [kSecValueData as String: value]
        if let flags = accessControlFlags {
            var error: Unmanaged<CFError>?
            guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, accessibility as CFString, flags, &error) else {
                throw KeychainStoreError(status: OSStatus(error?.takeRetainedValue().code ?? Int(errSecParam)))
            }
            attributes[kSecAttrAccessControl as String] = access
        } else {
            attributes[kSecAttrAccessible as String] = accessibility
        }
        if let label { attributes[kSecAttrLabel as String] = label }
        if let comment { attributes[kSecAttrComment as String] = comment }
        attributes[kSecAttrSynchronizable as String] = kCFBooleanFalse
        return attributes
    }

    /// Stores `value` under `key`: an update when the item exists, else an add.
    func set(_ value: String, key: String) throws(KeychainStoreError) {
        let data = Data(value.utf8)
        var query = query(key: key)
        // As KeychainAccess asks: without a prompt (an item that needs one answers
        // errSecInteractionNotAllowed, and is overwritten all the same).
        var exists = query
        exists[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail
        var status = SecItemCopyMatching(exists as CFDictionary, nil)
        switch status {
        case errSecSuccess, errSecInteractionNotAllowed:
            status = SecItemUpdate(query as CFDictionary, try attributes(value: data) as CFDictionary)
        case errSecItemNotFound:
            query.removeValue(forKey: kSecAttrSynchronizable as String)
            query.merge(try attributes(value: data)) { _, new in new }
            status = SecItemAdd(query as CFDictionary, nil)
        default:
            break
        }
        guard status == errSecSuccess else { throw KeychainStoreError(status: status) }
    }

    /// The string under `key`, nil when there is none.
    func get(_ key: String, prompt: String? = nil) throws(KeychainStoreError) -> String? {
        var query = query(key: key)
        query[kSecReturnData as String] = kCFBooleanTrue
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        if let prompt { query[kSecUseOperationPrompt as String] = prompt }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess: return (result as? Data).flatMap { String(data: $0, encoding: .utf8) }
        case errSecItemNotFound: return nil
        default: throw KeychainStoreError(status: status)
        }
    }

    /// The stored attributes of `key` (never its value).
    func attributes(of key: String) -> [String: Any]? {
        var query = query(key: key)
        query[kSecReturnAttributes as String] = kCFBooleanTrue
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? [String: Any]
    }

    /// Deletes every item of the service.
    func removeAll() throws(KeychainStoreError) {
        let status = SecItemDelete(query() as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainStoreError(status: status) }
    }
}
#endif
