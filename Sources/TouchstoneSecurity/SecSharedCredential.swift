#if !canImport(Darwin)
import Foundation

// Shared web credentials (SecSharedCredential.h): passwords an app shares with Safari for the
// domains of its associated-domains entitlement. Apple deprecated the request in iOS 14 (use
// AuthenticationServices' password requests) and the add in iOS 26.2; both remain in the SDK,
// and wrappers such as KeychainAccess still call them.
//
// The simulation (our rules, see docs/LocalAuthentication.md):
// - The app is entitled to every domain, as it is to every access group; no entitlement is
//   checked.
// - The person approves every request: no sheet asks to save or to choose a password.
// - A shared credential is an internet-password item in the device's keychain, as securityd
//   stores it (`SecServerAddSharedWebCredential`, SecItemServer.c): server = the domain, the
//   account, protocol HTTPS, authentication type HTML form, synchronizable, label
//   "<domain> (<account>)", comment "default", creator 'swca', access group
//   `com.apple.cfnetwork` (Safari's). As on iOS, the app's own `SecItem*` calls neither see
//   that group nor may name it (errSecMissingEntitlement); these functions reach it as
//   securityd does, as a client of that group (``SharedWebCredentials/asSafari``).
// - The work and the completion handler run on another thread, after the function returned,
//   as on iOS, with the device the caller had (``LocalAuthenticationSystem``) as the default
//   device of the `SecItem*` calls the handler makes.

/// The key of the password in each credential dictionary that
/// ``SecRequestSharedWebCredential(_:_:_:)`` delivers (beside `kSecAttrServer` and
/// `kSecAttrAccount`).
nonisolated(unsafe) public let kSecSharedPassword: CFString = "spwd"

/// Stores, replaces or (with a nil `password`) removes the shared password of `account` on the
/// website `fqdn`, on another thread. `completionHandler` runs there with nil, or an
/// `NSOSStatusErrorDomain` error: `errSecParam` for an empty domain or account, or the
/// keychain's status (such as `errSecInteractionNotAllowed` while the device is locked).
/// Removing a password that is not stored succeeds.
@available(iOS, introduced: 8.0, deprecated: 26.2)
public func SecAddSharedWebCredential(_ fqdn: CFString, _ account: CFString, _ password: CFString?,
                                      _ completionHandler: @escaping (CFError?) -> Void) {
    let (domain, account, password) = (fqdn as String, account as String, password as String?)
    let handler = SharedWebCredentials.Handler(call: completionHandler)
    LocalAuthenticationSystem.dispatch(with: LocalAuthenticationSystem.taskAuthenticator) {
        handler.call(SharedWebCredentials.error(SharedWebCredentials.store(domain: domain, account: account, password: password)))
    }
}

/// The shared passwords stored for the website `fqdn` (every domain when nil: the app is
/// entitled to all of them here), of `account` only when given, read on another thread.
/// `completionHandler` runs there with an array of dictionaries — `kSecAttrServer`, `kSecAttrAccount`,
/// `kSecSharedPassword`, each a `String` — and nil; or, when nothing matches, an empty array
/// and an `errSecItemNotFound` error (another status when the keychain refuses the read).
@available(iOS, introduced: 8.0, deprecated: 14.0, message: "Use ASAuthorizationController to make an ASAuthorizationPasswordRequest (AuthenticationServices framework)")
public func SecRequestSharedWebCredential(_ fqdn: CFString?, _ account: CFString?,
                                          _ completionHandler: @escaping (CFArray?, CFError?) -> Void) {
    let (domain, account) = (fqdn as String?, account as String?)
    let handler = SharedWebCredentials.Handler(call: completionHandler)
    LocalAuthenticationSystem.dispatch(with: LocalAuthenticationSystem.taskAuthenticator) {
        let (credentials, status) = SharedWebCredentials.find(domain: domain, account: account)
        handler.call(NSArray(array: credentials.map { NSDictionary(dictionary: $0) }), SharedWebCredentials.error(status))
    }
}

/// A new random password as Safari suggests them: four groups of three characters joined by
/// hyphens (`xxx-xxx-xxx-xxx`), drawn from lowercase letters, capitals and digits without the
/// look-alikes (no i, j, l, z, I, O, 0, 1, 2), with at least one of each kind.
@available(iOS, introduced: 8.0)
public func SecCreateSharedWebCredentialPassword() -> CFString? {
    var generator = SystemRandomNumberGenerator()
    return NSString(string: SharedWebCredentials.password(using: &generator))
}

/// The keychain side of the shared web credential functions.
enum SharedWebCredentials {
    /// Safari's access group, where iOS keeps shared web credentials.
    static let accessGroup = "com.apple.cfnetwork"

    /// Whether the keychain calls on this task are the shared web credential functions' own,
    /// which alone see and write ``accessGroup`` (securityd makes them as a client of that
    /// group; an app's calls are refused it).
    @TaskLocal static var asSafari = false

    /// Safari's comment on the credentials it keeps (`kSecSafariDefaultComment`).
    static let comment = "default"
    /// The creator code securityd marks the credentials these functions add with ('swca').
    static let creator: Int32 = 0x7377_6361

