#if !canImport(Darwin)
import Foundation
import Logging
import Touchstone

/// What the keychain needs from the `LAContext` given as `kSecUseAuthenticationContext`.
/// `LocalAuthentication` conforms `LAContext` to it (this module sits below that one, as
/// Apple's Security sits below LocalAuthentication).
package protocol KeychainAuthenticationContext: AnyObject, Sendable {
    /// The engine context; nil when the default device could not be composed.
    var touchstoneContext: AuthenticationContext? { get }
    /// The reason a keychain prompt shows.
    var localizedReason: String { get }
}

/// `kSecMatchLimit` of a lookup, as iOS's securityd reads it (`SecDbQuery.c`, `SecItemDb.c`):
/// `kSecMatchLimitOne` (the default) or 1 returns the first match itself; `kSecMatchLimitAll`,
/// or -1 (`kSecMatchUnlimited`), every match, and a number n above 1 at most n, in an array;
/// 0 finds nothing (`LIMIT 0`: errSecItemNotFound). A number below -1 is errSecParam (our
/// rule: securityd's loop then stops after one match, which it returns in an array).
struct MatchLimit: Equatable {
    /// At most this many matches; nil for all of them.
    let count: Int?

    /// No key: one match.
    static let one = MatchLimit(count: 1)

    private init(count: Int?) { self.count = count }

    /// The limit `dictionary` asks for; errSecParam for a value that is no limit.
    init(_ dictionary: [String: Any]) throws {
        switch dictionary[kSecMatchLimit as String] {
        case nil: self = .one
        case let text as String where text == kSecMatchLimitOne as String: self = .one
        case let text as String where text == kSecMatchLimitAll as String: count = nil
        case let raw?:
            guard let count = KeychainQuery.integer(raw), count >= -1 else {
                throw KeychainQuery.Invalid(reason: "unknown kSecMatchLimit '\(KeychainQuery.shown(raw))'")
            }
            self.count = count == -1 ? nil : count
        }
    }

    /// Whether the result is an array (every limit but one).
    var returnsArray: Bool { count != 1 }

    /// The matches this limit lets through, in order.
    func cap<Match>(_ matches: [Match]) -> [Match] {
        count.map { Array(matches.prefix($0)) } ?? matches
    }
}

/// A `SecItem*` dictionary, read into the terms of Touchstone's keychain.
///
/// Items are keyed by class, service (`kSecAttrService`, or `kSecAttrServer` for internet
/// passwords) and account. Service and account may be `String` or `Data` and match bytewise
/// (a `Data` value that is UTF-8 names the same item as that string). An item added without a
/// service or account is stored under a placeholder and returned as empty `Data` (an empty
/// string given as such comes back as one), so it behaves as Apple's item with an empty service
/// or account. Every other attribute of
/// ``storedKeys`` is stored with the item, matched when a query names it, and returned with
/// `kSecReturnAttributes`.
struct KeychainQuery {
    /// The dictionary is malformed: `errSecParam`.
    struct Invalid: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// A class Touchstone does not simulate yet (keys, certificates, identities): every call is
    /// `errSecUnimplemented`.
    struct Unsimulated: Error {}

    /// A `kSecClass` string that names no class, or a persistent reference to an item of
    /// another class than the query's (`errSecNoSuchClass`, as securityd's `query_get_class`
    /// and `query_set_class` answer them; a class that is no string is errSecParam).
    struct NoSuchClass: Error, CustomStringConvertible {
        let description: String
    }

    /// An access group the app is not entitled to (`errSecMissingEntitlement`).
    struct MissingEntitlement: Error {}

    /// An attribute password items do not have, e.g. a certificate's `kSecAttrSubject`
    /// (`errSecNoSuchAttr`, as iOS answers an attribute outside the item's class).
    struct NoSuchAttribute: Error, CustomStringConvertible {
        let key: String
        var description: String { "attribute \(key) is not an attribute of passwords" }
    }

    /// `kSecUseAuthenticationUI`.
    enum AuthenticationUI {
        case allow, fail, skip

