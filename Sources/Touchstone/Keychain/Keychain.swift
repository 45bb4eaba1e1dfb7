import Crypto
import Foundation

/// The class of a keychain item (`kSecClass`). Items are keyed by class, service and account.
public enum KeychainItemClass: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// `kSecClassGenericPassword`.
    case genericPassword
    /// `kSecClassInternetPassword` (the service is the server).
    case internetPassword

    /// Looks a class up by name (`genericPassword`, `generic`, `internetPassword`, `internet`).
    public init?(name: String) {
        switch name.lowercased() {
        case "genericpassword", "generic", "generic-password": self = .genericPassword
        case "internetpassword", "internet", "internet-password": self = .internetPassword
        default: return nil
        }
    }

    public var description: String { rawValue }
}

/// The value of one descriptive attribute of a keychain item (a label, a comment, a port...):
/// stored with the item, matched by queries and returned with its attributes, never secret.
/// Attribute names are the caller's (the `Security` module uses Apple's `kSecAttr*` keys).
public enum KeychainAttributeValue: Codable, Sendable, Hashable {
    /// Text.
    case string(String)
    /// Bytes.
    case data(Data)
    /// A whole number (ports, four-character codes).
    case integer(Int64)
    /// A flag.
    case bool(Bool)
}

/// What can be said about a stored item without authenticating: never its value.
public struct KeychainItemInfo: Sendable, Equatable, CustomStringConvertible {
    /// The item's class.
    public var itemClass: KeychainItemClass
    /// The service (or server).
    public var service: String
    /// The account.
    public var account: String
    /// Accessibility class and access-control flags.
    public var accessControl: AccessControl
    /// Whether reading needs an authentication (the flags have constraints).
    public var requiresAuthentication: Bool { accessControl.flags.requiresAuthentication }
    /// Whether the item was invalidated by an enrollment change (biometryCurrentSet); reads
    /// return errSecItemNotFound, and it still exists: adding the same item again is
    /// errSecDuplicateItem until it is deleted (REFERENCE §9).
    public var isInvalidated: Bool
    /// Descriptive attributes stored with the item (labels, comments, ports...).
    public var attributes: [String: KeychainAttributeValue] = [:]
    /// When the item was added (device time); nil for items stored before dates were kept.
    public var creationDate: Timestamp?
    /// When the item was last changed (device time); nil for items stored before dates were kept.
    public var modificationDate: Timestamp?
    /// Where the item stands in the order items were added to this app's keychain (1 for the
    /// first), the order `SecItemCopyMatching` returns them in, as iOS does; nil for items
    /// stored before the order was kept. Renaming or updating an item keeps its place.
    public var insertionOrder: UInt64? = nil

