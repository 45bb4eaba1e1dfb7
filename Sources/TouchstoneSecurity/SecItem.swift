#if !canImport(Darwin)
import Foundation
import Logging
import Touchstone
import TouchstoneSimulation

/// Adds a keychain item described by `attributes` (`kSecClass`, `kSecAttrService` /
/// `kSecAttrServer`, `kSecAttrAccount` — `String` or `Data` —, `kSecValueData`,
/// `kSecAttrAccessible` or `kSecAttrAccessControl`, `kSecUseAuthenticationContext`, and any
/// descriptive attribute: label, comment, generic, access group, synchronizable, protocol,
/// port...). Creating a protected item never prompts. When `kSecReturnData` /
/// `kSecReturnAttributes` / `kSecReturnPersistentRef` are set, `result` receives them.
///
/// An add whose attributes hold a search key (`kSecMatchLimit`, `kSecMatchCaseInsensitive`...)
/// stores nothing and returns `errSecSuccess`, as iOS's securityd does (a query reused for an
/// add fails so, silently, on a device); the call is logged at notice level.
///
/// Returns `errSecDuplicateItem` when the item exists — also when it was invalidated by an
/// enrollment change, until it is deleted (REFERENCE §9) —, `errSecNotAvailable` for a
/// whenPasscodeSetThisDeviceOnly item without a passcode (`errSecAuthFailed` when it came as a
/// `kSecAttrAccessControl`, whose binding fails as on iOS), `errSecAuthFailed` for a biometric
/// access control with nothing enrolled, an applicationPassword item without the credential
/// on the context or an access control with `privateKeyUsage` (a key's flag), an identity ref adds its certificate, then its key (`CertificateItems.explode`). For certificates see `CertificateItems`; for `kSecClassKey` see `SecKeyCreateRandomKey`: a `kSecValueRef` key made with `kSecAttrIsPermanent` false is stored, and so is a public key (a `kSecValueRef` public `SecKey`, or its X9.63 bytes with `kSecAttrKeyClassPublic`).
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    // An identity is added as its certificate and its key, each by this function.
    if let identity = attributes.object(forKey: kSecValueRef as String) as? SecIdentity {
        return CertificateItems.explode(identity, attributes, .add, result)
    }
    let attributes = KeychainQuery.withClassOfValueRef(attributes)
    if let refused = KeychainQuery.refusedClientRules(query: attributes, stored: attributes) { return refused }
    if KeyQuery.isKeyClass(attributes) { return KeyItems.add(attributes, result) }
    if CertificateQuery.isCertificateClass(attributes) { return CertificateItems.add(attributes, result) }
    return KeychainCall.run { call in
        let query = try KeychainQuery(attributes)
        // A persistent reference names an existing item; securityd refuses one in an add
        // (errSecValuePersistentRefUnsupported, which is errSecParam).
        if query.persistentRef != nil {
            throw KeychainQuery.Invalid(reason: "SecItemAdd does not take kSecValuePersistentRef")
        }
        try KeychainQuery.requireAccountWithoutSeparator(query.account)
        let access = try query.accessControl ?? AccessControl()
        let context = query.context.flatMap(\.touchstoneContext)
        let keychain = try call.keychain(query)
        try KeychainQuery.refusePrivateKeyUsage(access)
        if let nothing = KeychainQuery.addStoringNothing(attributes) { return nothing }
        let defaultGroup = KeychainQuery.defaultAccessGroup(of: keychain.authenticator)
        let ownGroup = KeychainQuery.applicationIdentifier(of: keychain.authenticator)
        let attributes = query.storedAttributes(defaultGroup: defaultGroup, ownGroup: ownGroup)
        let bare = KeychainQuery.stored(query.account)
        let identity = KeychainQuery.identity(query.itemClass, attributes, defaultGroup: defaultGroup, ownGroup: ownGroup)
        let account = KeychainQuery.storedAccount(bare, identity: identity)
        try KeychainQuery.refuseDuplicateOfEarlierRecord(service: query.storedService, bare: bare, identity: identity,
                                                         itemClass: query.itemClass, in: keychain, defaultGroup: defaultGroup)
        try KeychainQuery.bindingProtection(accessControlGiven: query.accessControl != nil && query.accessibility == nil) {
            try keychain.add(query.value, service: query.storedService, account: account,
                             itemClass: query.itemClass, accessControl: access, attributes: attributes,
                             context: context)
        }
        if let result, query.returnsSomething {
            let info = try keychain.info(service: query.storedService, account: account, itemClass: query.itemClass)
            result.pointee = query.shape([(KeychainQuery.Found(info), query.value ?? Data())], asArray: false,
                                         defaultGroup: defaultGroup)
        }
        return errSecSuccess
    }
}