        /// `kSecUseAuthenticationUI` of `dictionary`, read as iOS reads it (`SecItemAuthCopyParams`,
        /// `SecItem.m`): Skip and Fail are honoured, any other value allows the UI; without one,
        /// the deprecated `kSecUseNoAuthenticationUI` true is `.fail`.
        init(_ dictionary: [String: Any]) throws {
            if let value = dictionary[kSecUseAuthenticationUI as String] {
                switch value as? String {
                case kSecUseAuthenticationUISkip.swiftString?: self = .skip
                case kSecUseAuthenticationUIFail.swiftString?: self = .fail
                default: self = .allow
                }
            } else {
                let noUI = try dictionary[kSecUseNoAuthenticationUI as String].map { try KeychainQuery.bool($0, kSecUseNoAuthenticationUI as String) }
                self = noUI == true ? .fail : .allow
            }
        }
    }

    /// `kSecAttrSynchronizable` in a query, for every class. Whether an item synchronizes is
    /// part of its primary key (`SecItemSchema.c`: `v6sync` is a key column of passwords, keys
    /// and certificates). A query that names none matches only items that do not
    /// (`SecDbQuery.c` adds `kSecAttrSynchronizable = false`); a lookup by persistent reference
    /// finds its item either way.
    enum Synchronizable: Equatable {
        case no, yes, any

        /// The query's: `kSecAttrSynchronizableAny`, a boolean, or absent (`byReference`: the
        /// query names a `kSecValuePersistentRef`); errSecParam for anything else.
        init(_ dictionary: [String: Any], byReference: Bool) throws {
            guard let raw = dictionary[kSecAttrSynchronizable as String] else {
                self = byReference ? .any : .no
                return
            }
            if let text = raw as? String, text == kSecAttrSynchronizableAny as String {
                self = .any
            } else {
                self = try KeychainQuery.bool(raw, kSecAttrSynchronizable as String) ? .yes : .no
            }
        }

        /// Whether an item that does (or does not) synchronize matches.
        func allows(_ isSynchronizable: Bool) -> Bool {
            switch self {
            case .any: true
            case .yes: isSynchronizable
            case .no: !isSynchronizable
            }
        }

        /// Whether an item with these stored attributes matches.
        func allows(_ attributes: [String: KeychainAttributeValue]) -> Bool {
            allows(Self.synchronizes(attributes))
        }

        /// Whether an item with these stored attributes synchronizes (`kSecAttrSynchronizable`
        /// stored as true; an item that does not keeps none).
        static func synchronizes(_ attributes: [String: KeychainAttributeValue]) -> Bool {
            attributes[kSecAttrSynchronizable as String] == .bool(true)
        }
    }

    /// One matched item.
    struct Found {
        var itemClass: KeychainItemClass
        var service: String
        var account: String
        var accessControl: AccessControl
        var attributes: [String: KeychainAttributeValue]
        var creationDate: Timestamp?
        var modificationDate: Timestamp?
        /// False for an item added without a value: it reads back with no `kSecValueData`.
        var hasValue: Bool

        init(_ info: KeychainItemInfo) {
            hasValue = info.hasValue
            itemClass = info.itemClass
            service = info.service
            account = info.account
            accessControl = info.accessControl
            attributes = info.attributes
            creationDate = info.creationDate
            modificationDate = info.modificationDate
        }

        /// Whether any lookup that matches the item opens it, whatever it returns: its access
        /// control asks for the user or for the application password, so securityd decrypts it
        /// (`ks_decrypt_data`: its ACL has constraints).
        var isOpenedByAnyLookup: Bool {
            accessControl.flags.requiresAuthentication || accessControl.flags.contains(.applicationPassword)
        }
    }

    /// Stands for a missing service or account.
    static let placeholder = "\u{2400}"
    /// Prefixes a `Data` service or account that is not UTF-8 (then hex-encoded).
    static let binaryPrefix = "\u{2401}"

