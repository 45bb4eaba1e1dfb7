#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone

/// RSA, P-384 and P-521 keys kept in the keychain (``InMemoryKey``s made with
/// `kSecAttrIsPermanent`, or added with `SecItemAdd`): keychain items of class `.key` under one
/// service, whose value is the key's external representation (sealed at rest like every item)
/// and whose attributes are its tag, label, application label, type, class and size. Finding
/// one reads its value, so its data protection applies to the lookup, as iOS applies it to key
/// lookups. Access-control flags that ask for the user guard the item, as a software P-256
/// key's do (``KeyItems/accessControlGuardsItem(_:)``): a lookup that finds it authenticates
/// first, and the key it returns is used in memory without asking again. Our limit:
/// `privateKeyUsage` on such a key is errSecUnimplemented.
enum StoredInMemoryKeys {
    /// The service every stored in-memory key is an item of.
    static let service = "touchstone.keys"

    /// A stored key and its keychain item.
    struct Found {
        let key: any InMemoryKey
        let item: KeychainItemInfo
        var tag: Data? { item.attributes[kSecAttrApplicationTag as String]?.dataValue }
        var label: String? { item.attributes[kSecAttrLabel as String]?.stringValue }
        var applicationLabel: Data { item.attributes[kSecAttrApplicationLabel as String]?.dataValue ?? Data() }
    }

    /// The accessibility an item that makes no key takes from `access` (`kSecAttrAccessible`,
    /// or an access control without flags); errSecUnimplemented for access-control flags.
    static func accessibility(_ access: AccessControl?) throws -> Accessibility {
        guard let access else { return .whenUnlocked }
        guard access.flags.isEmpty else {
            throw SecKeyCall.Failure(errSecUnimplemented, "key items without a key are stored without access-control flags here (kSecAttrAccessible alone)")
        }
        return access.accessibility
    }

    /// The protection a stored in-memory key takes from `access` (`kSecAttrAccessible` or
    /// `kSecAttrAccessControl`; whenUnlocked without either). Flags that ask for the user guard
    /// its item; `privateKeyUsage`, a Secure Enclave key's flag, is errSecUnimplemented here.
    static func protection(_ access: AccessControl?) throws -> AccessControl {
        guard let access else { return try AccessControl(.whenUnlocked) }
        guard !access.flags.contains(.privateKeyUsage) else {
            throw SecKeyCall.Failure(errSecUnimplemented, "RSA, P-384 and P-521 keys take no privateKeyUsage here (it is the Secure Enclave's)")
        }
        return access
    }

    /// errSecParam for a `kSecAttrTokenID` in `SecKeyCreateRandomKey`'s parameters for an
    /// in-memory key: the Secure Enclave holds only P-256 keys (checked before the size).
    static func refuseToken(_ parameters: [String: Any]) throws {
        guard parameters[kSecAttrTokenID as String] == nil else {
            throw SecKeyCall.Failure(errSecParam, "the Secure Enclave holds only P-256 EC keys")
        }
    }

    /// `SecKeyCreateRandomKey`'s end for an in-memory key pair: stores each half its parameters
    /// make permanent (`kSecAttrIsPermanent` at the top, or under `kSecPrivateKeyAttrs` /
    /// `kSecPublicKeyAttrs`, with the tag, label and protection given there: ``protection(_:)``).
    static func created(_ key: any InMemoryKey, parameters: [String: Any], call: inout SecKeyCall) throws -> SecKey {
        for (half, nestedName) in [(key, kSecPrivateKeyAttrs as String), (key.publicOnly, kSecPublicKeyAttrs as String)] {
            let query = try KeyQuery(KeyQuery.scope(parameters, nested: nestedName))
            let access = try protection(query.accessControl)
            guard query.isPermanent == true else { continue }
            let authenticator = try call.authenticator(query.context)
            try query.requireEntitlement(of: authenticator)
            try store(half, tag: query.tag, label: query.label, applicationLabel: nil, access: access,
                      synchronizable: query.synchronizable == .yes, on: authenticator)
        }
        return SecKey(.inMemory(key))
    }

