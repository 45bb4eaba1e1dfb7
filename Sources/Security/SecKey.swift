#if !canImport(Darwin)
import Crypto
import Foundation
import Logging
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

// MARK: Creating and converting

/// Generates a key pair and returns its private key (`kSecAttrKeyType` EC,
/// `kSecAttrKeySizeInBits` 256; `kSecAttrTokenID` = `kSecAttrTokenIDSecureEnclave` for a
/// Secure Enclave key, no token for a software key; under `kSecPrivateKeyAttrs`:
/// `kSecAttrIsPermanent`, `kSecAttrApplicationTag`, `kSecAttrLabel`, `kSecAttrAccessControl`).
/// A permanent key is stored in the device's keychain (a Secure Enclave key is permanent
/// unless `kSecAttrIsPermanent` says false, as Apple's). When the public parameters — the top
/// level, overridden by `kSecPublicKeyAttrs` — say `kSecAttrIsPermanent`, the public half is
/// stored too, as an item of its own with their tag and label. Never prompts.
///
/// With `kSecAttrKeyTypeRSA` (1024 to 8192 bits, a multiple of 128), or EC with 384 or 521
/// bits: a key pair held in memory, no token, kept in the keychain as `kSecAttrIsPermanent`
/// says (``InMemoryKey``'s limits: no access-control flags).
///
/// Returns nil with an `NSOSStatusErrorDomain` error: `errSecParam` for another key type or
/// size (P-192 is not simulated: our rule) or another token, `errSecKeySizeNotAllowed` for an
/// RSA size iOS refuses (missing, or outside 512...8192),
/// `errSecNotAvailable` / `errSecAuthFailed` when the access control cannot be bound now
/// (no passcode for whenPasscodeSet…, nothing enrolled for biometry).
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    SecKeyCall.run(error) { call in
        let dictionary = try KeyQuery.normalize(parameters)
        let type = dictionary[kSecAttrKeyType as String].flatMap { $0 as? String }
        guard type != nil else {
            // iOS answers a dictionary without a key type errSecUnimplemented (-4).
            throw SecKeyCall.Failure(errSecUnimplemented, "kSecAttrKeyType is required (kSecAttrKeyTypeECSECPrimeRandom)")
        }
        if type == kSecAttrKeyTypeRSA as String {
            try StoredInMemoryKeys.refuseToken(dictionary)
            return try StoredInMemoryKeys.created(RSAKey.generate(dictionary), parameters: dictionary, call: &call)
        }
        guard type == kSecAttrKeyTypeECSECPrimeRandom as String else {
            throw SecKeyCall.Failure(errSecParam, "only EC (kSecAttrKeyTypeECSECPrimeRandom) and RSA (kSecAttrKeyTypeRSA) keys are supported")
        }
        let size = dictionary[kSecAttrKeySizeInBits as String].flatMap(KeyQuery.integer)
        if let size, CurveKey.bitSizes.contains(size) {
            try StoredInMemoryKeys.refuseToken(dictionary)
            return try StoredInMemoryKeys.created(CurveKey.generate(bits: size), parameters: dictionary, call: &call)
        }
        guard size == 256 else {
            throw SecKeyCall.Failure(errSecParam, "EC keys are 256, 384 or 521 bits here (kSecAttrKeySizeInBits)")
        }
        let software: Bool
        switch dictionary[kSecAttrTokenID as String] {
        case nil: software = true
        case let token as String where token == kSecAttrTokenIDSecureEnclave as String: software = false
        default: throw SecKeyCall.Failure(errSecParam, "the only token is kSecAttrTokenIDSecureEnclave")
        }
        let query = try KeyQuery(KeyQuery.scope(dictionary, nested: kSecPrivateKeyAttrs as String))
        // Also as SecKey.m: the public half is stored as an item of its own when its parameters
        // (the top level, overridden by kSecPublicKeyAttrs) say kSecAttrIsPermanent, so a
        // top-level kSecAttrIsPermanent stores both halves; they are read only then.
        let publicParameters = try KeyQuery.scope(dictionary, nested: kSecPublicKeyAttrs as String)
        let storesPublicHalf = try publicParameters[kSecAttrIsPermanent as String]
            .map { try KeychainQuery.bool($0, kSecAttrIsPermanent as String) } ?? false
        let publicQuery = storesPublicHalf ? try KeyQuery(publicParameters) : nil
        let authenticator = try call.authenticator(query.context)
        try query.requireEntitlement(of: authenticator)
        try publicQuery?.requireEntitlement(of: authenticator)
        let access = try query.accessControl ?? AccessControl(.whenUnlocked, flags: .privateKeyUsage)
        // As Apple's SecKey.m: a private key made in a token (the Secure Enclave) is permanent
        // unless kSecAttrIsPermanent says otherwise; a software key is not.
        let key = try authenticator.keys.create(accessControl: access, tag: query.tag, label: query.label,
                                                permanent: query.isPermanent ?? !software, software: software)
        if let publicQuery {
            do {
                try authenticator.keys.storePublicKey(key.publicKeyData, tag: publicQuery.tag, label: publicQuery.label)
            } catch {
                // Our rule: a key whose public half cannot be stored is not kept either (Apple
                // stores the public half first and keeps it when the private one fails).
                if key.isPermanent {
                    do {
                        try authenticator.keys.delete(key)
                    } catch let cleanup {
                        LocalAuthenticationSystem.callLogger.withLock { $0 }
                            .warning("a new key's public half could not be stored, nor its private half removed", error: cleanup)
                    }
                }
                throw error
            }
        }
        return SecKey(.enclave(key, authenticator), context: query.context, prompt: query.prompt)
    }
}