    /// `genericPassword api/alice whenUnlocked [biometryCurrentSet] invalidated`.
    public var description: String {
        "\(itemClass) \(service)/\(account) \(accessControl)" + (isInvalidated ? " invalidated" : "")
    }
}

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

    private var device: Device { authenticator.device }

    // MARK: Adding

    /// Adds an item (`SecItemAdd`). Never prompts.
    ///
    /// - Throws: ``KeychainError`` — errSecDuplicateItem when the item exists (an item
    ///   invalidated by an enrollment change too, until it is deleted), errSecParam for empty
    ///   service/account or `or` with `and`,
    ///   errSecNotAvailable for whenPasscodeSetThisDeviceOnly without a passcode,
    ///   errSecAuthFailed for biometric flags with nothing enrolled or applicationPassword
    ///   without a credential on `context`.
    public func add(
        _ value: Data, service: String, account: String, itemClass: KeychainItemClass = .genericPassword,
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
                                  value: value, salt: nil,
                                  attributes: attributes.isEmpty ? nil : attributes, created: now, modified: now)
            if access.flags.contains(.applicationPassword) {
                try item.seal(value, credential: try applicationPassword(context), aad: key.name)
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
    private func open(_ item: StoredItem, at key: RecordKey, context: AuthenticationContext?) throws -> Data {
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
                var merged = current.attributes ?? [:]
                for name in changes.removedAttributes { merged.removeValue(forKey: name) }
                merged.merge(changes.attributes ?? [:]) { _, new in new }
                item.attributes = merged.isEmpty ? nil : merged
            }
            item.salt = nil
            item.value = plaintext
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
        try translatingErrors {
            let snapshot = try device.snapshot()
            let app = Self.escape(authenticator.appID) + "/"
            let prefixes: [String] = switch (service, itemClass) {
            case let (service?, itemClass):
                (itemClass.map { [$0] } ?? KeychainItemClass.allCases).map { app + $0.rawValue + "/" + Self.escape(service) + "/" }
            case let (nil, itemClass?):
                [app + itemClass.rawValue + "/"]
            case (nil, nil):
                [app]
            }
            let records = try prefixes.flatMap { try device.storage.list(namespace: Self.namespace, prefix: $0) }
            return try records.compactMap { record -> KeychainItemInfo? in
                let item = try StoredItem.decode(record)
                if let service, item.service != service { return nil }
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
    private func info(of item: StoredItem, snapshot: Device.Snapshot) -> KeychainItemInfo? {
        if item.accessibility == .whenPasscodeSetThisDeviceOnly, !device.passcodeIsSet(snapshot.state) { return nil }
        return KeychainItemInfo(
            itemClass: item.itemClass, service: item.service, account: item.account,
            accessControl: item.accessControl, isInvalidated: isInvalidated(item, snapshot: snapshot),
            attributes: item.attributes ?? [:], creationDate: item.created, modificationDate: item.modified,
            insertionOrder: item.order)
    }

    // MARK: Rules

    /// Loads the item at `key` and runs the evaluation its flags require; the item and the
    /// bytes it was decoded from.
    private func authorize(key: RecordKey, context: AuthenticationContext?, reason: String) async throws -> (StoredItem, Data) {
        let (item, bytes) = try load(key, context: context)
        try await enforce(item, storedAt: key, context: context, reason: reason)
        return (item, bytes)
    }

    /// The item at `key` and the bytes it was decoded from; an invalidated context is refused
    /// first, before anything says whether the item exists.
    private func load(_ key: RecordKey, context: AuthenticationContext?) throws -> (StoredItem, Data) {
        try Self.refuseInvalidated(context)
        guard let record = try device.storage.read(key) else { throw KeychainError(.itemNotFound) }
        return (try StoredItem.decode(record), record.value)
    }

    /// Throws the error an invalidated `context` is answered with.
    private static func refuseInvalidated(_ context: AuthenticationContext?) throws {
        if let context, context.isInvalidated {
            throw KeychainError(.authenticationFailed, message: "the context was invalidated", authenticationCode: .invalidContext)
        }
    }

    /// The rules every protected thing obeys before it is used — keychain items and Secure
    /// Enclave keys alike (``KeyStore`` calls this): an invalidated context is refused; the
    /// data-protection class is checked against the lock state; a whenPasscodeSetThisDeviceOnly
    /// one without a passcode is deleted (when stored at `key`) and reported missing; a
    /// biometryCurrentSet one bound to another enrolled set is invalidated; then the evaluation
    /// its flags require runs on `context` (a fresh one when nil) unless that context already
    /// holds a grant satisfying the flags (an earlier evaluation, `evaluateAccessControl`, or
    /// the reuse window inside the evaluation), honouring `interactionNotAllowed`.
    func enforce(_ item: some ProtectedRecord, storedAt key: RecordKey?, context: AuthenticationContext?,
                 reason: String) async throws {
        guard let (context, policy) = try check(item, storedAt: key, context: context) else { return }
        try await context.evaluate(policy, reason: reason)
        // The enrolled set may have changed while the prompt was up.
        if item.flags.contains(.biometryCurrentSet), isInvalidated(item, snapshot: try device.snapshot()) {
            throw KeychainError(.invalidated)
        }
    }

    /// The rules of ``enforce(_:storedAt:context:reason:)`` that come before its evaluation;
    /// returns the evaluation still needed (the context and policy), or nil when none is.
    private func check(_ item: some ProtectedRecord, storedAt key: RecordKey?,
                       context: AuthenticationContext?) throws -> (AuthenticationContext, AccessControlPolicy)? {
        try Self.refuseInvalidated(context)
        // The sensor's enrolled set matters here only to a biometryCurrentSet item (an
        // evaluation reads it itself); the lock state and the passcode are in the stored records.
        let snapshot = try item.flags.contains(.biometryCurrentSet) ? device.snapshot() : device.storedSnapshot()
        try checkDataProtection(item.accessibility, snapshot: snapshot)
        if item.accessibility == .whenPasscodeSetThisDeviceOnly || item.flags.contains(.biometryCurrentSet) {
            if item.accessibility == .whenPasscodeSetThisDeviceOnly, !device.passcodeIsSet(snapshot.state) {
                // The item is gone for every caller whether or not this lazy delete lands: a
                // failed delete (a read-only or busy store) is retried by the next access, and
                // the answer stays itemNotFound rather than the storage error.
                if let key { try? device.storage.commit([.delete(key)]) }
                throw KeychainError(.itemNotFound, message: "the item was deleted when the device passcode was removed")
            }
            if isInvalidated(item, snapshot: snapshot) {
                throw KeychainError(.invalidated)
            }
        }
        guard let rule = item.flags.policyRule else { return nil }
        let context = context ?? authenticator.makeContext()
        if context.hasGrant(for: item.flags) { return nil }
        return (context, AccessControlPolicy(flags: item.flags, rule: rule))
    }

    /// The data-protection classes against the device's lock state (REFERENCE §9):
    /// whenUnlocked* and whenPasscodeSet… items only while unlocked, afterFirstUnlock* only
    /// after the first unlock since restart; else errSecInteractionNotAllowed. A device
    /// without a passcode counts as unlocked.
    func checkDataProtection(_ accessibility: Accessibility, snapshot: Device.Snapshot) throws {
        let lock = device.lockState(snapshot)
        switch accessibility {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly:
            if lock.isLocked {
                throw KeychainError(.interactionNotAllowed,
                                    message: "the device is locked: \(accessibility) items are available only while it is unlocked")
            }
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly:
            if !lock.unlockedSinceRestart {
                throw KeychainError(.interactionNotAllowed,
                                    message: "the device has not been unlocked since it restarted: \(accessibility) items are available after the first unlock")
            }
        }
    }

    /// Whether a biometryCurrentSet item was invalidated: the enrolled set changed since it was
    /// created. Invalidation is permanent — removing the added finger again does not bring the
    /// item back (REFERENCE §9) — so the change count decides, not only the current set.
    func isInvalidated(_ item: some ProtectedRecord, snapshot: Device.Snapshot) -> Bool {
        guard item.flags.contains(.biometryCurrentSet) else { return false }
        if let sequence = item.enrollmentSequence, sequence != snapshot.state.enrollmentSequence { return true }
        return item.enrolledSetHash == nil || enrolledSetHash(snapshot) != item.enrolledSetHash
    }

    /// Whether an existing record no longer counts because its passcode was removed (such items
    /// are deleted then; a leftover record is replaced). An item invalidated by an enrollment
    /// change still counts: on iOS it lingers until deleted, so adding it again is
    /// errSecDuplicateItem (REFERENCE §9).
    private func isDeletedWithPasscode(_ item: StoredItem, snapshot: Device.Snapshot) -> Bool {
        item.accessibility == .whenPasscodeSetThisDeviceOnly && !device.passcodeIsSet(snapshot.state)
    }

    /// A device-wide hash of the enrolled set (independent of apps and OS upgrades); nil when
    /// nothing is enrolled.
    private func enrolledSetHash(_ snapshot: Device.Snapshot) -> Data? {
        // Kept with the snapshot (the enrolled set cannot change without a new one), so
        // reading items and using keys does not compute the HMAC again.
        let cacheKey = "\u{0}keychain.current-set.\(device.biometryType.rawValue)"
        if let cached = snapshot.derivedKeys.withLock({ $0[cacheKey] }) { return cached.isEmpty ? nil : cached }
        let hash = DomainStateDerivation.biometryHash(
            key: snapshot.secretKey, appID: "\u{0}keychain.current-set", osEpoch: 0,
            identities: snapshot.state.identities)
        snapshot.derivedKeys.withLock { $0[cacheKey] = hash ?? Data() }
        return hash
    }

    private func applicationPassword(_ context: AuthenticationContext?) throws -> Data {
        guard let credential = context?.credential(.applicationPassword), !credential.isEmpty else {
            throw KeychainError(.authenticationFailed,
                                message: "the item is protected by applicationPassword and the context has no application-password credential")
        }
        return credential
    }

    private func recordKey(_ itemClass: KeychainItemClass, _ service: String, _ account: String) throws(KeychainError) -> RecordKey {
        guard !service.isEmpty, !account.isEmpty else {
            throw KeychainError(.invalidParameter, message: "service and account must not be empty")
        }
        return RecordKey(Self.namespace, [authenticator.appID, itemClass.rawValue, service, account].map(Self.escape).joined(separator: "/"))
    }

    /// Where each app's count of adds is kept (one record per app, named by its app id): the
    /// next item added takes the next number (``KeychainItemInfo/insertionOrder``).
    public static let orderNamespace: RecordNamespace = "keychain-order"

    /// The place of the last item added, as the count of adds `record` holds (0 when there is
    /// none); ``DamagedOrderCount`` when it holds something else. The next item takes the place
    /// after it (the last one again at `UInt64.max`).
    static func lastOrder(in record: Record?) throws -> UInt64 {
        guard let record else { return 0 }
        guard let last = UInt64(String(decoding: record.value, as: UTF8.self)) else { throw DamagedOrderCount() }
        return last
    }

    /// Refuses (errSecParam) a new item's service or account holding a "/" or "%" joined to
    /// the combining mark after it ("/" + U+0301 is one character): ``escape(_:)`` decides by
    /// whole characters, as the keys of every stored item were made, so such a "/" would stay
    /// raw in the record name, and two different items could then share one record. Our limit:
    /// Apple's keychain takes any string. Items stored before keep their keys and open as before.
    static func requireSeparableName(_ part: String, _ label: String) throws(KeychainError) {
        guard holdsEscapedByte(part) else { return }
        let joined = part.contains { character in
            character != "/" && character != "%" && character.unicodeScalars.contains { $0 == "/" || $0 == "%" }
        }
        if joined {
            throw KeychainError(.invalidParameter,
                                message: "the \(label) holds a '/' or '%' joined to the mark after it; such a name cannot be kept apart from others (our limit)")
        }
    }

    /// Whether `part` has a "%" or "/" byte at all (the quick test before looking at characters).
    private static func holdsEscapedByte(_ part: String) -> Bool {
        part.utf8.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "/") }
    }

    /// Escapes `%` and `/` so that the parts of a record name never run into each other.
    static func escape(_ part: String) -> String {
        // Bytes first (every item call names a service and an account): no "%" or "/" byte,
        // nothing to escape. Otherwise the decision stays with whole characters, as it always
        // was, so that a name keeps the record key it was stored under.
        guard holdsEscapedByte(part), part.contains(where: { $0 == "%" || $0 == "/" }) else { return part }
        return part.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "/", with: "%2F")
    }

    /// Runs `body`, turning storage and authentication errors into ``KeychainError``s.
    func translatingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            throw KeychainError(error)
        } catch let error as AuthenticationError {
            throw KeychainError(error)
        }
    }

    func translatingErrors<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StorageError {
            throw KeychainError(error)
        } catch let error as AuthenticationError {
            throw KeychainError(error)
        }
    }

    // MARK: Passcode removal

    /// Deletes every whenPasscodeSetThisDeviceOnly item of every app in `storage`, in one
    /// transaction. The device runs this when its passcode is removed.
    static func deletePasscodeBoundItems(in storage: any StorageBackend) throws {
        let records = try storage.list(namespace: namespace) + storage.list(namespace: KeyStore.namespace)
        let doomed = records.filter {
            $0.attributes["accessible"] == Accessibility.whenPasscodeSetThisDeviceOnly.rawValue
        }
        guard !doomed.isEmpty else { return }
        try storage.commit(doomed.map { .delete($0.key) })
    }
}

