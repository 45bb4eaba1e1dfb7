#if !canImport(Darwin)
import Security

// Client code in the style of the older keychain wrappers (our own code): `[String?: AnyObject]`
// query dictionaries, the key encoded as `Data` in `kSecAttrAccount` and `kSecAttrGeneric`,
// `kSecAttrAccessible` set on add, `errSecDuplicateItem` answered by `SecItemUpdate` with a
// `[String: Data]`, and the `withUnsafeMutablePointer` result dance. Only `import Security`.

/// A string store keyed by name, like the wrappers' `KeychainWrapper.standard`.
struct LegacyKeychainWrapper: Sendable {
    let serviceName: String
    var accessGroup: String?

    private func query(forKey key: String) -> [String?: AnyObject] {
        let encodedIdentifier: Data? = key.data(using: String.Encoding.utf8)
        var query: [String?: AnyObject] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: serviceName as AnyObject,
        ]
        query[kSecAttrGeneric as String] = encodedIdentifier as AnyObject?
        query[kSecAttrAccount as String] = encodedIdentifier as AnyObject?
        if let accessGroup {
            query[kSecAttrAccessGroup as String] = accessGroup as AnyObject
        }
        return query
    }

    /// Stores `value`, overwriting what was there.
    @discardableResult
    func set(_ value: String, forKey key: String) -> Bool {
        guard let data = value.data(using: .utf8) else { return false }
        var query = query(forKey: key)
        query[kSecValueData as String] = data as AnyObject
        query[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlocked
        let status = SecItemAdd(query as CFDictionary, nil)
        if status == errSecSuccess { return true }
        if status == errSecDuplicateItem { return update(data, forKey: key) }
        return false
    }

    private func update(_ data: Data, forKey key: String) -> Bool {
        let update: [String: Data] = [kSecValueData as String: data]
        return SecItemUpdate(query(forKey: key) as CFDictionary, update as CFDictionary) == errSecSuccess
    }

    /// The stored string, or nil.
    func string(forKey key: String) -> String? {
        var query = query(forKey: key)
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        query[kSecReturnData as String] = kCFBooleanTrue
        var result: AnyObject?
        let status = withUnsafeMutablePointer(to: &result) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        guard status == noErr, let data = result as? Data else { return nil }
        return String(data: data, encoding: .utf8)
    }

    /// Every key stored under this service.
    func allKeys() -> Set<String> {
        var query: [String?: AnyObject] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: serviceName as AnyObject,
            kSecReturnAttributes as String: kCFBooleanTrue,
            kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup as AnyObject }
        var result: AnyObject?
        let status = withUnsafeMutablePointer(to: &result) {
            SecItemCopyMatching(query as CFDictionary, UnsafeMutablePointer($0))
        }
        guard status == errSecSuccess, let items = result as? [[AnyHashable: Any]] else { return [] }
        return Set(items.compactMap { item in
            (item[kSecAttrAccount as String] as? Data).flatMap { String(data: $0, encoding: .utf8) }
        })
    }

    /// Deletes the key's item.
    @discardableResult
    func removeObject(forKey key: String) -> Bool {
        SecItemDelete(query(forKey: key) as CFDictionary) == errSecSuccess
    }
}
#endif
