import Crypto
import Foundation

/// One app's keychain on a device, enforced by the evaluation engine (REFERENCE §9).
///
/// Items are keyed by class, service and account, per app. Reading or updating an item whose
/// access-control flags have constraints runs the evaluation they require through the
/// device's sensor and passcode (honouring the context's reuse window and
/// `interactionNotAllowed`), unless the given context already proved those factors — by
/// ``AuthenticationContext/evaluateAccessControl(_:operation:reason:)``, an earlier policy
/// evaluation, or an earlier keychain prompt. Adding and deleting never prompt (as on Apple
/// platforms).
///
/// ```swift
/// let keychain = authenticator.keychain
/// try keychain.add(Data("s3cret-token".utf8), service: "api", account: "alice",
///                  accessControl: try AccessControl(.whenUnlockedThisDeviceOnly, flags: .biometryCurrentSet))
/// let context = authenticator.makeContext()
/// let token = try await keychain.read(service: "api", account: "alice", context: context,
///                                     reason: "Sign in to your account")
/// ```
///
/// Errors are ``KeychainError`` (with the `OSStatus` and LAError codes), except
/// the simulation's `SimulationError` when a scripted user has no outcome for a prompt and ``UsageError`` for
/// an empty reason. Values never appear in errors, traces or descriptions.
///
/// Rules (our rules where Apple documents none):
/// - biometryCurrentSet records the enrolled set at creation; after any change reads return
///   errSecItemNotFound (kind ``KeychainError/Kind/invalidated``) without prompting.
/// - biometryAny / biometryCurrentSet items need an enrolled identity when added
///   (errSecAuthFailed, LAError biometryNotEnrolled).
/// - whenPasscodeSetThisDeviceOnly items cannot be added without a device passcode
///   (errSecNotAvailable) and are deleted when the passcode is removed.
/// - applicationPassword items are sealed with AES-GCM under a key derived by HKDF-SHA256 from
///   the context's application-password credential and a per-item salt. Adding, reading or
///   updating one without that credential on the context is errSecAuthFailed; a wrong
///   password is errSecAuthFailed too.
/// - A lockout refusal is errSecAuthFailed (``KeychainError/Kind/lockedOut``); cancels are
///   errSecUserCanceled; `interactionNotAllowed` is errSecInteractionNotAllowed.
public struct Keychain: Sendable {
    /// The storage namespace of keychain items.
    public static let namespace = RecordNamespace.keychain

    /// The device and app the keychain belongs to.
    public let authenticator: Authenticator

    /// The keychain of `authenticator`'s app.
    public init(_ authenticator: Authenticator) {
        self.authenticator = authenticator
    }

    var device: Device { authenticator.device }

    // MARK: Adding

