#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone

// Using keys: signing, verifying, encryption, decryption and key exchange.

/// Signs `dataToSign` (a message for `.ecdsaSignatureMessageX962SHA256` / `SHA1` / `SHA384` /
/// `SHA512`, a digest of the named hash's length for `.ecdsaSignatureDigestX962SHA256` and its
/// siblings, 1 to 64 bytes for `.ecdsaSignatureDigestX962`) with a Secure Enclave private key;
/// the DER signature (the raw 64-byte r || s for the iOS 17 `…RFC4754…` forms of these).
/// **This is where the prompt happens**: the key's access control is evaluated through its
/// context (REFERENCE §10).
///
/// Errors: a failed prompt is an LAError in `com.apple.LocalAuthentication` (userCancel -2
/// when cancelled — observed on iOS —, biometryLockout -8, authenticationFailed -1...);
/// `interactionNotAllowed` is errSecInteractionNotAllowed (-25308), a deleted key or one
/// invalidated by an enrollment change errSecItemNotFound (-25300, our rule), a public key or
/// another algorithm errSecParam (-50) — all in `NSOSStatusErrorDomain` but the LAErrors.
public func SecKeyCreateSignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    SecKeyCall.run(error) { call in
        if let inMemory = key.inMemoryKey { return try inMemory.signature(of: Data(referencing: dataToSign), algorithm) as NSData }
        let (enclave, authenticator) = try call.privateKey(key)
        let data = Data(referencing: dataToSign)
        let context = try call.engineContext(key)
        let reason = key.reason
        let digest = try signedDigest(of: data, algorithm)
        let der = try runBlocking {
            try await authenticator.keys.sign(digest: digest, with: enclave, context: context, reason: reason)
        }
        return try algorithm.signature(fromDER: der) as NSData
    }
}

/// Checks an ECDSA signature (DER; raw r || s for the `…RFC4754…` algorithms) with a public
/// key. Returns false, with an `errSecVerifyFailed` (-67808) error, when it does not verify.
/// With an EC private key, or an algorithm the key does not do, it is false with `errSecParam`
/// before the signature is read, as Apple's `SecKeyRunAlgorithmAndCopyResult` ("algorithm not
/// supported by the key"); an RSA private key gives `errSecVerifyFailed`.
public func SecKeyVerifySignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> Bool {
    let verified: Bool? = SecKeyCall.run(error) { _ in
        // A private key's backend may not verify at all (an EC key's signs, decrypts and
        // exchanges keys, nothing else): the support table says.
        if key.isPrivate, !SecKeyIsAlgorithmSupported(key, .verify, algorithm) { throw unsupportedByKey(algorithm, key) }
        if let inMemory = key.inMemoryKey {
            guard try inMemory.isValidSignature(Data(referencing: signature), for: Data(referencing: signedData), algorithm) else {
                throw SecKeyCall.Failure(errSecVerifyFailed, "signature verification failed")
            }
            return true
        }
        let digest = try signedDigest(of: Data(referencing: signedData), algorithm)
        let publicKey = try P256.Signing.PublicKey(x963Representation: key.publicKeyData)
        let bytes = Data(referencing: signature)
        let parsed: P256.Signing.ECDSASignature
        if algorithm.ecdsaRawSignature {
            guard let raw = try? P256.Signing.ECDSASignature(rawRepresentation: bytes) else {
                throw SecKeyCall.Failure(errSecVerifyFailed, "the signature is not a 64-byte r || s")
            }
            parsed = raw
        } else {
            guard let der = try? P256.Signing.ECDSASignature(derRepresentation: bytes) else {
                throw SecKeyCall.Failure(errSecVerifyFailed, "the signature is not DER-encoded ECDSA")
            }
            parsed = der
        }
        guard publicKey.isValidSignature(parsed, for: DigestBytes(digest)) else { throw SecKeyCall.Failure(errSecVerifyFailed, "EC signature verification failed (ccerr -7)") }
        return true
    }
    return verified ?? false
}

/// Encrypts with a public key (`.eciesEncryptionCofactorVariableIVX963SHA256AESGCM`, the
/// standard variant, the other hashes, or the iOS 10 forms without `VariableIV`): ephemeral
/// public key || ciphertext || tag, as Apple's. Never prompts. A private key is `errSecParam`,
/// as Apple's (its ECIES adaptor takes only a public key): encrypt to its
/// ``SecKeyCopyPublicKey(_:)``.
public func SecKeyCreateEncryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    SecKeyCall.run(error) { _ in
        if key.isPrivate, !SecKeyIsAlgorithmSupported(key, .encrypt, algorithm) { throw unsupportedByKey(algorithm, key) }
        if let inMemory = key.inMemoryKey { return try inMemory.encrypt(Data(referencing: plaintext), algorithm) as NSData }
        let variant = try eciesVariant(algorithm)
        return try ECIES.seal(Data(referencing: plaintext), to: key.publicKeyData, variant: variant) as NSData
    }
}

