#if !canImport(Darwin)
import Foundation
import Touchstone

/// The `SecItem*` calls for `kSecClassKey`.
enum KeyItems {
    /// `SecItemAdd` of a key: a `kSecValueRef` private key made with `kSecAttrIsPermanent`
    /// false is stored (with the dictionary's tag and label; a software key also with its
    /// `kSecAttrApplicationLabel` and accessibility or access control); a software private key's
    /// 97 X9.63 bytes as `kSecValueData` with `kSecAttrKeyClassPrivate` are imported and stored
    /// likewise; a public key — a `kSecValueRef` public `SecKey`, or its 65 X9.63 bytes as
    /// `kSecValueData` with `kSecAttrKeyClassPublic` — is stored as a public key item
    /// (`errSecDuplicateItem` when this app stored it already).
    static func add(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        KeychainCall.run { call in
            let dictionary = try KeyQuery.normalize(attributes)
            let query = try KeyQuery(dictionary)
            // A persistent reference names an existing item; securityd refuses one in an add
            // (errSecValuePersistentRefUnsupported, which is errSecParam).
            if query.persistentRef != nil { throw KeychainQuery.Invalid(reason: "SecItemAdd does not take kSecValuePersistentRef") }
            let authenticator = try call.authenticator(context: query.context)
            try query.requireEntitlement(of: authenticator)
            if let nothing = KeychainQuery.addStoringNothing(attributes) { return nothing }
            // An item that makes no key, as iOS keeps it: attributes alone (neither a key nor
            // its bytes), or a symmetric key's bytes as given.
            let isSymmetric = query.keyClass == kSecAttrKeyClassSymmetric as String
            if query.valueRef == nil, isSymmetric || dictionary[kSecValueData as String] == nil {
                let value = try dictionary[kSecValueData as String].map { raw in
                    guard let data = KeyQuery.data(raw) else { throw KeychainQuery.Invalid(reason: "kSecValueData must be Data") }
                    return data
                }
                let bits = dictionary[kSecAttrKeySizeInBits as String].flatMap(KeyQuery.integer) ?? value.map { $0.count * 8 }
                let stored = try StoredInMemoryKeys.storeWithoutKey(
                    query, value: value, bits: bits, accessibility: StoredInMemoryKeys.accessibility(query.accessControl), on: authenticator)
                result?.pointee = query.shape(FoundKey(key: nil, bytes: value, reference: KeyQuery.reference(toItem: stored.account)) { stored.attributes })
                return errSecSuccess
            }
            if let inMemory = try StoredInMemoryKeys.keyToAdd(query, dictionary) {
                let attributes = try StoredInMemoryKeys.store(
                    inMemory, tag: query.tag, label: query.label, applicationLabel: query.applicationLabel,
                    access: StoredInMemoryKeys.protection(query.accessControl), synchronizable: query.synchronizable == .yes,
                    on: authenticator)
                result?.pointee = query.shape(FoundKey(key: SecKey(.inMemory(inMemory)), bytes: inMemory.externalRepresentation,
                                                       reference: KeyQuery.reference(toItem: StoredInMemoryKeys.account(of: inMemory))) { attributes })
                return errSecSuccess
            }
            var publicKeyData: Data?
            if let ref = query.valueRef, case let .publicKey(data) = ref.material {
                publicKeyData = data
            } else if query.valueRef == nil, query.keyClass == kSecAttrKeyClassPublic as String,
                      let raw = dictionary[kSecValueData as String] {
                guard let data = KeyQuery.data(raw) else { throw KeychainQuery.Invalid(reason: "kSecValueData must be Data") }
                publicKeyData = data
            }
            if let publicKeyData {
                let stored = try authenticator.keys.storePublicKey(publicKeyData, tag: query.tag, label: query.label,
                                                                   synchronizable: query.synchronizable == .yes)
                let secKey = SecKey(.publicKey(stored.publicKeyData))
                result?.pointee = query.shape(FoundKey(key: secKey, bytes: stored.publicKeyData, reference: KeyQuery.reference(toPublicKey: stored)) {
                    KeyQuery.attributes(of: stored, secKey: secKey, on: authenticator)
                })
                return errSecSuccess
            }
            let ref: SecKey
            if let given = query.valueRef {
                ref = given
            } else if query.keyClass == kSecAttrKeyClassPrivate as String, let raw = dictionary[kSecValueData as String] {
                guard let data = KeyQuery.data(raw) else { throw KeychainQuery.Invalid(reason: "kSecValueData must be Data") }
                ref = try KeyQuery.softwareKey(data, on: authenticator, context: query.context)
            } else {
                throw KeychainQuery.Invalid(reason: "a key's kSecValueData needs kSecAttrKeyClass (and kSecAttrKeyType for RSA)")
            }
            // The key is stored on the device it belongs to (its own context's, not the query's).
            guard case let .enclave(key, owner) = ref.material else { return errSecUnimplemented }
            call.use(owner)
            try query.requireEntitlement(of: owner)
            let storedLabel = key.isSoftware ? query.applicationLabel ?? key.applicationLabel : key.applicationLabel
            try StoredInMemoryKeys.requireNewPrimaryKey(applicationLabel: storedLabel, tag: query.tag ?? key.applicationTag,
                                                        keyType: kSecAttrKeyTypeECSECPrimeRandom, bits: 256, isToken: !key.isSoftware,
                                                        synchronizable: query.synchronizable == .yes, on: owner)
            // A software key's item data (``itemData(_:)``), from the key as given: it is not
            // stored yet, so its export asks nothing (and a failed one stores nothing).
            var keyCall = SecKeyCall()
            let bytes = query.returns.data && key.isSoftware ? try keyCall.exportPrivateKey(ref) : nil
            let stored = try owner.keys.store(key, tag: query.tag, label: query.label,
                                              applicationLabel: query.applicationLabel, accessControl: query.accessControl,
                                              synchronizable: query.synchronizable == .yes)
            let secKey = SecKey(.enclave(stored, owner), context: ref.context, prompt: ref.prompt)
            result?.pointee = query.shape(FoundKey(key: secKey, bytes: bytes, reference: KeyQuery.reference(toEnclaveKey: stored)) {
                KeyQuery.attributes(of: secKey)
            })
            return errSecSuccess
        }
    }