    /// Adds an item (`SecItemAdd`) holding `value`, or none (nil: an empty value that reads
    /// back as absent, ``KeychainItemInfo/hasValue``). Never prompts.
    ///
    /// - Throws: ``KeychainError`` — errSecDuplicateItem when the item exists (an item
    ///   invalidated by an enrollment change too, until it is deleted), errSecParam for empty
    ///   service/account or `or` with `and`,
    ///   errSecNotAvailable for whenPasscodeSetThisDeviceOnly without a passcode,
    ///   errSecAuthFailed for biometric flags with nothing enrolled or applicationPassword
    ///   without a credential on `context`.
    public func add(
        _ value: Data?, service: String, account: String, itemClass: KeychainItemClass = .genericPassword,
        accessControl: AccessControl? = nil, attributes: [String: KeychainAttributeValue] = [:],
        context: AuthenticationContext? = nil
    ) throws {
        let access = try accessControl ?? AccessControl()
        try access.flags.validate()
        try Self.requireSeparableName(service, "service")
        try Self.requireSeparableName(account, "account")
        let key = try recordKey(itemClass, service, account)
        try translatingErrors {
            let binding = try protectionBinding(access)
            let now = device.clock.now
            var item = StoredItem(itemClass: itemClass, service: service, account: account,
                                  accessibility: access.accessibility, flags: access.flags,
                                  enrolledSetHash: binding.setHash, enrollmentSequence: binding.sequence,
                                  value: value ?? Data(), salt: nil,
                                  attributes: attributes.isEmpty ? nil : attributes, created: now, modified: now,
                                  valueless: value == nil ? true : nil)
            if access.flags.contains(.applicationPassword) {
                try item.seal(value ?? Data(), credential: try applicationPassword(context), aad: key.name)
            }
            let orderKey = RecordKey(Self.orderNamespace, Self.escape(authenticator.appID))
            // Stores the item in the place after `lastOrder`, or after the count of adds.
            func insert(after lastOrder: UInt64?) throws {
                try device.storage.transaction { [item] transaction in
                    if let existing = try transaction.read(key) {
                        let stored = try StoredItem.decode(existing)
                        if !isDeletedWithPasscode(stored, snapshot: try device.snapshot(in: transaction)) {
                            throw KeychainError(.duplicateItem, message: "an item \(itemClass) '\(service)' / '\(account)' already exists")
                        }
                    }
                    var item = item
                    let order = min(try lastOrder ?? Self.lastOrder(in: transaction.read(orderKey)), .max - 1) + 1
                    item.order = order
                    transaction.put(item.record(key: key, appID: authenticator.appID))
                    transaction.put(Record(key: orderKey, value: Data(String(order).utf8)))
                    try markQualified(account, in: &transaction)
                }
            }
            do {
                try insert(after: nil)
            } catch is DamagedOrderCount {
                // The order is derived data: a count that is not a number is rebuilt from the
                // items (their highest place), rather than stop every add of the app.
                let places = try device.storage.list(namespace: Self.namespace, prefix: Self.escape(authenticator.appID) + "/")
                    .compactMap { try StoredItem.decode($0).order }
                try insert(after: places.max() ?? 0)
            }
        }
    }

    /// The count of adds did not hold a number (see ``lastOrder(in:)``).
    struct DamagedOrderCount: Error {}

    /// Adds a UTF-8 string item (see ``add(_:service:account:itemClass:accessControl:attributes:context:)``).
    public func add(
        _ value: String, service: String, account: String, itemClass: KeychainItemClass = .genericPassword,
        accessControl: AccessControl? = nil, context: AuthenticationContext? = nil
    ) throws {
        try add(Data(value.utf8), service: service, account: account, itemClass: itemClass,
                accessControl: accessControl, context: context)
    }

    /// What a new protection needs from the device now: a passcode for
    /// whenPasscodeSetThisDeviceOnly, an enrolled identity for biometric flags, and for
    /// biometryCurrentSet the enrolled set it is bound to.
    func protectionBinding(_ access: AccessControl) throws -> (setHash: Data?, sequence: Int?) {
        let biometric = access.flags.contains(.biometryAny) || access.flags.contains(.biometryCurrentSet)
        // Only a biometric protection needs the sensor's enrolled set now; the lock state and
        // the passcode are in the stored records (one storage round trip less for the rest).
        let snapshot = try biometric ? device.snapshot() : device.storedSnapshot()
        try checkDataProtection(access.accessibility, snapshot: snapshot)
        if access.accessibility == .whenPasscodeSetThisDeviceOnly, !device.passcodeIsSet(snapshot.state) {
            throw KeychainError(.notAvailable, message: "whenPasscodeSetThisDeviceOnly items need a device passcode",
                                authenticationCode: .passcodeNotSet)
        }
        guard biometric else { return (nil, nil) }
        guard let hash = enrolledSetHash(snapshot) else {
            throw KeychainError(.authenticationFailed, message: "biometric access control needs an enrolled identity",
                                authenticationCode: device.sensor == nil ? .biometryNotAvailable : .biometryNotEnrolled)
        }
        guard access.flags.contains(.biometryCurrentSet) else { return (nil, nil) }
        return (hash, snapshot.state.enrollmentSequence)
    }