/// Decrypts Apple's ECIES format with a Secure Enclave private key, after its access control's
/// evaluation (the "secret unwrapped by biometry" pattern). Errors as
/// ``SecKeyCreateSignature(_:_:_:_:)``; data that does not open (altered, or for another key) is
/// errSecParam, "ECIES: Failed to aes-gcm decrypt data", as Apple's ECIES adaptor answers.
public func SecKeyCreateDecryptedData(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
                                      _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    SecKeyCall.run(error) { call in
        if let inMemory = key.inMemoryKey { return try inMemory.decrypt(Data(referencing: ciphertext), algorithm) as NSData }
        let variant = try eciesVariant(algorithm)
        let (enclave, authenticator) = try call.privateKey(key)
        let data = Data(referencing: ciphertext)
        let context = try call.engineContext(key)
        let reason = key.reason
        return try runBlocking {
            try await authenticator.keys.decrypt(data, with: enclave, context: context, reason: reason, variant: variant)
        } as NSData
    }
}

/// ECDH between a Secure Enclave private key and another public key, after the private key's
/// evaluation: the raw shared secret (`.ecdhKeyExchangeStandard` / `…Cofactor`), or for the
/// `…X963SHA256` variants (and SHA-1, SHA-384, SHA-512) the X9.63 KDF of it with
/// `kSecKeyKeyExchangeParameterSharedInfo` and `kSecKeyKeyExchangeParameterRequestedSize`
/// (required).
public func SecKeyCopyKeyExchangeResult(_ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey,
                                        _ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    SecKeyCall.run(error) { call in
        let options = try KeyQuery.normalize(parameters)
        var kdf: (size: Int, info: Data, hash: ECIES.Hash)?
        switch algorithm.keyExchange {
        case .raw: break
        case let .x963(hash):
            guard let size = options[kSecKeyKeyExchangeParameterRequestedSize as String].flatMap(KeyQuery.integer), size > 0, size <= 1 << 16 else {
                throw SecKeyCall.Failure(errSecParam, "kSecKeyKeyExchangeParameterRequestedSize is required")
            }
            kdf = (size, options[kSecKeyKeyExchangeParameterSharedInfo as String].flatMap(KeyQuery.data) ?? Data(), hash)
        case nil:
            throw SecKeyCall.Failure(errSecParam, "unsupported key-exchange algorithm \(algorithm.identifier)")
        }
        let peer = publicKey.publicKeyData
        let secret: Data
        if let inMemory = privateKey.inMemoryKey {
            guard inMemory.supports(.keyExchange, algorithm) else { throw SecKeyCall.Failure(errSecParam, "this key cannot exchange keys") }
            secret = try inMemory.sharedSecret(with: peer)
        } else {
            let (enclave, authenticator) = try call.privateKey(privateKey)
            let context = try call.engineContext(privateKey)
            let reason = privateKey.reason
            secret = try runBlocking { try await authenticator.keys.sharedSecret(with: peer, using: enclave, context: context, reason: reason) }
        }
        guard let kdf else { return secret as NSData }
        return ECIES.x963KDF(secret, sharedInfo: kdf.info, count: kdf.size, hash: kdf.hash) as NSData
    }
}

/// The bytes ECDSA signs for `algorithm` (see ``SecKeyAlgorithm/signedBytes(of:)``); errSecParam
/// for an algorithm that is not a supported ECDSA one or a digest of the wrong length.
func signedDigest(of data: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
    do {
        return try algorithm.signedBytes(of: data)
    } catch {
        throw SecKeyCall.Failure(errSecParam, error.message)
    }
}

extension SecKeyAlgorithm {
    /// A DER ECDSA signature in this algorithm's form: itself for X9.62, r || s (each 32 bytes,
    /// big-endian) for the RFC 4754 algorithms.
    package func signature(fromDER der: Data) throws -> Data {
        guard ecdsaRawSignature else { return der }
        return try P256.Signing.ECDSASignature(derRepresentation: der).rawRepresentation
    }
}

/// Apple's error for an operation the key's backend does not do (`SecKey.m`,
/// `SecKeyRunAlgorithmAndCopyResult`): errSecParam, "<algorithm>: algorithm not supported by
/// the key <key>".
func unsupportedByKey(_ algorithm: SecKeyAlgorithm, _ key: SecKey) -> SecKeyCall.Failure {
    SecKeyCall.Failure(errSecParam, "\(algorithm.identifier): algorithm not supported by the key \(key)")
}

/// The ECIES form of `algorithm`; errSecParam for an algorithm that is not a supported ECIES.
private func eciesVariant(_ algorithm: SecKeyAlgorithm) throws -> ECIES.Variant {
    guard let variant = algorithm.eciesVariant else {
        throw SecKeyCall.Failure(errSecParam, "unsupported encryption algorithm \(algorithm.identifier)")
    }
    return variant
}

/// A digest given as bytes, for verifying: swift-crypto's ECDSA reads only the bytes.
struct DigestBytes: Digest {
    static var byteCount: Int { 32 }
    let bytes: Data
    init(_ bytes: Data) { self.bytes = bytes }
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
    func makeIterator() -> Data.Iterator { bytes.makeIterator() }
    var description: String { "DigestBytes(\(bytes.count) bytes)" }
}
#endif
