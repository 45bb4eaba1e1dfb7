#if !canImport(Darwin)
import Foundation
import TouchstoneSecurity
import Touchstone

/// Where rights are persisted (iOS 16 `LARightStore`): each saved right gets a Secure Enclave
/// P-256 key bound to its requirement (and, optionally, a secret only that key can open), kept
/// across restarts on a persistent device.
///
/// ```swift
/// let right = LARight(requirement: .biometryCurrentSet)
/// let persisted = try await LARightStore.shared.saveRight(right, identifier: "login", secret: serverToken)
/// // later, maybe in another process:
/// let login = try await LARightStore.shared.right(forIdentifier: "login")
/// try await login.authorize(localizedReason: "Sign in")
/// let signature = try await login.key.sign(challenge, algorithm: .ecdsaSignatureMessageX962SHA256)
/// let token = try await login.secret.rawData
/// ```
///
/// Touchstone's rules (Apple documents none): saving under an identifier that exists replaces
/// that right; a right that is not stored, was removed, or whose `biometryCurrentSet` key was
/// invalidated by an enrollment change is not found (`LAError.authenticationFailed` with a
/// description saying which); rights need a device passcode (their keys are
/// whenPasscodeSetThisDeviceOnly, so removing the passcode removes them). Every error is an
/// ``LAError`` (or a ``TouchstoneError`` for an unusable device configuration).
open class LARightStore: NSObject, @unchecked Sendable {
    // @unchecked: immutable.

    /// The keychain service the store's records live under.
    static let service = "touchstone.LARightStore"
    /// Their item class: framework records, which the app's `SecItem*` calls never see (a
    /// "delete every generic password" on sign-out must not delete the rights).
    static let recordClass = KeychainItemClass.system
    /// Where versions before `.system` kept them: still read and removed, never written.
    static let legacyRecordClass = KeychainItemClass.genericPassword

    /// The accounts (identifiers) of this app's saved rights, in either class.
    private static func identifiers(on authenticator: Authenticator) throws -> [String] {
        try [recordClass, legacyRecordClass].flatMap { try authenticator.keychain.items(service: service, itemClass: $0).map(\.account) }
    }

    private let fixedDevice: Authenticator?

    /// The store of the process-wide default device (resolved at each call, so
    /// `LocalAuthenticationSystem.withAuthenticator` applies).
    open class var shared: LARightStore { LARightStore(authenticator: nil) }

    /// The store of `authenticator`'s device (Touchstone only).
    public init(authenticator: Authenticator?) {
        fixedDevice = authenticator
        super.init()
    }

    private func device() throws -> Authenticator {
        if let fixedDevice { return fixedDevice }
        do {
            return try LocalAuthenticationSystem.authenticator
        } catch {
            throw TouchstoneError(wrapping: error)
        }
    }

