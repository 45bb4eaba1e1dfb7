#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone
import TouchstoneSimulation

/// A key (`SecKey`): a P-256 private key of a Touchstone device — in its Secure Enclave, or a
/// software key — or a P-256 public key; or an RSA, P-384 or P-521 key, private or public,
/// held in memory (``InMemoryKey``'s limits).
///
/// Private keys come from `SecKeyCreateRandomKey` (with `kSecAttrTokenIDSecureEnclave`, or
/// without it for a software key), `SecKeyCreateWithData` (a software key from its bytes) or
/// `SecItemCopyMatching` with `kSecReturnRef`. A Secure Enclave key never leaves the device
/// (`SecKeyCopyExternalRepresentation` refuses it); a software key's bytes can be exported. Using one (`SecKeyCreateSignature`,
/// `SecKeyCreateDecryptedData`, `SecKeyCopyKeyExchangeResult`) runs its access control's
/// evaluation — the prompt — through the `LAContext` given as `kSecUseAuthenticationContext`
/// when the key was made or found (a context that already evaluated signs without asking again).
/// Public keys come from `SecKeyCopyPublicKey` or `SecKeyCreateWithData` (65-byte X9.63).
///
/// ```swift
/// let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
///                                              [.privateKeyUsage, .biometryCurrentSet], nil)!
/// let attributes: [String: Any] = [
///     kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
///     kSecAttrKeySizeInBits as String: 256,
///     kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
///     kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
///                                     kSecAttrApplicationTag as String: Data("com.example.login".utf8),
///                                     kSecAttrAccessControl as String: access]]
/// var error: Unmanaged<CFError>?
/// guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else { throw error!.takeRetainedValue() as any Error }
/// let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, challenge as CFData, &error)
/// ```
public final class SecKey: Sendable, Hashable, CustomStringConvertible {
    /// What the key is.
    enum Material: Sendable {
        /// A Secure Enclave private key on `authenticator`'s device.
        case enclave(EnclaveKey, Authenticator)
        /// A P-256 public key (X9.63, 65 bytes).
        case publicKey(Data)
        /// An RSA, P-384 or P-521 key, private or public (held in memory; see ``InMemoryKey``).
        case inMemory(any InMemoryKey)
    }

    let material: Material
    /// The context given when the key was made or found (`kSecUseAuthenticationContext`).
    let context: (any KeychainAuthenticationContext)?
    /// `kSecUseOperationPrompt` given when the key was made or found.
    let prompt: String?
    /// `kSecUseAuthenticationUIFail` given when the key was found: operations never prompt.
    let failsWithoutUI: Bool

    init(_ material: Material, context: (any KeychainAuthenticationContext)? = nil, prompt: String? = nil,
         failsWithoutUI: Bool = false) {
        self.material = material
        self.context = context
        self.prompt = prompt
        self.failsWithoutUI = failsWithoutUI
    }

    /// The Touchstone key behind a private key; nil for a public key.
    public var touchstoneKey: EnclaveKey? {
        if case let .enclave(key, _) = material { return key }
        return nil
    }

    /// The public key's bytes: X9.63 for P-256, PKCS#1 `RSAPublicKey` for RSA.
    var publicKeyData: Data {
        switch material {
        case let .enclave(key, _): key.publicKeyData
        case let .publicKey(data): data
        case let .inMemory(key): key.publicKeyData
        }
    }

    /// The in-memory key behind this key (RSA, P-384, P-521); nil for a P-256 key.
    var inMemoryKey: (any InMemoryKey)? {
        if case let .inMemory(key) = material { return key }
        return nil
    }

    var isPrivate: Bool { touchstoneKey != nil || inMemoryKey?.isPrivate == true }

    /// Equal when both are the same half of the same key.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.isPrivate == rhs.isPrivate && lhs.publicKeyData == rhs.publicKeyData
    }

    /// Hashes the half and the public key.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(isPrivate)
        hasher.combine(publicKeyData)
    }

    /// `<SecKey private EC 256 Secure Enclave 1a2b3c…>`, `<SecKey private EC 256 1a2b3c…>` for
    /// a software key.
    public var description: String {
        let id = Data(Insecure.SHA1.hash(data: publicKeyData)).prefix(8).map { String(format: "%02x", $0) }.joined()
        if let key = inMemoryKey {
            return "<SecKey \(isPrivate ? "private" : "public") \(key is RSAKey ? "RSA" : "EC") \(key.bits) \(id)>"
        }
        guard let key = touchstoneKey else { return "<SecKey public EC 256 \(id)>" }
        return key.isSoftware ? "<SecKey private EC 256 \(id)>" : "<SecKey private EC 256 Secure Enclave \(id)>"
    }
}

