#if !canImport(Darwin)
import Crypto
import Foundation
import Logging
import Touchstone

// Creating keys, converting them and reading their attributes.

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
/// says, where access-control flags that ask for the user guard its item (``StoredInMemoryKeys``;
/// `privateKeyUsage` is errSecUnimplemented there). A half made permanent keeps its parameters'
/// `kSecAttrSynchronizable` (true: an item that synchronizes), as `SecKey.m`'s `add_key` hands
/// them to `SecItemAdd`.
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
                                                permanent: query.isPermanent ?? !software, software: software,
                                                synchronizable: query.synchronizable == .yes)
        if let publicQuery {
            do {
                try authenticator.keys.storePublicKey(key.publicKeyData, tag: publicQuery.tag, label: publicQuery.label,
                                                      synchronizable: publicQuery.synchronizable == .yes)
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
        // A software key whose access control guards its stored item is used in memory, as
        // iOS's: it asks nothing now; a lookup that reads it later does.
        let context = KeyItems.accessControlGuardsItem(key)
            ? try KeyItems.openedAtCreation(key, given: query.context, on: authenticator) : query.context
        return SecKey(.enclave(key, authenticator), context: context, prompt: query.prompt)
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
#endif