    /// The in-memory key a `SecItemAdd` of `kSecClassKey` adds: a `kSecValueRef` RSA, P-384 or
    /// P-521 key, or `kSecValueData` with `kSecAttrKeyTypeRSA` (PKCS#1) or an EC key of a
    /// P-384 / P-521 length (X9.63); nil for the rest (P-256 keys, which the key store keeps).
    static func keyToAdd(_ query: KeyQuery, _ dictionary: [String: Any]) throws -> (any InMemoryKey)? {
        if let ref = query.valueRef { return ref.inMemoryKey }
        guard let raw = dictionary[kSecValueData as String] else { return nil }
        guard let data = KeyQuery.data(raw) else { throw KeychainQuery.Invalid(reason: "kSecValueData must be Data") }
        return try inMemoryKey(data, type: query.keyType, isPrivate: query.keyClass == kSecAttrKeyClassPrivate as String)
    }

    /// Stores `key` (as an item that synchronizes when `synchronizable`); errSecDuplicateItem
    /// when this app stored the same half of it already.
    @discardableResult
    static func store(_ key: any InMemoryKey, tag: Data?, label: String?, applicationLabel: Data?,
                      access: AccessControl, synchronizable: Bool = false, on authenticator: Authenticator) throws -> [String: Any] {
        let label = label ?? ""
        let applicationLabel = applicationLabel ?? Data(Insecure.SHA1.hash(data: key.publicKeyData))
        if key.isPrivate {
            try requireNewPrimaryKey(applicationLabel: applicationLabel, tag: tag, keyType: key.keyType, bits: key.bits,
                                     synchronizable: synchronizable, on: authenticator)
        }
        var attributes: [String: KeychainAttributeValue] = [
            kSecAttrApplicationLabel as String: .data(applicationLabel),
            kSecAttrKeyType as String: .string(key.keyType as String),
            kSecAttrKeyClass as String: .string((key.isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic) as String),
            kSecAttrKeySizeInBits as String: .integer(Int64(key.bits)),
        ]
        if let tag { attributes[kSecAttrApplicationTag as String] = .data(tag) }
        if !label.isEmpty { attributes[kSecAttrLabel as String] = .string(label) }
        if synchronizable { attributes[kSecAttrSynchronizable as String] = .bool(true) }
        try authenticator.keychain.add(key.externalRepresentation, service: service, account: account(of: key), itemClass: .key,
                                       accessControl: access, attributes: attributes)
        return Self.attributes(of: SecKey(.inMemory(key)), tag: tag, label: label.isEmpty ? nil : label,
                               applicationLabel: applicationLabel, access: access, synchronizes: synchronizable)
    }

    /// `SecItemAdd` of a key item that makes no `SecKey`: with neither `kSecValueRef` nor
    /// `kSecValueData` (`value` nil: as on iOS, where the key table's data column may be empty,
    /// an item of its attributes alone), or a symmetric key's bytes (`kSecAttrKeyClassSymmetric`
    /// with `kSecValueData`). Its tag, label, application label, type, class and size are
    /// stored; errSecDuplicateItem when one with the same attributes (but the label) is there.
    /// Lookups return its attributes and bytes, never a key.
    /// Returns the item's attributes and its account.
    @discardableResult
    static func storeWithoutKey(_ query: KeyQuery, value: Data?, bits: Int?, accessibility: Accessibility,
                                on authenticator: Authenticator) throws -> (attributes: [String: Any], account: String) {
        var attributes: [String: KeychainAttributeValue] = [:]
        if let tag = query.tag { attributes[kSecAttrApplicationTag as String] = .data(tag) }
        if let label = query.label, !label.isEmpty { attributes[kSecAttrLabel as String] = .string(label) }
        if let applicationLabel = query.applicationLabel { attributes[kSecAttrApplicationLabel as String] = .data(applicationLabel) }
        if let type = query.keyType { attributes[kSecAttrKeyType as String] = .string(type) }
        if let keyClass = query.keyClass { attributes[kSecAttrKeyClass as String] = .string(keyClass) }
        if let bits { attributes[kSecAttrKeySizeInBits as String] = .integer(Int64(bits)) }
        if query.synchronizable == .yes { attributes[kSecAttrSynchronizable as String] = .bool(true) }
        // The item is its attributes (Apple's key primary key: class, application label, tag,
        // type, size...; not the label): the same ones again are a duplicate.
        // The label is not part of Apple's key primary key.
        let account = primaryKeyAccount(attributes.keys.sorted().filter { $0 != kSecAttrLabel as String }, of: attributes) + ".attributes"
        try authenticator.keychain.add(value, service: service, account: account, itemClass: .key,
                                       accessControl: try AccessControl(accessibility), attributes: attributes)
        return (attributesOnly(attributes, accessibility: accessibility), account)
    }