    // MARK: Reading

    /// Reads an item's value (`SecItemCopyMatching` with `kSecReturnData`), running the
    /// evaluation its flags require unless `context` already proved it. Without a context a
    /// fresh one is used (so the user is asked every time).
    public func read(
        service: String, account: String, itemClass: KeychainItemClass = .genericPassword,
        context: AuthenticationContext? = nil, reason: String? = nil
    ) async throws -> Data {
        let key = try recordKey(itemClass, service, account)
        return try await translatingErrors {
            let (item, _) = try await authorize(key: key, context: context, reason: reason ?? "Access \"\(service)\"")
            return try open(item, at: key, context: context)
        }
    }

    /// ``read(service:account:itemClass:context:reason:)`` for a caller that cannot await: the
    /// value when reading it needs no evaluation (the item has no access-control flags, or the
    /// context already satisfied them), nil when it does; every other rule applies and throws
    /// as it does there. `SecItemCopyMatching` reads through this first, so that an unprotected
    /// item costs no task.
    package func readWithoutEvaluation(
        service: String, account: String, itemClass: KeychainItemClass, context: AuthenticationContext?
    ) throws -> Data? {
        let key = try recordKey(itemClass, service, account)
        return try translatingErrors {
            let (item, _) = try load(key, context: context)
            guard try check(item, storedAt: key, context: context) == nil else { return nil }
            return try open(item, at: key, context: context)
        }
    }

    /// `item`'s value (stored at `key`), with the context's application password when it is
    /// sealed with one.
    func open(_ item: StoredItem, at key: RecordKey, context: AuthenticationContext?) throws -> Data {
        try item.open(credential: item.flags.contains(.applicationPassword) ? applicationPassword(context) : nil, aad: key.name)
    }

    /// Reads a UTF-8 string item; a value that is not UTF-8 is errSecDecode.
    public func readString(
        service: String, account: String, itemClass: KeychainItemClass = .genericPassword,
        context: AuthenticationContext? = nil, reason: String? = nil
    ) async throws -> String {
        let data = try await read(service: service, account: account, itemClass: itemClass, context: context, reason: reason)
        guard let text = String(data: data, encoding: .utf8) else {
            throw KeychainError(.corrupt, message: "the item's value is not UTF-8 text")
        }
        return text
    }

    // MARK: Updating

    /// Replaces an item's value (`SecItemUpdate`), keeping its protection; runs the evaluation
    /// its flags require, as ``read(service:account:itemClass:context:reason:)`` does.
    public func update(
        _ value: Data, service: String, account: String, itemClass: KeychainItemClass = .genericPassword,
        context: AuthenticationContext? = nil, reason: String? = nil
    ) async throws {
        try await update(service: service, account: account, itemClass: itemClass,
                         changes: KeychainItemChanges(value: value), context: context, reason: reason)
    }

