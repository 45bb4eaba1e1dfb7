#if !canImport(Darwin)
import Foundation
import Touchstone

/// What makes two items the same item, as iOS decides it: the primary key of Apple's keychain
/// schema (`SecItemSchema.c`). A generic password is its service, account, access group,
/// `kSecAttrSynchronizable` and sync view hint; an internet password its server, account,
/// security domain, protocol, authentication type, port, path, access group,
/// `kSecAttrSynchronizable` and sync view hint. So
/// the same service and account may be stored once per access group, and once synchronizable
/// and once not.
///
/// Touchstone's keychain names an item by service and account. The rest of the primary key,
/// when it is not the default (no group or the default group, not synchronizable, no security
/// domain, protocol, authentication type, port or path), is appended to the stored account
/// after ``identitySeparator`` in one canonical spelling (`ann␀agrp=s:TEAM.shared;sync=1`), so
/// that two items differing only there are two records and an add of the same item again is
/// `errSecDuplicateItem`. Returned attributes and matching see the account without it.
extension KeychainQuery {
    /// Separates an account from the rest of its item's primary key: the keychain's qualifier
    /// separator (the placeholder's character, which no account given to `SecItem*` may hold).
    static let identitySeparator: Character = Keychain.qualifierSeparator

    /// The primary-key attributes besides service and account, by class.
    static func identityKeys(_ itemClass: KeychainItemClass) -> [String] {
        switch itemClass {
        case .genericPassword:
            [kSecAttrAccessGroup as String, kSecAttrSynchronizable as String, kSecAttrSyncViewHint as String]
        case .internetPassword:
            [kSecAttrAccessGroup as String, kSecAttrAuthenticationType as String, kSecAttrPath as String,
             kSecAttrPort as String, kSecAttrProtocol as String, kSecAttrSecurityDomain as String,
             kSecAttrSynchronizable as String, kSecAttrSyncViewHint as String]
        case .key, .certificate, .system:
            []
        }
    }

    /// The value iOS gives a primary-key attribute that an add left out: an internet
    /// password's security domain, authentication type and path come back as the empty string,
    /// its protocol and port as zero; nil for any other attribute. (Apple's schema calls the
    /// first three blobs defaulting to empty, and its `SecDb.c` stores an empty blob as the
    /// SQL text '', which `SecDbItem.c` reads back as a string; KeychainAccess's own iOS tests
    /// expect `kSecAttrPath` as "" when none was given, and iOS returns `kSecAttrSecurityDomain`
    /// as "" — issue 34's measurements.)
    static func schemaDefault(_ key: String, _ itemClass: KeychainItemClass) -> KeychainAttributeValue? {
        guard itemClass == .internetPassword else { return nil }
        switch key {
        case kSecAttrSecurityDomain.swiftString, kSecAttrAuthenticationType.swiftString, kSecAttrPath.swiftString: return .string("")
        case kSecAttrProtocol.swiftString, kSecAttrPort.swiftString: return .integer(0)
        default: return nil
        }
    }

    /// The canonical spelling of the non-default primary-key attributes of an item with
    /// `attributes` (as stored), sorted by name; empty when every one is the default. An item
    /// without an access group is in `defaultGroup` (the group iOS gives it); the app's
    /// application identifier, `ownGroup`, is the default group of the spelling, so that an
    /// item keeps its spelling whatever group a later composition makes the default.
    static func identity(_ itemClass: KeychainItemClass, _ attributes: [String: KeychainAttributeValue],
                         defaultGroup: String, ownGroup: String) -> String {
        var parts: [String] = []
        for key in identityKeys(itemClass) {
            let isGroup = key == kSecAttrAccessGroup as String
            guard let value = attributes[key] ?? (isGroup ? .string(defaultGroup) : nil) else { continue }
            let spelled: String
            switch value {
            case let .string(text):
                if text.isEmpty || (isGroup && text == ownGroup) { continue }
                spelled = "s:" + escapedIdentityValue(text)
            case let .data(bytes):
                if bytes.isEmpty || (isGroup && bytes == Data(ownGroup.utf8)) { continue }
                // A UTF-8 group or path given as Data is the same attribute value as the string.
                if let text = String(data: bytes, encoding: .utf8), Data(text.utf8) == bytes {
                    spelled = "s:" + escapedIdentityValue(text)
                } else {
                    spelled = "d:" + bytes.hexString
                }
            case let .integer(number):
                if number == 0 { continue }
                spelled = "n:\(number)"
            case let .bool(flag):
                if !flag { continue }
                spelled = "1"
            }
            parts.append(key + "=" + spelled)
        }
        return parts.joined(separator: ";")
    }