    /// The attributes `SecItemCopyMatching` gives for a key item that makes no key.
    static func attributesOnly(_ stored: [String: KeychainAttributeValue], accessibility: Accessibility) -> [String: Any] {
        var attributes = returnedAttributes(stored, accessibility: accessibility, itemClass: kSecClassKey)
        attributes[kSecAttrIsPermanent as String] = true
        return attributes
    }

    /// Apple's key primary key (`SecItemSchema.c`: class, application label, tag, type, size,
    /// token, within the app's group), not the key's bytes: a private key added under the application
    /// label and tag of one stored already is errSecDuplicateItem, even if it is another key.
    /// (`SecItem.m` lets the caller's `kSecAttrApplicationLabel` win over the key's own.) The
    /// stored items compared are this app's private keys of every kind: the P-256 keys of its
    /// key store, the RSA, P-384 and P-521 items, and the items of attributes alone. The caller
    /// passes the label the item will keep: a software key takes the add's, a Secure Enclave key
    /// its own. Whether it synchronizes is part of the key too (`v6sync`).
    static func requireNewPrimaryKey(applicationLabel: Data, tag: Data?, keyType: CFString, bits: Int, isToken: Bool = false,
                                     synchronizable: Bool, on authenticator: Authenticator) throws {
        let duplicate = KeychainError(.duplicateItem, message: "a private key with this application label and tag is stored already")
        let keyType = keyType as String
        if keyType == kSecAttrKeyTypeECSECPrimeRandom as String, bits == 256 {
            // The token is part of the primary key too (`tkid`): a Secure Enclave key and a
            // software key never collide.
            for key in try authenticator.keys.keys(includingInvalidated: true)
            where key.applicationLabel == applicationLabel && key.applicationTag == tag && key.isSoftware == !isToken
                && key.isSynchronizable == synchronizable {
                throw duplicate
            }
        }
        guard !isToken else { return }
        for item in try authenticator.keychain.items(service: service, itemClass: .key) {
            let attributes = item.attributes
            if attributes[kSecAttrKeyClass as String]?.stringValue == kSecAttrKeyClassPrivate as String,
               attributes[kSecAttrKeyType as String]?.stringValue == keyType,
               attributes[kSecAttrKeySizeInBits as String]?.integerValue == Int64(bits),
               attributes[kSecAttrApplicationLabel as String]?.dataValue == applicationLabel,
               attributes[kSecAttrApplicationTag as String]?.dataValue == tag,
               KeychainQuery.Synchronizable.synchronizes(attributes) == synchronizable {
                throw duplicate
            }
        }
    }

    /// One item per key half: the SHA-1 of the public key, and which half.
    static func account(of key: any InMemoryKey) -> String {
        Data(Insecure.SHA1.hash(data: key.publicKeyData)).hexString + (key.isPrivate ? ".private" : ".public")
    }

    /// The items of the stored keys `query` selects (with `kSecValueRef`, only that key's),
    /// without reading their values.
    static func matchingItems(_ query: KeyQuery, on authenticator: Authenticator) throws -> [KeychainItemInfo] {
        let only = query.valueRef.flatMap { ref in ref.inMemoryKey.map(account(of:)) }
        return try authenticator.keychain.items(service: service, itemClass: .key).filter { item in
            query.matches(item) && (query.valueRef == nil || item.account == only)
                && query.referenceAllows(KeyQuery.reference(toItem: item.account))
        }
    }