    /// The descriptive attributes stored with an item, matched and returned, and the type each
    /// is kept as.
    static let storedKeys: [String: AttributeType] = [
        kSecAttrLabel as String: .text, kSecAttrDescription as String: .text, kSecAttrComment as String: .text,
        kSecAttrGeneric as String: .text, kSecAttrAccessGroup as String: .text, kSecAttrSecurityDomain as String: .text,
        kSecAttrPath as String: .text, kSecAttrProtocol as String: .integer, kSecAttrAuthenticationType as String: .text,
        kSecAttrPort as String: .integer, kSecAttrType as String: .integer, kSecAttrCreator as String: .integer,
        kSecAttrIsInvisible as String: .bool, kSecAttrIsNegative as String: .bool,
        kSecAttrSynchronizable as String: .bool, kSecAttrSyncViewHint as String: .text,
    ]

    /// How an attribute's value is read.
    enum AttributeType {
        /// `String` or `Data`, kept as given.
        case text
        /// A number (`Int`, `NSNumber`) or a four-character `String`, kept as given.
        case integer
        /// `Bool` or a number.
        case bool
    }

    /// The class; nil never (unsimulated classes throw ``Unsimulated``).
    let itemClass: KeychainItemClass
    let service: String?
    let account: String?
    let value: Data?
    let accessControl: AccessControl?
    /// `kSecAttrAccessible` given alone (matched in queries).
    let accessibility: Accessibility?
    /// Descriptive attributes, plus a `Data` service or account kept as given.
    let attributes: [String: KeychainAttributeValue]
    let synchronizable: Synchronizable
    let returnData: Bool
    let returnAttributes: Bool
    /// `kSecReturnPersistentRef`.
    let returnPersistentRef: Bool
    /// `kSecValuePersistentRef`: nil when the query names none.
    let persistentRef: PersistentReference?
    /// `kSecMatchHostOrSubdomainOfHost` (iOS 18): only internet passwords whose server is this
    /// host or ends in "." and it.
    let hostOrSubdomain: String?
    let limit: MatchLimit
    let context: (any KeychainAuthenticationContext)?
    let prompt: String?
    let authenticationUI: AuthenticationUI

    init(_ cfDictionary: CFDictionary) throws {
        try self.init(normalized: try Self.normalize(cfDictionary))
    }

    /// The query of a dictionary already read by ``normalize(_:)``.
    init(normalized dictionary: [String: Any]) throws {
        let referenceBytes = try dictionary[kSecValuePersistentRef as String].map { raw in
            guard let bytes = Self.data(raw) else { throw Invalid(reason: "kSecValuePersistentRef must be Data") }
            return bytes
        }
        if let classValue = dictionary[kSecClass as String] {
            switch try Self.string(classValue, kSecClass as String) {
            case kSecClassGenericPassword.swiftString: itemClass = .genericPassword
            case kSecClassInternetPassword.swiftString: itemClass = .internetPassword
            case kSecClassKey.swiftString, kSecClassCertificate.swiftString, kSecClassIdentity.swiftString: throw Unsimulated()
            case let other: throw NoSuchClass(description: "kSecClass '\(other)' is no keychain class")
            }
        } else if let referenceBytes, let named = PersistentReference.itemClass(of: referenceBytes) {
            // As on iOS: a query by persistent reference may leave the class out; the
            // reference names it. (A key's or a certificate's reaches here only in
            // SecItemUpdate, which they do not take: errSecUnimplemented, as with their class.)
            guard named != .key, named != .certificate else { throw Unsimulated() }
            itemClass = named
        } else {
            throw Invalid(reason: referenceBytes == nil ? "kSecClass is missing"
                : "kSecClass is missing and kSecValuePersistentRef is not a reference to an item")
        }
        try Self.refuseUnsimulatedKeys(dictionary)
        try Self.checkItemList(dictionary)
        // As iOS's securityd: issuers are matched for certificates and identities only
        // (errSecUnsupportedOperation, which is errSecUnimplemented, for the rest).
        if dictionary[kSecMatchIssuers as String] != nil { throw Unsimulated() }
        let queriedClass = itemClass
        hostOrSubdomain = try dictionary[kSecMatchHostOrSubdomainOfHost as String].map { raw in
            // As iOS 18's securityd: a string, and for internet passwords only
            // (errSecUnsupportedOperation, which is errSecUnimplemented).
            guard let host = raw as? String else { throw Invalid(reason: "kSecMatchHostOrSubdomainOfHost must be a string") }
            guard queriedClass == .internetPassword else { throw Unsimulated() }
            return host
        }
        persistentRef = try referenceBytes.map { try PersistentReference(parsing: $0, itemClass: queriedClass) }
        let serviceKey = (itemClass == .internetPassword ? kSecAttrServer : kSecAttrService) as String
        var attributes: [String: KeychainAttributeValue] = [:]
        service = try dictionary[serviceKey].map { try Self.keyPart($0, serviceKey, into: &attributes) }
        account = try dictionary[kSecAttrAccount as String].map { try Self.keyPart($0, kSecAttrAccount as String, into: &attributes) }
        if let raw = dictionary[kSecValueData as String] {
            guard let data = Self.data(raw) else { throw Invalid(reason: "kSecValueData must be Data") }
            value = data
        } else {
            value = nil
        }
        (accessControl, accessibility) = try Self.protection(dictionary)
        synchronizable = try Synchronizable(dictionary, byReference: referenceBytes != nil)
        for (key, type) in Self.storedKeys where key != kSecAttrSynchronizable as String {
            guard let raw = dictionary[key] else { continue }
            attributes[key] = try Self.attribute(raw, key, type)
        }
        self.attributes = attributes
        returnData = try dictionary[kSecReturnData as String].map { try Self.bool($0, kSecReturnData as String) } ?? false
        returnAttributes = try dictionary[kSecReturnAttributes as String].map { try Self.bool($0, kSecReturnAttributes as String) } ?? false
        returnPersistentRef = try dictionary[kSecReturnPersistentRef as String]
            .map { try Self.bool($0, kSecReturnPersistentRef as String) } ?? false
        limit = try MatchLimit(dictionary)
        context = try Self.context(dictionary)
        prompt = try dictionary[kSecUseOperationPrompt as String].map { try Self.string($0, kSecUseOperationPrompt as String) }
        authenticationUI = try AuthenticationUI(dictionary)
    }

