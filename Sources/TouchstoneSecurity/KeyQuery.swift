#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone

/// The tag prefix of the keys a framework keeps for itself (`LARightStore`'s rights): no
/// `SecItem*` call of the app finds them (nor deletes them), as on iOS.
package let frameworkKeyTagPrefix = Data("touchstone.LARight:".utf8)

/// A `kSecClassKey` dictionary (`SecKeyCreateRandomKey` attributes, `SecItem*` queries), read
/// into the terms of Touchstone's ``KeyStore``: keys are found by `kSecAttrApplicationTag` and
/// `kSecAttrApplicationLabel` (each `Data`, or a `String` taken as UTF-8) and `kSecAttrLabel`.
struct KeyQuery {
    typealias Invalid = KeychainQuery.Invalid

    let tag: Data?
    let label: String?
    let applicationLabel: Data?
    /// `kSecAttrKeyClass`: "0" public, "1" private.
    let keyClass: String?
    let keyType: String?
    let accessControl: AccessControl?
    let isPermanent: Bool?
    let context: (any KeychainAuthenticationContext)?
    let prompt: String?
    /// What the query asks back (`kSecReturn*`).
    let returns: ReturnedParts
    /// `kSecValuePersistentRef`: nil when the query names none (``KeychainQuery/PersistentReference/named(in:itemClass:)``).
    let persistentRef: KeychainQuery.PersistentReference?
    let limit: MatchLimit
    let valueRef: SecKey?
    /// The application label a stored key must have to match: `kSecAttrApplicationLabel` when
    /// given, else a `kSecValueRef`'s own, the SHA-1 of its public key. iOS's client code turns
    /// the ref into its attributes (`SecItem.m`, `SecItemAttributesPrepare` with the key's
    /// `SecKeyCopyAttributes`, whose `klbl` is that digest), so a key stored under an
    /// application label of the app's own is not found by its ref.
    let matchedApplicationLabel: Data?
    /// `kSecUseAuthenticationUI`: with Fail (or `kSecUseNoAuthenticationUI`) the key's operations
    /// fail instead of prompting; with Skip a lookup leaves out the keys it would authenticate.
    let authenticationUI: KeychainQuery.AuthenticationUI
    var failsWithoutUI: Bool { authenticationUI == .fail }
    /// `kSecAttrAccessGroup`, checked against the app's entitlements (see
    /// ``requireEntitlement(of:)``); keys are not matched by it (our rule: every key is in the
    /// app's own group, and a key made naming another group is found without naming it).
    let accessGroup: KeychainAttributeValue?
    /// `kSecAttrSynchronizable`: a key item synchronizes or not as part of its primary key, and
    /// a query that does not name it finds only keys that do not, as for every item.
    let synchronizable: KeychainQuery.Synchronizable

    /// Whether `dictionary` names `kSecClassKey`, or no class and a key's persistent reference.
    /// (One lookup: every item call asks this first, and reading the whole dictionary cost
    /// about a tenth of a `SecItemCopyMatching`. A dictionary that ``KeychainQuery/normalize(_:)``
    /// refuses is refused by the call it goes to either way.)
    static func isKeyClass(_ dictionary: CFDictionary) -> Bool {
        switch dictionary.object(forKey: kSecClass as String) {
        case let name as String: return name == kSecClassKey as String
        // As on iOS, a query by persistent reference may leave the class out: the reference names it.
        case nil: return dictionary.object(forKey: kSecValuePersistentRef as String).flatMap(KeychainQuery.data)
            .flatMap(KeychainQuery.PersistentReference.itemClass(of:)) == .key
        default: return false
        }
    }