    /// The stored keys `query` selects (with `kSecValueRef`, only that key), private ones
    /// first, at most `readLimit` of them (nil: all); their values are read, so a locked device
    /// refuses (errSecInteractionNotAllowed). A key whose access control guards its item is read
    /// through the lookup's `opening` (one prompt for every key the lookup opens, with its
    /// `kSecUseOperationPrompt`), and left out without one (`kSecUseAuthenticationUISkip`;
    /// identities, our limit). Items that make no key
    /// (``storeWithoutKey(_:value:bits:accessibility:on:)``): ``matchingWithoutKey(_:on:)`` lists them.
    static func matching(_ query: KeyQuery, on authenticator: Authenticator, opening: KeyItems.LookupOpening?,
                         readLimit: Int? = nil) throws -> [Found] {
        // As for P-256 keys: one invalidated by an enrollment change (biometryCurrentSet) is
        // not found; a delete still removes it (``matchingItems(_:on:)``).
        let items = try matchingItems(query, on: authenticator).filter { !makesNoKey($0) && !$0.isInvalidated }
        let isPrivate = { (item: KeychainItemInfo) in item.attributes[kSecAttrKeyClass as String]?.stringValue == kSecAttrKeyClassPrivate as String }
        let reason = KeyItems.reason(prompt: query.prompt, context: query.context)
        var found: [Found] = []
        for item in items.filter(isPrivate) + items.filter({ !isPrivate($0) }) {
            // Past the limit nothing is read, so nothing more is opened (securityd stops there).
            if let readLimit, found.count >= readLimit { break }
            let value: Data?
            if item.requiresAuthentication {
                guard let opening else { continue }
                let engine = try opening.engine()
                value = try runBlocking {
                    try await authenticator.keychain.read(service: service, account: item.account, itemClass: .key, context: engine, reason: reason)
                }
            } else {
                value = try authenticator.keychain.readWithoutEvaluation(service: service, account: item.account, itemClass: .key, context: nil)
            }
            guard let data = value else { continue }
            // A damaged item is reported, never skipped: the lookup fails until it is deleted
            // (SecItemDelete does not read it).
            guard let key = try? inMemoryKey(data, type: item.attributes[kSecAttrKeyType as String]?.stringValue, isPrivate: isPrivate(item)) else {
                throw SecKeyCall.Failure(errSecDecode, "the stored key item \(item.account) is damaged (its value is not a key): delete it with SecItemDelete")
            }
            found.append(Found(key: key, item: item))
        }
        return found
    }

    /// Whether a stored item is one that makes no key: of attributes alone, or a symmetric key.
    private static func makesNoKey(_ item: KeychainItemInfo) -> Bool {
        !item.hasValue || item.attributes[kSecAttrKeyClass as String]?.stringValue == kSecAttrKeyClassSymmetric as String
    }

    /// The key items without a key `query` selects (none with `kSecValueRef`): their attributes,
    /// and a symmetric key's bytes (read, so data protection applies).
    static func matchingWithoutKey(_ query: KeyQuery, on authenticator: Authenticator) throws
        -> [(attributes: [String: Any], value: Data?, account: String)] {
        guard query.valueRef == nil else { return [] }
        return try matchingItems(query, on: authenticator).filter(makesNoKey).map { item in
            let value = item.hasValue
                ? try authenticator.keychain.readWithoutEvaluation(service: service, account: item.account, itemClass: .key, context: nil)
                : nil
            return (attributesOnly(item.attributes, accessibility: item.accessControl.accessibility), value, item.account)
        }
    }

    /// Deletes a stored key's item (never reading it, so deleting needs no unlocked device).
    static func delete(_ item: KeychainItemInfo, on authenticator: Authenticator) throws {
        try authenticator.keychain.delete(service: service, account: item.account, itemClass: .key)
    }

