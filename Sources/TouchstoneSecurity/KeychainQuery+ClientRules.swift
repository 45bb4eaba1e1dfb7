#if !canImport(Darwin)
import Foundation
import Logging
import Touchstone

/// The rules iOS applies to a call's dictionary before it looks at any item: attributes of
/// another class, item lists, the search and return keys a change or an add may not hold, and
/// the access groups the app is entitled to.
extension KeychainQuery {
    /// Refuses the attributes of certificates and keys in a password query
    /// (``NoSuchAttribute``). The search keys iOS's securityd reads no rule from —
    /// `kSecMatchCaseInsensitive`, `kSecMatchItemList` of persistent references, and the
    /// certificate searches in a password query — are ignored, as there.
    static func refuseUnsimulatedKeys(_ dictionary: [String: Any]) throws {
        if let key = dictionary.keys.first(where: UnsimulatedKeys.notPasswordAttributes.contains) {
            throw NoSuchAttribute(key: key)
        }
    }

    /// `kSecMatchItemList`, which iOS does not implement (SecItem.h: macOS only): a list of
    /// persistent references (`Data`) reaches securityd and is ignored, while a list of
    /// `SecKey`s or certificates cannot be sent there (errSecParam).
    static func checkItemList(_ dictionary: [String: Any]) throws {
        guard let raw = dictionary[kSecMatchItemList as String] else { return }
        guard let list = raw as? [Any], list.allSatisfy({ $0 is Data || $0 is NSData }) else {
            throw Invalid(reason: "kSecMatchItemList is macOS-only: iOS sends only Data (persistent references) to securityd, which ignores them")
        }
    }

    /// `query` with the class of its `kSecValueRef` (a key, a certificate or an identity) when
    /// it names none. iOS's client code merges a ref's attributes, its class among them, into the
    /// call's before anything else reads it, the caller's own attributes winning
    /// (`SecItem.m`, `SecItemAttributesPrepare`): a lookup, an add or a delete by ref alone
    /// works.
    static func withClassOfValueRef(_ query: CFDictionary) -> CFDictionary {
        guard query.object(forKey: kSecClass as String) == nil, let ref = query.object(forKey: kSecValueRef as String) else { return query }
        let itemClass: CFString
        switch ref {
        case is SecKey: itemClass = kSecClassKey
        case is SecCertificate: itemClass = kSecClassCertificate
        case is SecIdentity: itemClass = kSecClassIdentity
        default: return query
        }
        guard let completed = query.mutableCopy() as? NSMutableDictionary else { return query }
        completed[kSecClass as String] = itemClass
        return completed
    }

    /// The status iOS's securityd gives a call, of any class, for the search keys it refuses:
    /// in `SecItemDelete` and `SecItemUpdate` (`inChange`) every search key, `kSecMatchLimit`
    /// too (`SecDbQuery.c` records each, the limit among them, as a match rule, and
    /// `SecItemServer.c` / `SecItemDb.c` refuse any: "match not supported", errSecParam — a
    /// lookup's query reused for a delete fails so on a device); in `SecItemUpdate` any
    /// `kSecReturn…` key too (errSecParam: "update doesn't return anything"); in a lookup an
    /// item list of anything but persistent references (errSecParam). Nil when the call may
    /// go on. Read before the query is, so every class is refused alike.
    static func refusedSearchKeys(_ query: CFDictionary, inChange: Bool, isUpdate: Bool = false) -> OSStatus? {
        if let refused = refusedMatchPolicyValue(query) { return refused }
        if inChange, searchKeys.contains(where: { query.object(forKey: $0) != nil }) { return errSecParam }
        if isUpdate, returnKeys.contains(where: { query.object(forKey: $0) != nil }) { return errSecParam }
        guard let list = query.object(forKey: kSecMatchItemList as String) else { return nil }
        return (try? checkItemList([kSecMatchItemList as String: list])) == nil ? errSecParam : nil
    }