    init(_ dictionary: [String: Any]) throws {
        persistentRef = try KeychainQuery.PersistentReference.named(in: dictionary, itemClass: .key)
        // As iOS's securityd: issuers are matched for certificates and identities only, hosts
        // for internet passwords only (errSecUnsupportedOperation, which is errSecUnimplemented).
        if dictionary[kSecMatchIssuers as String] != nil || dictionary[kSecMatchHostOrSubdomainOfHost as String] != nil {
            throw KeychainQuery.Unsimulated()
        }
        switch dictionary[kSecAttrApplicationTag as String] {
        case nil: tag = nil
        case let text as String: tag = Data(text.utf8)
        case let raw?:
            guard let data = Self.data(raw) else { throw Invalid(reason: "kSecAttrApplicationTag must be Data or a String") }
            tag = data
        }
        label = try dictionary[kSecAttrLabel as String].map { raw in
            if let text = raw as? String { return text }
            if let data = Self.data(raw), let text = String(data: data, encoding: .utf8) { return text }
            throw Invalid(reason: "kSecAttrLabel must be a String")
        }
        switch dictionary[kSecAttrApplicationLabel as String] {
        case nil: applicationLabel = nil
        case let text as String: applicationLabel = Data(text.utf8)  // as Auth0's DPoP key store passes it
        case let raw?:
            guard let data = Self.data(raw) else { throw Invalid(reason: "kSecAttrApplicationLabel must be Data or a String") }
            applicationLabel = data
        }
        keyClass = dictionary[kSecAttrKeyClass as String].flatMap(Self.code)
        keyType = dictionary[kSecAttrKeyType as String].flatMap(Self.code)
        accessControl = try KeychainQuery.protection(dictionary).0
        isPermanent = try dictionary[kSecAttrIsPermanent as String].map { try KeychainQuery.bool($0, kSecAttrIsPermanent as String) }
        context = try KeychainQuery.context(dictionary)
        prompt = dictionary[kSecUseOperationPrompt as String] as? String
        returns = try ReturnedParts(dictionary)
        limit = try MatchLimit(dictionary)
        authenticationUI = try KeychainQuery.AuthenticationUI(dictionary)
        if let raw = dictionary[kSecValueRef as String] {
            guard let key = raw as? SecKey else { throw Invalid(reason: "kSecValueRef must be a SecKey") }
            valueRef = key
        } else {
            valueRef = nil
        }
        matchedApplicationLabel = applicationLabel ?? valueRef.map { Data(Insecure.SHA1.hash(data: $0.publicKeyData)) }
        accessGroup = try dictionary[kSecAttrAccessGroup as String].map {
            try KeychainQuery.attribute($0, kSecAttrAccessGroup as String, .text)
        }
        synchronizable = try KeychainQuery.Synchronizable(dictionary, byReference: persistentRef != nil)
    }

    /// `errSecMissingEntitlement` (as ``KeychainQuery/MissingEntitlement``) when the query
    /// names an access group `authenticator`'s composition does not entitle the app to, as for
    /// keychain items (``Composition/keychainAccessGroups``).
    func requireEntitlement(of authenticator: Authenticator) throws {
        guard let accessGroup else { return }
        try KeychainQuery.requireEntitlement([kSecAttrAccessGroup as String: accessGroup], of: authenticator)
    }

    /// The stored keys the query selects: those that match it, and with `kSecValueRef` only
    /// that key (a private key, or a stored public key with its bytes); never a framework's key.
    func selected(_ keys: [EnclaveKey], _ publicKeys: [StoredPublicKey]) -> ([EnclaveKey], [StoredPublicKey]) {
        let keys = keys.filter {
            matches($0) && !($0.applicationTag?.starts(with: frameworkKeyTagPrefix) ?? false)
                && referenceAllows(Self.reference(toEnclaveKey: $0))
        }
        let publicKeys = publicKeys.filter { matches($0) && referenceAllows(Self.reference(toPublicKey: $0)) }
        guard let ref = valueRef else { return (keys, publicKeys) }
        return (keys.filter { $0 == ref.touchstoneKey },
                ref.isPrivate ? [] : publicKeys.filter { $0.publicKeyData == ref.publicKeyData })
    }

    /// Whether `key` (a stored public key) matches the query.
    func matches(_ key: StoredPublicKey) -> Bool {
        matches(tag: key.applicationTag, label: key.label, applicationLabel: key.applicationLabel,
                keyClass: kSecAttrKeyClassPublic as String, keyType: kSecAttrKeyTypeECSECPrimeRandom as String,
                synchronizes: key.isSynchronizable)
    }

    /// Whether a stored key with these attributes matches the query: each attribute the query
    /// names is equal, and it synchronizes as the query asks (the one predicate for every kind
    /// of stored key).
    func matches(tag: Data?, label: String?, applicationLabel: Data?, keyClass: String?, keyType: String?, synchronizes: Bool) -> Bool {
        (self.tag.map { $0 == tag } ?? true) && (self.label.map { $0 == label } ?? true)
            && (matchedApplicationLabel.map { $0 == applicationLabel } ?? true)
            && (self.keyClass.map { $0 == keyClass } ?? true) && (self.keyType.map { $0 == keyType } ?? true)
            && synchronizable.allows(synchronizes)
    }

