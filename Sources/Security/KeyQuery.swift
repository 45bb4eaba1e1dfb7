#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone

/// A `kSecClassKey` dictionary (`SecKeyCreateRandomKey` attributes, `SecItem*` queries), read
/// into the terms of Touchstone's ``KeyStore``: keys are found by `kSecAttrApplicationTag`
/// (`Data`, or a `String` taken as UTF-8), `kSecAttrLabel` and `kSecAttrApplicationLabel`.
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
    let returnRef: Bool
    let returnAttributes: Bool
    let returnData: Bool
    let limitAll: Bool
    let valueRef: SecKey?
    /// `kSecUseAuthenticationUIFail` (or `kSecUseNoAuthenticationUI`): the key's operations fail
    /// instead of prompting.
    let failsWithoutUI: Bool

    /// Whether `dictionary` names `kSecClassKey`.
    static func isKeyClass(_ dictionary: CFDictionary) -> Bool {
        ((try? KeychainQuery.normalize(dictionary))?[kSecClass as String] as? String) == kSecClassKey as String
    }

    init(_ dictionary: [String: Any]) throws {
        // Keys have no persistent references here: errSecUnimplemented, never a query that
        // ignores the reference and matches (or deletes) every key.
        if dictionary[kSecValuePersistentRef as String] != nil || dictionary[kSecReturnPersistentRef as String] != nil {
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
        applicationLabel = dictionary[kSecAttrApplicationLabel as String].flatMap(Self.data)
        keyClass = dictionary[kSecAttrKeyClass as String].flatMap { ($0 as? String) ?? ($0 as? NSNumber)?.stringValue }
        keyType = dictionary[kSecAttrKeyType as String].flatMap { ($0 as? String) ?? ($0 as? NSNumber)?.stringValue }
        accessControl = try KeychainQuery.protection(dictionary).0
        isPermanent = try dictionary[kSecAttrIsPermanent as String].map { try KeychainQuery.bool($0, kSecAttrIsPermanent as String) }
        if let raw = dictionary[kSecUseAuthenticationContext as String] {
            guard let context = raw as? any KeychainAuthenticationContext else {
                throw Invalid(reason: "kSecUseAuthenticationContext must be an LAContext")
            }
            self.context = context
        } else {
            context = nil
        }
        prompt = dictionary[kSecUseOperationPrompt as String] as? String
        returnRef = try dictionary[kSecReturnRef as String].map { try KeychainQuery.bool($0, kSecReturnRef as String) } ?? false
        returnAttributes = try dictionary[kSecReturnAttributes as String].map { try KeychainQuery.bool($0, kSecReturnAttributes as String) } ?? false
        returnData = try dictionary[kSecReturnData as String].map { try KeychainQuery.bool($0, kSecReturnData as String) } ?? false
        switch dictionary[kSecMatchLimit as String] {
        case nil: limitAll = false
        case let text as String: limitAll = text == kSecMatchLimitAll as String
        case let raw?: limitAll = (KeychainQuery.integer(raw) ?? 1) > 1
        }
        let ui = dictionary[kSecUseAuthenticationUI as String] as? String
        let noUI = try dictionary[kSecUseNoAuthenticationUI as String].map { try KeychainQuery.bool($0, kSecUseNoAuthenticationUI as String) } ?? false
        failsWithoutUI = ui == kSecUseAuthenticationUIFail as String || noUI
        if let raw = dictionary[kSecValueRef as String] {
            guard let key = raw as? SecKey else { throw Invalid(reason: "kSecValueRef must be a SecKey") }
            valueRef = key
        } else {
            valueRef = nil
        }
    }

    /// Whether `key` (a stored Secure Enclave private key) matches the query.
    func matches(_ key: EnclaveKey) -> Bool {
        (tag.map { $0 == key.applicationTag } ?? true) && (label.map { $0 == key.label } ?? true)
            && (applicationLabel.map { $0 == key.applicationLabel } ?? true)
            && (keyClass.map { $0 == kSecAttrKeyClassPrivate as String } ?? true)
            && (keyType.map { $0 == kSecAttrKeyTypeECSECPrimeRandom as String } ?? true)
    }

    /// The attributes of a key as `SecKeyCopyAttributes` and `kSecReturnAttributes` give them.
    static func attributes(of key: SecKey) -> [String: Any] {
        var attributes: [String: Any] = [
            kSecClass as String: kSecClassKey as String,
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom as String,
            kSecAttrKeySizeInBits as String: 256,
            kSecAttrEffectiveKeySize as String: 256,
            kSecAttrApplicationLabel as String: Data(key.applicationLabel),
        ]
        if let enclave = key.touchstoneKey {
            attributes[kSecAttrKeyClass as String] = kSecAttrKeyClassPrivate as String
            attributes[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave as String
            attributes[kSecAttrIsPermanent as String] = enclave.isPermanent
            attributes[kSecAttrCanSign as String] = true
            attributes[kSecAttrCanDecrypt as String] = true
            attributes[kSecAttrCanDerive as String] = true
            attributes[kSecAttrCanVerify as String] = false
            attributes[kSecAttrCanEncrypt as String] = false
            attributes[kSecAttrIsExtractable as String] = false
            attributes[kSecAttrIsSensitive as String] = true
            attributes[kSecAttrAccessible as String] = accessibleValue(enclave.accessibility)
            attributes[kSecAttrAccessControl as String] = SecAccessControl(enclave.accessControl)
            attributes[kSecAttrAccessGroup as String] = enclave.appID
            if let tag = enclave.applicationTag { attributes[kSecAttrApplicationTag as String] = tag }
            if let label = enclave.label { attributes[kSecAttrLabel as String] = label }
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
    /// A number given as `Int`, `NSNumber` or a decimal `String` (`kSecAttrKeySizeInBits: "256"` appears in real code).
    static func integer(_ value: Any) -> Int? {
        if let text = value as? String { return Int(text) }
        return KeychainQuery.integer(value)
    }
    static func data(_ value: Any) -> Data? { KeychainQuery.data(value) }
}

extension SecKey {
    /// `kSecAttrApplicationLabel`: SHA-1 of the public key.
    var applicationLabel: Data {
        touchstoneKey?.applicationLabel ?? Data(Insecure.SHA1.hash(data: publicKeyData))
    }
}

/// The `SecItem*` calls for `kSecClassKey`.
enum KeyItems {
    /// `SecItemAdd` of a key: a `kSecValueRef` Secure Enclave key made with `kSecAttrIsPermanent`
    /// false is stored (with the dictionary's tag and label). Importing key bytes
    /// (`kSecValueData`) is `errSecUnimplemented`: nothing enters the Secure Enclave from outside.
    static func add(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        KeychainCall.run { call in
            let query = try KeyQuery(try KeyQuery.normalize(attributes))
            guard let ref = query.valueRef else { return errSecUnimplemented }
            guard case let .enclave(key, authenticator) = ref.material else { return errSecUnimplemented }
            call.use(authenticator)
            let stored = try authenticator.keys.store(key, tag: query.tag, label: query.label)
            let secKey = SecKey(.enclave(stored, authenticator), context: ref.context, prompt: ref.prompt)
            if query.returnRef { result?.pointee = secKey } else if query.returnAttributes {
                result?.pointee = KeyQuery.attributes(of: secKey) as NSDictionary
            }
            return errSecSuccess
        }
    }

    /// `SecItemCopyMatching` of keys: the stored Secure Enclave private keys matching tag,
    /// label, application label, class and type; invalidated ones are not found.
    /// `kSecReturnRef` gives `SecKey`s (carrying the query's `kSecUseAuthenticationContext` and
    /// `kSecUseOperationPrompt` for their prompts), `kSecReturnAttributes` dictionaries (both:
    /// dictionaries with `kSecValueRef`). `kSecReturnData` alone is `errSecParam`: a Secure
    /// Enclave key has no bytes to give.
    static func copyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        KeychainCall.run { call in
            let query = try KeyQuery(try KeyQuery.normalize(query))
            let authenticator = try call.authenticator(context: query.context)
            var found = try authenticator.keys.keys().filter(query.matches)
            guard !found.isEmpty else { return errSecItemNotFound }
            if query.returnData, !query.returnRef, !query.returnAttributes { return errSecParam }
            if !query.limitAll { found = [found[0]] }
            let shaped: [Any] = found.map { key in
                let secKey = SecKey(.enclave(key, authenticator), context: query.context, prompt: query.prompt,
                                    failsWithoutUI: query.failsWithoutUI)
                if query.returnAttributes {
                    var attributes = KeyQuery.attributes(of: secKey)
                    if query.returnRef { attributes[kSecValueRef as String] = secKey }
                    return attributes as NSDictionary
                }
                return secKey
            }
            if query.returnRef || query.returnAttributes {
                result?.pointee = query.limitAll ? shaped as NSArray : shaped.first.map { $0 as AnyObject }
            }
            return errSecSuccess
        }
    }

    /// `SecItemDelete` of keys: every stored key matching (invalidated ones too). Never prompts.
    static func delete(_ query: CFDictionary) -> OSStatus {
        KeychainCall.run { call in
            let query = try KeyQuery(try KeyQuery.normalize(query))
            let authenticator = try call.authenticator(context: query.context)
            var found = try authenticator.keys.keys(includingInvalidated: true).filter(query.matches)
            if let ref = query.valueRef, let key = ref.touchstoneKey { found = found.filter { $0 == key } }
            guard !found.isEmpty else { return errSecItemNotFound }
            for key in found { try authenticator.keys.delete(key) }
            return errSecSuccess
        }
    }
}
#endif