/// The older way to make a key pair (deprecated by Apple in iOS 15, still common): the same
/// parameters and rules as ``SecKeyCreateRandomKey(_:_:)``, both halves returned through the
/// pointers, and the failure as a status (`errSecParam`, `errSecUnimplemented`,
/// `errSecAuthFailed`...) instead of an error.
public func SecKeyGeneratePair(_ parameters: CFDictionary, _ publicKey: UnsafeMutablePointer<SecKey?>?,
                               _ privateKey: UnsafeMutablePointer<SecKey?>?) -> OSStatus {
    var error: Unmanaged<CFError>?
    guard let key = SecKeyCreateRandomKey(parameters, &error) else { return legacyStatus(error) }
    publicKey?.pointee = SecKeyCopyPublicKey(key)
    privateKey?.pointee = key
    return errSecSuccess
}

/// The type identifier of `SecKey`, for `CFGetTypeID(item) == SecKeyGetTypeID()`.
public func SecKeyGetTypeID() -> CFTypeID { CFTypeKind.secKey.rawValue }

/// The public key of a key pair (the key itself for a public key).
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    guard key.isPrivate else { return key }
    if let inMemory = key.inMemoryKey { return SecKey(.inMemory(inMemory.publicOnly)) }
    return SecKey(.publicKey(key.publicKeyData))
}

/// A key's bytes: for a public key X9.63 uncompressed, 65 bytes (`04 || X || Y`); for a
/// software private key `04 || X || Y || K`, 97 bytes, after the evaluation its access control
/// requires (errors as ``SecKeyCreateSignature(_:_:_:_:)``). A Secure Enclave private key
/// refuses (`errSecUnimplemented`, NSOSStatusErrorDomain): its bytes never leave the device.
/// An RSA key's bytes are PKCS#1 (`RSAPublicKey` or `RSAPrivateKey` DER).
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    if let inMemory = key.inMemoryKey { return inMemory.externalRepresentation as NSData }
    guard let stored = key.touchstoneKey else { return key.publicKeyData as NSData }
    guard stored.isSoftware else {
        error?.pointee = Unmanaged.passRetained(osStatusError(errSecUnimplemented, "a Secure Enclave private key cannot be exported"))
        return nil
    }
    return SecKeyCall.run(error) { call in try call.exportPrivateKey(key) as NSData }
}