    /// `SecItemCopyMatching` of keys: the stored P-256 private keys, the RSA/P-384/P-521 key
    /// items, the stored public keys, then the items that make no key (symmetric,
    /// attribute-only), matching tag, label, application label, class and type (with
    /// `kSecValueRef` only that key, with `kSecValuePersistentRef` only that item); invalidated
    /// keys are not found (a software key whose access control guards its item is authenticated
    /// first, whatever is asked for: ``accessControlGuardsItem(_:)``; so is a guarded RSA, P-384
    /// or P-521 key, through the same context, and only up to the limit). A `kSecValueRef` finds
    /// its key only under the ref's own application label unless the query names one
    /// (``KeyQuery/matchedApplicationLabel``). `kSecReturnRef` gives
    /// `SecKey`s (carrying the query's `kSecUseAuthenticationContext` and
    /// `kSecUseOperationPrompt` for their prompts), `kSecReturnData` a key's bytes (a software
    /// P-256 key's 97 X9.63 bytes: ``itemData(_:)``), `kSecReturnPersistentRef` its persistent
    /// reference, shaped as ``ReturnedParts`` says. `kSecReturnData` alone for a Secure Enclave
    /// key is `errSecParam`: it has no bytes to give.
    static func copyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        KeychainCall.run { call in
            let query = try KeyQuery(try KeyQuery.normalize(query))
            let authenticator = try call.authenticator(context: query.context)
            try query.requireEntitlement(of: authenticator)
            var (keys, publicKeys) = try query.selected(authenticator.keys.keys(), authenticator.keys.publicKeys())
            // As on iOS: a key its data-protection class keeps out of reach (locked, or not
            // unlocked since a restart) fails the lookup itself, errSecInteractionNotAllowed.
            for key in keys { try authenticator.keys.checkAvailable(key) }
            // Software keys whose item any lookup returning them opens (`ks_decrypt_data`; keys
            // come first, so the limit keeps these), through one context for every key the
            // lookup opens.
            if query.authenticationUI == .skip { keys.removeAll(where: accessControlGuardsItem) }
            let capped = query.limit.cap(keys)
            // The data alone of a key that has none to give (a Secure Enclave key): refused before
            // anything is opened. Every other key found has bytes (``itemData(_:)``).
            if query.returns.onlyData, capped.contains(where: { !givesItemData($0) }) { return errSecParam }
            let opening = LookupOpening(given: query.context, failsWithoutUI: query.failsWithoutUI, on: authenticator)
            let guarded = capped.filter(accessControlGuardsItem)
            let lookupContext = guarded.isEmpty ? nil : try authenticate(guarded, through: opening, prompt: query.prompt, on: authenticator)
            var found: [FoundKey] = keys.map { key in
                let context = accessControlGuardsItem(key) ? lookupContext ?? query.context : query.context
                let secKey = SecKey(.enclave(key, authenticator), context: context, prompt: query.prompt, failsWithoutUI: query.failsWithoutUI)
                return FoundKey(key: secKey, bytes: nil, reference: KeyQuery.reference(toEnclaveKey: key)) { KeyQuery.attributes(of: secKey) }
            }
            // RSA, P-384 and P-521 keys: read (and opened) only as far as the limit can reach.
            let inMemory = try StoredInMemoryKeys.matching(query, on: authenticator, opening: query.authenticationUI == .skip ? nil : opening,
                                                           readLimit: query.limit.count.map { max($0 - keys.count, 0) })
            found += inMemory.map { stored in
                let secKey = SecKey(.inMemory(stored.key))
                return FoundKey(key: secKey, bytes: stored.key.externalRepresentation, reference: KeyQuery.reference(toItem: stored.item.account)) {
                    StoredInMemoryKeys.attributes(of: stored, secKey: secKey)
                }
            }
            found += publicKeys.map { stored in
                let secKey = SecKey(.publicKey(stored.publicKeyData))
                return FoundKey(key: secKey, bytes: stored.publicKeyData, reference: KeyQuery.reference(toPublicKey: stored)) {
                    KeyQuery.attributes(of: stored, secKey: secKey, on: authenticator)
                }
            }
            found += try StoredInMemoryKeys.matchingWithoutKey(query, on: authenticator).map { item in
                FoundKey(key: nil, bytes: item.value, reference: KeyQuery.reference(toItem: item.account)) { item.attributes }
            }
            found = try query.limit.cap(found).map { query.returns.data ? try itemData($0) : $0 }
            guard !found.isEmpty else { return errSecItemNotFound }
            if query.returns.any {
                // An item without a key gives no ref (and an item of attributes no bytes): as
                // on iOS, it is left out of an array, and a single result is nil.
                let shaped = found.compactMap(query.shape)
                result?.pointee = query.limit.returnsArray ? shaped as NSArray : shaped.first
            }
            return errSecSuccess
        }
    }

    /// `item` with its data when it is a software P-256 private key's: the key's 97 X9.63 bytes
    /// (`04 || X || Y || K`), which iOS stores as the item's data (`SecECKey.m`: a private key's
    /// attributes carry `kSecValueData`, its export, and the add stores them), when it
    /// ``givesItemData(_:)``. They are exported through the context the found key carries: the
    /// lookup's own when it opened the key (``accessControlGuardsItem(_:)``), so nothing more is
    /// asked.
    static func itemData(_ item: FoundKey) throws -> FoundKey {
        guard item.bytes == nil, let key = item.key, let bytes = try itemData(of: key) else { return item }
        return FoundKey(key: key, bytes: bytes, reference: item.reference, attributes: item.attributes)
    }

    /// The item data of a found P-256 key (``itemData(_:)``): its export when it
    /// ``givesItemData(_:)``, through the context it carries; nil otherwise.
    static func itemData(of key: SecKey) throws -> Data? {
        guard let stored = key.touchstoneKey, givesItemData(stored) else { return nil }
        var keyCall = SecKeyCall()
        return try keyCall.exportPrivateKey(key)
    }

    /// Whether a lookup gives `key`'s bytes as its item's data: a software key whose flags ask
    /// nothing, or whose item the lookup opens (``accessControlGuardsItem(_:)``). A lookup never
    /// runs a key's own evaluation (our limit: a software key under `privateKeyUsage` with a
    /// constraint gives none, errSecParam for its data alone), nor has a Secure Enclave key any.
    static func givesItemData(_ key: EnclaveKey) -> Bool {
        key.isSoftware && (!key.flags.requiresAuthentication || accessControlGuardsItem(key))
    }

    /// Whether `key`'s access control is checked when its item is read rather than when the key
    /// is used: a software key (no token) whose flags ask for authentication without
    /// `privateKeyUsage`. Apple's `SecAccessControlCreateWithFlags` puts such a constraint on
    /// the item's decryption (`kAKSKeyOpDecrypt`, `SecAccessControl.m`), which securityd does for
    /// any lookup that matches it (`ks_decrypt_data`, `SecDbKeychainItem.m`); the key it returns
    /// is then used in memory, without asking again.
    static func accessControlGuardsItem(_ key: EnclaveKey) -> Bool {
        key.isSoftware && key.flags.requiresAuthentication && !key.flags.contains(.privateKeyUsage)
    }

    /// Runs the evaluation `keys` (those ``accessControlGuardsItem(_:)``) need before a lookup of
    /// keys or identities returns them, through its `kSecUseAuthenticationContext` (`context`) or
    /// a context of the lookup's own (one that may not prompt under `kSecUseAuthenticationUIFail`),
    /// with its `kSecUseOperationPrompt`, and opens them through it. Returns the context the found
    /// keys carry, so that their uses ask nothing more. A cancel is errSecUserCanceled, a failure
    /// errSecAuthFailed, as for a protected password.
    static func authenticate(_ keys: [EnclaveKey], context: (any KeychainAuthenticationContext)?, prompt: String?,
                             failsWithoutUI: Bool, on authenticator: Authenticator) throws -> any KeychainAuthenticationContext {
        try authenticate(keys, through: LookupOpening(given: context, failsWithoutUI: failsWithoutUI, on: authenticator),
                         prompt: prompt, on: authenticator)
    }

    /// ``authenticate(_:context:prompt:failsWithoutUI:on:)`` through a lookup's `opening`, which
    /// its other guarded keys share (one prompt for all).
    static func authenticate(_ keys: [EnclaveKey], through opening: LookupOpening, prompt: String?,
                             on authenticator: Authenticator) throws -> any KeychainAuthenticationContext {
        let engine = try opening.engine()
        let reason = reason(prompt: prompt, context: opening.given)
        for key in keys {
            try runBlocking { try await authenticator.keys.authorize(key, context: engine, reason: reason) }
        }
        return open(keys, through: engine, given: opening.given)
    }

    /// The one context a lookup opens the keys it must authenticate through, so that it asks
    /// once whatever kinds of key it opens: the query's `kSecUseAuthenticationContext` (under
    /// `kSecUseAuthenticationUIFail` a copy that may not prompt), else one of the lookup's own
    /// (``KeychainCall/engineContext(_:failsWithoutUI:on:)``), made when the first key needs it.
    final class LookupOpening {
        /// The query's `kSecUseAuthenticationContext`.
        let given: (any KeychainAuthenticationContext)?
        private let failsWithoutUI: Bool
        private let authenticator: Authenticator
        private var made: AuthenticationContext?

        init(given: (any KeychainAuthenticationContext)?, failsWithoutUI: Bool, on authenticator: Authenticator) {
            self.given = given
            self.failsWithoutUI = failsWithoutUI
            self.authenticator = authenticator
        }

        /// The context, made on the first call.
        func engine() throws -> AuthenticationContext {
            if let made { return made }
            let engine = try KeychainCall.engineContext(given, failsWithoutUI: failsWithoutUI, on: authenticator) ?? authenticator.makeContext()
            made = engine
            return engine
        }
    }

    /// The reason a lookup that opens a guarded key prompts with, as a found key's own uses
    /// give it (``SecKey/reason``): `kSecUseOperationPrompt`, else the context's.
    static func reason(prompt: String?, context: (any KeychainAuthenticationContext)?) -> String {
        [prompt, context?.localizedReason].compactMap { $0 }.first { !$0.isEmpty } ?? "Use your key"
    }

    /// The context the key `SecKeyCreateRandomKey` just made carries when it
    /// ``accessControlGuardsItem(_:)``: `given`'s (`kSecUseAuthenticationContext`) or one of its
    /// own, which opened the key. iOS returns such a key in memory, where its access control is
    /// not checked (a lookup that reads the stored item later is).
    static func openedAtCreation(_ key: EnclaveKey, given: (any KeychainAuthenticationContext)?,
                                 on authenticator: Authenticator) throws -> any KeychainAuthenticationContext {
        try open([key], through: given.map(KeychainCall.engine(of:)) ?? authenticator.makeContext(), given: given)
    }

    /// Opens `keys` through `engine` (``AuthenticationContext/open(_:)``); returns the context
    /// they carry: `given` (whose engine context is `engine`), or one holding `engine`.
    private static func open(_ keys: [EnclaveKey], through engine: AuthenticationContext,
                             given: (any KeychainAuthenticationContext)?) -> any KeychainAuthenticationContext {
        for key in keys { engine.open(key) }
        return given ?? OpeningContext(engine)
    }

    /// The context that opened keys (``AuthenticationContext/open(_:)``) when the call gave no
    /// `kSecUseAuthenticationContext`: the keys it returns carry it, as iOS's carry their
    /// opened bytes, and their uses ask nothing.
    final class OpeningContext: KeychainAuthenticationContext {
        let touchstoneContext: AuthenticationContext?
        var localizedReason: String { "" }
        init(_ context: AuthenticationContext) { touchstoneContext = context }
    }

    /// `SecItemDelete` of keys: every stored key matching, private (invalidated ones too) and
    /// public; with `kSecValueRef`, only that key. Never prompts.
    static func delete(_ query: CFDictionary) -> OSStatus {
        KeychainCall.run { call in
            let query = try KeyQuery(try KeyQuery.normalize(query))
            let authenticator = try call.authenticator(context: query.context)
            try query.requireEntitlement(of: authenticator)
            let (found, publicKeys) = try query.selected(authenticator.keys.keys(includingInvalidated: true), authenticator.keys.publicKeys())
            let stored = try StoredInMemoryKeys.matchingItems(query, on: authenticator)
            guard !found.isEmpty || !publicKeys.isEmpty || !stored.isEmpty else { return errSecItemNotFound }
            for key in found { try authenticator.keys.delete(key) }
            for key in stored { try StoredInMemoryKeys.delete(key, on: authenticator) }
            for key in publicKeys { try authenticator.keys.deletePublicKey(key) }
            return errSecSuccess
        }
    }
}
#endif