    /// Changes an item (`SecItemUpdate`): its value, protection, descriptive attributes, or
    /// even its service and account. Runs the evaluation the item's **current** flags require
    /// first, as ``read(service:account:itemClass:context:reason:)`` does; a new protection is
    /// then bound as ``add(_:service:account:itemClass:accessControl:attributes:context:)``
    /// binds one (a new biometryCurrentSet records today's enrolled set).
    ///
    /// - Throws: ``KeychainError`` — as a read, plus errSecDuplicateItem when the new service /
    ///   account names an existing item, and the errors of adding for a new protection.
    public func update(
        service: String, account: String, itemClass: KeychainItemClass = .genericPassword,
        changes: KeychainItemChanges, context: AuthenticationContext? = nil, reason: String? = nil
    ) async throws {
        let key = try recordKey(itemClass, service, account)
        let newService = changes.service ?? service
        let newAccount = changes.account ?? account
        if let renamed = changes.service { try Self.requireSeparableName(renamed, "service") }
        if let renamed = changes.account { try Self.requireSeparableName(renamed, "account") }
        let newKey = try recordKey(itemClass, newService, newAccount)
        if let access = changes.accessControl { try access.flags.validate() }
        try await translatingErrors {
            let (current, currentBytes) = try await authorize(key: key, context: context, reason: reason ?? "Update \"\(service)\"")
            let oldCredential = current.flags.contains(.applicationPassword) ? try applicationPassword(context) : nil
            // Opening also proves the application password of a sealed item, even when the
            // value is replaced.
            let stored = try current.open(credential: oldCredential, aad: key.name)
            let plaintext = changes.value ?? stored
            var item = current
            item.service = newService
            item.account = newAccount
            if let access = changes.accessControl, access != current.accessControl {
                let binding = try protectionBinding(access)
                item.accessibility = access.accessibility
                item.flags = access.flags
                item.enrolledSetHash = binding.setHash
                item.enrollmentSequence = binding.sequence
            }
            if changes.attributes != nil || !changes.removedAttributes.isEmpty {
                let merged = changes.applied(to: current.attributes ?? [:])
                item.attributes = merged.isEmpty ? nil : merged
            }
            item.salt = nil
            item.value = plaintext
            if changes.value != nil { item.valueless = nil }
            if item.flags.contains(.applicationPassword) {
                try item.seal(plaintext, credential: try applicationPassword(context), aad: newKey.name)
            }
            item.modified = device.clock.now
            let record = item.record(key: newKey, appID: authenticator.appID)
            try device.storage.transaction { transaction in
                // The item may have been deleted or replaced while the prompt was up (the same
                // bytes as authorized are the same item: no second decode).
                guard let stored = try transaction.read(key),
                      try stored.value == currentBytes || StoredItem.decode(stored).sameProtection(as: current) else {
                    throw KeychainError(.itemNotFound, message: "the item changed or was deleted during the update")
                }
                if newKey != key {
                    if try transaction.read(newKey) != nil {
                        throw KeychainError(.duplicateItem, message: "an item \(itemClass) '\(newService)' / '\(newAccount)' already exists")
                    }
                    transaction.delete(key)
                    try markQualified(newAccount, in: &transaction)
                }
                transaction.put(record)
            }
        }
    }

    /// Replaces a UTF-8 string item's value.
    public func update(
        _ value: String, service: String, account: String, itemClass: KeychainItemClass = .genericPassword,
        context: AuthenticationContext? = nil, reason: String? = nil
    ) async throws {
        try await update(Data(value.utf8), service: service, account: account, itemClass: itemClass,
                         context: context, reason: reason)
    }

    // MARK: Deleting and listing

    /// Deletes an item (`SecItemDelete`); never prompts. errSecItemNotFound when absent.
    public func delete(service: String, account: String, itemClass: KeychainItemClass = .genericPassword) throws {
        let key = try recordKey(itemClass, service, account)
        try translatingErrors {
            try device.storage.transaction { transaction in
                guard try transaction.read(key) != nil else { throw KeychainError(.itemNotFound) }
                transaction.delete(key)
            }
        }
    }

    /// Every item of this app (optionally of one service, of one class), sorted by class,
    /// service and account — attributes only, never values.
    ///
    /// Only the named service's and class's records are read: a record's name is its app,
    /// class, service and account, so the others are never decoded.
    public func items(service: String? = nil, itemClass: KeychainItemClass? = nil) throws -> [KeychainItemInfo] {
        try items(service: service, accountPrefix: nil, itemClass: itemClass)
    }