    /// The status iOS's client code (`SecItem.m`, `SecItemAuthDoQuery`) gives an add, an
    /// update or a delete before anything reaches securityd, for any class; nil when the call
    /// may go on:
    /// - an access control with `kSecAttrSynchronizable` true, in the attributes an add stores
    ///   or an update sets: errSecParam, "item with kSecAttrAccessControl is not
    ///   synchronizable" (every `SecAccessControl` counts, one without flags too: each carries
    ///   a default ACL);
    /// - `kSecUseAuthenticationUISkip` in the query of anything but `SecItemCopyMatching`:
    ///   errSecParam ("allowed only for SecItemCopyMatching").
    /// `stored` is what an add stores or an update sets (nil for a delete).
    static func refusedClientRules(query: CFDictionary, stored: CFDictionary?) -> OSStatus? {
        if let refused = refusedMatchPolicyValue(query) { return refused }
        if let stored, stored.object(forKey: kSecAttrAccessControl as String) != nil,
           (stored.object(forKey: kSecAttrSynchronizable as String) as? Bool) == true {
            return errSecParam
        }
        if let ui = query.object(forKey: kSecUseAuthenticationUI as String) as? String, ui == kSecUseAuthenticationUISkip as String {
            return errSecParam
        }
        return nil
    }

    /// A `kSecMatchPolicy` that is not a `SecPolicy`: errSecParam in any call, as iOS's client
    /// code refuses it before anything reaches securityd (`SecItemAttributesPrepare`, SecItem.m:
    /// "unsupported kSecMatchPolicy in query").
    private static func refusedMatchPolicyValue(_ query: CFDictionary) -> OSStatus? {
        guard let policy = query.object(forKey: kSecMatchPolicy as String), !(policy is SecPolicy) else { return nil }
        return errSecParam
    }

    /// A lookup of a class other than certificates and identities that names a
    /// `kSecMatchPolicy`: errSecUnsupportedOperation (which is errSecUnimplemented), as
    /// securityd's `SecItemServerCopyMatching` answers ("unsupported kSecMatchPolicy
    /// attribute"): it matches policies against certificates only. Nil for any other lookup.
    static func refusedMatchPolicyClass(_ query: CFDictionary) -> OSStatus? {
        guard query.object(forKey: kSecMatchPolicy as String) != nil,
              let itemClass = query.object(forKey: kSecClass as String) as? String,
              itemClass != kSecClassCertificate as String, itemClass != kSecClassIdentity as String
        else { return nil }
        return errSecUnimplemented
    }

    /// An add whose attributes hold a search key (`kSecMatchLimit` among them) stores nothing
    /// and yet reports success on iOS: securityd's `s3dl_query_add` (`SecItemDb.c`) answers
    /// `errSecItemMatchUnsupported` from a function that returns a `bool`, which reads as
    /// true. Called where securityd gets to it: after the add's values are read, the
    /// entitlement to its group checked and a persistent reference refused. Returns
    /// errSecSuccess for such an add (and logs it at notice level, naming the keys), nil for
    /// any other.
    static func addStoringNothing(_ attributes: CFDictionary) -> OSStatus? {
        let found = searchKeys.filter { attributes.object(forKey: $0) != nil }
        guard !found.isEmpty else { return nil }
        LocalAuthenticationSystem.callLogger.withLock { $0 }.notice(
            "SecItemAdd with a search key stores nothing and reports success, as iOS's securityd does: take the search keys out of the add",
            metadata: ["security.search-keys": .array(found.map { .string($0) })])
        return errSecSuccess
    }

    /// The `kSecMatch…` keys.
    private static let searchKeys: [String] = [
        kSecMatchLimit, kSecMatchPolicy, kSecMatchItemList, kSecMatchSearchList, kSecMatchIssuers, kSecMatchEmailAddressIfPresent,
        kSecMatchSubjectContains, kSecMatchHostOrSubdomainOfHost, kSecMatchCaseInsensitive, kSecMatchTrustedOnly,
        kSecMatchValidOnDate,
    ].map { $0 as String }

    /// The `kSecReturn…` keys.
    private static let returnKeys: [String] = [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef]
        .map { $0 as String }

    /// Refuses `privateKeyUsage` on a password item: the flag binds a key's use to the Secure
    /// Enclave, and securityd cannot store an item under it — an add is errSecAuthFailed, with
    /// another constraint or without (Apple's `sec_acl_stress.c`); a change of access control
    /// to it is refused the same way (our inference: the update stores the item anew).
    static func refusePrivateKeyUsage(_ access: AccessControl) throws {
        guard access.flags.contains(.privateKeyUsage) else { return }
        throw KeychainError(.authenticationFailed,
                            message: "privateKeyUsage is for Secure Enclave keys (SecKeyCreateRandomKey); a keychain item cannot be stored under it")
    }

