import Crypto
import Foundation

/// One app's keys in the device's simulated Secure Enclave (REFERENCE §10): P-256 private keys
/// generated inside the device, sealed at rest under a device key, never exported or imported,
/// each with an access control enforced by the **same** rules as keychain items
/// (``Keychain``): the evaluation its flags require (with the reuse window, a context that
/// already evaluated, `interactionNotAllowed`, lockout), invalidation of `biometryCurrentSet`
/// keys by an enrollment change, deletion of `whenPasscodeSetThisDeviceOnly` keys with the
/// passcode, and the data-protection classes against the lock state.
///
/// Using a private key — ``sign(_:with:context:reason:)``, ``decrypt(_:with:context:reason:)``,
/// ``sharedSecret(with:using:context:reason:)`` — is where the prompt happens. Creating,
/// listing and deleting never prompt.
///
/// ```swift
/// let keys = authenticator.keys
/// let access = try AccessControl(.whenPasscodeSetThisDeviceOnly, flags: [.privateKeyUsage, .biometryCurrentSet])
/// let key = try keys.create(accessControl: access, tag: Data("com.example.login".utf8))
/// let signature = try await keys.sign(challenge, with: key, reason: "Sign in")   // DER ECDSA
/// ```
///
/// Errors are ``KeychainError``s, as for items: errSecUserCanceled for a cancel (with the
/// LAError code), errSecAuthFailed for a lockout or a failed evaluation, errSecItemNotFound
/// for a deleted key or one invalidated by an enrollment change (kind
/// ``KeychainError/Kind/invalidated``), errSecInteractionNotAllowed, errSecParam for bad input.
///
/// Sealing: the private scalar is sealed with AES-GCM under a key derived by HKDF-SHA256 from
/// the device secret (salt `touchstone.keys.v1`, info = app id), authenticating the app id, the
/// public key and the attributes that decide how the key may be used
/// (``EnclaveKey/sealedAttributes``), so a sealed key cannot be moved to another app or device,
/// and a handle with edited access control does not open. Every use opens the
/// sealed key again; the swift-crypto key object built from the opened scalar is kept per device
/// in memory (at most 64), so its public point is not recomputed on each signature.
public struct KeyStore: Sendable {
    /// The storage namespace of permanent keys (`keys/<app>/<application label hex>`).
    public static let namespace = RecordNamespace.keys

    /// The device and app the keys belong to.
    public let authenticator: Authenticator

    /// The keys of `authenticator`'s app.
    public init(_ authenticator: Authenticator) {
        self.authenticator = authenticator
    }

    private var device: Device { authenticator.device }
    private var keychain: Keychain { authenticator.keychain }

    // MARK: Creating

    /// Generates a new P-256 private key inside the device (`SecKeyCreateRandomKey` with
    /// `kSecAttrTokenIDSecureEnclave`), or with `software` a software key (the same call without
    /// the token: its bytes can be exported). A permanent key is stored and found again by tag or
    /// label; several keys may share a tag, as on iOS. Its item synchronizes when
    /// `synchronizable` (`kSecAttrSynchronizable`). Never prompts.
    ///
    /// - Throws: ``KeychainError`` — errSecParam for `or` with `and`; errSecNotAvailable for
    ///   whenPasscodeSetThisDeviceOnly without a passcode; errSecAuthFailed for biometric flags
    ///   with nothing enrolled; errSecInteractionNotAllowed when the lock state forbids the class.
    public func create(
        accessControl: AccessControl, tag: Data? = nil, label: String? = nil, permanent: Bool = true,
        software: Bool = false, synchronizable: Bool = false
    ) throws -> EnclaveKey {
        try make(generate(), accessControl: accessControl, tag: tag, label: label, permanent: permanent, software: software,
                 synchronizable: synchronizable)
    }

