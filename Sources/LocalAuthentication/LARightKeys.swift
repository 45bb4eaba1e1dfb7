#if !canImport(Darwin)
import Foundation
import TouchstoneSecurity
import Touchstone

/// A persisted right's private key (iOS 16 `LAPrivateKey`); usable only while the right is
/// authorized (else `LAError.notInteractive`, our rule: these calls never prompt).
open class LAPrivateKey: NSObject, @unchecked Sendable {
    // @unchecked: immutable.
    let right: LAPersistedRight

    init(right: LAPersistedRight) {
        self.right = right
    }

    /// The public half.
    open var publicKey: LAPublicKey { LAPublicKey(publicKeyData: right.enclaveKey.publicKeyData) }

    /// Signs `data` with ECDSA (a message for `.ecdsaSignatureMessageX962SHA256` and the SHA-1,
    /// SHA-384, SHA-512 forms; a digest of the named hash's length for
    /// `.ecdsaSignatureDigestX962SHA256` and its siblings); the DER signature, or the raw r || s
    /// for the iOS 17 `…RFC4754…` forms.
    open func sign(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
        let digest: Data
        do {
            digest = try algorithm.signedBytes(of: data)
        } catch {
            throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "Unsupported algorithm or input: \(error.message)."])
        }
        let der = try await right.withKey { keys, key, context in try await keys.sign(digest: digest, with: key, context: context) }
        return try algorithm.signature(fromDER: der)
    }

    /// Whether ``sign(_:algorithm:)`` supports `algorithm` (as `SecKeyIsAlgorithmSupported`).
    open func canSign(using algorithm: SecKeyAlgorithm) -> Bool {
        algorithm.ecdsaInput != nil
    }

    /// Decrypts one of Apple's ECIES forms (`.eciesEncryptionCofactorVariableIVX963SHA256AESGCM`,
    /// the standard variant, other hashes, the iOS 10 forms).
    open func decrypt(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
        guard let variant = algorithm.eciesVariant else { throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "Unsupported algorithm \(algorithm.identifier)."]) }
        return try await right.withKey { keys, key, context in try await keys.decrypt(data, with: key, context: context, variant: variant) }
    }

    /// Whether ``decrypt(_:algorithm:)`` supports `algorithm`.
    open func canDecrypt(using algorithm: SecKeyAlgorithm) -> Bool {
        algorithm.eciesVariant != nil
    }

    /// ECDH with another party's X9.63 public key: the raw shared secret (`.ecdhKeyExchangeStandard`
    /// / `…Cofactor`) or its X9.63 KDF (`…X963SHA256` and the SHA-1, SHA-384, SHA-512 forms, with
    /// `kSecKeyKeyExchangeParameterRequestedSize` and `…SharedInfo` in `parameters`).
    open func exchangeKeys(publicKey: Data, algorithm: SecKeyAlgorithm, parameters: [AnyHashable: Any]) async throws -> Data {
        try await exchangeKeys(publicKey: publicKey, algorithm: algorithm, KeyExchangeParameters(parameters))
    }

    /// The two parameters a key exchange reads, taken out of the untyped dictionary so they
    /// can cross to a background task.
    struct KeyExchangeParameters: Sendable {
        var requestedSize: Int?
        var sharedInfo: Data

        init(_ parameters: [AnyHashable: Any]) {
            requestedSize = parameters[kSecKeyKeyExchangeParameterRequestedSize as String] as? Int
            sharedInfo = (parameters[kSecKeyKeyExchangeParameterSharedInfo as String] as? Data) ?? Data()
        }
    }

    private func exchangeKeys(publicKey: Data, algorithm: SecKeyAlgorithm, _ parameters: KeyExchangeParameters) async throws -> Data {
        guard let exchange = algorithm.keyExchange else { throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "Unsupported algorithm \(algorithm.identifier)."]) }
        let size = parameters.requestedSize ?? 32
        guard size > 0, size <= 1 << 16 else { throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "Invalid requested size."]) }
        let secret = try await right.withKey { keys, key, context in try await keys.sharedSecret(with: publicKey, using: key, context: context) }
        guard case let .x963(hash) = exchange else { return secret }
        return ECIES.x963KDF(secret, sharedInfo: parameters.sharedInfo, count: size, hash: hash)
    }

    /// Whether ``exchangeKeys(publicKey:algorithm:parameters:)`` supports `algorithm`.
    open func canExchangeKeys(using algorithm: SecKeyAlgorithm) -> Bool {
        algorithm.keyExchange != nil
    }

    // MARK: Completion-handler forms

    /// ``sign(_:algorithm:)`` with a completion handler.
    open func sign(_ data: Data, algorithm: SecKeyAlgorithm, completion: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        complete(completion) { try await self.sign(data, algorithm: algorithm) }
    }

    /// ``decrypt(_:algorithm:)`` with a completion handler.
    open func decrypt(_ data: Data, algorithm: SecKeyAlgorithm, completion: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        complete(completion) { try await self.decrypt(data, algorithm: algorithm) }
    }

    /// ``exchangeKeys(publicKey:algorithm:parameters:)`` with a completion handler.
    open func exchangeKeys(publicKey: Data, algorithm: SecKeyAlgorithm, parameters: [AnyHashable: Any],
                           completion: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        let parameters = KeyExchangeParameters(parameters)
        complete(completion) { try await self.exchangeKeys(publicKey: publicKey, algorithm: algorithm, parameters) }
    }
}