    /// The changes of `SecItemUpdate`'s `attributesToUpdate`: value, protection, service /
    /// account (renaming the item) and any stored attribute.
    static func changes(_ cfDictionary: CFDictionary, itemClass: KeychainItemClass) throws -> KeychainItemChanges {
        let dictionary = try normalize(cfDictionary)
        if dictionary[kSecClass as String] != nil { throw Invalid(reason: "kSecClass cannot be updated") }
        if let key = dictionary.keys.first(where: UnsimulatedKeys.notPasswordAttributes.contains) {
            throw NoSuchAttribute(key: key)
        }
        var changes = KeychainItemChanges()
        var attributes: [String: KeychainAttributeValue] = [:]
        let serviceKey = (itemClass == .internetPassword ? kSecAttrServer : kSecAttrService) as String
        changes.service = try dictionary[serviceKey].map { try stored(keyPart($0, serviceKey, into: &attributes)) }
        changes.account = try dictionary[kSecAttrAccount as String].map {
            try stored(keyPart($0, kSecAttrAccount as String, into: &attributes))
        }
        // A renamed item forgets how its old name was typed (a `Data` name is kept again above).
        if changes.service != nil { changes.removedAttributes.insert(serviceKey) }
        if changes.account != nil { changes.removedAttributes.insert(kSecAttrAccount as String) }
        if let raw = dictionary[kSecValueData as String] {
            guard let data = data(raw) else { throw Invalid(reason: "kSecValueData must be Data") }
            changes.value = data
        }
        let (accessControl, accessibility) = try protection(dictionary)
        if let accessibility {
            changes.accessControl = try AccessControl(accessibility)
        } else {
            changes.accessControl = accessControl
        }
        for (key, type) in storedKeys {
            guard let raw = dictionary[key] else { continue }
            attributes[key] = try attribute(raw, key, type)
        }
        changes.attributes = attributes.isEmpty ? nil : attributes
        return changes
    }

