#if !canImport(Darwin)
import Foundation
import Touchstone

/// Adds a keychain item described by `attributes` (`kSecClass`, `kSecAttrService` /
/// `kSecAttrServer`, `kSecAttrAccount`, `kSecValueData`, `kSecAttrAccessible` or
/// `kSecAttrAccessControl`, `kSecUseAuthenticationContext`). Creating a protected item never
/// prompts. When `kSecReturnData` / `kSecReturnAttributes` are set, `result` receives them.
///
/// Returns `errSecDuplicateItem` when the item exists (an item invalidated by an enrollment
/// change, or deleted with the passcode, no longer counts: it is replaced),
/// `errSecNotAvailable` for a whenPasscodeSetThisDeviceOnly item without a passcode,
/// `errSecAuthFailed` for a biometric access control with nothing enrolled or an
/// applicationPassword item without the credential on the context.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    KeychainCall.run { call in
        let query = try KeychainQuery(attributes)
        guard let itemClass = query.itemClass else { return errSecUnimplemented }
        let access = try query.accessControl ?? AccessControl()
        let context = query.context.flatMap(\.touchstoneContext)
        try call.keychain(query).add(query.value ?? Data(), service: query.storedService, account: query.storedAccount,
                                     itemClass: itemClass, accessControl: access, context: context)
        if let result, query.returnData || query.returnAttributes {
            let item = KeychainQuery.Found(itemClass: itemClass, service: query.storedService, account: query.storedAccount,
                                           accessControl: access)
            result.pointee = query.shape([(item, query.value ?? Data())], limitAll: false)
        }
        return errSecSuccess
    }
}

/// Finds keychain items matching `query` (`kSecClass` and any of `kSecAttrService` /
/// `kSecAttrServer`, `kSecAttrAccount`) and, per `kSecReturnData` / `kSecReturnAttributes` and
/// `kSecMatchLimit`, puts `Data`, `[String: Any]` or an array of them in `result`.
///
/// Returning the data of a protected item runs the evaluation its access control requires,
/// through `kSecUseAuthenticationContext`'s context when given (honouring its earlier
/// `evaluateAccessControl`, reuse window, `interactionNotAllowed` and application password).
/// Statuses: `errSecItemNotFound` (none, or invalidated by an enrollment change),
/// `errSecUserCanceled`, `errSecAuthFailed` (failed, locked out, wrong application password),
/// `errSecInteractionNotAllowed`.
///
/// ```swift
/// var result: CFTypeRef?
/// let status = SecItemCopyMatching(query as CFDictionary, &result)
/// let data = result as? Data
/// ```
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    KeychainCall.run { call in
        let query = try KeychainQuery(query)
        guard query.itemClass != nil else { return errSecItemNotFound }
        let keychain = try call.keychain(query)
        var matches = try query.matches(in: keychain)
        if query.authenticationUI == .skip, query.returnData {
            matches.removeAll { $0.accessControl.flags.requiresAuthentication }
        }
        guard !matches.isEmpty else { return errSecItemNotFound }
        if !query.limitAll { matches = [matches[0]] }
        var found: [(KeychainQuery.Found, Data?)] = []
        for match in matches {
            var data: Data?
            if query.returnData {
                data = try call.read(match, query: query, keychain: keychain)
            }
            found.append((match, data))
        }
        if query.returnData || query.returnAttributes {
            result?.pointee = query.shape(found, limitAll: query.limitAll)
        }
        return errSecSuccess
    }
}

/// Changes the items matching `query`. Only `kSecValueData` in `attributesToUpdate` is
/// applied; labels and other descriptive attributes are accepted and ignored, and changing
/// the class, service, server, account, accessibility or access control is
/// `errSecUnimplemented`. Updating a protected item authenticates as a read does.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    KeychainCall.run { call in
        let query = try KeychainQuery(query)
        guard let itemClass = query.itemClass else { return errSecItemNotFound }
        let identityKeys = [kSecClass, kSecAttrService, kSecAttrServer, kSecAttrAccount, kSecAttrAccessible, kSecAttrAccessControl]
        if attributesToUpdate.keys.contains(where: identityKeys.contains) { return errSecUnimplemented }
        let keychain = try call.keychain(query)
        let matches = try query.matches(in: keychain)
        guard !matches.isEmpty else { return errSecItemNotFound }
        guard let value = attributesToUpdate[kSecValueData] else { return errSecSuccess }
        guard let data = KeychainQuery.data(value) else { return errSecParam }
        let engineContext = try call.readingContext(for: query)
        for match in matches {
            try runBlocking {
                try await keychain.update(data, service: match.service, account: match.account, itemClass: itemClass,
                                          context: engineContext, reason: query.reason)
            }
        }
        return errSecSuccess
    }
}