    /// Runs `body`, the add or update that binds a new protection, reporting a
    /// whenPasscodeSetThisDeviceOnly protection refused for want of a passcode as errSecAuthFailed
    /// when it came as a `kSecAttrAccessControl` (`accessControlGiven`). Our reading of the
    /// evidence: iOS binds such an access control through LocalAuthentication before securityd
    /// stores the item (`SecItemAuthDo`, `SecItem.m`), and a LocalAuthentication failure other
    /// than a cancel comes back as errSecAuthFailed (`osstatus_for_localauthentication_error`);
    /// that the binding fails without a passcode is our inference, matching a report from
    /// devices on iOS 9.2 (UIDevice-PasscodeStatus pull request 9, unmerged; iOS 8 gave
    /// errSecDecode). A plain `kSecAttrAccessible` of that class stays errSecNotAvailable,
    /// securityd's "no key available for class". Key items are not covered (their adds keep
    /// errSecNotAvailable, as a report of `SecKeyCreateRandomKey` on a device without a passcode
    /// has it: react-native-ecc issue 4).
    static func bindingProtection<Result>(accessControlGiven: Bool, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as KeychainError where accessControlGiven && error.kind == .notAvailable && error.authenticationCode == .passcodeNotSet {
            throw KeychainError(.authenticationFailed, message: "a whenPasscodeSetThisDeviceOnly access control cannot be bound without a device passcode",
                                authenticationCode: .passcodeNotSet)
        }
    }

    /// The access group of an item added without `kSecAttrAccessGroup`, as iOS reads it back:
    /// the first of the app's `keychain-access-groups` (``Composition/keychainAccessGroups``,
    /// team-prefixed as written there), else the app's application identifier. Apple lists an
    /// app's groups as its keychain-access-groups, then its application identifier, then its
    /// app groups, and takes the first (`kSecAttrAccessGroup`'s documentation), so an app group
    /// (`group.…`, the prefix iOS requires of one) is never the default: an app with app groups
    /// alone stores under its application identifier. Safari's group is passed over where a
    /// composition lists it: no app holds it (``requireEntitlement(_:of:)``).
    static func defaultAccessGroup(of authenticator: Authenticator) -> String {
        authenticator.composition.keychainAccessGroups?.first { $0 != SharedWebCredentials.accessGroup && !isAppGroup($0) }
            ?? applicationIdentifier(of: authenticator)
    }

    /// Whether `group` names an app group (`com.apple.security.application-groups`), which iOS
    /// requires to begin with `group.`, rather than a keychain access group.
    static func isAppGroup(_ group: String) -> Bool { group.hasPrefix("group.") }

    /// The app's application identifier, `<team id>.<bundle id>` (``Composition/teamID``): the
    /// access group every app has, as iOS counts its `application-identifier` entitlement among
    /// its keychain groups.
    static func applicationIdentifier(of authenticator: Authenticator) -> String {
        "\(authenticator.composition.teamID).\(authenticator.appID)"
    }

    /// Refuses an access group in `attributes` that `authenticator`'s composition does not
    /// entitle the app to (``Composition/keychainAccessGroups``): any group when it has no
    /// list; else its application identifier (``applicationIdentifier(of:)``) and the listed
    /// groups. Safari's group, where the shared web credential functions keep their items, is
    /// refused whatever the list says: on iOS no app holds it, and securityd reaches it for
    /// those functions alone, as a client of that group (`SecItemServer.c`).
    static func requireEntitlement(_ attributes: [String: KeychainAttributeValue]?, of authenticator: Authenticator) throws {
        guard let value = attributes?[kSecAttrAccessGroup as String] else { return }
        let group: String?
        switch value {
        case let .string(text): group = text
        case let .data(bytes): group = String(decoding: bytes, as: UTF8.self)
        case .integer, .bool: group = nil
        }
        if group == SharedWebCredentials.accessGroup {
            guard SharedWebCredentials.asSafari else { throw MissingEntitlement() }
            return
        }
        guard let entitled = authenticator.composition.keychainAccessGroups else { return }
        guard let group, group == applicationIdentifier(of: authenticator) || entitled.contains(group) else {
            throw MissingEntitlement()
        }
    }
}
#endif