    /// The character sets of a generated password (SecSharedCredential.h).
    static let passwordSets: [[Character]] = [
        Array("abcdefghkmnopqrstuvwxy"), Array("ABCDEFGHJKLMNPQRSTUVWXYZ"), Array("3456789"),
    ]

    /// The query naming the shared credentials of `domain` and `account` (every one when nil),
    /// as securityd stores them; with `earlierForm`, also those an earlier Touchstone stored
    /// without the HTML-form type and not synchronizable, which requests still find and a
    /// removal or a new password replaces.
    static func query(domain: String?, account: String?, earlierForm: Bool = false) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword,
            kSecAttrAccessGroup as String: accessGroup,
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
        ]
        if earlierForm {
            query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        } else {
            query[kSecAttrAuthenticationType as String] = kSecAttrAuthenticationTypeHTMLForm
            query[kSecAttrSynchronizable as String] = true
        }
        if let domain { query[kSecAttrServer as String] = domain }
        if let account { query[kSecAttrAccount as String] = account }
        return query
    }

    /// Adds, replaces or removes a credential; the status of the keychain call.
    static func store(domain: String, account: String, password: String?) -> OSStatus {
        guard !domain.isEmpty, !account.isEmpty else { return errSecParam }
        return $asSafari.withValue(true) { write(domain: domain, account: account, password: password) }
    }

    /// ``store(domain:account:password:)`` as Safari's client.
    private static func write(domain: String, account: String, password: String?) -> OSStatus {
        let item = query(domain: domain, account: account)
        guard let password else {
            // Either form goes.
            let status = SecItemDelete(query(domain: domain, account: account, earlierForm: true) as CFDictionary)
            return status == errSecItemNotFound ? errSecSuccess : status
        }
        // A record of the earlier form (not synchronizable) is replaced by one of securityd's.
        var earlier = query(domain: domain, account: account, earlierForm: true)
        earlier[kSecAttrSynchronizable as String] = false
        let removed = SecItemDelete(earlier as CFDictionary)
        guard removed == errSecSuccess || removed == errSecItemNotFound else { return removed }
        let value = Data(password.utf8)
        let updated = SecItemUpdate(item as CFDictionary, [kSecValueData as String: value] as CFDictionary)
        guard updated == errSecItemNotFound else { return updated }
        var attributes = item
        attributes[kSecValueData as String] = value
        attributes[kSecAttrLabel as String] = "\(domain) (\(account))"
        attributes[kSecAttrComment as String] = comment
        attributes[kSecAttrCreator as String] = creator
        let added = SecItemAdd(attributes as CFDictionary, nil)
        // Added meanwhile by another call: replaced, as a stored password is.
        guard added == errSecDuplicateItem else { return added }
        return SecItemUpdate(item as CFDictionary, [kSecValueData as String: value] as CFDictionary)
    }

    /// The matching credentials as `SecRequestSharedWebCredential` delivers them, and the status.
    static func find(domain: String?, account: String?) -> (credentials: [[String: String]], status: OSStatus) {
        var search = query(domain: domain, account: account, earlierForm: true)
        search[kSecReturnAttributes as String] = true
        search[kSecReturnData as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: CFTypeRef?
        let status = $asSafari.withValue(true) { SecItemCopyMatching(search as CFDictionary, &result) }
        guard status == errSecSuccess, let items = result as? [[String: Any]] else { return ([], status) }
        let credentials = items.compactMap { item -> [String: String]? in
            guard let server = item[kSecAttrServer as String] as? String, let account = item[kSecAttrAccount as String] as? String,
                  let data = item[kSecValueData as String] as? Data, let password = String(data: data, encoding: .utf8) else { return nil }
            return [kSecAttrServer as String: server, kSecAttrAccount as String: account, kSecSharedPassword as String: password]
        }
        return (credentials, credentials.isEmpty ? errSecItemNotFound : errSecSuccess)
    }

    /// A password of four groups of three, with a character of each set somewhere.
    static func password(using generator: inout some RandomNumberGenerator) -> String {
        let all = passwordSets.flatMap { $0 }
        while true {
            let characters = (0..<12).map { _ in all[Int.random(in: 0..<all.count, using: &generator)] }
            guard passwordSets.allSatisfy({ set in characters.contains { set.contains($0) } }) else { continue }
            return stride(from: 0, to: 12, by: 3).map { String(characters[$0..<$0 + 3]) }.joined(separator: "-")
        }
    }

    /// Nil for success, else the status as an `NSOSStatusErrorDomain` error with Apple's text.
    static func error(_ status: OSStatus) -> CFError? {
        status == errSecSuccess ? nil : osStatusError(status, securityErrorMessage(status))
    }

    /// A completion handler handed to another thread. Apple's signatures take a plain closure,
    /// not a `@Sendable` one, and so do these (code written for iOS passes closures that
    /// capture its own state); iOS calls it on another thread all the same, once.
    struct Handler<Call>: @unchecked Sendable {
        let call: Call
    }
}
#endif