/// Deletes every item matching `query`; `errSecItemNotFound` when there is none. Never prompts.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    KeychainCall.run { call in
        let query = try KeychainQuery(query)
        guard let itemClass = query.itemClass else { return errSecItemNotFound }
        let keychain = try call.keychain(query)
        let matches = try query.matches(in: keychain, includingInvalidated: true)
        guard !matches.isEmpty else { return errSecItemNotFound }
        for match in matches {
            try keychain.delete(service: match.service, account: match.account, itemClass: itemClass)
        }
        return errSecSuccess
    }
}

/// A human-readable text for a status code, e.g. `"errSecItemNotFound: The item could not be
/// found."`. Apple's `reserved` argument is ignored.
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    switch status {
    case errSecUnimplemented: return "errSecUnimplemented: Function or operation not implemented."
    case errSecParam: return "errSecParam: One or more parameters passed to a function were not valid."
    default:
        guard let known = KeychainStatus(rawValue: status) else { return "OSStatus \(status)" }
        let message = known == .success ? "No error." : KeychainError(KeychainStatus.kind(of: known)).message
        return "\(known.name): \(message)"
    }
}

extension KeychainStatus {
    fileprivate static func kind(of status: KeychainStatus) -> KeychainError.Kind {
        KeychainError.Kind.allCases.first { $0.status == status } ?? .storageFailure
    }
}

/// One `SecItem*` call: resolves the device, maps errors to `OSStatus`.
struct KeychainCall {
    /// The authenticator the call used, for saving virtual time afterwards.
    private var used: Authenticator?

    /// Runs `body`, turning every thrown error into the `OSStatus` Apple code would see.
    static func run(_ body: (inout KeychainCall) throws -> OSStatus) -> OSStatus {
        var call = KeychainCall()
        defer { if let used = call.used { LocalAuthenticationSystem.didUse(used) } }
        do {
            return try body(&call)
        } catch let error as KeychainError {
            return error.osStatus
        } catch is KeychainQuery.Invalid {
            return errSecParam
        } catch let error as AuthenticationError {
            return KeychainError(error).osStatus
        } catch let error as StorageError {
            return KeychainError(error).osStatus
        } catch {
            let failure = TouchstoneError(wrapping: error)
            FileHandle.standardError.write(Data("Touchstone: keychain call failed: \(failure.message)\n".utf8))
            return errSecNotAvailable
        }
    }

    /// The keychain of the query's context's device, or of the default device.
    mutating func keychain(_ query: KeychainQuery) throws -> Keychain {
        let authenticator: Authenticator
        if let context = query.context {
            guard let engine = context.touchstoneContext else {
                throw TouchstoneError(.configuration, "the LAContext has no device (see the earlier Touchstone message)")
            }
            authenticator = engine.authenticator
        } else {
            authenticator = try LocalAuthenticationSystem.authenticator
        }
        used = authenticator
        return authenticator.keychain
    }

    /// The engine context a protected read uses: the query's, or a fresh one that may not
    /// prompt under `kSecUseAuthenticationUIFail`.
    func readingContext(for query: KeychainQuery) throws -> AuthenticationContext? {
        if let context = query.context {
            guard let engine = context.touchstoneContext else {
                throw TouchstoneError(.configuration, "the LAContext has no device (see the earlier Touchstone message)")
            }
            return engine
        }
        guard query.authenticationUI == .fail, let used else { return nil }
        let engine = used.makeContext()
        engine.interactionNotAllowed = true
        return engine
    }

    /// Reads one matched item's data (authenticating when its access control requires).
    func read(_ match: KeychainQuery.Found, query: KeychainQuery, keychain: Keychain) throws -> Data {
        let context = try readingContext(for: query)
        let reason = query.reason
        return try runBlocking {
            try await keychain.read(service: match.service, account: match.account, itemClass: match.itemClass,
                                    context: context, reason: reason)
        }
    }
}
#endif