extension SecKey {
    /// The prompt's reason: `kSecUseOperationPrompt`, the context's `localizedReason`, or the engine's default.
    var reason: String? {
        if let prompt, !prompt.isEmpty { return prompt }
        if let reason = context?.localizedReason, !reason.isEmpty { return reason }
        return nil
    }
}

/// One `SecKey*` call: resolves the device and turns errors into `CFError`s.
struct SecKeyCall {
    /// A failure with an `OSStatus` and a message.
    struct Failure: Error {
        let status: OSStatus
        let message: String
        init(_ status: OSStatus, _ message: String) {
            self.status = status
            self.message = message
        }
    }

    /// The device used, for saving virtual time and reporting scripting mistakes.
    var used: Authenticator?

    /// Runs `body`; on failure writes the `CFError` Apple code would see and returns nil.
    static func run<T>(_ errorOut: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: (inout SecKeyCall) throws -> T) -> T? {
        var call = SecKeyCall()
        defer { if let used = call.used { LocalAuthenticationSystem.didUse(used) } }
        do {
            return try body(&call)
        } catch {
            errorOut?.pointee = Unmanaged.passRetained(cfError(error, on: call.used))
            return nil
        }
    }

    /// The `CFError` for a thrown error (REFERENCE §10): a failed prompt is its LAError in
    /// `com.apple.LocalAuthentication`; everything else an `OSStatus` in `NSOSStatusErrorDomain`.
    static func cfError(_ error: any Error, on authenticator: Authenticator?) -> NSError {
        switch error {
        case let failure as Failure:
            return osStatusError(failure.status, failure.message)
        case let keychain as KeychainError:
            if keychain.kind != .interactionNotAllowed, let code = keychain.authenticationCode {
                return laError(code.rawValue, keychain.message)
            }
            return osStatusError(keychain.osStatus, keychain.message)
        case let authentication as AuthenticationError:
            return cfError(KeychainError(authentication), on: authenticator)
        case let storage as StorageError:
            return osStatusError(KeychainError(storage).osStatus, storage.description)
        case let invalid as KeyQuery.Invalid:
            return osStatusError(errSecParam, invalid.reason)
        case is KeychainQuery.MissingEntitlement:
            return osStatusError(errSecMissingEntitlement, securityErrorMessage(errSecMissingEntitlement))
        case let mistake as SimulationError:
            let cancel = LocalAuthenticationSystem.systemCancel(after: mistake, on: authenticator)
            return laError(LocalAuthenticationSystem.SystemCancel.laErrorCode, cancel.message)
        default:
            let failure = TouchstoneError(wrapping: error)
            return osStatusError(errSecNotAvailable, failure.message)
        }
    }

    static func laError(_ code: Int, _ message: String) -> NSError {
        NSError(domain: "com.apple.LocalAuthentication", code: code, userInfo: [NSLocalizedDescriptionKey: message])
    }

    /// The device of `context`, or the default device.
    mutating func authenticator(_ context: (any KeychainAuthenticationContext)?) throws -> Authenticator {
        let authenticator = try KeychainCall.device(of: context)
        used = authenticator
        return authenticator
    }

    /// The Secure Enclave key of a private `SecKey`; errSecParam for a public key.
    mutating func privateKey(_ key: SecKey) throws -> (EnclaveKey, Authenticator) {
        guard case let .enclave(enclave, authenticator) = key.material else {
            throw Failure(errSecParam, "the operation needs a private key")
        }
        used = authenticator
        return (enclave, authenticator)
    }

    /// A software private key's X9.63 bytes, after its evaluation.
    mutating func exportPrivateKey(_ key: SecKey) throws -> Data {
        let (stored, authenticator) = try privateKey(key)
        let context = try engineContext(key)
        let reason = key.reason
        return try runBlocking { try await authenticator.keys.exportPrivateKey(stored, context: context, reason: reason) }
    }

    /// The engine context the key's operations run on: its `LAContext`'s, or nil (a fresh one);
    /// under `kSecUseAuthenticationUIFail` without a context, a fresh one that may not prompt.
    func engineContext(_ key: SecKey) throws -> AuthenticationContext? {
        guard case let .enclave(_, authenticator) = key.material else {
            return try key.context.map(KeychainCall.engine(of:))
        }
        return try KeychainCall.engineContext(key.context, failsWithoutUI: key.failsWithoutUI, on: authenticator)
    }
}
#endif