    /// The attributes of a stored key: an in-memory key's, with its tag, label, application
    /// label, accessibility, group and permanence.
    static func attributes(of found: Found, secKey: SecKey) -> [String: Any] {
        attributes(of: secKey, tag: found.tag, label: found.label, applicationLabel: found.applicationLabel,
                   access: found.item.accessControl,
                   synchronizes: KeychainQuery.Synchronizable.synchronizes(found.item.attributes))
    }

    /// The attributes of `secKey` stored with these.
    static func attributes(of secKey: SecKey, tag: Data?, label: String?, applicationLabel: Data,
                           access: AccessControl, synchronizes: Bool) -> [String: Any] {
        var attributes = KeyQuery.attributes(of: secKey)
        attributes[kSecAttrIsPermanent as String] = true
        attributes[kSecAttrApplicationLabel as String] = applicationLabel
        attributes[kSecAttrAccessible as String] = accessibleValue(access.accessibility)
        attributes[kSecAttrAccessControl as String] = SecAccessControl(access)
        if let tag { attributes[kSecAttrApplicationTag as String] = tag }
        if let label { attributes[kSecAttrLabel as String] = label }
        if synchronizes { attributes[kSecAttrSynchronizable as String] = true }
        return attributes
    }
}

/// The attributes a lookup returns for an item the `Security` module keeps beside passwords (a
/// key without a key, a certificate): its class, accessibility and stored attributes.
func returnedAttributes(_ stored: [String: KeychainAttributeValue], accessibility: Accessibility, itemClass: CFString) -> [String: Any] {
    var attributes: [String: Any] = [kSecClass as String: itemClass as String, kSecAttrAccessible as String: accessibleValue(accessibility)]
    for (key, value) in stored { attributes[key] = value.objectValue }
    return attributes.merging(KeychainQuery.schemaColumns(synchronizes: KeychainQuery.Synchronizable.synchronizes(stored))) { $1 }
}

/// ``returnedAttributes(_:accessibility:itemClass:)`` of a stored item.
func returnedAttributes(_ item: KeychainItemInfo, itemClass: CFString) -> [String: Any] {
    returnedAttributes(item.attributes, accessibility: item.accessControl.accessibility, itemClass: itemClass)
}

/// The account of an item whose primary key is `names`' values in `attributes`: the SHA-1 (hex)
/// of each value, typed and length-prefixed, so different values never share an account.
func primaryKeyAccount(_ names: [String], of attributes: [String: KeychainAttributeValue]) -> String {
    var key = Data()
    for name in names {
        key += Data("\(name.utf8.count):\(name)=".utf8)
        switch attributes[name] {
        case let .data(bytes)?: key += Data("d\(bytes.count):".utf8) + bytes
        case let .string(text)?: key += Data("s\(text.utf8.count):\(text)".utf8)
        case let .integer(number)?: key += Data("i\(number);".utf8)
        case let .bool(flag)?: key += Data("b\(flag);".utf8)
        case nil: key += Data("-;".utf8)
        }
    }
    return Data(Insecure.SHA1.hash(data: key)).hexString
}

extension KeychainAttributeValue {
    /// The bytes of a data attribute.
    fileprivate var dataValue: Data? {
        if case let .data(bytes) = self { return bytes }
        return nil
    }

    /// The number of an integer attribute.
    fileprivate var integerValue: Int64? {
        if case let .integer(number) = self { return number }
        return nil
    }

    /// The text of a string attribute.
    fileprivate var stringValue: String? {
        if case let .string(text) = self { return text }
        return nil
    }
}

extension KeyQuery {
    /// Whether a stored in-memory key's item matches the query's tag, label, application
    /// label, class, type and synchronizability.
    func matches(_ item: KeychainItemInfo) -> Bool {
        let attributes = item.attributes
        return matches(tag: attributes[kSecAttrApplicationTag as String]?.dataValue, label: attributes[kSecAttrLabel as String]?.stringValue,
                       applicationLabel: attributes[kSecAttrApplicationLabel as String]?.dataValue,
                       keyClass: attributes[kSecAttrKeyClass as String]?.stringValue, keyType: attributes[kSecAttrKeyType as String]?.stringValue,
                       synchronizes: KeychainQuery.Synchronizable.synchronizes(attributes))
    }
}
#endif
