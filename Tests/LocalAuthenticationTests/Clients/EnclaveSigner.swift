#if !canImport(Darwin)
import LocalAuthentication

// Client code as an iOS app writes the "strong" fingerprint login (REFERENCE §11): a Secure
// Enclave key with biometryCurrentSet, found again by its tag, signing the server's challenge
// after Touch ID; the server keeps only the public key. Only `import LocalAuthentication`.

/// Why the signer failed, in the app's own terms.
enum EnclaveSignerFailure: Error, Equatable, Sendable {
    case noKey, cancelled, lockedOut, biometryChanged, other(String, Int)
}

/// Creates, finds and uses the per-device login key.
struct EnclaveSigner: Sendable {
    let tag: Data

    init(account: String) {
        tag = "com.example.login.\(account)".data(using: .utf8)!
    }

    /// Makes the key and returns its public key (65 bytes, X9.63) for the server.
    func enable() throws -> Data {
        deleteKey()
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                                           kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                                                           [.privateKeyUsage, .biometryCurrentSet], &error) else {
            throw error!.takeRetainedValue() as any Error
        }
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true,
                kSecAttrApplicationTag as String: tag,
                kSecAttrAccessControl as String: access,
            ],
        ]
        guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
            throw error!.takeRetainedValue() as any Error
        }
        guard let publicKey = SecKeyCopyPublicKey(privateKey),
              let data = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else {
            throw error!.takeRetainedValue() as any Error
        }
        return data
    }

    /// Finds the key by its tag.
    func loadKey(context: LAContext? = nil) -> SecKey? {
        var query: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrApplicationTag as String: tag,
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecReturnRef as String: true,
        ]
        if let context { query[kSecUseAuthenticationContext as String] = context }
        var item: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &item)
        guard status == errSecSuccess else { return nil }
        return (item as! SecKey)
    }

    /// Signs the server's challenge (Touch ID prompt) and returns the DER signature.
    func sign(challenge: Data) -> Result<Data, EnclaveSignerFailure> {
        let context = LAContext()
        context.localizedReason = "Sign in to Example"
        guard let key = loadKey(context: context) else { return .failure(.noKey) }
        let algorithm: SecKeyAlgorithm = .ecdsaSignatureMessageX962SHA256
        guard SecKeyIsAlgorithmSupported(key, .sign, algorithm) else { return .failure(.other("unsupported", 0)) }
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, algorithm, challenge as CFData, &error) as Data? else {
            let nsError = error!.takeRetainedValue() as any Error as NSError
            if nsError.domain == LAErrorDomain {
                switch LAError.Code(rawValue: nsError.code) {
                case .userCancel?, .systemCancel?, .appCancel?: return .failure(.cancelled)
                case .biometryLockout?: return .failure(.lockedOut)
                default: return .failure(.other(nsError.domain, nsError.code))
                }
            }
            if nsError.code == Int(errSecItemNotFound) { return .failure(.biometryChanged) }
            return .failure(.other(nsError.domain, nsError.code))
        }
        return .success(signature)
    }

    /// What the server does with the stored public key.
    static func serverVerifies(publicKey: Data, challenge: Data, signature: Data) -> Bool {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                         kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
        var error: Unmanaged<CFError>?
        guard let key = SecKeyCreateWithData(publicKey as CFData, attributes as CFDictionary, &error) else { return false }
        return SecKeyVerifySignature(key, .ecdsaSignatureMessageX962SHA256, challenge as CFData, signature as CFData, &error)
    }

    /// Turns fingerprint login off.
    @discardableResult
    func deleteKey() -> OSStatus {
        let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
        return SecItemDelete(query as CFDictionary)
    }
}
#endif