/// A persisted right's public key (iOS 16 `LAPublicKey`); usable without authorization.
open class LAPublicKey: NSObject, @unchecked Sendable {
    // @unchecked: immutable.
    let publicKeyData: Data

    init(publicKeyData: Data) {
        self.publicKeyData = publicKeyData
    }

    /// The key's bytes: X9.63 uncompressed, 65 bytes (Apple's `exportBytes`, imported into
    /// Swift as this async property).
    open var bytes: Data {
        get async throws { publicKeyData }
    }

    /// The key's bytes through a completion handler.
    open func exportBytes(completion: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        completion(publicKeyData, nil)
    }

    /// Checks a DER signature (raw r || s for the `…RFC4754…` algorithms); throws
    /// `LAError.authenticationFailed` when it does not verify.
    open func verify(_ signedData: Data, signature: Data, algorithm: SecKeyAlgorithm) async throws {
        guard canVerify(using: algorithm) else { throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "Unsupported algorithm \(algorithm.identifier)."]) }
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateWithData(publicKeyData as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                                       kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary, &error),
              SecKeyVerifySignature(key, algorithm, signedData as CFData, signature as CFData, &error)
        else {
            throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "The signature does not verify."])
        }
    }

    /// Whether ``verify(_:signature:algorithm:)`` supports `algorithm`.
    open func canVerify(using algorithm: SecKeyAlgorithm) -> Bool {
        algorithm.ecdsaInput != nil
    }

    /// Encrypts to this key in one of Apple's ECIES forms (ephemeral key || ciphertext || tag).
    open func encrypt(_ data: Data, algorithm: SecKeyAlgorithm) async throws -> Data {
        guard let variant = algorithm.eciesVariant else { throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "Unsupported algorithm \(algorithm.identifier)."]) }
        do {
            return try ECIES.seal(data, to: publicKeyData, variant: variant)
        } catch {
            throw LAError(.authenticationFailed, userInfo: [NSLocalizedDescriptionKey: "Encryption failed."])
        }
    }

    /// Whether ``encrypt(_:algorithm:)`` supports `algorithm`.
    open func canEncrypt(using algorithm: SecKeyAlgorithm) -> Bool {
        algorithm.eciesVariant != nil
    }

    // MARK: Completion-handler forms

    /// ``encrypt(_:algorithm:)`` with a completion handler.
    open func encrypt(_ data: Data, algorithm: SecKeyAlgorithm, completion: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        complete(completion) { try await self.encrypt(data, algorithm: algorithm) }
    }

    /// ``verify(_:signature:algorithm:)`` with a completion handler: `nil` when the signature
    /// verifies.
    open func verify(_ signedData: Data, signature: Data, algorithm: SecKeyAlgorithm,
                     completion: @escaping @Sendable ((any Error)?) -> Void) {
        complete(completion) { try await self.verify(signedData, signature: signature, algorithm: algorithm) }
    }
}

/// The secret saved with a persisted right (iOS 16 `LASecret`): opens only while the right is
/// authorized (else `LAError.notInteractive`, our rule).
open class LASecret: NSObject, @unchecked Sendable {
    // @unchecked: immutable.
    let right: LAPersistedRight

    init(right: LAPersistedRight) {
        self.right = right
    }

    /// The secret's bytes (Apple's `loadData`, imported into Swift as this async property);
    /// empty when the right was saved without a secret.
    open var rawData: Data {
        get async throws {
            guard let sealed = right.sealedSecret else {
                _ = try await right.withKey { _, _, _ in true }
                return Data()
            }
            return try await right.withKey { keys, key, context in try await keys.decrypt(sealed, with: key, context: context) }
        }
    }

    /// The secret's bytes through a completion handler.
    open func loadData(completion: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        complete(completion) { try await self.rawData }
    }
}
#endif