/// Finds keychain items matching `query` (`kSecClass` and any of `kSecAttrService` /
/// `kSecAttrServer`, `kSecAttrAccount`, `kSecAttrAccessible` and the descriptive attributes;
/// `kSecAttrSynchronizable` absent matches only items that are not synchronizable,
/// `kSecAttrSynchronizableAny` matches all) and, per `kSecReturnData` /
/// `kSecReturnAttributes` and `kSecMatchLimit`, puts `Data`, `[String: Any]` or an array of
/// them in `result`. Attributes include `kSecAttrCreationDate` and `kSecAttrModificationDate`.
///
/// Finding a protected item — for its data, its attributes, a reference or only whether it is
/// there — runs the evaluation its access control requires, as on iOS,
/// through `kSecUseAuthenticationContext`'s context when given (honouring its earlier
/// `evaluateAccessControl`, reuse window, `interactionNotAllowed` and application password).
/// Statuses: `errSecItemNotFound` (none, or invalidated by an enrollment change),
/// `errSecUserCanceled` (the user's Cancel), `errSecAuthFailed` (failed, locked out, wrong
/// application password, and every other end of the prompt: a system cancel, the app's
/// `invalidate()`, the fallback button, as `SecItem.m` maps an LAError),
/// `errSecInteractionNotAllowed`. Certificates and identities: see `CertificateItems`. `kSecClassKey` queries find Secure Enclave keys by tag, label or application label; `kSecReturnRef` gives `SecKey`s (a software key whose access control guards its item is authenticated by any lookup that returns it, then used without asking again).
///
/// ```swift
/// var result: CFTypeRef?
/// let status = SecItemCopyMatching(query as CFDictionary, &result)
/// let data = result as? Data
/// ```
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    if let identity = query.object(forKey: kSecValueRef as String) as? SecIdentity {
        return CertificateItems.explode(identity, query, .copyMatching, result)
    }
    let query = KeychainQuery.withClassOfValueRef(query)
    if let refused = KeychainQuery.refusedSearchKeys(query, inChange: false) ?? KeychainQuery.refusedMatchPolicyClass(query) {
        return refused
    }
    if KeyQuery.isKeyClass(query) { return KeyItems.copyMatching(query, result) }
    if CertificateQuery.isCertificateClass(query) { return CertificateItems.copyMatching(query, result) }
    return KeychainCall.run { call in
        let query = try KeychainQuery(query)
        let keychain = try call.keychain(query)
        let defaultGroup = KeychainQuery.defaultAccessGroup(of: keychain.authenticator)
        var matches = try query.matches(in: keychain, defaultGroup: defaultGroup)
        // Whatever the lookup returns — data, attributes, a reference, or nothing (an existence
        // check) — iOS opens an item whose access control asks for the user: securityd decrypts
        // it whenever its ACL has constraints (`ks_decrypt_data`, SecDbKeychainItem.m: "Should
        // also try and decrypt if there are ACL constraints"). So under
        // kSecUseAuthenticationUISkip such an item is not found (SecItemDb.c skips the items
        // that need authentication), under kSecUseAuthenticationUIFail it is
        // errSecInteractionNotAllowed, and otherwise it prompts (Apple's sec_acl_stress.c).
        let context = try call.readingContext(for: query, in: keychain)
        if query.authenticationUI == .skip {
            // What still needs an evaluation (securityd decrypts with the query's credential, so
            // an item the given context already opened is found).
            matches.removeAll { $0.accessControl.flags.requiresAuthentication && !context.hasGrant(for: $0.accessControl.flags) }
        }
        matches = query.limit.cap(matches)
        guard !matches.isEmpty else { return errSecItemNotFound }
        var found: [(KeychainQuery.Found, Data?)] = []
        for match in matches {
            var data: Data?
            if query.returnData || match.isOpenedByAnyLookup {
                let opened = try call.read(match, query: query, keychain: keychain, context: context)
                if query.returnData { data = opened }
            }
            found.append((match, data))
        }
        if query.returnsSomething {
            result?.pointee = query.shape(found, asArray: query.limit.returnsArray, defaultGroup: defaultGroup)
        }
        return errSecSuccess
    }
}