    /// Makes a software key of an existing P-256 private key (`SecKeyCreateWithData` with
    /// `kSecAttrKeyClassPrivate`): `privateKey` is its X9.63 form (`04 || X || Y || K`, 97
    /// bytes, what `SecKeyCopyExternalRepresentation` gives) or its raw 32-byte scalar. The key
    /// is not stored (``store(_:tag:label:applicationLabel:accessControl:synchronizable:)`` stores it) and has no
    /// access-control constraint unless one is given. errSecParam for bytes that are not a P-256
    /// private key or whose public half does not match. Never prompts.
    public func importPrivateKey(
        _ privateKey: Data, accessControl: AccessControl? = nil
    ) throws -> EnclaveKey {
        let key: P256.Signing.PrivateKey
        switch privateKey.count {
        case 97:
            guard let parsed = try? P256.Signing.PrivateKey(x963Representation: privateKey) else {
                throw KeychainError(.invalidParameter, message: "not a P-256 private key in X9.63 form (04 || X || Y || K)")
            }
            key = parsed
        case 32:
            guard let parsed = try? P256.Signing.PrivateKey(rawRepresentation: privateKey) else {
                throw KeychainError(.invalidParameter, message: "not a P-256 private scalar")
            }
            key = parsed
        default:
            throw KeychainError(.invalidParameter, message: "a P-256 private key is 97 bytes (X9.63) or 32 (the scalar), not \(privateKey.count)")
        }
        return try make(key, accessControl: accessControl ?? AccessControl(validated: .whenUnlocked, flags: []),
                        tag: nil, label: nil, permanent: false, software: true)
    }

    private func make(
        _ privateKey: P256.Signing.PrivateKey, accessControl: AccessControl, tag: Data?, label: String?,
        permanent: Bool, software: Bool, synchronizable: Bool = false
    ) throws -> EnclaveKey {
        try accessControl.flags.validate()
        return try keychain.translatingErrors {
            // A software key that is not kept (`SecKeyCreateWithData`, `SecKeyCreateRandomKey`
            // without `kSecAttrIsPermanent`) lives in the app's memory, as iOS's does: no data
            // protection applies to it, so a locked device makes one too.
            let inMemory = software && !permanent
                && !accessControl.flags.contains(.biometryAny) && !accessControl.flags.contains(.biometryCurrentSet)
            let binding = inMemory ? (setHash: nil, sequence: nil) : try keychain.protectionBinding(accessControl)
            let snapshot = try device.snapshot()
            var key = EnclaveKey(
                appID: authenticator.appID, publicKeyData: privateKey.publicKey.x963Representation, applicationTag: tag,
                label: label, accessibility: accessControl.accessibility, flags: accessControl.flags, isPermanent: permanent,
                creationDate: device.clock.now, enrolledSetHash: binding.setHash,
                enrollmentSequence: binding.sequence, sealedPrivateKey: Data(), isSoftware: software,
                isSynchronizable: synchronizable)
            try seal(privateKey.rawRepresentation, into: &key, snapshot: snapshot)
            if permanent {
                try device.storage.commit([.put(try record(of: key))])
            }
            return key
        }
    }