    /// The service an added item is stored under.
    var storedService: String { Self.stored(service) }
    /// The attributes an added item keeps: the descriptive ones, `kSecAttrSynchronizable`, and
    /// the access group iOS gives an item added without one when that is not the app's
    /// application identifier, `ownGroup` (so the item stays in it whatever group a later
    /// composition makes the default).
    func storedAttributes(defaultGroup: String, ownGroup: String) -> [String: KeychainAttributeValue] {
        var stored = attributes
        if synchronizable == .yes { stored[kSecAttrSynchronizable as String] = .bool(true) }
        if stored[kSecAttrAccessGroup as String] == nil, defaultGroup != ownGroup {
            stored[kSecAttrAccessGroup as String] = .string(defaultGroup)
        }
        return stored
    }

    /// The prompt's reason: `kSecUseOperationPrompt`, else the context's `localizedReason`,
    /// else the engine's default ("Access \"<service>\"").
    var reason: String? {
        if let prompt, !prompt.isEmpty { return prompt }
        if let reason = context?.localizedReason, !reason.isEmpty { return reason }
        return nil
    }

    /// The items of the query's class whose service, account, accessibility and every given
    /// attribute match. `defaultGroup` is the group of items stored without one (``defaultAccessGroup(of:)``).
    func matches(in keychain: Keychain, defaultGroup: String, includingInvalidated: Bool = false) throws -> [Found] {
        let reference = persistentRef
        let service = reference?.service ?? service.map(Self.stored)
        let items: [KeychainItemInfo]
        if let reference {
            // A persistent reference names one item: its record is read alone.
            do {
                items = [try keychain.info(service: reference.service, account: reference.account, itemClass: itemClass)]
            } catch let error as KeychainError where error.kind == .itemNotFound {
                items = []
            }
        } else if let service, let account = account.map(Self.stored) {
            // A service and an account: that account's records alone (one per access group and
            // synchronizability, and per port, path... for an internet password).
            items = try keychain.items(service: service, account: account, itemClass: itemClass)
        } else {
            // In the order the items were added, as iOS returns them (items from before the
            // order was kept first, by name).
            items = try keychain.items(service: service, itemClass: itemClass)
                .sorted { ($0.insertionOrder ?? 0, $0.service, $0.account) < ($1.insertionOrder ?? 0, $1.service, $1.account) }
        }
        return items.compactMap { info in
            guard info.itemClass == itemClass, account.map(Self.stored).map({ $0 == Self.baseAccount(info.account) }) ?? true,
                  reference.map({ $0.service == info.service && $0.account == info.account }) ?? true,
                  includingInvalidated || !info.isInvalidated,
                  // Safari's shared credentials are out of an app's sight (securityd lists them
                  // only to the shared web credential functions).
                  SharedWebCredentials.asSafari || info.attributes[kSecAttrAccessGroup as String] != .string(SharedWebCredentials.accessGroup),
                  accessibility.map({ $0 == info.accessControl.accessibility }) ?? true,
                  hostOrSubdomain.map({ info.service == $0 || info.service.hasSuffix("." + $0) }) ?? true
            else { return nil }
            guard synchronizable.allows(info.attributes) else { return nil }
            for (key, wanted) in attributes where key != kSecAttrAccount as String && key != kSecAttrService as String
                && key != kSecAttrServer as String {
                let have = key == kSecAttrAccessGroup as String
                    ? info.attributes[key] ?? .string(defaultGroup) : info.attributes[key] ?? Self.schemaDefault(key, itemClass)
                guard Self.sameBytes(have, wanted) else { return nil }
            }
            return Found(info)
        }
    }

    /// Whether the call returns anything (`kSecReturnData`, `…Attributes` or `…PersistentRef`).
    var returnsSomething: Bool { returnData || returnAttributes || returnPersistentRef }