/// A key from its bytes, `kSecAttrKeyType` and `kSecAttrKeyClass` both required (errSecParam
/// without either, as Apple's; `kSecAttrKeyClassSymmetric` is errSecUnimplemented). EC: with
/// `kSecAttrKeyClassPublic` a public key from its 65 X9.63 bytes; with `kSecAttrKeyClassPrivate` a software private key
/// of the default device from `04 || X || Y || K` (97 bytes, as CryptoKit's
/// `x963Representation`), not stored until `SecItemAdd` with `kSecValueRef`. An EC key of 97
/// or 145 bytes (public, private) is P-384, of 133 or 199 P-521. With `kSecAttrKeyTypeRSA`: an
/// RSA key from its PKCS#1 DER (`RSAPublicKey`, or `RSAPrivateKey` with
/// `kSecAttrKeyClassPrivate`). Those are held in memory (``InMemoryKey``). A malformed key or
/// another type is errSecParam.
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    SecKeyCall.run(error) { call in
        let dictionary = try KeyQuery.normalize(attributes)
        let type = dictionary[kSecAttrKeyType as String].flatMap(KeyQuery.code)
        let keyClass = dictionary[kSecAttrKeyClass as String].flatMap(KeyQuery.code)
        let bytes = Data(referencing: keyData)
        // Both are required, as Apple's SecKey.m reads them ("Unsupported key type: (null)").
        // Each a number or a decimal string, the type read first (Apple's SecKeyParamsAsInt64).
        guard let type, Int64(type) != nil else { throw SecKeyCall.Failure(errSecParam, "Unsupported key type: \(type ?? "(null)")") }
        guard let keyClass, Int64(keyClass) != nil else {
            throw SecKeyCall.Failure(errSecParam, "Unsupported key class: \(keyClass ?? "(null)")")
        }
        if keyClass == kSecAttrKeyClassSymmetric as String {
            throw SecKeyCall.Failure(errSecUnimplemented, "Unsupported symmetric key type: \(type)")
        }
        guard keyClass == kSecAttrKeyClassPublic as String || keyClass == kSecAttrKeyClassPrivate as String else {
            throw SecKeyCall.Failure(errSecParam, "Unsupported key class: \(keyClass)")
        }
        let isPrivate = keyClass == kSecAttrKeyClassPrivate as String
        if type != kSecAttrKeyTypeECSECPrimeRandom as String, type != kSecAttrKeyTypeRSA as String {
            throw SecKeyCall.Failure(errSecParam, "only EC and RSA keys are supported")
        }
        if let inMemory = try inMemoryKey(bytes, type: type, isPrivate: isPrivate) { return SecKey(.inMemory(inMemory)) }
        if isPrivate { return try KeyQuery.softwareKey(bytes, on: call.authenticator(nil)) }
        guard (try? P256.Signing.PublicKey(x963Representation: bytes)) != nil else {
            throw SecKeyCall.Failure(errSecParam, "not a P-256 public key in X9.63 form (65 bytes)")
        }
        return SecKey(.publicKey(bytes))
    }
}

/// The key's attributes. A software key (every key but a Secure Enclave one) gives Apple's
/// software-key dictionary: class, type, size, the SHA-1 of the public key as application
/// label, permanent, its capabilities (wrap and unwrap among them) and its bytes as
/// `kSecValueData` (see `KeyQuery.copiedAttributes(of:)`). A Secure Enclave key gives its
/// class, type, size, token, application label, permanence (always true, as Apple's),
/// capabilities and access control: not its tag, label, access group or accessibility, which
/// Apple's `SecCTKKey.m` does not export.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    KeyQuery.copiedAttributes(of: key) as NSDictionary
}

/// The key's block size in bytes: 32, 48 or 66 for a P-256, P-384 or P-521 key, the modulus
/// size for an RSA key.
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { key.inMemoryKey?.blockSize ?? 32 }

/// Whether `key` can do `operation` with `algorithm`: sign / decrypt / key exchange with a
/// private key, verify / encrypt with a public key, for the algorithms ``SecKeyAlgorithm`` lists
/// as supported. An EC private key does not verify or encrypt (false), as Apple's: its
/// backends (`SecECKey.m`, `SecCTKKey.m`) do only sign, decrypt and key exchange; take its
/// public key with ``SecKeyCopyPublicKey(_:)``. An RSA private key verifies (Apple's adaptor
/// runs its private operation, so the signature never checks out) but does not encrypt.
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
    if let inMemory = key.inMemoryKey { return inMemory.supports(operation, algorithm) }
    return switch operation {
    case .sign: key.isPrivate && algorithm.ecdsaInput != nil
    case .verify: !key.isPrivate && algorithm.ecdsaInput != nil
    case .encrypt: !key.isPrivate && algorithm.eciesVariant != nil
    case .decrypt: key.isPrivate && algorithm.eciesVariant != nil
    case .keyExchange: key.isPrivate && algorithm.keyExchange != nil
    }
}

// MARK: Using keys

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
/// ``SecKeyCreateSignature(_:_:_:_:)``; data that does not open is errSecDecode.
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
        guard let context = key.context else {
            guard key.failsWithoutUI, case let .enclave(_, authenticator) = key.material else { return nil }
            let engine = authenticator.makeContext()
            engine.interactionNotAllowed = true
            return engine
        }
        guard let engine = context.touchstoneContext else {
            throw TouchstoneError(.configuration, "the LAContext has no device (see the earlier Touchstone message)")
        }
        return engine
    }
}
#endif