    /// A P-256 scalar from the device's random source (seeded in simulation, so keys are
    /// reproducible there; the system CSPRNG otherwise).
    private func generate() throws(KeychainError) -> P256.Signing.PrivateKey {
        for _ in 0 ..< 8 {
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: device.random.bytes(32)) { return key }
        }
        throw KeychainError(.storageFailure, message: "no valid P-256 scalar could be generated")
    }

    /// Stores a key made with `permanent: false` (`SecItemAdd` with `kSecValueRef`), with a
    /// new tag / label when given; errSecDuplicateItem when it is stored already. A software
    /// key also takes the add's `kSecAttrApplicationLabel` and its accessibility or access
    /// control (an enclave key keeps the access control it was made with, and its application
    /// label). Its item synchronizes when `synchronizable` (`kSecAttrSynchronizable`). Never
    /// prompts.
    @discardableResult
    public func store(_ key: EnclaveKey, tag: Data? = nil, label: String? = nil, applicationLabel: Data? = nil,
                      accessControl: AccessControl? = nil, synchronizable: Bool = false) throws -> EnclaveKey {
        guard key.appID == authenticator.appID else { throw KeychainError(.invalidParameter, message: "the key belongs to another app") }
        var access = key.accessControl
        if key.isSoftware, let accessControl {
            try accessControl.flags.validate()
            access = accessControl
        }
        // Storing is a keychain write under the item's protection, whatever made the key (a key
        // made in memory skipped it): a locked device refuses a whenUnlocked key, and a
        // whenPasscodeSet one needs a passcode, as any other item.
        let checked = try keychain.translatingErrors { try keychain.protectionBinding(access) }
        // A key already bound to an enrolled set keeps that set unless the add gives new access.
        let keepsBinding = accessControl == nil || !key.isSoftware
        let binding = keepsBinding && key.enrolledSetHash != nil ? (setHash: key.enrolledSetHash, sequence: key.enrollmentSequence) : checked
        var stored = EnclaveKey(
            appID: key.appID, publicKeyData: key.publicKeyData, applicationTag: tag ?? key.applicationTag,
            label: label ?? key.label, accessibility: access.accessibility, flags: access.flags, isPermanent: true,
            creationDate: key.creationDate, enrolledSetHash: binding.setHash, enrollmentSequence: binding.sequence,
            sealedPrivateKey: Data(), isSoftware: key.isSoftware,
            applicationLabel: key.isSoftware ? applicationLabel ?? key.storedApplicationLabel : key.storedApplicationLabel,
            isSynchronizable: synchronizable)
        // Sealed again over what the stored key now is (it is stored, perhaps with new access).
        try keychain.translatingErrors {
            let snapshot = try device.snapshot()
            try seal(try open(key, snapshot: snapshot), into: &stored, snapshot: snapshot)
        }
        let record = try record(of: stored)
        try keychain.translatingErrors {
            try device.storage.transaction { transaction in
                if try transaction.read(record.key) != nil { throw KeychainError(.duplicateItem, message: "the key is stored already") }
                transaction.put(record)
            }
        }
        return stored
    }

    // MARK: Finding and deleting

    /// The stored keys of this app with `tag` and / or `label` (all when both are nil), oldest
    /// first. Keys invalidated by an enrollment change are left out unless
    /// `includingInvalidated`; whenPasscodeSetThisDeviceOnly keys without a passcode never count.
    public func keys(tag: Data? = nil, label: String? = nil, includingInvalidated: Bool = false) throws -> [EnclaveKey] {
        try keychain.translatingErrors {
            let snapshot = try device.snapshot()
            let prefix = Keychain.escape(authenticator.appID) + "/"
            return try device.storage.list(namespace: Self.namespace, prefix: prefix)
                // keys/<app>/public/<hex> are stored public keys (``publicKeys(tag:label:)``).
                .filter { !$0.key.name.dropFirst(prefix.count).contains("/") }
                .map(Self.decode)
                .filter { key in
                    (tag.map { $0 == key.applicationTag } ?? true) && (label.map { $0 == key.label } ?? true)
                        && !(key.accessibility == .whenPasscodeSetThisDeviceOnly && !device.passcodeIsSet(snapshot.state))
                        && (includingInvalidated || !keychain.isInvalidated(key, snapshot: snapshot))
                }
                .sorted { ($0.creationDate, $0.id) < ($1.creationDate, $1.id) }
        }
    }

    /// Whether `key` was invalidated by an enrollment change (biometryCurrentSet): it can never
    /// be used again; the app must make a new one and register its public key again.
    public func isInvalidated(_ key: EnclaveKey) throws -> Bool {
        try keychain.translatingErrors { keychain.isInvalidated(key, snapshot: try device.snapshot()) }
    }

    /// Throws ``KeychainError`` `.interactionNotAllowed` (errSecInteractionNotAllowed) when the
    /// device's lock state keeps `key` out of reach (its data-protection class, REFERENCE §9):
    /// a lookup of the key fails then, as on iOS, not only a later use of it. Never prompts.
    public func checkAvailable(_ key: EnclaveKey) throws {
        try keychain.translatingErrors { try keychain.checkDataProtection(key.accessibility, snapshot: try device.snapshot()) }
    }

    /// Deletes a stored key (`SecItemDelete`); errSecItemNotFound when it is not stored. Never prompts.
    public func delete(_ key: EnclaveKey) throws {
        let recordKey = try self.recordKey(key)
        try keychain.translatingErrors {
            try device.storage.transaction { transaction in
                guard try transaction.read(recordKey) != nil else { throw KeychainError(.itemNotFound) }
                transaction.delete(recordKey)
            }
        }
    }

    // MARK: Using the private key

    /// Signs `message` with ECDSA P-256 over its SHA-256 (`.ecdsaSignatureMessageX962SHA256`),
    /// after the evaluation the key's access control requires (operation useKeySign). Returns
    /// the DER signature (X9.62 `SEQUENCE { r, s }`), as Apple's.
    public func sign(_ message: Data, with key: EnclaveKey, context: AuthenticationContext? = nil,
                     reason: String? = nil) async throws -> Data {
        let privateKey = try await unseal(key, context: context, reason: reason ?? "Sign with your key")
        return try keychain.translatingErrors {
            do {
                return try privateKey.signature(for: message).derRepresentation
            } catch {
                throw KeychainError(.storageFailure, message: "signing failed")
            }
        }
    }

    /// Signs a given digest (`.ecdsaSignatureDigestX962SHA256` and its siblings): ECDSA over
    /// its bytes, a digest longer than 32 bytes cut to the curve order's size as X9.62 says.
    /// errSecParam for an empty digest or one longer than 64 bytes (SHA-512's). Authenticates as
    /// ``sign(_:with:context:reason:)``.
    public func sign(digest: Data, with key: EnclaveKey, context: AuthenticationContext? = nil,
                     reason: String? = nil) async throws -> Data {
        guard let raw = RawDigest(digest) else {
            throw KeychainError(.invalidParameter, message: "a digest is 1 to 64 bytes, not \(digest.count)")
        }
        let privateKey = try await unseal(key, context: context, reason: reason ?? "Sign with your key")
        do {
            return try privateKey.signature(for: raw).derRepresentation
        } catch {
            throw KeychainError(.storageFailure, message: "signing failed")
        }
    }

    /// The raw ECDH shared secret (the X coordinate, 32 bytes) between `key` and another
    /// party's X9.63 public key (`SecKeyCopyKeyExchangeResult` with `.ecdhKeyExchangeStandard`),
    /// after the key's evaluation.
    public func sharedSecret(with publicKey: Data, using key: EnclaveKey, context: AuthenticationContext? = nil,
                             reason: String? = nil) async throws -> Data {
        let peer = try ECIES.publicKey(publicKey)
        let privateKey = try await unseal(key, context: context, reason: reason ?? "Use your key")
        return try ECIES.agree(privateKey, peer)
    }

    /// Runs `body` with `key` as swift-crypto's key-agreement key, after the key's evaluation,
    /// for CryptoKit's `SecureEnclave.P256.KeyAgreement`: its shared secret is swift-crypto's
    /// `SharedSecret`, which only swift-crypto can make, so the agreement runs there. The key
    /// does not outlive `body`.
    package func withKeyAgreementKey<T: Sendable>(_ key: EnclaveKey, context: AuthenticationContext? = nil, reason: String? = nil,
                                                  _ body: (P256.KeyAgreement.PrivateKey) throws -> T) async throws -> T {
        let privateKey = try await unseal(key, context: context, reason: reason ?? "Use your key")
        let agreement: P256.KeyAgreement.PrivateKey
        do {
            agreement = try P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey.rawRepresentation)
        } catch {
            throw KeychainError(.corrupt, message: "the sealed key is not a P-256 key")
        }
        return try body(agreement)
    }

    /// A software key's private bytes in X9.63 form (`04 || X || Y || K`, 97 bytes:
    /// `SecKeyCopyExternalRepresentation`), after the evaluation its access control requires.
    /// A Secure Enclave key's bytes never leave the device: ``KeychainError`` `.invalidParameter`.
    public func exportPrivateKey(_ key: EnclaveKey, context: AuthenticationContext? = nil,
                                 reason: String? = nil) async throws -> Data {
        guard key.isSoftware else {
            throw KeychainError(.invalidParameter, message: "a Secure Enclave private key cannot be exported")
        }
        return try await unseal(key, context: context, reason: reason ?? "Use your key").x963Representation
    }

    /// Decrypts one of Apple's ECIES formats (see ``ECIES``; by default
    /// `.eciesEncryptionCofactorVariableIVX963SHA256AESGCM`) with `key`, after the key's
    /// evaluation (operation useKeyDecrypt). errSecParam when the ciphertext is malformed;
    /// errSecParam when it fails to open (``ECIES/open(_:privateKey:variant:)``).
    public func decrypt(_ ciphertext: Data, with key: EnclaveKey, context: AuthenticationContext? = nil,
                        reason: String? = nil, variant: ECIES.Variant = .variableIVSHA256) async throws -> Data {
        let parts = try ECIES.split(ciphertext)
        let privateKey = try await unseal(key, context: context, reason: reason ?? "Decrypt with your key")
        return try ECIES.open(parts, privateKey: privateKey, variant: variant)
    }

    /// The key's protection rules (``Keychain``'s, shared), which every use of its private
    /// scalar runs first: the key is this app's, still stored when permanent (deleted keys
    /// cannot sign), and its access control is satisfied through `context` (prompting with
    /// `reason` when that is needed). `Security` also runs them alone, where iOS checks a
    /// software key's access control: when a lookup returns the key. A key `context` opened
    /// (``AuthenticationContext/open(_:)``), or a software key never stored, is this app's and
    /// nothing more is checked.
    package func authorize(_ key: EnclaveKey, context: AuthenticationContext?, reason: String) async throws {
        guard key.appID == authenticator.appID else {
            throw KeychainError(.itemNotFound, message: "the key belongs to another app")
        }
        if let context, context.hasOpened(key) { return }
        // A software key never stored is in the app's memory: iOS uses it without a check, the
        // device locked or not.
        if key.isSoftware, !key.isPermanent { return }
        try await keychain.translatingErrors {
            var storedAt: RecordKey?
            if key.isPermanent {
                let recordKey = try self.recordKey(key)
                guard try device.storage.read(recordKey) != nil else { throw KeychainError(.itemNotFound) }
                storedAt = recordKey
            }
            try await keychain.enforce(key, storedAt: storedAt, context: context, reason: reason)
        }
    }

    /// Runs ``authorize(_:context:reason:)`` and opens the key's sealed scalar.
    private func unseal(_ key: EnclaveKey, context: AuthenticationContext?, reason: String) async throws -> P256.Signing.PrivateKey {
        try await authorize(key, context: context, reason: reason)
        return try keychain.translatingErrors {
            let raw = try open(key, snapshot: try device.snapshot())
            if let known = device.unsealedKeys.withLock({ $0[raw] }) { return known.key }
            let privateKey: P256.Signing.PrivateKey
            do {
                privateKey = try P256.Signing.PrivateKey(rawRepresentation: raw)
            } catch {
                throw KeychainError(.corrupt, message: "the sealed key is not a P-256 key")
            }
            guard privateKey.publicKey.x963Representation == key.publicKeyData else {
                throw KeychainError(.corrupt, message: "the sealed key does not match its public key")
            }
            let unsealed = UnsealedKey(privateKey)
            device.unsealedKeys.withLock { keys in
                if keys.count >= 64 { keys.removeAll() }
                keys[raw] = unsealed
            }
            return privateKey
        }
    }

    // MARK: Sealing

    private static let salt = Data("touchstone.keys.v1".utf8)

    private func deviceKey(_ snapshot: Device.Snapshot) -> SymmetricKey {
        let appID = authenticator.appID
        if let cached = snapshot.derivedKeys.withLock({ $0[appID] }) { return SymmetricKey(data: cached) }
        let key = HKDF<SHA256>.deriveKey(inputKeyMaterial: snapshot.secretKey, salt: Self.salt,
                                         info: Data(appID.utf8), outputByteCount: 32)
        let bytes = key.withUnsafeBytes { Data($0) }
        snapshot.derivedKeys.withLock { $0[appID] = bytes }
        return key
    }

    /// What keys sealed before their attributes were (``EnclaveKey/sealedAttributes``)
    /// authenticate: the app and the public key. Such a key still opens (a store or a
    /// `dataRepresentation` kept from then loses nothing), with its attributes unbound.
    private func unboundAttributes(_ publicKey: Data) -> Data {
        Data(authenticator.appID.utf8) + Data([0]) + publicKey
    }

    /// Seals `scalar` as `key`'s private half, over the attributes `key` now has.
    private func seal(_ scalar: Data, into key: inout EnclaveKey, snapshot: Device.Snapshot) throws {
        do {
            guard let combined = try AES.GCM.seal(scalar, using: deviceKey(snapshot), authenticating: key.sealedAttributes).combined else {
                throw KeychainError(.storageFailure, message: "sealing the key failed")
            }
            key.sealedPrivateKey = combined
        } catch let error as KeychainError {
            throw error
        } catch {
            throw KeychainError(.storageFailure, message: "sealing the key failed")
        }
    }

    /// The private scalar of `key`, when its seal opens on this device over the attributes it
    /// carries (or over the app and public key alone, for a key sealed before those were bound).
    private func open(_ key: EnclaveKey, snapshot: Device.Snapshot) throws -> Data {
        let deviceKey = deviceKey(snapshot)
        guard let box = try? AES.GCM.SealedBox(combined: key.sealedPrivateKey) else {
            throw KeychainError(.corrupt, message: "the sealed key is damaged")
        }
        for attributes in [key.sealedAttributes, unboundAttributes(key.publicKeyData)] {
            if let scalar = try? AES.GCM.open(box, using: deviceKey, authenticating: attributes) { return scalar }
        }
        throw KeychainError(.corrupt, message: "the sealed key cannot be opened on this device, or its attributes were altered")
    }

    /// Whether `key`'s sealed private half opens on this device with the attributes the key
    /// carries: false for another device's or app's key, or a handle whose attributes were
    /// edited. Never prompts (nothing is used).
    package func sealIsIntact(_ key: EnclaveKey) -> Bool {
        guard key.appID == authenticator.appID, let snapshot = try? device.snapshot() else { return false }
        return (try? open(key, snapshot: snapshot)) != nil
    }

    // MARK: Records

    private func recordKey(_ key: EnclaveKey) throws -> RecordKey {
        RecordKey(Self.namespace, Keychain.escape(key.appID) + "/" + key.id)
    }

    private func record(of key: EnclaveKey) throws -> Record {
        let data: Data
        do {
            data = try RecordCoding.encoder.encode(key)
        } catch {
            throw KeychainError(.storageFailure, message: "the key could not be encoded")
        }
        return Record(key: try recordKey(key), value: data, attributes: [
            "app": key.appID, "accessible": key.accessibility.rawValue, "access": String(key.flags.rawValue),
        ])
    }

    private static func decode(_ record: Record) throws -> EnclaveKey {
        do {
            return try RecordCoding.decoder.decode(EnclaveKey.self, from: record.value)
        } catch {
            throw KeychainError(.corrupt, message: "stored key '\(record.key.name)' cannot be decoded")
        }
    }
}

/// A swift-crypto private key shared between threads. `@unchecked`: immutable after
/// creation, and BoringSSL signs with a const key.
final class UnsealedKey: @unchecked Sendable {
    let key: P256.Signing.PrivateKey

    init(_ key: P256.Signing.PrivateKey) {
        self.key = key
    }
}

extension Authenticator {
    /// This app's keys in the device's simulated Secure Enclave.
    public var keys: KeyStore { KeyStore(self) }
}
