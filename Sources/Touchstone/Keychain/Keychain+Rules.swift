import Crypto
import Foundation

/// The protection rules every item and key read goes through (shared with ``KeyStore``), and
/// the passcode-removal cleanup.
extension Keychain {
    // MARK: Rules

    /// Loads the item at `key` and runs the evaluation its flags require; the item and the
    /// bytes it was decoded from.
    func authorize(key: RecordKey, context: AuthenticationContext?, reason: String) async throws -> (StoredItem, Data) {
        let (item, bytes) = try load(key, context: context)
        try await enforce(item, storedAt: key, context: context, reason: reason)
        return (item, bytes)
    }

    /// The item at `key` and the bytes it was decoded from; an invalidated context is refused
    /// first, before anything says whether the item exists.
    func load(_ key: RecordKey, context: AuthenticationContext?) throws -> (StoredItem, Data) {
        try Self.refuseInvalidated(context)
        guard let record = try device.storage.read(key) else { throw KeychainError(.itemNotFound) }
        return (try StoredItem.decode(record), record.value)
    }

    /// Throws the error an invalidated `context` is answered with.
    static func refuseInvalidated(_ context: AuthenticationContext?) throws {
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
    func check(_ item: some ProtectedRecord, storedAt key: RecordKey?,
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
    /// after the first unlock since restart; else errSecInteractionNotAllowed. always* items
    /// whatever the lock state. A device without a passcode counts as unlocked.
    func checkDataProtection(_ accessibility: Accessibility, snapshot: Device.Snapshot) throws {
        let lock = device.lockState(snapshot)
        switch accessibility {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly:
            if lock.isLocked {
                throw KeychainError(.interactionNotAllowed,
                                    message: "the device is locked: \(accessibility) items are available only while it is unlocked")
            }
        case .always, .alwaysThisDeviceOnly:
            break
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
    func isDeletedWithPasscode(_ item: StoredItem, snapshot: Device.Snapshot) -> Bool {
        item.accessibility == .whenPasscodeSetThisDeviceOnly && !device.passcodeIsSet(snapshot.state)
    }

    /// A device-wide hash of the enrolled set (independent of apps and OS upgrades); nil when
    /// nothing is enrolled.
    func enrolledSetHash(_ snapshot: Device.Snapshot) -> Data? {
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

    func applicationPassword(_ context: AuthenticationContext?) throws -> Data {
        guard let credential = context?.credential(.applicationPassword), !credential.isEmpty else {
            throw KeychainError(.authenticationFailed,
                                message: "the item is protected by applicationPassword and the context has no application-password credential")
        }
        return credential
    }

    func recordKey(_ itemClass: KeychainItemClass, _ service: String, _ account: String) throws(KeychainError) -> RecordKey {
        guard !service.isEmpty, !account.isEmpty else {
            throw KeychainError(.invalidParameter, message: "service and account must not be empty")
        }
        return RecordKey(Self.namespace, [authenticator.appID, itemClass.rawValue, service, account].map(Self.escape).joined(separator: "/"))
    }

    /// Where each app's count of adds is kept (one record per app, named by its app id): the
    /// next item added takes the next number (``KeychainItemInfo/insertionOrder``).
    public static let orderNamespace: RecordNamespace = "keychain-order"

    /// Separates an account from its qualifier: an item may be named `account`, this
    /// character, then anything (see ``items(service:account:itemClass:)``).
    public static let qualifierSeparator: Character = "\u{2400}"

    /// Present once this app has stored an item under a qualified account: until then a
    /// lookup of an account reads its one record.
    var qualifiedMarkerKey: RecordKey { RecordKey(Self.orderNamespace, Self.escape(authenticator.appID) + "/qualified") }

    /// Records in `transaction` that this app holds a qualified account, when `account` is one.
    func markQualified(_ account: String, in transaction: inout StorageTransaction) throws {
        guard account.dropFirst().contains(Self.qualifierSeparator), try transaction.read(qualifiedMarkerKey) == nil else { return }
        transaction.put(Record(key: qualifiedMarkerKey, value: Data("1".utf8)))
    }

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
    static func holdsEscapedByte(_ part: String) -> Bool {
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