/// What ``Keychain/update(service:account:itemClass:changes:context:reason:)`` changes; nil
/// fields stay as they are.
public struct KeychainItemChanges: Sendable, Equatable {
    /// The new value.
    public var value: Data?
    /// The new protection (accessibility class and flags).
    public var accessControl: AccessControl?
    /// Attributes to set, merged over the stored ones.
    public var attributes: [String: KeychainAttributeValue]?
    /// Attributes to remove before ``attributes`` are merged.
    public var removedAttributes: Set<String> = []
    /// The new service (or server).
    public var service: String?
    /// The new account.
    public var account: String?

    /// Changes to make; nothing by default.
    public init(value: Data? = nil, accessControl: AccessControl? = nil, attributes: [String: KeychainAttributeValue]? = nil,
                service: String? = nil, account: String? = nil) {
        self.value = value
        self.accessControl = accessControl
        self.attributes = attributes
        self.service = service
        self.account = account
    }
}

extension Authenticator {
    /// This app's keychain on the device.
    public var keychain: Keychain { Keychain(self) }
}

/// What the shared protection rules (``Keychain/enforce(_:storedAt:context:reason:)``) read of
/// a stored item or key.
protocol ProtectedRecord: Sendable {
    var accessibility: Accessibility { get }
    var flags: AccessControlFlags { get }
    /// The enrolled-set hash at creation (biometryCurrentSet only).
    var enrolledSetHash: Data? { get }
    /// The device's enrollment-change count at creation (biometryCurrentSet only).
    var enrollmentSequence: Int? { get }
}