    /// The attributes of a stored public key: a public key's, with its tag, label, permanence
    /// and access group (the app's default group, ``KeychainQuery/defaultAccessGroup(of:)``).
    static func attributes(of key: StoredPublicKey, secKey: SecKey, on authenticator: Authenticator) -> [String: Any] {
        var attributes = attributes(of: secKey)
        attributes[kSecAttrIsPermanent as String] = true
        attributes[kSecAttrAccessGroup as String] = key.appID == authenticator.appID ? KeychainQuery.defaultAccessGroup(of: authenticator) : key.appID
        if let tag = key.applicationTag { attributes[kSecAttrApplicationTag as String] = tag }
        if let label = key.label { attributes[kSecAttrLabel as String] = label }
        if key.isSynchronizable { attributes[kSecAttrSynchronizable as String] = true }
        return attributes
    }

    /// Whether `key` (a stored Secure Enclave private key) matches the query.
    func matches(_ key: EnclaveKey) -> Bool {
        matches(tag: key.applicationTag, label: key.label, applicationLabel: key.applicationLabel,
                keyClass: kSecAttrKeyClassPrivate as String, keyType: kSecAttrKeyTypeECSECPrimeRandom as String,
                synchronizes: key.isSynchronizable)
    }

    /// The attributes of a key as `kSecReturnAttributes` gives them, and `SecKeyCopyAttributes`
    /// for a Secure Enclave key (a software key's: ``copiedAttributes(of:)``).
    static func attributes(of key: SecKey) -> [String: Any] {
        let bits = key.inMemoryKey?.bits ?? 256
        var attributes: [String: Any] = [
            kSecClass as String: kSecClassKey as String,
            kSecAttrKeyType as String: (key.inMemoryKey?.keyType ?? kSecAttrKeyTypeECSECPrimeRandom) as String,
            kSecAttrKeySizeInBits as String: bits,
            kSecAttrEffectiveKeySize as String: bits,
            kSecAttrApplicationLabel as String: Data(key.applicationLabel),
        ]
        if let inMemory = key.inMemoryKey {
            // An in-memory key (RSA, P-384, P-521): sign and decrypt or derive, or verify and
            // encrypt; Apple's RSA public keys also say kSecAttrCanDecrypt (SecRSAKey.c).
            let isPrivate = key.isPrivate, isRSA = inMemory is RSAKey
            attributes[kSecAttrKeyClass as String] = (isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic) as String
            attributes[kSecAttrIsPermanent as String] = false
            attributes[kSecAttrCanSign as String] = isPrivate
            attributes[kSecAttrCanDecrypt as String] = isRSA || isPrivate
            attributes[kSecAttrCanDerive as String] = !isRSA && isPrivate
            attributes[kSecAttrCanVerify as String] = !isPrivate
            attributes[kSecAttrCanEncrypt as String] = !isPrivate
            attributes[kSecAttrIsExtractable as String] = true
            return attributes
        }
        if let enclave = key.touchstoneKey {
            attributes[kSecAttrKeyClass as String] = kSecAttrKeyClassPrivate as String
            if !enclave.isSoftware { attributes.merge(enclave.tokenAttributes) { $1 } }
            attributes[kSecAttrIsPermanent as String] = enclave.isPermanent
            attributes[kSecAttrCanSign as String] = true
            attributes[kSecAttrCanDecrypt as String] = true
            attributes[kSecAttrCanDerive as String] = true
            attributes[kSecAttrCanVerify as String] = false
            attributes[kSecAttrCanEncrypt as String] = false
            attributes[kSecAttrIsExtractable as String] = enclave.isSoftware
            attributes[kSecAttrIsSensitive as String] = !enclave.isSoftware
            attributes[kSecAttrAccessible as String] = accessibleValue(enclave.accessibility)
            attributes[kSecAttrAccessControl as String] = SecAccessControl(enclave.accessControl)
            if case let .enclave(_, authenticator) = key.material, enclave.appID == authenticator.appID {
                attributes[kSecAttrAccessGroup as String] = KeychainQuery.defaultAccessGroup(of: authenticator)
            } else {
                attributes[kSecAttrAccessGroup as String] = enclave.appID
            }
            if let tag = enclave.applicationTag { attributes[kSecAttrApplicationTag as String] = tag }
            if let label = enclave.label { attributes[kSecAttrLabel as String] = label }
            if enclave.isSynchronizable { attributes[kSecAttrSynchronizable as String] = true }
        } else {
            attributes[kSecAttrKeyClass as String] = kSecAttrKeyClassPublic as String
            attributes[kSecAttrIsPermanent as String] = false
            attributes[kSecAttrCanSign as String] = false
            attributes[kSecAttrCanDecrypt as String] = false
            attributes[kSecAttrCanVerify as String] = true
            attributes[kSecAttrCanEncrypt as String] = true
            attributes[kSecAttrIsExtractable as String] = true
        }
        return attributes
    }

