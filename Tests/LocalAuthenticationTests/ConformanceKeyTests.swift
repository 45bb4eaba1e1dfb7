#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// REFERENCE §10's Secure Enclave keys through Apple's `SecKey` API (never the core API), one
/// rule per test, on in-memory devices bound per test.
@Suite("Conformance: SecKey and the Secure Enclave (REFERENCE §10)")
struct ConformanceKeyTests {
    static let challenge = Data("challenge-2026".utf8)
    static let tag = Data("com.example.key".utf8)

    /// Makes a permanent SE key with `flags`; nil and the error on failure.
    static func makeKey(_ flags: SecAccessControlCreateFlags = [.privateKeyUsage, .biometryCurrentSet],
                        accessible: CFString = kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                        permanent: Bool = true, context: LAContext? = nil, tag keyTag: String? = nil) -> (SecKey?, NSError?) {
        let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, accessible, flags, nil)!
        var privateAttributes: [String: Any] = [kSecAttrIsPermanent as String: permanent,
                                                kSecAttrApplicationTag as String: keyTag.map { Data($0.utf8) } ?? tag,
                                                kSecAttrLabel as String: "Login key", kSecAttrAccessControl as String: access]
        if let context { privateAttributes[kSecUseAuthenticationContext as String] = context }
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecPrivateKeyAttrs as String: privateAttributes,
        ]
        var error: Unmanaged<CFError>?
        let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error)
        return (key, error.map { $0.takeRetainedValue() as NSError })
    }

    static func find(context: LAContext? = nil) -> SecKey? {
        var query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag,
                                    kSecReturnRef as String: true]
        if let context { query[kSecUseAuthenticationContext as String] = context }
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? SecKey
    }

    /// Signs; the signature or the CFError as NSError.
    static func sign(_ key: SecKey, _ data: Data = challenge, algorithm: SecKeyAlgorithm = .ecdsaSignatureMessageX962SHA256)
        -> Result<Data, NSError> {
        var error: Unmanaged<CFError>?
        if let signature = SecKeyCreateSignature(key, algorithm, data as CFData, &error) { return .success(signature as Data) }
        return .failure(error!.takeRetainedValue() as NSError)
    }

    static func verify(_ key: SecKey, _ signature: Data, _ data: Data = challenge) -> Bool {
        var error: Unmanaged<CFError>?
        guard let publicKey = SecKeyCopyPublicKey(key) else { return false }
        return SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, data as CFData, signature as CFData, &error)
    }

    static func code(_ result: Result<Data, NSError>) -> (String, Int)? {
        if case let .failure(error) = result { return (error.domain, error.code) }
        return nil
    }

    @Test("§10 a Secure Enclave key signs after Touch ID; the 65-byte public key verifies the DER signature; SecKeyCopyAttributes gives what SecCTKKey.m exports (not the tag or label)")
    func signAndVerify() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb")])
        let (ok, der, external, attributesOK) = await sim.blocking { () -> (Bool, Data, Data, Bool) in
            guard let key = Self.makeKey().0, let signature = try? Self.sign(key).get() else { return (false, Data(), Data(), false) }
            var error: Unmanaged<CFError>?
            let external = SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(key)!, &error) as Data? ?? Data()
            let attributes = SecKeyCopyAttributes(key) as? [String: Any] ?? [:]
            // As Apple's SecCTKKey.m exports a token key's attributes: not its tag or label.
            let attributesOK = attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String
                && attributes[kSecAttrKeySizeInBits as String] as? Int == 256
                && attributes[kSecAttrApplicationTag as String] == nil && attributes[kSecAttrLabel as String] == nil
                && attributes[kSecAttrIsPermanent as String] as? Bool == true && attributes[kSecAttrAccessControl as String] != nil
                && attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String
            return (Self.verify(key, signature) && !Self.verify(key, signature, Data("tampered".utf8)), signature, external, attributesOK)
        }
        #expect(ok && attributesOK)
        #expect(der.first == 0x30)
        #expect(external.count == 65 && external.first == 0x04)
        #expect(sim.user.pending.isEmpty)
    }

    @Test("§10 a Secure Enclave private key cannot be exported; a public key round-trips through SecKeyCreateWithData")
    func exportRules() async throws {
        let sim = try TestDevice()
        let (refused, roundTrip) = await sim.blocking { () -> (Bool, Bool) in
            guard let key = Self.makeKey([.privateKeyUsage]).0 else { return (false, false) }
            var error: Unmanaged<CFError>?
            let refused = SecKeyCopyExternalRepresentation(key, &error) == nil && error != nil
            let bytes = SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(key)!, nil)! as Data
            let imported = SecKeyCreateWithData(bytes as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeEC,
                                                                   kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary, nil)
            let signature = (try? Self.sign(key).get()) ?? Data()
            var verifyError: Unmanaged<CFError>?
            let verified = imported.map {
                SecKeyVerifySignature($0, .ecdsaSignatureMessageX962SHA256, Self.challenge as CFData, signature as CFData, &verifyError)
            } ?? false
            let privateImport = SecKeyCreateWithData(Data(count: 97) as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeEC,
                                                                                 kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, nil)
            return (refused, verified && privateImport == nil
                && SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA256)
                && !SecKeyIsAlgorithmSupported(imported!, .sign, .ecdsaSignatureMessageX962SHA256))
        }
        #expect(refused && roundTrip)
    }

    @Test("§10 the Secure Enclave takes only 256-bit EC keys: RSA or 384 bits with its token is errSecParam; without a token the key is a software key (our rule)")
    func creationParameters() async throws {
        let sim = try TestDevice()
        let codes = await sim.blocking { () -> [Int] in
            func create(_ attributes: [String: Any]) -> Int {
                var error: Unmanaged<CFError>?
                if SecKeyCreateRandomKey(attributes as CFDictionary, &error) != nil { return 0 }
                return (error?.takeRetainedValue() as NSError?)?.code ?? 1
            }
            let base: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: "256",
                                       kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]
            return [create(base),
                    create(base.merging([kSecAttrKeyType as String: kSecAttrKeyTypeRSA]) { $1 }),
                    create(base.merging([kSecAttrKeySizeInBits as String: 384]) { $1 }),
                    create(base.filter { $0.key != kSecAttrTokenID as String })]
        }
        #expect(codes == [0, Int(errSecParam), Int(errSecParam), 0])
    }

    /// A software key item as Auth0's DPoP `KeychainKeyStore` and Apple's "Storing CryptoKit
    /// Keys in the Keychain" store one: tag plus a string application label.
    static var softwareQuery: [String: Any] {
        [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("com.example.dpop".utf8),
         kSecAttrApplicationLabel as String: "com.example.dpop.privateKey"]
    }

    @Test("software keys: a CryptoKit P-256 key imported with SecKeyCreateWithData, added as kSecValueRef, found by tag and application label, exported back (Auth0's KeychainKeyStore flow); SecKeyCopyAttributes of the found key is a software key's, as iOS makes it again from its bytes")
    func softwareKeyItemRoundTrip() async throws {
        let sim = try TestDevice()
        let original = P256.Signing.PrivateKey().x963Representation
        let outcome = await sim.blocking { () -> (OSStatus, Data?, Bool, OSStatus, OSStatus) in
            var error: Unmanaged<CFError>?
            guard let secKey = SecKeyCreateWithData(original as CFData, [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
            ] as CFDictionary, &error) else { return (-1, nil, false, -1, -1) }
            var add = Self.softwareQuery
            add[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            add[kSecValueRef as String] = secKey
            let added = SecItemAdd(add as CFDictionary, nil)
            var query = Self.softwareQuery
            query[kSecAttrKeyType as String] = kSecAttrKeyTypeECSECPrimeRandom
            query[kSecReturnRef as String] = true
            var item: CFTypeRef?
            guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess, CFGetTypeID(item) == SecKeyGetTypeID(),
                  let found = item as? SecKey else { return (added, nil, false, -1, -1) }
            let exported = SecKeyCopyExternalRepresentation(found, &error) as Data?
            // As iOS: a software key found in the keychain is made again from its bytes
            // (SecItem.m), so SecKeyCopyAttributes gives a software key's dictionary — the
            // application label is the SHA-1 of the public key, not the stored one, and no
            // item attribute (tag, accessibility) is in it.
            let attributes = SecKeyCopyAttributes(found) as? [String: Any] ?? [:]
            let publicBytes = SecKeyCopyPublicKey(found).flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? } ?? Data()
            let described = attributes[kSecAttrTokenID as String] == nil && attributes[kSecAttrIsExtractable as String] as? Bool == true
                && attributes[kSecAttrApplicationLabel as String] as? Data == Data(Insecure.SHA1.hash(data: publicBytes))
                && attributes[kSecAttrAccessible as String] == nil && attributes[kSecAttrApplicationTag as String] == nil
                && attributes[kSecAttrIsPermanent as String] as? Bool == true
            let deleted = SecItemDelete(Self.softwareQuery as CFDictionary)
            return (added, exported, described, deleted, SecItemCopyMatching(query as CFDictionary, &item))
        }
        #expect(outcome.0 == errSecSuccess)
        #expect(outcome.1 == original)
        #expect(outcome.2)
        #expect(outcome.3 == errSecSuccess && outcome.4 == errSecItemNotFound)
        #expect(sim.user.pending.isEmpty)
    }

    @Test("software keys: SecKeyCreateRandomKey without a token signs without a prompt, exports 97 bytes that CryptoKit reads, and keeps its key across SecItemCopyMatching")
    func softwareKeyCreated() async throws {
        let sim = try TestDevice()
        let outcome = await sim.blocking { () -> (Bool, Data?, Bool, String) in
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256,
                kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Self.tag],
            ]
            var error: Unmanaged<CFError>?
            guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else { return (false, nil, false, "") }
            let signature = (try? Self.sign(key).get()) ?? Data()
            let exported = SecKeyCopyExternalRepresentation(key, &error) as Data?
            let found = Self.find()
            let same = found.flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? } == exported
            return (Self.verify(key, signature), exported, same, "\(key)")
        }
        #expect(outcome.0 && outcome.2)
        let exported = try #require(outcome.1)
        #expect(exported.count == 97 && exported.first == 0x04)
        #expect((try? P256.Signing.PrivateKey(x963Representation: exported)) != nil)
        #expect(outcome.3.hasPrefix("<SecKey private EC 256 ") && !outcome.3.contains("Secure Enclave"))
        #expect(sim.user.pending.isEmpty)
    }

    @Test("software keys: a key stored with userPresence asks for the user when a lookup returns it (a cancel is errSecUserCanceled), then exports and signs without asking again")
    func softwareKeyAccessControl() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.cancel, .present("thumb")])
        let outcome = await sim.blocking { () -> (OSStatus?, Data?, Bool) in
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)!
            let original = P256.Signing.PrivateKey()
            var add = Self.softwareQuery
            add[kSecAttrKeyClass as String] = kSecAttrKeyClassPrivate
            add[kSecValueData as String] = original.x963Representation
            add[kSecAttrAccessControl as String] = access
            guard SecItemAdd(add as CFDictionary, nil) == errSecSuccess else { return (nil, nil, false) }
            var query = Self.softwareQuery
            query[kSecReturnRef as String] = true
            var item: CFTypeRef?
            let cancelled = SecItemCopyMatching(query as CFDictionary, &item)
            guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess, let key = item as? SecKey else { return (cancelled, nil, false) }
            return (cancelled, SecKeyCopyExternalRepresentation(key, nil) as Data?, Self.verify(key, (try? Self.sign(key).get()) ?? Data()))
        }
        #expect(outcome.0 == errSecUserCanceled)
        #expect(outcome.1?.count == 97)
        #expect(outcome.2, "the found key signs without another prompt (nothing more is queued)")
        #expect(sim.user.pending.isEmpty)
    }

    @Test("§10 a cancelled signing prompt fails with LAError -2 in the CFError (observed on iOS)")
    func cancel() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.cancel])
        let failure = await sim.blocking { () -> (String, Int)? in
            guard let key = Self.makeKey().0 else { return nil }
            return Self.code(Self.sign(key))
        }
        #expect(failure?.0 == LAErrorDomain && failure?.1 == -2)
    }

    @Test("SecKeyRawSign reports a failed prompt as Apple's SecErrorGetOSStatus does: cancel errSecUserCanceled (-128), lockout errSecAuthFailed; a match signs")
    func legacySignPromptStatuses() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.cancel, .present("thumb")])
        let statuses = await sim.blocking { () -> [OSStatus] in
            guard let key = Self.makeKey().0 else { return [] }
            let digest = [UInt8](repeating: 7, count: 32)
            var signature = [UInt8](repeating: 0, count: 128)
            var length = signature.count
            let cancelled = SecKeyRawSign(key, .PKCS1, digest, digest.count, &signature, &length)
            length = signature.count
            let signed = SecKeyRawSign(key, .PKCS1, digest, digest.count, &signature, &length)
            return [cancelled, signed]
        }
        #expect(statuses == [errSecUserCanceled, errSecSuccess])
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2)) == .biometryLockout)
        let locked = await sim.blocking { () -> OSStatus? in
            guard let key = Self.makeKey([.privateKeyUsage, .biometryAny]).0 else { return nil }
            let digest = [UInt8](repeating: 7, count: 32)
            var signature = [UInt8](repeating: 0, count: 128)
            var length = signature.count
            return SecKeyRawSign(key, .PKCS1, digest, digest.count, &signature, &length)
        }
        #expect(locked == errSecAuthFailed)
    }

    @Test("§10 under biometric lockout signing fails with LAError biometryLockout (-8)")
    func lockout() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2)) == .biometryLockout)
        let failure = await sim.blocking { () -> (String, Int)? in
            guard let key = Self.makeKey([.privateKeyUsage, .biometryAny]).0 else { return nil }
            return Self.code(Self.sign(key))
        }
        #expect(failure?.0 == LAErrorDomain && failure?.1 == -8)
    }

    @Test("§10 interactionNotAllowed on the key's context: errSecInteractionNotAllowed, no prompt")
    func interactionNotAllowed() async throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        context.interactionNotAllowed = true
        let failure = await sim.blocking { () -> (String, Int)? in
            guard Self.makeKey().0 != nil, let key = Self.find(context: context) else { return nil }
            return Self.code(Self.sign(key))
        }
        #expect(failure?.0 == NSOSStatusErrorDomain && failure?.1 == Int(errSecInteractionNotAllowed))
    }

    @Test("§10 kSecUseAuthenticationUIFail on the key query: signing that needs the user is errSecInteractionNotAllowed")
    func authenticationUIFail() async throws {
        let sim = try TestDevice()
        let failure = await sim.blocking { () -> (String, Int)? in
            guard Self.makeKey().0 != nil else { return nil }
            var result: CFTypeRef?
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
                                        kSecReturnRef as String: true, kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]
            guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, let key = result as? SecKey else { return nil }
            return Self.code(Self.sign(key))
        }
        #expect(failure?.0 == NSOSStatusErrorDomain && failure?.1 == Int(errSecInteractionNotAllowed))
        #expect(sim.scriptingMistakes.isEmpty)
    }

    @Test("§10 a context that already evaluated signs without a second prompt")
    func evaluatedContext() async throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        sim.user.enqueue([.present("thumb")])
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage, .biometryCurrentSet], nil)!
        #expect(try await context.evaluateAccessControl(access, operation: .useKeySign, localizedReason: "Sign in"))
        let signed = await sim.blocking { () -> Int in
            guard Self.makeKey().0 != nil, let key = Self.find(context: context) else { return 0 }
            return [Self.sign(key), Self.sign(key)].filter { (try? $0.get()) != nil }.count
        }
        #expect(signed == 2)
        #expect(sim.scriptingMistakes.isEmpty)
    }

    @Test("§10 a biometryCurrentSet key is unusable after an enrollment change: the key is no longer found, a held ref fails")
    func enrollmentChange() async throws {
        let sim = try TestDevice()
        let held = await sim.blocking { Self.makeKey().0 }
        try sim.device.enroll("index")
        let (found, failure) = await sim.blocking { () -> (Bool, (String, Int)?) in
            (Self.find() != nil, held.flatMap { Self.code(Self.sign($0)) })
        }
        #expect(!found)
        #expect(failure?.0 == NSOSStatusErrorDomain && failure?.1 == Int(errSecItemNotFound))
        #expect(sim.user.pending.isEmpty && sim.scriptingMistakes.isEmpty)
    }

    @Test("§10 removing the passcode deletes whenPasscodeSetThisDeviceOnly keys")
    func passcodeRemoval() async throws {
        let sim = try TestDevice()
        _ = await sim.blocking { Self.makeKey(accessible: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly).0 }
        #expect(await sim.blocking { Self.find() != nil })
        try sim.device.clearPasscode()
        #expect(await sim.blocking { Self.find() == nil })
    }

    @Test("§10 SecItemAdd stores an ephemeral key; SecItemDelete by tag removes it; kSecReturnAttributes describes it")
    func itemCalls() async throws {
        let sim = try TestDevice()
        let statuses = await sim.blocking { () -> [OSStatus] in
            guard let key = Self.makeKey([.privateKeyUsage], permanent: false).0 else { return [] }
            let before: OSStatus = Self.find() == nil ? errSecItemNotFound : errSecSuccess
            let added = SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: key,
                                    kSecAttrApplicationTag as String: Self.tag] as CFDictionary, nil)
            let again = SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: key] as CFDictionary, nil)
            var result: CFTypeRef?
            let attributes = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag,
                                                  kSecReturnAttributes as String: true] as CFDictionary, &result)
            let labelOK: OSStatus = (result as? [String: Any])?[kSecAttrApplicationLabel as String] as? Data
                == (SecKeyCopyAttributes(key) as? [String: Any])?[kSecAttrApplicationLabel as String] as? Data ? 0 : -1
            let deleted = SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Self.tag] as CFDictionary)
            let after: OSStatus = Self.find() == nil ? errSecItemNotFound : errSecSuccess
            return [before, added, again, attributes, labelOK, deleted, after]
        }
        #expect(statuses == [errSecItemNotFound, errSecSuccess, errSecDuplicateItem, errSecSuccess, 0, errSecSuccess, errSecItemNotFound])
    }

    @Test("§10 a public key added with SecItemAdd (as a SecKey or its bytes) is found by label and class, as a SecKey, its bytes or attributes, and deleted")
    func publicKeyItems() async throws {
        let sim = try TestDevice(enrolled: [])
        let lines = await sim.blocking { () -> [String] in
            guard let key = Self.makeKey([.privateKeyUsage]).0, let publicKey = SecKeyCopyPublicKey(key),
                  let bytes = SecKeyCopyExternalRepresentation(publicKey, nil) as Data? else { return ["no key"] }
            let add: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrLabel as String: "login.public", kSecValueRef as String: publicKey]
            let publicQuery: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
                                              kSecAttrLabel as String: "login.public"]
            var result: CFTypeRef?
            var lines = ["add \(SecItemAdd(add as CFDictionary, nil)) again \(SecItemAdd(add as CFDictionary, nil))"]
            var query = publicQuery
            query[kSecReturnRef as String] = true
            lines.append("ref \(SecItemCopyMatching(query as CFDictionary, &result)) \((result as? SecKey) == publicKey)")
            query = publicQuery
            query[kSecReturnData as String] = true
            lines.append("data \(SecItemCopyMatching(query as CFDictionary, &result)) \((result as? Data) == bytes)")
            query[kSecReturnAttributes as String] = true
            _ = SecItemCopyMatching(query as CFDictionary, &result)
            let attributes = result as? [String: Any]
            lines.append("attributes \(attributes?[kSecAttrLabel as String] as? String ?? "-") \(attributes?[kSecAttrKeyClass as String] as? Int ?? -1) \(attributes?[kSecAttrIsPermanent as String] as? Bool ?? false)")
            // The private key (tag com.example.key) is not a public key item, and the reverse.
            lines.append("private by public label \(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrLabel as String: "login.public"] as CFDictionary, nil))")
            // Bytes with kSecAttrKeyClassPublic are a public key too; private bytes that are not a
            // P-256 key in X9.63 form are errSecParam.
            let other = P256.Signing.PrivateKey().publicKey.x963Representation
            lines.append("bytes \(SecItemAdd([kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPublic, kSecAttrApplicationTag as String: "server", kSecValueData as String: other] as CFDictionary, nil))")
            lines.append("private bytes \(SecItemAdd([kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecValueData as String: Data(count: 32)] as CFDictionary, nil))")
            lines.append("delete \(SecItemDelete(publicQuery as CFDictionary)) \(SecItemDelete(publicQuery as CFDictionary))")
            lines.append("left \(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: "server"] as CFDictionary, nil)) \(Self.find() != nil)")
            return lines
        }
        #expect(lines == ["add 0 again -25299", "ref 0 true", "data 0 true", "attributes login.public 0 true",
                          "private by public label -25300", "bytes 0", "private bytes -50", "delete 0 -25300", "left 0 true"])
    }

    @Test("§10 SecItemCopyMatching with kSecValueRef returns that key's attributes, not the first stored key's (EllipticCurveKeyPair's Key.attributes())")
    func copyMatchingByValueRef() async throws {
        let sim = try TestDevice(enrolled: [])
        let lines = await sim.blocking { () -> [String] in
            guard let first = Self.makeKey([.privateKeyUsage]).0, let second = Self.makeKey([.privateKeyUsage], tag: "com.example.second").0,
                  let secondPublic = SecKeyCopyPublicKey(second) else { return ["no key"] }
            let added = SecItemAdd([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "second.public",
                                    kSecValueRef as String: secondPublic] as CFDictionary, nil)
            func label(of key: SecKey) -> String {
                var result: CFTypeRef?
                let status = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecValueRef as String: key,
                                                  kSecReturnAttributes as String: true] as CFDictionary, &result)
                let attributes = result as? [String: Any]
                let tag = (attributes?[kSecAttrApplicationTag as String] as? Data).map { String(decoding: $0, as: UTF8.self) }
                return "\(status) \(attributes?[kSecAttrKeyClass as String] as? Int ?? -1) \(tag ?? attributes?[kSecAttrLabel as String] as? String ?? "-")"
            }
            return ["add \(added)", label(of: first), label(of: second), label(of: secondPublic)]
        }
        #expect(lines == ["add 0", "0 1 com.example.key", "0 1 com.example.second", "0 0 second.public"])
    }

    @Test("§10 ECIES: SecKeyCreateEncryptedData's bytes (ephemeral key || ciphertext || tag) open with the key after Touch ID")
    func eciesRoundTrip() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb")])
        let (ciphertext, plaintext) = await sim.blocking { () -> (Data, Data?) in
            guard let key = Self.makeKey().0, let publicKey = SecKeyCopyPublicKey(key) else { return (Data(), nil) }
            let algorithm: SecKeyAlgorithm = .eciesEncryptionCofactorVariableIVX963SHA256AESGCM
            guard SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm),
                  let box = SecKeyCreateEncryptedData(publicKey, algorithm, Data("token-xyz".utf8) as CFData, nil) as Data?
            else { return (Data(), nil) }
            return (box, SecKeyCreateDecryptedData(key, algorithm, box as CFData, nil) as Data?)
        }
        #expect(ciphertext.count == 65 + 9 + 16 && ciphertext.first == 0x04)
        #expect(plaintext == Data("token-xyz".utf8))
    }

    @Test("§10 SecKeyCopyKeyExchangeResult: both sides derive the same secret")
    func keyExchange() async throws {
        let sim = try TestDevice(enrolled: [])
        let same = await sim.blocking { () -> Bool in
            guard let mine = Self.makeKey([.privateKeyUsage]).0, let theirs = Self.makeKey([.privateKeyUsage], permanent: false).0 else { return false }
            let parameters = [kSecKeyKeyExchangeParameterRequestedSize as String: 32] as CFDictionary
            let a = SecKeyCopyKeyExchangeResult(mine, .ecdhKeyExchangeStandardX963SHA256, SecKeyCopyPublicKey(theirs)!, parameters, nil) as Data?
            let b = SecKeyCopyKeyExchangeResult(theirs, .ecdhKeyExchangeStandardX963SHA256, SecKeyCopyPublicKey(mine)!, parameters, nil) as Data?
            return a != nil && a == b && a?.count == 32
        }
        #expect(same)
    }

    @Test("§10 client: an app creates a Secure Enclave key, signs a challenge after Touch ID, the server verifies")
    func clientEnclaveSigner() async throws {
        let sim = try TestDevice()
        let signer = EnclaveSigner(account: "alice")
        let publicKey = try await sim.blocking { Result { try signer.enable() } }.get()
        sim.user.enqueue([.present("thumb")])
        let signature = try await sim.blocking { signer.sign(challenge: Self.challenge) }.get()
        #expect(EnclaveSigner.serverVerifies(publicKey: publicKey, challenge: Self.challenge, signature: signature))
        sim.user.enqueue([.cancel])
        #expect(await sim.blocking { signer.sign(challenge: Self.challenge) } == .failure(.cancelled))
        try sim.device.enroll("index")
        #expect(await sim.blocking { signer.sign(challenge: Self.challenge) } == .failure(.noKey))
        #expect(sim.scriptingMistakes.isEmpty)
    }
}
#endif