    /// The item of `service` named `account` and those named `account` qualified
    /// (`account`, ``qualifierSeparator``, then anything: the `SecItem*` layer keeps the rest
    /// of an item's primary key there), in the order they were added. While this app has never
    /// stored a qualified account, that is the one record named `account`, read alone.
    public func items(service: String, account: String, itemClass: KeychainItemClass) throws -> [KeychainItemInfo] {
        guard try device.storage.read(qualifiedMarkerKey) != nil else {
            do {
                return [try info(service: service, account: account, itemClass: itemClass)]
            } catch let error as KeychainError where error.kind == .itemNotFound {
                return []
            }
        }
        let qualified = account + String(Self.qualifierSeparator)
        return try items(service: service, accountPrefix: account, itemClass: itemClass)
            .filter { $0.account == account || $0.account.hasPrefix(qualified) }
            .sorted { ($0.insertionOrder ?? 0, $0.account) < ($1.insertionOrder ?? 0, $1.account) }
    }

    /// ``items(service:itemClass:)`` limited to accounts that start with `accountPrefix` (only
    /// with a service: the prefix narrows the records read).
    private func items(service: String?, accountPrefix: String?, itemClass: KeychainItemClass?) throws -> [KeychainItemInfo] {
        try translatingErrors {
            let snapshot = try device.snapshot()
            let app = Self.escape(authenticator.appID) + "/"
            let prefixes: [String] = switch (service, itemClass) {
            case let (service?, itemClass):
                (itemClass.map { [$0] } ?? KeychainItemClass.allCases).map {
                    app + $0.rawValue + "/" + Self.escape(service) + "/" + (accountPrefix.map(Self.escape) ?? "")
                }
            case let (nil, itemClass?):
                [app + itemClass.rawValue + "/"]
            case (nil, nil):
                [app]
            }
            let records = try prefixes.flatMap { try device.storage.list(namespace: Self.namespace, prefix: $0) }
            return try records.compactMap { record -> KeychainItemInfo? in
                let item = try StoredItem.decode(record)
                if let service, item.service != service { return nil }
                if let accountPrefix, !item.account.hasPrefix(accountPrefix) { return nil }
                if let itemClass, item.itemClass != itemClass { return nil }
                return info(of: item, snapshot: snapshot)
            }
            .sorted { ($0.itemClass.rawValue, $0.service, $0.account) < ($1.itemClass.rawValue, $1.service, $1.account) }
        }
    }

    /// The attributes of one item, without authenticating; errSecItemNotFound when absent.
    /// Reads that item's record alone, whatever else the keychain holds.
    public func info(service: String, account: String, itemClass: KeychainItemClass = .genericPassword) throws -> KeychainItemInfo {
        guard !service.isEmpty, !account.isEmpty else { throw KeychainError(.itemNotFound) }
        let key = try recordKey(itemClass, service, account)
        return try translatingErrors {
            guard let record = try device.storage.read(key) else { throw KeychainError(.itemNotFound) }
            let item = try StoredItem.decode(record)
            guard item.service == service, item.account == account, item.itemClass == itemClass,
                  let info = info(of: item, snapshot: try device.snapshot()) else {
                throw KeychainError(.itemNotFound)
            }
            return info
        }
    }

    /// What ``items(service:itemClass:)`` and ``info(service:account:itemClass:)`` show of
    /// `item`; nil for a whenPasscodeSetThisDeviceOnly item while no passcode is set (it is
    /// gone as far as the app can tell).
    func info(of item: StoredItem, snapshot: Device.Snapshot) -> KeychainItemInfo? {
        if item.accessibility == .whenPasscodeSetThisDeviceOnly, !device.passcodeIsSet(snapshot.state) { return nil }
        return KeychainItemInfo(
            itemClass: item.itemClass, service: item.service, account: item.account,
            accessControl: item.accessControl, isInvalidated: isInvalidated(item, snapshot: snapshot),
            attributes: item.attributes ?? [:], creationDate: item.created, modificationDate: item.modified,
            insertionOrder: item.order, hasValue: item.valueless != true)
    }
}