    /// The persisted right saved under `identifier`.
    open func right(forIdentifier identifier: String) async throws -> LAPersistedRight {
        let authenticator = try device()
        return try await Self.run(on: authenticator) {
            let record = try await Self.load(identifier, on: authenticator)
            let keys = authenticator.keys
            guard let key = try keys.keys(tag: Self.tag(identifier), includingInvalidated: true).first else {
                throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "The right '\(identifier)' has no key any more (the device passcode was removed)."])
            }
            if try keys.isInvalidated(key) {
                throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "The right '\(identifier)' was invalidated by a change of the enrolled biometry."])
            }
            return LAPersistedRight(identifier: identifier, requirement: record.requirement, key: key,
                                    sealedSecret: record.secret, authenticator: authenticator)
        }
    }

    /// Saves `right` under `identifier` without a secret.
    open func saveRight(_ right: LARight, identifier: String) async throws -> LAPersistedRight {
        try await save(right, identifier: identifier, secret: nil)
    }

    /// Saves `right` under `identifier` with `secret`, which only the right's key opens
    /// (``LASecret/rawData`` while the right is authorized).
    open func saveRight(_ right: LARight, identifier: String, secret: Data) async throws -> LAPersistedRight {
        try await save(right, identifier: identifier, secret: secret)
    }

    /// Removes a persisted right (its key and secret).
    open func removeRight(_ right: LAPersistedRight) async throws {
        try await removeRight(forIdentifier: right.identifier)
    }

    /// Removes the right saved under `identifier`.
    open func removeRight(forIdentifier identifier: String) async throws {
        let authenticator = try device()
        try await Self.run(on: authenticator) {
            _ = try await Self.load(identifier, on: authenticator)
            try Self.remove(identifier, on: authenticator)
        }
    }

    /// Removes every right of this app.
    open func removeAllRights() async throws {
        let authenticator = try device()
        try await Self.run(on: authenticator) {
            for identifier in Set(try Self.identifiers(on: authenticator)) {
                try Self.remove(identifier, on: authenticator)
            }
        }
    }

    // MARK: Completion-handler forms

    /// ``right(forIdentifier:)`` with a completion handler.
    open func right(forIdentifier identifier: String, completion: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void) {
        complete(completion) { try await self.right(forIdentifier: identifier) }
    }

    /// ``saveRight(_:identifier:)`` with a completion handler.
    open func saveRight(_ right: LARight, identifier: String, completion: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void) {
        complete(completion) { try await self.saveRight(right, identifier: identifier) }
    }

    /// ``saveRight(_:identifier:secret:)`` with a completion handler.
    open func saveRight(_ right: LARight, identifier: String, secret: Data,
                        completion: @escaping @Sendable (LAPersistedRight?, (any Error)?) -> Void) {
        complete(completion) { try await self.saveRight(right, identifier: identifier, secret: secret) }
    }

    /// ``removeRight(_:)`` with a completion handler.
    open func removeRight(_ right: LAPersistedRight, completion: @escaping @Sendable ((any Error)?) -> Void) {
        complete(completion) { try await self.removeRight(right) }
    }

    /// ``removeRight(forIdentifier:)`` with a completion handler.
    open func removeRight(forIdentifier identifier: String, completion: @escaping @Sendable ((any Error)?) -> Void) {
        complete(completion) { try await self.removeRight(forIdentifier: identifier) }
    }

    /// ``removeAllRights()`` with a completion handler.
    open func removeAllRights(completion: @escaping @Sendable ((any Error)?) -> Void) {
        complete(completion) { try await self.removeAllRights() }
    }

    // MARK: Records

    /// What is stored per right (a keychain item without access control; the secret inside is
    /// ECIES-sealed to the right's key).
    struct StoredRight: Codable {
        var requirementFlags: UInt
        var requirementName: String
        var secret: Data?

        var requirement: LAAuthenticationRequirement {
            LAAuthenticationRequirement(AccessControlFlags(rawValue: requirementFlags), name: requirementName)
        }
    }

    /// The tag of a right's key: under the prefix the app's key queries never see.
    static func tag(_ identifier: String) -> Data { frameworkKeyTagPrefix + Data(identifier.utf8) }

    private func save(_ right: LARight, identifier: String, secret: Data?) async throws -> LAPersistedRight {
        let authenticator = try device()
        return try await Self.run(on: authenticator) {
            guard !identifier.isEmpty else { throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "The identifier is empty."]) }
            // Replaces what is saved under the identifier, readable or not: a record this version
            // cannot read was taken for none, and the save then failed as a duplicate item and
            // left a second key under the identifier's tag.
            if try Self.identifiers(on: authenticator).contains(identifier) {
                try Self.remove(identifier, on: authenticator)
            }
            let key = try authenticator.keys.create(accessControl: right.accessControl, tag: Self.tag(identifier), label: identifier)
            let sealed = try secret.map { try ECIES.seal($0, to: key.publicKeyData) }
            let record = StoredRight(requirementFlags: right.requirement.flags.rawValue, requirementName: right.requirement.name, secret: sealed)
            do {
                try authenticator.keychain.add(try JSONEncoder().encode(record), service: Self.service, account: identifier,
                                               itemClass: Self.recordClass, accessControl: AccessControl(.afterFirstUnlockThisDeviceOnly))
            } catch {
                try? authenticator.keys.delete(key)
                throw error
            }
            let persisted = LAPersistedRight(identifier: identifier, requirement: right.requirement, key: key,
                                             sealedSecret: sealed, authenticator: authenticator)
            // An authorized right stays authorized once persisted (its evaluation covers the key).
            let inherited = right.inner.withLock { $0.state == .authorized ? $0.context : nil }
            if let inherited { persisted.inner.withLock { $0.state = .authorized; $0.context = inherited } }
            return persisted
        }
    }

    private static func load(_ identifier: String, on authenticator: Authenticator) async throws -> StoredRight {
        var found: Data?
        for itemClass in [recordClass, legacyRecordClass] where found == nil {
            do {
                found = try await authenticator.keychain.read(service: service, account: identifier, itemClass: itemClass)
            } catch let error as KeychainError where error.kind == .itemNotFound {
                continue
            }
        }
        guard let data = found else {
            throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "No right is saved under '\(identifier)'."])
        }
        do {
            return try JSONDecoder().decode(StoredRight.self, from: data)
        } catch {
            throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "The right '\(identifier)' is stored in a form this version cannot read."])
        }
    }

    private static func remove(_ identifier: String, on authenticator: Authenticator) throws {
        for key in try authenticator.keys.keys(tag: tag(identifier), includingInvalidated: true) {
            try authenticator.keys.delete(key)
        }
        for itemClass in [recordClass, legacyRecordClass] {
            do {
                try authenticator.keychain.delete(service: service, account: identifier, itemClass: itemClass)
            } catch let error as KeychainError where error.kind == .itemNotFound {
                // Not in this class, or only its key was left (a save that failed half-way).
            }
        }
    }

    /// Runs `body`, turning engine errors into LAErrors and saving virtual time.
    static func run<T>(on authenticator: Authenticator, _ body: () async throws -> T) async throws -> T {
        defer { LocalAuthenticationSystem.didUse(authenticator) }
        do {
            return try await body()
        } catch let error as LAError {
            throw error
        } catch let error as TouchstoneError {
            throw error
        } catch {
            throw LARight(requirement: .default, authenticator: authenticator).laError(error, on: authenticator)
        }
    }
}

