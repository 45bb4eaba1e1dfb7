#if !canImport(Darwin)
import Foundation
import Security

// Client code in the style of apps that keep website passwords as internet-password items (our
// own code): `[CFString: Any]` literals passed `as CFDictionary`, server / protocol /
// authentication type / port / path attributes, and `kSecMatchLimitAll` with attributes and
// data, read back as `[[String: Any]]`.

/// One saved login.
struct WebCredential: Equatable, Sendable {
    var account: String
    var password: String
    var port: Int?
    var path: String?
    var isHTMLForm: Bool
    var created: Date?
}

/// Website passwords, one internet-password item per (server, account).
struct WebCredentialStore: Sendable {
    /// Saves a login for `server`.
    func save(server: String, account: String, password: String, port: Int = 443, path: String = "/login") -> OSStatus {
        let item = [
            kSecClass: kSecClassInternetPassword,
            kSecAttrServer: server,
            kSecAttrProtocol: kSecAttrProtocolHTTPS,
            kSecAttrAuthenticationType: kSecAttrAuthenticationTypeHTMLForm,
            kSecAttrPort: port,
            kSecAttrPath: path,
            kSecAttrAccount: account,
            kSecAttrLabel: server,
            kSecValueData: Data(password.utf8),
        ] as [CFString: Any]
        return SecItemAdd(item as CFDictionary, nil)
    }

    /// Every login saved for `server` over HTTPS.
    func logins(server: String) -> (OSStatus, [WebCredential]) {
        let query = [
            kSecClass: kSecClassInternetPassword,
            kSecAttrServer: server,
            kSecAttrProtocol: kSecAttrProtocolHTTPS,
            kSecReturnAttributes: true,
            kSecReturnData: true,
            kSecMatchLimit: kSecMatchLimitAll,
        ] as [CFString: Any]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess, let items = result as? [[String: Any]] else { return (status, []) }
        let logins = items.compactMap { item -> WebCredential? in
            guard let account = item[kSecAttrAccount as String] as? String,
                  let data = item[kSecValueData as String] as? Data,
                  let password = String(data: data, encoding: .utf8) else { return nil }
            let type = item[kSecAttrAuthenticationType as String] as? String
            return WebCredential(account: account, password: password, port: item[kSecAttrPort as String] as? Int,
                                 path: item[kSecAttrPath as String] as? String,
                                 isHTMLForm: type == kSecAttrAuthenticationTypeHTMLForm as String,
                                 created: item[kSecAttrCreationDate as String] as? Date)
        }
        return (status, logins.sorted { $0.account < $1.account })
    }

    /// Deletes the login of `account` on `server`.
    func remove(server: String, account: String) -> OSStatus {
        SecItemDelete([kSecClass: kSecClassInternetPassword, kSecAttrServer: server, kSecAttrAccount: account] as CFDictionary)
    }
}
#endif