    static func normalize(_ dictionary: CFDictionary) throws -> [String: Any] { try KeychainQuery.normalize(dictionary) }

    /// `SecKeyCreateRandomKey`'s parameters for one half of the pair: the top level, overridden
    /// by the half's nested dictionary (`kSecPrivateKeyAttrs` / `kSecPublicKeyAttrs`);
    /// errSecParam when that is not a dictionary.
    static func scope(_ parameters: [String: Any], nested name: String) throws -> [String: Any] {
        guard let raw = parameters[name] else { return parameters }
        guard let nested = raw as? NSDictionary else { throw SecKeyCall.Failure(errSecParam, "\(name) must be a dictionary") }
        return parameters.merging(try normalize(nested)) { _, new in new }
    }
    /// A number given as `Int`, `NSNumber` or a decimal `String` (`kSecAttrKeySizeInBits: "256"` appears in real code).
    static func integer(_ value: Any) -> Int? {
        if let text = value as? String { return Int(text) }
        return KeychainQuery.integer(value)
    }
    static func data(_ value: Any) -> Data? { KeychainQuery.data(value) }

    /// A code attribute (`kSecAttrKeyClass`, `kSecAttrKeyType`) given as a `String` or a number.
    static func code(_ value: Any) -> String? {
        (value as? String) ?? (value as? NSNumber)?.stringValue
    }

    /// A software private key of `authenticator` from the bytes Apple's API takes and gives: a
    /// P-256 key in X9.63 form (`04 || X || Y || K`, 97 bytes); errSecParam for anything else.
    static func softwareKey(_ bytes: Data, on authenticator: Authenticator,
                            context: (any KeychainAuthenticationContext)? = nil) throws -> SecKey {
        guard bytes.count == 97 else {
            throw Invalid(reason: "a P-256 private key is 97 bytes in X9.63 form (04 || X || Y || K), not \(bytes.count)")
        }
        return SecKey(.enclave(try authenticator.keys.importPrivateKey(bytes), authenticator), context: context)
    }
}

/// One key item a call found or added: its key (none for an item of attributes or a symmetric
/// key), its bytes when it has any to give (none for a Secure Enclave key), its persistent
/// reference, and how to make its attributes (only when asked).
struct FoundKey {
    let key: SecKey?
    let bytes: Data?
    let reference: KeychainQuery.PersistentReference
    let attributes: () -> [String: Any]
}

extension KeyQuery {
    /// The result object for one key item (``ReturnedParts/shape(ref:data:persistentRef:attributes:)``),
    /// its attributes as the keychain returns them (``returned(_:)``).
    func shape(_ item: FoundKey) -> AnyObject? {
        returns.shape(ref: item.key, data: item.bytes, persistentRef: item.reference.bytes) { Self.returned(item.attributes()) }
    }

    /// A key item's attributes as `kSecReturnAttributes` gives them: `kSecAttrKeyType` and
    /// `kSecAttrKeyClass` are numbers (73, 42; 0, 1, 2), as iOS's keychain schema stores them
    /// (`SecItemSchema.c` declares both as numbers, `SecDbItem.c` converts the strings).
    /// `SecKeyCopyAttributes` gives the strings of `kSecAttrKeyTypeECSECPrimeRandom` and its
    /// siblings, as Apple's key code builds that dictionary without the keychain.
    /// The schema's own columns come too (``KeychainQuery/schemaColumns(synchronizes:)``).
    static func returned(_ attributes: [String: Any]) -> [String: Any] {
        var attributes = attributes
        for name in [kSecAttrKeyType as String, kSecAttrKeyClass as String] {
            if let text = attributes[name] as? String, let number = Int(text) { attributes[name] = number }
        }
        return KeychainQuery.withSchemaColumns(attributes)
    }
}

extension SecKey {
    /// `kSecAttrApplicationLabel`: SHA-1 of the public key.
    var applicationLabel: Data {
        touchstoneKey?.applicationLabel ?? Data(Insecure.SHA1.hash(data: publicKeyData))
    }
}
#endif