/// Changes the items matching `query` as `attributesToUpdate` says: `kSecValueData`,
/// `kSecAttrAccessible` / `kSecAttrAccessControl` (re-protecting the item, which needs its
/// current access control satisfied first), `kSecAttrService` / `kSecAttrServer` /
/// `kSecAttrAccount` (renaming it; `errSecDuplicateItem` when the new name is taken) and any
/// descriptive attribute. Updating a protected item authenticates as a read does, every
/// matched item through one context (one prompt for items alike); `kSecClass` in
/// `attributesToUpdate` is `errSecParam`, a new access control with `privateKeyUsage`
/// `errSecAuthFailed`.
///
/// ```swift
/// let status = SecItemUpdate(query as CFDictionary,
///                            [kSecValueData as String: data,
///                             kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock] as CFDictionary)
/// ```
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    let query = KeychainQuery.withClassOfValueRef(query)
    if let refused = KeychainQuery.refusedSearchKeys(query, inChange: true, isUpdate: true)
        ?? KeychainQuery.refusedClientRules(query: query, stored: attributesToUpdate) { return refused }
    return KeychainCall.run { call in
        let query = try KeychainQuery(query)
        let changes = try KeychainQuery.changes(attributesToUpdate, itemClass: query.itemClass)
        let keychain = try call.keychain(query)
        try KeychainQuery.requireEntitlement(changes.attributes, of: keychain.authenticator)
        let matches = try query.matches(in: keychain, defaultGroup: KeychainQuery.defaultAccessGroup(of: keychain.authenticator))
        guard !matches.isEmpty else { return errSecItemNotFound }
        try KeychainQuery.requireAccountWithoutSeparator(changes.account)
        if let access = changes.accessControl { try KeychainQuery.refusePrivateKeyUsage(access) }
        let engineContext = try call.readingContext(for: query, in: keychain)
        let reason = query.reason
        let changesAccessControl = attributesToUpdate.object(forKey: kSecAttrAccessControl as String) != nil
        // A change to the rest of the primary key (group, synchronizability...) moves an item
        // as a change of account does; where each goes is settled before any is changed.
        let destinations = try KeychainQuery.destinations(
            of: matches, under: changes, in: keychain, defaultGroup: KeychainQuery.defaultAccessGroup(of: keychain.authenticator))
        for (match, destination) in zip(matches, destinations) {
            let (service, account, itemClass) = (match.service, match.account, match.itemClass)
            var moved = changes
            moved.account = destination
            let changes = moved
            try KeychainQuery.bindingProtection(accessControlGiven: changesAccessControl) {
                try runBlocking {
                    try await keychain.update(service: service, account: account, itemClass: itemClass,
                                              changes: changes, context: engineContext, reason: reason)
                }
            }
        }
        return errSecSuccess
    }
}

/// Deletes every item matching `query` (invalidated ones too); `errSecItemNotFound` when there
/// is none; certificates and identities are deleted as `CertificateItems` says, keys by tag, label or `kSecValueRef`. Never prompts.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    if let identityDelete = CertificateItems.deleteIdentities(query) { return identityDelete }
    let query = KeychainQuery.withClassOfValueRef(query)
    if let refused = KeychainQuery.refusedSearchKeys(query, inChange: true)
        ?? KeychainQuery.refusedClientRules(query: query, stored: nil) { return refused }
    if KeyQuery.isKeyClass(query) { return KeyItems.delete(query) }
    if CertificateQuery.isCertificateClass(query) { return CertificateItems.delete(query) }
    return KeychainCall.run { call in
        let query = try KeychainQuery(query)
        let keychain = try call.keychain(query)
        let matches = try query.matches(in: keychain, defaultGroup: KeychainQuery.defaultAccessGroup(of: keychain.authenticator), includingInvalidated: true)
        guard !matches.isEmpty else { return errSecItemNotFound }
        for match in matches {
            try keychain.delete(service: match.service, account: match.account, itemClass: match.itemClass)
        }
        return errSecSuccess
    }
}

/// Apple's text for a status code, e.g. `"The specified item could not be found in the
/// keychain."` for `errSecItemNotFound`; `"OSStatus <n>"` for a code Security does not know.
/// Apple's `reserved` argument is ignored.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    NSString(string: securityErrorMessage(status))
}