/// A right saved in ``LARightStore`` (iOS 16 `LAPersistedRight`): its ``key`` signs, decrypts
/// and exchanges keys, and its ``secret`` opens, only while it is authorized.
open class LAPersistedRight: LARight, @unchecked Sendable {
    let identifier: String
    let enclaveKey: EnclaveKey
    let sealedSecret: Data?
    let authenticatorForKey: Authenticator

    init(identifier: String, requirement: LAAuthenticationRequirement, key: EnclaveKey, sealedSecret: Data?,
         authenticator: Authenticator) {
        self.identifier = identifier
        enclaveKey = key
        self.sealedSecret = sealedSecret
        authenticatorForKey = authenticator
        super.init(requirement: requirement, authenticator: authenticator)
    }

    /// The right's private key (in the Secure Enclave).
    open var key: LAPrivateKey { LAPrivateKey(right: self) }

    /// The secret saved with the right (empty when none was).
    open var secret: LASecret { LASecret(right: self) }

    /// The key's access control: the one it was made with.
    override var accessControl: AccessControl { enclaveKey.accessControl }

    override func checkStillValid() throws {
        if try authenticatorForKey.keys.isInvalidated(enclaveKey) {
            throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "The right was invalidated by a change of the enrolled biometry."])
        }
    }

    /// Runs a key operation with the authorized context; LAErrors out.
    func withKey<T: Sendable>(_ body: (KeyStore, EnclaveKey, AuthenticationContext) async throws -> T) async throws -> T {
        let authenticator = authenticatorForKey
        defer { LocalAuthenticationSystem.didUse(authenticator) }
        do {
            let context = try authorizedContext()
            return try await body(authenticator.keys, enclaveKey, context)
        } catch let error as LAError {
            throw error
        } catch {
            throw laError(error, on: authenticator)
        }
    }
}
#endif