/// The stored form of an item (record `keychain/<app>/<class>/<service>/<account>`).
struct StoredItem: Codable, Sendable, Equatable, ProtectedRecord {
    var itemClass: KeychainItemClass
    var service: String
    var account: String
    var accessibility: Accessibility
    var flags: AccessControlFlags
    /// The enrolled-set hash at creation (biometryCurrentSet only).
    var enrolledSetHash: Data?
    /// The device's enrollment-change count at creation (biometryCurrentSet only). Any change
    /// since invalidates the item for good, even one undone later (add a finger, remove it).
    var enrollmentSequence: Int?
    /// The value, or an AES-GCM sealed box (nonce, ciphertext, tag) when `salt` is set.
    var value: Data
    /// HKDF salt of the application-password key; nil when the value is not sealed.
    var salt: Data?
    /// Descriptive attributes (labels, comments, ports...); nil when none.
    var attributes: [String: KeychainAttributeValue]?
    /// When the item was added (nil in records written before dates were kept).
    var created: Timestamp?
    /// When the item was last changed.
    var modified: Timestamp?
    /// The item's place in the order of adds (see ``KeychainItemInfo/insertionOrder``).
    var order: UInt64?

    var accessControl: AccessControl {
        AccessControl(validated: accessibility, flags: flags)
    }