/// One `SecItem*` call: resolves the device, maps errors to `OSStatus`. (CryptoKit's Secure
/// Enclave keys find their device through ``device(of:)`` too.)
package struct KeychainCall {
    /// The authenticator the call used, for saving virtual time afterwards.
    fileprivate(set) var used: Authenticator?

    /// Runs `body`, turning every thrown error into the `OSStatus` Apple code would see; the
    /// error behind the status is logged at debug (``LocalAuthenticationSystem/logLevelVariable``).
    static func run(_ body: (inout KeychainCall) throws -> OSStatus) -> OSStatus {
        var call = KeychainCall()
        defer { if let used = call.used { LocalAuthenticationSystem.didUse(used) } }
        do {
            return try body(&call)
        } catch {
            let status = status(of: error, call: call)
            LocalAuthenticationSystem.callLogger.withLock { $0 }
                .debug("a keychain call failed", error: error, metadata: ["security.osstatus": "\(status)"])
            return status
        }
    }

    /// The `OSStatus` Apple code would see for `error`.
    private static func status(of error: any Error, call: KeychainCall) -> OSStatus {
        switch error {
        case let error as KeychainError:
            return error.osStatus
        case let failure as SecKeyCall.Failure:
            return failure.status
        case is KeychainQuery.Invalid:
            return errSecParam
        case is KeychainQuery.Unsimulated:
            return errSecUnimplemented
        case is KeychainQuery.MissingEntitlement:
            return errSecMissingEntitlement
        case is KeychainQuery.NoSuchAttribute:
            return errSecNoSuchAttr
        case is KeychainQuery.NoSuchClass:
            return errSecNoSuchClass
        case let error as AuthenticationError:
            return KeychainError(error).osStatus
        case let error as StorageError:
            return KeychainError(error).osStatus
        case let mistake as SimulationError:
            _ = LocalAuthenticationSystem.systemCancel(after: mistake, on: call.used)
            return LocalAuthenticationSystem.SystemCancel.osStatus
        default:
            let failure = TouchstoneError(wrapping: error)
            FileHandle.standardError.write(Data("Touchstone: keychain call failed: \(failure.message)\n".utf8))
            return errSecNotAvailable
        }
    }

    /// Records the device a call used.
    mutating func use(_ authenticator: Authenticator) { used = authenticator }

    /// The keychain of the query's context's device, or of the default device, once the app
    /// is found entitled to the query's access group.
    mutating func keychain(_ query: KeychainQuery) throws -> Keychain {
        let authenticator = try authenticator(context: query.context)
        try KeychainQuery.requireEntitlement(query.attributes, of: authenticator)
        return authenticator.keychain
    }

    /// The device of `context`, or the default device.
    mutating func authenticator(context: (any KeychainAuthenticationContext)?) throws -> Authenticator {
        let authenticator = try Self.device(of: context)
        used = authenticator
        return authenticator
    }

    /// The device of `context` (an `LAContext` passed as `kSecUseAuthenticationContext`), or
    /// the default device when there is none. Shared by the item and key calls.
    package static func device(of context: (any KeychainAuthenticationContext)?) throws -> Authenticator {
        guard let context else { return try LocalAuthenticationSystem.authenticator }
        return try engine(of: context).authenticator
    }

    /// The engine context of an `LAContext`; a configuration error when it has no device.
    static func engine(of context: any KeychainAuthenticationContext) throws -> AuthenticationContext {
        guard let engine = context.touchstoneContext else {
            throw TouchstoneError(.configuration, "the LAContext has no device (see the earlier Touchstone message)")
        }
        return engine
    }

    /// The engine context a protected item or key is opened through: `given`'s (the call's
    /// `kSecUseAuthenticationContext`; under `kSecUseAuthenticationUIFail` a copy of it that
    /// may not prompt, as iOS makes the call non-interactive whatever context it was given),
    /// else under `kSecUseAuthenticationUIFail` a fresh one of `authenticator` that may not
    /// prompt, else nil (the item's own fresh one, which may).
    static func engineContext(_ given: (any KeychainAuthenticationContext)?, failsWithoutUI: Bool,
                              on authenticator: Authenticator?) throws -> AuthenticationContext? {
        if let given {
            let engine = try engine(of: given)
            return failsWithoutUI ? engine.nonInteractiveCopy() : engine
        }
        guard failsWithoutUI, let authenticator else { return nil }
        let engine = authenticator.makeContext()
        engine.interactionNotAllowed = true
        return engine
    }

    /// The one context a call's protected reads and updates go through
    /// (``engineContext(_:failsWithoutUI:on:)``, else a fresh one of the call's device), as
    /// iOS's client evaluates every access control of a call through one `LAContext`
    /// (`SecItemAuthDo`): an evaluation that opened one item opens the next one alike.
    func readingContext(for query: KeychainQuery, in keychain: Keychain) throws -> AuthenticationContext {
        try Self.engineContext(query.context, failsWithoutUI: query.authenticationUI == .fail, on: used)
            ?? keychain.authenticator.makeContext()
    }

    /// Reads one matched item's data through `context` (authenticating when its access
    /// control requires).
    func read(_ match: KeychainQuery.Found, query: KeychainQuery, keychain: Keychain, context: AuthenticationContext) throws -> Data {
        // An item whose reading needs no evaluation is read here, without a task.
        if let data = try keychain.readWithoutEvaluation(service: match.service, account: match.account,
                                                         itemClass: match.itemClass, context: context) {
            return data
        }
        let reason = query.reason
        return try runBlocking {
            try await keychain.read(service: match.service, account: match.account, itemClass: match.itemClass,
                                    context: context, reason: reason)
        }
    }
}
/// Apple's text for `status`, or `"OSStatus <n>"` for a code Security does not know.
func securityErrorMessage(_ status: OSStatus) -> String {
    securityErrorMessages[status] ?? "OSStatus \(status)"
}
#endif
