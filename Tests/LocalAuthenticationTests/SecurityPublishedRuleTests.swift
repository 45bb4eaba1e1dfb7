#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import Touchstone
import TouchstoneTesting

/// Rules read from Apple's published Security code (the October 2025 mirror of
/// apple-oss-distributions/Security) that real code meets: each test names its rule, and the
/// file and function of Apple's it comes from.
@Suite("Security answers as Apple's published code: key operations, key attributes, item rules, match limits")
struct SecurityPublishedRuleTests {
    /// The OSStatus of a `SecKey` call's CFError (0 when there was none).
    static func status(_ error: Unmanaged<CFError>?) -> Int {
        error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? 0
    }

    static func p256(token: Bool, _ extra: [String: Any] = [:]) -> SecKey? {
        var parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
        if token { parameters[kSecAttrTokenID as String] = kSecAttrTokenIDSecureEnclave }
        parameters.merge(extra) { $1 }
        return SecKeyCreateRandomKey(parameters as CFDictionary, nil)
    }

    @Test("an EC private key neither verifies nor encrypts: errSecParam 'algorithm not supported by the key' and SecKeyIsAlgorithmSupported false (SecECKey.m, SecCTKKey.m, SecKey.m's SecKeyRunAlgorithmAndCopyResult); its public key does both")
    func ecPrivateKeyDoesNotVerifyOrEncrypt() async throws {
        let device = try TestDevice(enrolled: [])
        let lines = await device.blocking { () -> [String] in
            var lines: [String] = []
            let message = Data("challenge".utf8) as CFData
            let p384 = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                              kSecAttrKeySizeInBits as String: 384] as CFDictionary, nil)
            for (name, key) in [("enclave", Self.p256(token: true)), ("software", Self.p256(token: false)), ("P-384", p384)] {
                guard let key, let publicKey = SecKeyCopyPublicKey(key),
                      let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message, nil) else {
                    lines.append("\(name): no key")
                    continue
                }
                var error: Unmanaged<CFError>?
                let verified = SecKeyVerifySignature(key, .ecdsaSignatureMessageX962SHA256, message, signature, &error)
                let verifyStatus = Self.status(error)
                error = nil
                let sealed = SecKeyCreateEncryptedData(key, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, message, &error)
                let encryptStatus = Self.status(error)
                let supported = SecKeyIsAlgorithmSupported(key, .verify, .ecdsaSignatureMessageX962SHA256)
                    || SecKeyIsAlgorithmSupported(key, .encrypt, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM)
                let publicVerifies = SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message, signature, nil)
                    && SecKeyIsAlgorithmSupported(publicKey, .verify, .ecdsaSignatureMessageX962SHA256)
                lines.append("\(name): \(verified) \(verifyStatus) \(sealed == nil) \(encryptStatus) \(supported) \(publicVerifies)")
            }
            return lines
        }
        #expect(lines == ["enclave: false -50 true -50 false true", "software: false -50 true -50 false true",
                          "P-384: false -50 true -50 false true"])
    }

    @Test("an RSA private key verifies through its private operation, as Apple's adaptor runs its raw decryption: a signature does not verify (errSecVerifyFailed), the public-key encryption of the message does; it does not encrypt (errSecParam) (SecKeyAdaptors.m, SecRSAKey.c)")
    func rsaPrivateKeyVerifiesNothingAndDoesNotEncrypt() throws {
        let key = try #require(SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                                      kSecAttrKeySizeInBits as String: 1024] as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        let message = Data("challenge".utf8) as CFData
        let signature = try #require(SecKeyCreateSignature(key, .rsaSignatureMessagePKCS1v15SHA256, message, nil))
        var error: Unmanaged<CFError>?
        #expect(!SecKeyVerifySignature(key, .rsaSignatureMessagePKCS1v15SHA256, message, signature, &error))
        #expect(Self.status(error) == Int(errSecVerifyFailed))
        #expect(SecKeyIsAlgorithmSupported(key, .verify, .rsaSignatureMessagePKCS1v15SHA256))
        #expect(SecKeyVerifySignature(publicKey, .rsaSignatureMessagePKCS1v15SHA256, message, signature, nil))
        // What the private operation opens to the message: its encryption with the public key.
        let block = Data([1]) + Data(repeating: 0x5A, count: 60)
        let encrypted = try #require(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionRaw, block as CFData, nil))
        #expect(SecKeyVerifySignature(key, .rsaSignatureRaw, block as CFData, encrypted, nil))
        #expect(!SecKeyVerifySignature(publicKey, .rsaSignatureRaw, block as CFData, encrypted, nil))
        error = nil
        #expect(SecKeyCreateEncryptedData(key, .rsaEncryptionOAEPSHA256, message, &error) == nil)
        #expect(Self.status(error) == Int(errSecParam))
        #expect(!SecKeyIsAlgorithmSupported(key, .encrypt, .rsaEncryptionOAEPSHA256))
        #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, .rsaEncryptionOAEPSHA256))
    }

    @Test("an algorithm the key does not do is errSecParam before the signature is read: RSA on an EC public key with bytes that are no signature (SecKey.m)")
    func unsupportedAlgorithmBeforeTheSignature() {
        guard let publicKey = SecKeyCreateWithData(P256.Signing.PrivateKey().publicKey.x963Representation as CFData,
                                                   [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                    kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary, nil) else {
            Issue.record("no public key")
            return
        }
        var error: Unmanaged<CFError>?
        #expect(!SecKeyVerifySignature(publicKey, .rsaSignatureMessagePKCS1v15SHA256, Data("m".utf8) as CFData, Data([1, 2, 3]) as CFData, &error))
        #expect(Self.status(error) == Int(errSecParam))
    }

    @Test("SecKeyCreateWithData needs kSecAttrKeyType and kSecAttrKeyClass (errSecParam without either); kSecAttrKeyClassSymmetric is errSecUnimplemented (SecKey.m)")
    func createWithDataNeedsTypeAndClass() {
        let bytes = P256.Signing.PrivateKey().publicKey.x963Representation as CFData
        func status(_ attributes: [String: Any]) -> Int {
            var error: Unmanaged<CFError>?
            return SecKeyCreateWithData(bytes, attributes as CFDictionary, &error) == nil ? Self.status(error) : 0
        }
        #expect(status([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom]) == Int(errSecParam))
        #expect(status([kSecAttrKeyClass as String: kSecAttrKeyClassPublic]) == Int(errSecParam))
        #expect(status([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric]) == Int(errSecUnimplemented))
        // The type is read first: a type that is no number is errSecParam, a symmetric class too.
        #expect(status([kSecAttrKeyType as String: "bogus", kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric]) == Int(errSecParam))
        #expect(status([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]) == 0)
        // Numbers name them too, as Apple's SecKeyParamsAsInt64 reads them.
        #expect(status([kSecAttrKeyType as String: 73, kSecAttrKeyClass as String: 0]) == 0)
    }

    @Test("kSecReturnAttributes of a key item gives kSecAttrKeyType and kSecAttrKeyClass as numbers, and sync, tomb and musr as the schema keeps them (SecItemSchema.c, SecDbItem.c); SecKeyCopyAttributes gives the type's string (SecKey.m)")
    func keyItemTypeAndClassAreNumbers() async throws {
        struct Seen: Sendable {
            var type: Int?, keyClass: Int?, typeIsString = true, schemaColumns = false, copiedType: String?
        }
        let device = try TestDevice(enrolled: [])
        let seen = await device.blocking { () -> Seen in
            var seen = Seen()
            let tag = Data("numbers".utf8)
            guard let key = Self.p256(token: true, [kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                                   kSecAttrApplicationTag as String: tag]]) else { return seen }
            var result: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                                     kSecReturnAttributes as String: true] as CFDictionary, &result)
            let attributes = result as? [String: Any] ?? [:]
            seen.type = attributes[kSecAttrKeyType as String] as? Int
            seen.keyClass = attributes[kSecAttrKeyClass as String] as? Int
            seen.typeIsString = attributes[kSecAttrKeyType as String] is String
            seen.schemaColumns = attributes[kSecAttrSynchronizable as String] as? Int == 0 && attributes["tomb"] as? Int == 0
                && (attributes["musr"] as? Data)?.isEmpty == true
            seen.copiedType = (SecKeyCopyAttributes(key) as? [String: Any])?[kSecAttrKeyType as String] as? String
            return seen
        }
        #expect(seen.type == 73 && seen.keyClass == 1 && !seen.typeIsString)
        #expect(seen.schemaColumns)
        #expect(seen.copiedType == kSecAttrKeyTypeECSECPrimeRandom as String)
    }

    @Test("a top-level kSecAttrIsPermanent stores the public half of a new P-256 key as an item of its own, and kSecPublicKeyAttrs can say so alone (SecKey.m's SecKeyCreateRandomKey)")
    func permanentPublicHalfIsStored() async throws {
        let device = try TestDevice(enrolled: [])
        let lines = await device.blocking { () -> [String] in
            func count(_ tag: String) -> String {
                var result: CFTypeRef?
                let status = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
                                                  kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true] as CFDictionary, &result)
                let classes = (result as? [[String: Any]] ?? []).compactMap { $0[kSecAttrKeyClass as String] as? Int }.sorted()
                return "\(status) \(classes)"
            }
            _ = Self.p256(token: true, [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data("both".utf8)])
            _ = Self.p256(token: false, [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data("software".utf8)])
            _ = Self.p256(token: true, [kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data("private".utf8)]])
            _ = Self.p256(token: false, [kSecPublicKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data("public".utf8)]])
            _ = Self.p256(token: true, [kSecAttrApplicationTag as String: Data("token-default".utf8)])
            let both = count("both")
            let deleted = SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("both".utf8)] as CFDictionary)
            return [both, "\(deleted)", count("both"), count("software"), count("private"), count("public"), count("token-default")]
        }
        #expect(lines == ["0 [0, 1]", "0", "-25300 []", "0 [0, 1]", "0 [1]", "0 [0]", "0 [1]"])
    }

    @Test("an access control with kSecAttrSynchronizable true is errSecParam on add and in an update's changes, for every class (SecItem.m's SecItemAuthDoQuery); nothing is stored")
    func accessControlIsNotSynchronizable() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil) else { return [] }
            let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "sync",
                                       kSecAttrAccount as String: "a"]
            var add = base
            add[kSecValueData as String] = Data("v".utf8)
            add[kSecAttrAccessControl as String] = access
            add[kSecAttrSynchronizable as String] = true
            let refused = SecItemAdd(add as CFDictionary, nil)
            let stored = SecItemCopyMatching(base as CFDictionary, nil)
            add[kSecAttrSynchronizable as String] = false
            let added = SecItemAdd(add as CFDictionary, nil)
            let update = SecItemUpdate(base as CFDictionary, [kSecAttrAccessControl as String: access,
                                                              kSecAttrSynchronizable as String: true] as CFDictionary)
            let key = SecItemAdd([kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                                  kSecValueData as String: P256.Signing.PrivateKey().publicKey.x963Representation,
                                  kSecAttrAccessControl as String: access, kSecAttrSynchronizable as String: true] as CFDictionary, nil)
            let internet = SecItemAdd([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                       kSecAttrAccount as String: "a", kSecValueData as String: Data("v".utf8),
                                       kSecAttrAccessControl as String: access, kSecAttrSynchronizable as String: true] as CFDictionary, nil)
            return [refused, stored, added, update, key, internet]
        }
        #expect(statuses == [errSecParam, errSecItemNotFound, errSecSuccess, errSecParam, errSecParam, errSecParam])
    }

    @Test("kSecUseAuthenticationUISkip is allowed only in SecItemCopyMatching: errSecParam in SecItemAdd, SecItemUpdate and SecItemDelete (SecItem.m)")
    func authenticationUISkipOnlyInLookups() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            let base: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "skip",
                                       kSecAttrAccount as String: "a"]
            var skip = base
            skip[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
            var add = skip
            add[kSecValueData as String] = Data("v".utf8)
            let added = SecItemAdd(add as CFDictionary, nil)
            _ = SecItemAdd(base.merging([kSecValueData as String: Data("v".utf8)]) { $1 } as CFDictionary, nil)
            return [added, SecItemUpdate(skip as CFDictionary, [kSecValueData as String: Data("w".utf8)] as CFDictionary),
                    SecItemDelete(skip as CFDictionary), SecItemCopyMatching(skip as CFDictionary, nil)]
        }
        #expect(statuses == [errSecParam, errSecParam, errSecParam, errSecSuccess])
    }

    @Test("a numeric kSecMatchLimit n returns at most n matches, in an array; 1 the match itself; -1 (kSecMatchUnlimited) every match; 0 none (errSecItemNotFound); below -1 errSecParam (SecDbQuery.c, SecItemDb.c)")
    func numericMatchLimitCaps() async throws {
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            for account in ["a", "b", "c"] {
                _ = SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "limit",
                                kSecAttrAccount as String: account, kSecValueData as String: Data(account.utf8)] as CFDictionary, nil)
            }
            // Private halves only (their public halves are not stored), more than the limit.
            for tag in ["k1", "k2", "k3", "k4"] {
                _ = Self.p256(token: false, [kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                             kSecAttrApplicationTag as String: Data(tag.utf8)]])
            }
            func lookup(_ limit: Any, keys: Bool = false) -> String {
                var result: CFTypeRef?
                var query: [String: Any] = [kSecClass as String: keys ? kSecClassKey : kSecClassGenericPassword,
                                            kSecMatchLimit as String: limit, kSecReturnAttributes as String: true]
                if !keys { query[kSecAttrService as String] = "limit" }
                let status = SecItemCopyMatching(query as CFDictionary, &result)
                let shape = (result as? [Any]).map { "array \($0.count)" } ?? (result is [String: Any] ? "one" : "none")
                return "\(status) \(shape)"
            }
            return [lookup(2), lookup(1), lookup(kSecMatchLimitAll), lookup(-1), lookup(0), lookup(-2), lookup(3, keys: true)]
        }
        #expect(lines == ["0 array 2", "0 one", "0 array 3", "0 array 3", "-25300 none", "-50 none", "0 array 3"])
    }

    @Test("a password's kSecReturnAttributes gives kSecAttrSynchronizable and its tombstone flag as numbers (as? Bool and as? Int both read them) and its multi-user id as empty data (SecItemSchema.c, SecDbItem.c)")
    func passwordAttributesAsStored() async throws {
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            var lines: [String] = []
            for (account, synchronizable) in [("local", false), ("synced", true)] {
                _ = SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "numbers",
                                kSecAttrAccount as String: account, kSecAttrSynchronizable as String: synchronizable,
                                kSecValueData as String: Data("v".utf8)] as CFDictionary, nil)
                var result: CFTypeRef?
                _ = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: account,
                                         kSecAttrSynchronizable as String: kSecAttrSynchronizableAny,
                                         kSecReturnAttributes as String: true] as CFDictionary, &result)
                let attributes = result as? [String: Any] ?? [:]
                let sync = attributes[kSecAttrSynchronizable as String]
                lines.append("\(account) \(sync as? Bool as Any) \(sync as? Int as Any) \(attributes["tomb"] as? Int as Any) \((attributes["musr"] as? Data)?.count as Any)")
            }
            return lines
        }
        #expect(lines == ["local Optional(false) Optional(0) Optional(0) Optional(0)", "synced Optional(true) Optional(1) Optional(0) Optional(0)"])
    }

    @Test("SecItemAdd whose attributes hold a search key (kSecMatchLimit too) reports success and stores nothing, as securityd's s3dl_query_add does; without it the same add stores")
    func addWithSearchKeyStoresNothing() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "reused",
                                       kSecAttrAccount as String: "a", kSecValueData as String: Data("v".utf8)]
            let key: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                                      kSecAttrApplicationTag as String: Data("reused".utf8),
                                      kSecValueData as String: P256.Signing.PrivateKey().publicKey.x963Representation]
            let lookup: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "reused"]
            let keyLookup: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("reused".utf8)]
            let withLimit = item.merging([kSecMatchLimit as String: kSecMatchLimitOne]) { $1 }
            let keyWithLimit = key.merging([kSecMatchCaseInsensitive as String: true]) { $1 }
            return [SecItemAdd(withLimit as CFDictionary, nil), SecItemCopyMatching(lookup as CFDictionary, nil),
                    SecItemAdd(keyWithLimit as CFDictionary, nil), SecItemCopyMatching(keyLookup as CFDictionary, nil),
                    SecItemAdd(item as CFDictionary, nil), SecItemCopyMatching(lookup as CFDictionary, nil)]
        }
        #expect(statuses == [errSecSuccess, errSecItemNotFound, errSecSuccess, errSecItemNotFound, errSecSuccess, errSecSuccess])
    }

    @Test("an add with a search key still answers what securityd checks before it: a group the app is not entitled to is errSecMissingEntitlement, a persistent reference errSecParam")
    func addWithSearchKeyIsCheckedFirst() async throws {
        var composition = Composition()
        composition.keychainAccessGroups = ["TEAM.com.example.shared"]
        let device = try TestDevice(composition: composition)
        let statuses = await device.blocking { () -> [OSStatus] in
            let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "reused",
                                       kSecAttrAccount as String: "a", kSecValueData as String: Data("v".utf8),
                                       kSecMatchLimit as String: kSecMatchLimitOne]
            let key: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                                      kSecValueData as String: P256.Signing.PrivateKey().publicKey.x963Representation,
                                      kSecMatchLimit as String: kSecMatchLimitOne]
            let elsewhere = [kSecAttrAccessGroup as String: "OTHER.com.example.app"]
            return [SecItemAdd(item.merging(elsewhere) { $1 } as CFDictionary, nil),
                    SecItemAdd(key.merging(elsewhere) { $1 } as CFDictionary, nil),
                    SecItemAdd(item.merging([kSecValuePersistentRef as String: Data("bogus".utf8)]) { $1 } as CFDictionary, nil),
                    SecItemAdd(item as CFDictionary, nil)]
        }
        #expect(statuses == [errSecMissingEntitlement, errSecMissingEntitlement, errSecParam, errSecSuccess])
    }

    @Test("a kSecClass that names no class is errSecNoSuchClass (-25306), as securityd's query_get_class answers it")
    func unknownClassIsNoSuchClass() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            let query: [String: Any] = [kSecClass as String: "genp-typo", kSecAttrAccount as String: "a"]
            return [SecItemCopyMatching(query as CFDictionary, nil), SecItemDelete(query as CFDictionary),
                    SecItemAdd(query.merging([kSecValueData as String: Data("v".utf8)]) { $1 } as CFDictionary, nil)]
        }
        #expect(statuses == [-25306, -25306, -25306])
    }

    @Test("an ECIES ciphertext that does not open — one byte of its tag or its data altered — is errSecParam 'ECIES: Failed to aes-gcm decrypt data' (SecKeyAdaptors.m, SecKeyECIESDecryptAESGCMCopyResult); the intact one opens")
    func eciesCiphertextThatDoesNotOpenIsErrSecParam() async throws {
        let device = try TestDevice(enrolled: [])
        let results = await device.blocking { () -> [String] in
            guard let key = Self.p256(token: true), let publicKey = SecKeyCopyPublicKey(key),
                  let sealed = SecKeyCreateEncryptedData(publicKey, .eciesEncryptionStandardX963SHA256AESGCM,
                                                         Data("the secret".utf8) as CFData, nil) as Data? else { return ["no key"] }
            var tagAltered = sealed
            tagAltered[tagAltered.count - 1] ^= 0x01
            var dataAltered = sealed
            dataAltered[65] ^= 0x01
            return [sealed, tagAltered, dataAltered].map { ciphertext in
                var error: Unmanaged<CFError>?
                if let opened = SecKeyCreateDecryptedData(key, .eciesEncryptionStandardX963SHA256AESGCM, ciphertext as CFData, &error) as Data? {
                    return String(decoding: opened, as: UTF8.self)
                }
                guard let failure = error?.takeRetainedValue() else { return "nil without an error" }
                let text = String(describing: failure).contains("ECIES: Failed to aes-gcm decrypt data") ? "Apple's text" : "\(failure)"
                return "\(CFErrorGetCode(failure)) \(text)"
            }
        }
        #expect(results == ["the secret", "-50 Apple's text", "-50 Apple's text"])
    }

    @Test("a SecKey call's CFError keeps its message under kCFErrorDescriptionKey (SecCFError.c's SecCFCreateErrorWithFormatAndArguments), and its localized description is CoreFoundation's sentence of domain, code and message (CFError.c's _CFErrorCreateLocalizedDescription), as iOS prints it")
    func secKeyErrorDescribesItselfAsCoreFoundationDoes() async throws {
        let device = try TestDevice(enrolled: [])
        let (description, message, code) = await device.blocking { () -> (String, String?, Int) in
            guard let key = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                                   kSecAttrKeySizeInBits as String: 1024] as CFDictionary, nil) else { return ("no key", nil, 0) }
            var error: Unmanaged<CFError>?
            let plain = SecKeyCreateDecryptedData(key, .rsaEncryptionPKCS1, Data(repeating: 1, count: 128) as CFData, &error)
            guard plain == nil, let failure = error?.takeRetainedValue() else { return ("no error", nil, 0) }
            return (failure.localizedDescription, failure.userInfo["NSDescription"] as? String, failure.code)
        }
        #expect(code == -50)
        #expect(message == "RSAdecrypt wrong input (err -27)")
        #expect(description == "The operation couldn\u{2019}t be completed. (OSStatus error -50 - RSAdecrypt wrong input (err -27))")
    }

    @Test("a key item's identity is Apple's key primary key (SecItemSchema.c: class, application label, tag, type, size), not its bytes: another private key added under a stored one's kSecAttrApplicationLabel is errSecDuplicateItem; under another tag it is a new item")
    func anotherKeyUnderAStoredApplicationLabelIsADuplicate() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            func add(_ x963: Data, label: String, tag: String? = nil) -> OSStatus {
                let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                 kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
                guard let key = SecKeyCreateWithData(x963 as CFData, attributes as CFDictionary, nil) else { return errSecParam }
                var item: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationLabel as String: label,
                                           kSecValueRef as String: key]
                if let tag { item[kSecAttrApplicationTag as String] = Data(tag.utf8) }
                return SecItemAdd(item as CFDictionary, nil)
            }
            return [
                add(P256.Signing.PrivateKey().x963Representation, label: "L"),
                add(P256.Signing.PrivateKey().x963Representation, label: "L"),
                add(P256.Signing.PrivateKey().x963Representation, label: "L", tag: "other"),
                add(P384.Signing.PrivateKey().x963Representation, label: "M"),
                add(P384.Signing.PrivateKey().x963Representation, label: "M"),
                add(P384.Signing.PrivateKey().x963Representation, label: "L"),
            ]
        }
        #expect(statuses == [errSecSuccess, errSecDuplicateItem, errSecSuccess, errSecSuccess, errSecDuplicateItem, errSecSuccess])
    }

    @Test("a software P-256 key that is not kept (SecKeyCreateWithData, SecKeyCreateRandomKey without kSecAttrIsPermanent) is made and signs while the device is locked (SecKey.m adds a key to the keychain only when kSecAttrIsPermanent is set; until then it is in the app's memory)")
    func softwareKeyNotKeptIsMadeAndUsedWhileLocked() async throws {
        let device = try TestDevice()
        try device.device.lock()
        let results = await device.blocking { () -> [String] in
            /// "ok" when `key` exists and signs, else why not.
            func signs(_ key: SecKey?) -> String {
                guard let key else { return "not made" }
                var error: Unmanaged<CFError>?
                let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("challenge".utf8) as CFData, &error)
                return signature == nil ? "\(Self.status(error))" : "ok"
            }
            let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                             kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
            let imported = SecKeyCreateWithData(P256.Signing.PrivateKey().x963Representation as CFData, attributes as CFDictionary, nil)
            // Storing it is a keychain write: refused while locked, as any whenUnlocked item.
            let add: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueRef as String: imported as Any]
            return [signs(imported), signs(Self.p256(token: false)), "\(SecItemAdd(add as CFDictionary, nil))"]
        }
        #expect(results == ["ok", "ok", "\(errSecInteractionNotAllowed)"])
    }

    @Test("the software key SecKeyCreateRandomKey returns with such access control (userPresence, no privateKeyUsage) is used in memory: it signs and exports without a prompt, while the device is locked and after its item is deleted, where a lookup of the stored item asks (SecKey.m's SecKeyCreateRandomKey returns the key it generated; SecAccessControl.m puts the constraint on the item's decryption)")
    func softwareKeyMadeWithAccessControlIsUsedInMemory() async throws {
        let device = try TestDevice()
        let tag = Data("com.example.made-software-key".utf8)
        let key = try #require(await device.blocking { () -> SecKey? in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, nil) else { return nil }
            return Self.p256(token: false, [kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                          kSecAttrApplicationTag as String: tag,
                                                                          kSecAttrAccessControl as String: access]])
        })
        /// "ok" when the key signs, else the OSStatus of its error.
        @Sendable func sign() -> String {
            var error: Unmanaged<CFError>?
            let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("challenge".utf8) as CFData, &error)
            return signature == nil ? "\(Self.status(error))" : "ok"
        }
        /// The status of a lookup of the stored private key's ref.
        @Sendable func lookup() -> String {
            var result: CFTypeRef?
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                                        kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecReturnRef as String: true]
            return "\(SecItemCopyMatching(query as CFDictionary, &result))"
        }
        // Nothing is queued: a prompt would fail the call.
        let unlocked = await device.blocking { () -> [String] in
            [sign(), SecKeyCopyExternalRepresentation(key, nil) == nil ? "no bytes" : "ok"]
        }
        #expect(unlocked == ["ok", "ok"])
        // Locked: the stored item is out of reach (a lookup fails), the key in memory is not.
        try device.device.lock()
        #expect(await device.blocking { [lookup(), sign()] } == ["\(errSecInteractionNotAllowed)", "ok"])
        try device.device.unlock(with: "thumb")
        // The stored item still asks when a lookup reads it: a cancel there.
        device.enqueue(.cancel)
        #expect(await device.blocking { lookup() } == "\(errSecUserCanceled)")
        // Deleted, the item is gone; the key in memory still signs.
        let deleted = await device.blocking { () -> [String] in
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
            return ["\(SecItemDelete(query as CFDictionary))", lookup(), sign()]
        }
        #expect(deleted == ["0", "\(errSecItemNotFound)", "ok"])
    }

    @Test("a software key whose access control guards its item (userPresence, no privateKeyUsage) is authenticated when a lookup finds it (its ref, its attributes, its data, or only whether it is there) — a cancel there is errSecUserCanceled, UI skip leaves it out — and the key it returns signs without asking again, after its item is deleted too (SecAccessControl.m's kAKSKeyOpDecrypt constraint, SecDbKeychainItem.m's s3dl_item_from_data)")
    func softwareKeyItemAuthenticatesAtLookup() async throws {
        let device = try TestDevice()
        let tag = Data("com.example.software-key".utf8)
        let made = await device.blocking { () -> Bool in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, nil) else { return false }
            return Self.p256(token: false, [kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true,
                                                                          kSecAttrApplicationTag as String: tag,
                                                                          kSecAttrAccessControl as String: access]]) != nil
        }
        #expect(made)
        /// A lookup of the key with `extra` (made in the blocking call: a dictionary of `Any` is not
        /// Sendable): its status and the key it returned.
        func lookup(_ extra: @escaping @Sendable () -> [String: Any]) async -> (OSStatus, SecKey?) {
            await device.blocking { () -> (OSStatus, SecKey?) in
                var result: CFTypeRef?
                let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                                            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
                let status = SecItemCopyMatching(query.merging(extra()) { $1 } as CFDictionary, &result)
                return (status, result.flatMap { $0 as? SecKey })
            }
        }
        // Attributes alone, or whether it is there: the item is opened all the same (securityd
        // decrypts an item whose ACL has constraints for any lookup): cancelled, then without UI.
        device.enqueue(.cancel)
        #expect(await lookup { [kSecReturnAttributes as String: true] }.0 == errSecUserCanceled)
        #expect(await lookup { [kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail] }.0 == errSecInteractionNotAllowed)
        // Its data alone opens the item too (its bytes: SoftwareKeyItemDataTests).
        device.enqueue(.cancel)
        #expect(await lookup { [kSecReturnData as String: true] }.0 == errSecUserCanceled)
        // kSecUseAuthenticationUISkip: the key that would ask is left out.
        #expect(await lookup { [kSecReturnRef as String: true,
                                kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip] }.0 == errSecItemNotFound)
        // A cancel at the lookup's prompt.
        device.enqueue(.cancel)
        #expect(await lookup { [kSecReturnRef as String: true] }.0 == errSecUserCanceled)
        // The lookup asks once; the key it returns signs (twice) without another prompt.
        device.enqueue(.present("thumb"))
        let (status, found) = await lookup { [kSecReturnRef as String: true] }
        #expect(status == errSecSuccess)
        #expect(device.user.pending.isEmpty, "the lookup asked")
        let key = try #require(found)
        let signatures = await device.blocking { () -> [Int] in
            (0..<2).map { _ in
                var error: Unmanaged<CFError>?
                let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("challenge".utf8) as CFData, &error)
                return signature == nil ? Self.status(error) : 0
            }
        }
        // (A prompt at signing would find nothing queued and fail.)
        #expect(signatures == [0, 0])
        // The key is in memory: it still signs after its item is deleted.
        let afterDelete = await device.blocking { () -> [Int] in
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
            let deleted = Int(SecItemDelete(query as CFDictionary))
            var error: Unmanaged<CFError>?
            let signature = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("challenge".utf8) as CFData, &error)
            return [deleted, signature == nil ? Self.status(error) : 0]
        }
        #expect(afterDelete == [0, 0])
    }


    @Test("a password item under privateKeyUsage is errSecAuthFailed, on its own or with a constraint, on add and on a change of access control (sec_acl_stress.c); nothing is stored")
    func privateKeyUsageIsNotForItems() async throws {
        let device = try TestDevice(passcode: "1234")
        let statuses = await device.blocking { () -> [OSStatus] in
            var statuses: [OSStatus] = []
            for flags: SecAccessControlCreateFlags in [.privateKeyUsage, [.devicePasscode, .privateKeyUsage]] {
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, nil)
                statuses.append(SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "pku",
                                            kSecValueData as String: Data("v".utf8),
                                            kSecAttrAccessControl as String: access as Any] as CFDictionary, nil))
            }
            let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "pku"]
            statuses.append(SecItemCopyMatching(item as CFDictionary, nil))
            statuses.append(SecItemAdd(item.merging([kSecValueData as String: Data("v".utf8)]) { $1 } as CFDictionary, nil))
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .privateKeyUsage, nil)
            statuses.append(SecItemUpdate(item as CFDictionary, [kSecAttrAccessControl as String: access as Any] as CFDictionary))
            return statuses
        }
        #expect(statuses == [errSecAuthFailed, errSecAuthFailed, errSecItemNotFound, errSecSuccess, errSecAuthFailed])
    }

}

#endif