    /// `text` with `%`, `;` and `=` escaped, so that the parts of an identity never run together.
    private static func escapedIdentityValue(_ text: String) -> String {
        guard text.contains(where: { $0 == "%" || $0 == ";" || $0 == "=" }) else { return text }
        return text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: ";", with: "%3B")
            .replacingOccurrences(of: "=", with: "%3D")
    }

    /// The stored account of an item whose account is stored as `account` (``stored(_:)``)
    /// and whose primary key's other attributes spell `identity`.
    static func storedAccount(_ account: String, identity: String) -> String {
        guard !identity.isEmpty else { return account }
        return account + String(identitySeparator) + identity
    }

    /// The account part of a stored account: without the identity an item's other
    /// primary-key attributes add (the placeholder for an item added without an account).
    static func baseAccount(_ stored: String) -> String {
        guard stored != placeholder, let cut = stored.firstIndex(of: identitySeparator) else { return stored }
        let base = String(stored[..<cut])
        return base.isEmpty ? placeholder : base
    }

    /// Refuses an account that holds ``identitySeparator`` (our limit: the character marks
    /// where the rest of an item's primary key begins; the placeholder alone stands for no
    /// account, as it always did).
    static func requireAccountWithoutSeparator(_ account: String?) throws {
        guard let account, account != placeholder, account.contains(identitySeparator) else { return }
        throw Invalid(reason: "kSecAttrAccount holds U+2400, which Touchstone keeps for itself (our limit)")
    }

    /// Refuses to add (or move to) the item of account `bare` whose other primary-key
    /// attributes spell `identity`, when a record from before item identities holds the same
    /// item under the bare account. `except` is the item being moved, if any.
    static func refuseDuplicateOfEarlierRecord(service: String, bare: String, identity: String, except: String? = nil,
                                               itemClass: KeychainItemClass, in keychain: Keychain, defaultGroup: String) throws {
        guard !identity.isEmpty, bare != except else { return }  // the bare record itself: the keychain refuses
        let earlier: KeychainItemInfo
        do {
            earlier = try keychain.info(service: service, account: bare, itemClass: itemClass)
        } catch let error as KeychainError where error.kind == .itemNotFound {
            return
        }
        let ownGroup = applicationIdentifier(of: keychain.authenticator)
        if Self.identity(itemClass, earlier.attributes, defaultGroup: defaultGroup, ownGroup: ownGroup) == identity {
            throw KeychainError(.duplicateItem, message: "an item \(itemClass) '\(service)' / '\(baseAccount(bare))' already exists")
        }
    }

    /// Where each of `matches` goes under `changes`: its new stored account when the changes
    /// move it — a new account, or a change to the rest of its primary key (its group,
    /// synchronizability, or an internet password's port, path...) —, else nil (it stays
    /// where it is, and keeps its persistent reference). Throws errSecDuplicateItem, before
    /// anything is changed, when two items would become one or an item is there already.
    static func destinations(of matches: [Found], under changes: KeychainItemChanges, in keychain: Keychain,
                             defaultGroup: String) throws -> [String?] {
        let ownGroup = applicationIdentifier(of: keychain.authenticator)
        var taken = Set(matches.map { [$0.service, $0.account] })
        var destinations: [String?] = []
        for match in matches {
            let attributes = changes.applied(to: match.attributes)
            let base = baseAccount(match.account)
            let newBase = changes.account ?? base
            let before = identity(match.itemClass, match.attributes, defaultGroup: defaultGroup, ownGroup: ownGroup)
            let after = identity(match.itemClass, attributes, defaultGroup: defaultGroup, ownGroup: ownGroup)
            let service = changes.service ?? match.service
            let destination = newBase != base || after != before ? storedAccount(newBase, identity: after) : match.account
            guard destination != match.account || service != match.service else {
                destinations.append(nil)
                continue
            }
            guard taken.insert([service, destination]).inserted else {
                throw KeychainError(.duplicateItem, message: "the update would make two items one, or move one onto another")
            }
            if (try? keychain.info(service: service, account: destination, itemClass: match.itemClass)) != nil {
                throw KeychainError(.duplicateItem, message: "an item \(match.itemClass) '\(service)' / '\(baseAccount(newBase))' already exists")
            }
            try refuseDuplicateOfEarlierRecord(service: service, bare: newBase, identity: after,
                                               except: service == match.service ? match.account : nil,
                                               itemClass: match.itemClass, in: keychain, defaultGroup: defaultGroup)
            destinations.append(destination == match.account ? nil : destination)
        }
        return destinations
    }
}
#endif