    func sameProtection(as other: StoredItem) -> Bool {
        flags == other.flags && accessibility == other.accessibility && enrolledSetHash == other.enrolledSetHash
            && enrollmentSequence == other.enrollmentSequence
    }

    func record(key: RecordKey, appID: String) -> Record {
        Record(key: key, value: json(), attributes: [
            "app": appID, "class": itemClass.rawValue, "service": service, "account": account,
            "accessible": accessibility.rawValue, "access": String(flags.rawValue),
        ])
    }

    static func decode(_ record: Record) throws -> StoredItem {
        if let item = StoredItem(fastJSON: record.value) { return item }
        do {
            return try RecordCoding.decoder.decode(StoredItem.self, from: record.value)
        } catch {
            // Never echo the decoder's message: it may quote stored bytes.
            throw KeychainError(.corrupt, message: "stored item '\(record.key.name)' cannot be decoded")
        }
    }

    private static let info = Data("touchstone.keychain.application-password.v1".utf8)

    private static func key(credential: Data, salt: Data) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: credential), salt: salt, info: info, outputByteCount: 32)
    }

    /// Seals `plaintext` under the application password, bound to the item's name.
    mutating func seal(_ plaintext: Data, credential: Data, aad: String) throws {
        var saltBytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in saltBytes.indices { saltBytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        let salt = Data(saltBytes)
        do {
            let box = try AES.GCM.seal(plaintext, using: Self.key(credential: credential, salt: salt), authenticating: Data(aad.utf8))
            guard let combined = box.combined else { throw KeychainError(.storageFailure, message: "sealing failed") }
            value = combined
            self.salt = salt
        } catch let error as KeychainError {
            throw error
        } catch {
            throw KeychainError(.storageFailure, message: "sealing the item failed")
        }
    }

    /// The plaintext value; for sealed items, opened with `credential`.
    func open(credential: Data?, aad: String) throws -> Data {
        guard let salt else { return value }
        guard let credential else {
            throw KeychainError(.authenticationFailed, message: "the item needs the application password")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: value)
            return try AES.GCM.open(box, using: Self.key(credential: credential, salt: salt), authenticating: Data(aad.utf8))
        } catch {
            throw KeychainError(.authenticationFailed, message: "wrong application password, or the item was altered")
        }
    }
}