    /// The `result` object Apple returns: `Data` (the value, or the persistent reference when
    /// only that was asked for), a dictionary when attributes or more than one thing was asked
    /// for (attributes, `kSecValueData`, `kSecValuePersistentRef`), or an array of either.
    func shape(_ found: [(Found, Data?)], asArray: Bool, defaultGroup: String) -> CFTypeRef? {
        let asDictionary = returnAttributes || (returnData && returnPersistentRef)
        let shaped: [Any] = found.map { item, data in
            let reference = PersistentReference(item).bytes
            guard asDictionary else { return returnPersistentRef ? reference : data ?? Data() }
            var attributes = returnAttributes ? Self.attributes(of: item, defaultGroup: defaultGroup) : [:]
            // An item added without a value has no kSecValueData, not an empty one (as on iOS).
            if returnData, let data, item.hasValue { attributes[kSecValueData as String] = data }
            if returnPersistentRef { attributes[kSecValuePersistentRef as String] = reference }
            return attributes
        }
        if asArray { return shaped as NSArray }
        return shaped.first.map { $0 as AnyObject }
    }

    /// The columns iOS's keychain schema keeps for every item and returns with its attributes
    /// (`SecItemSchema.c`, `SecDbItem.c`): whether it synchronizes and its tombstone flag
    /// (`kSecAttrTombstone`, always 0 here) as numbers, so `as? Bool` and `as? Int` both read
    /// them, and its multi-user id (`kSecAttrMultiUser`, the user of a shared iPad) as empty
    /// data. (With `kSecReturnData` too, iOS also returns the item's `sha1`, a digest of its
    /// DER-encoded attributes: not given here.)
    static func schemaColumns(synchronizes: Bool) -> [String: Any] {
        [kSecAttrSynchronizable as String: NSNumber(value: Int32(synchronizes ? 1 : 0)),
         "tomb": NSNumber(value: Int32(0)), "musr": Data()]
    }

    /// The attributes of an item as `kSecReturnAttributes` gives them.
    static func attributes(of item: Found, defaultGroup: String) -> [String: Any] {
        var attributes: [String: Any] = [
            kSecClass as String: (item.itemClass == .internetPassword ? kSecClassInternetPassword : kSecClassGenericPassword) as String,
            kSecAttrAccessible as String: accessibleValue(item.accessControl.accessibility) as String,
            kSecAttrAccessGroup as String: defaultGroup,
            kSecAttrSynchronizable as String: false,
        ]
        // The rest of the item's primary key, which iOS stores with a default when the add
        // left it out, beside what it was given.
        var stored = item.attributes
        for key in identityKeys(item.itemClass) where stored[key] == nil {
            stored[key] = schemaDefault(key, item.itemClass)
        }
        for (key, value) in stored { attributes[key] = value.objectValue }
        let serviceKey = (item.itemClass == .internetPassword ? kSecAttrServer : kSecAttrService) as String
        if item.attributes[serviceKey] == nil { attributes[serviceKey] = item.service == placeholder ? Data() : item.service }
        if item.attributes[kSecAttrAccount as String] == nil {
            let account = baseAccount(item.account)
            attributes[kSecAttrAccount as String] = account == placeholder ? Data() : account
        }
        if let date = item.creationDate { attributes[kSecAttrCreationDate as String] = date.foundationDate }
        if let date = item.modificationDate { attributes[kSecAttrModificationDate as String] = date.foundationDate }
        // Every item's, flags or none: iOS 11.3 and later return it for each item.
        attributes[kSecAttrAccessControl as String] = SecAccessControl(item.accessControl)
        return withSchemaColumns(attributes)
    }

    /// `attributes` with the schema's own columns (``schemaColumns(synchronizes:)``), whose
    /// `kSecAttrSynchronizable` says whether the item synchronizes.
    static func withSchemaColumns(_ attributes: [String: Any]) -> [String: Any] {
        let synchronizes = (attributes[kSecAttrSynchronizable as String] as? Bool) ?? false
        return attributes.merging(schemaColumns(synchronizes: synchronizes)) { $1 }
    }
}

extension Timestamp {
    /// The same instant as a Foundation `Date`.
    var foundationDate: Date {
        let parts = sinceEpoch.components
        return Date(timeIntervalSince1970: Double(parts.seconds) + Double(parts.attoseconds) / 1e18)
    }
}
#endif
#if !canImport(Darwin)
extension NSString {
    /// The Swift string, for `case` patterns (where `kSecX as String` would be a cast pattern).
    var swiftString: String { self as String }
}
#endif
