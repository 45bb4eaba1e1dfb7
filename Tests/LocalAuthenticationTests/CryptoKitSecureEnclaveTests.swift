#if !canImport(Darwin)
import CryptoKit
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// CryptoKit's `SecureEnclave.P256.Signing.PrivateKey` as iOS code uses it (`import CryptoKit`).
@Suite("CryptoKit: SecureEnclave.P256.Signing.PrivateKey")
struct CryptoKitSecureEnclaveTests {
    let challenge = Data("challenge-ck".utf8)

    @Test("a key made with biometryCurrentSet signs after Touch ID; its public key verifies; dataRepresentation restores it")
    func signVerifyRestore() async throws {
        let sim = try TestDevice()
        let challenge = challenge
        sim.user.enqueue([.present("thumb"), .present("thumb")])
        let results = await sim.blocking { () -> [Bool] in
            do {
                #expect(SecureEnclave.isAvailable)
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                             [.privateKeyUsage, .biometryCurrentSet], nil)!
                let key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
                let signature = try key.signature(for: challenge)
                let restored = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: key.dataRepresentation)
                let again = try restored.signature(for: SHA256.hash(data: challenge))
                return [key.publicKey.isValidSignature(signature, for: challenge),
                        restored.publicKey.isValidSignature(again, for: challenge),
                        !key.publicKey.isValidSignature(signature, for: Data("other".utf8)),
                        key.publicKey.x963Representation == restored.publicKey.x963Representation]
            } catch {
                Issue.record("\(error)")
                return []
            }
        }
        #expect(results == [true, true, true, true])
    }

    @Test("a Secure Enclave key's attributes carry its token object id (toid, which SecCTKKey.m always exports) and it is the key's CryptoKit dataRepresentation: a key made with SecKeyCreateRandomKey restores from it as a CryptoKit key with the same public key, as Secretive's migration to CryptoKit keys reads it; a software key has none")
    func tokenObjectIDIsTheCryptoKitDataRepresentation() async throws {
        let sim = try TestDevice()
        let tag = Data("com.example.toid".utf8)
        let results = await sim.blocking { () -> [Bool] in
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .privateKeyUsage, nil) as Any
            let made: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                       kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                                       kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                                                                       kSecAttrAccessControl as String: access]]
            guard let key = SecKeyCreateRandomKey(made as CFDictionary, nil),
                  let software = SecKeyCreateRandomKey([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                        kSecAttrKeySizeInBits as String: 256] as CFDictionary, nil)
            else { return [] }
            var found: CFTypeRef?
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnAttributes as String: true]
            _ = SecItemCopyMatching(query as CFDictionary, &found)
            let copied = (SecKeyCopyAttributes(key) as? [String: Any])?["toid"] as? Data
            let looked = (found as? [String: Any])?["toid"] as? Data
            guard let copied, let restored = try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: copied) else { return [false] }
            let publicKey = SecKeyCopyPublicKey(key).flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? }
            return [looked == copied, restored.publicKey.x963Representation == publicKey,
                    (SecKeyCopyAttributes(software) as? [String: Any])?["toid"] == nil]
        }
        #expect(results == [true, true, true])
    }

    @Test("a cancelled prompt throws LAError.userCancel; after an enrollment change the key throws a CryptoKit error")
    func cancelAndInvalidation() async throws {
        let sim = try TestDevice()
        let challenge = challenge
        let blob = await sim.blocking { () -> Data in
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                         [.privateKeyUsage, .biometryCurrentSet], nil)!
            return (try? SecureEnclave.P256.Signing.PrivateKey(accessControl: access).dataRepresentation) ?? Data()
        }
        sim.user.enqueue([.cancel])
        let cancelled = await sim.blocking { () -> Bool in
            do {
                _ = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).signature(for: challenge)
                return false
            } catch let error as LAError {
                return error.code == .userCancel
            } catch {
                return false
            }
        }
        #expect(cancelled)
        try sim.device.enroll("index")
        let invalidated = await sim.blocking { () -> Bool in
            do {
                _ = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).signature(for: challenge)
                return false
            } catch let error as CryptoKitError {
                if case .underlyingCoreCryptoError(error: errSecItemNotFound) = error { return true }
                return false
            } catch {
                return false
            }
        }
        #expect(invalidated)
        #expect(sim.user.pending.isEmpty)
    }

    @Test("dataRepresentation is a constant, as Apple declares it: the same bytes on every read, and a restored key's are the blob it came from")
    func dataRepresentationIsAConstant() async throws {
        let sim = try TestDevice()
        let (reads, restoredReads, blob) = await sim.blocking { () -> (Set<Data>, Set<Data>, Data) in
            guard let key = try? SecureEnclave.P256.Signing.PrivateKey(),
                  let agreement = try? SecureEnclave.P256.KeyAgreement.PrivateKey() else { return ([], [], Data()) }
            let reads = Set((0..<8).map { _ in key.dataRepresentation })
            let restored = try? SecureEnclave.P256.KeyAgreement.PrivateKey(dataRepresentation: agreement.dataRepresentation)
            let restoredReads = Set((0..<8).map { _ in restored?.dataRepresentation ?? Data() })
            return (reads, restoredReads, agreement.dataRepresentation)
        }
        #expect(reads.count == 1)
        #expect(restoredReads == [blob])
    }

    @Test("a dataRepresentation does not open on another device")
    func otherDevice() async throws {
        let first = try TestDevice()
        let blob = await first.blocking { (try? SecureEnclave.P256.Signing.PrivateKey().dataRepresentation) ?? Data() }
        let second = try TestDevice(seed: 8)  // another device secret (the same seed would be a clone)
        let challenge = challenge
        let opened = await second.blocking { () -> Bool in
            (try? SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: blob).signature(for: challenge)) != nil
        }
        #expect(!blob.isEmpty && !opened)
    }

    /// How restoring a key from a blob ended: "restored", "incorrectParameterSize" (the
    /// CryptoKit error iOS gives a blob its Secure Enclave did not seal) or another error.
    static func restoreOutcome(_ restore: () throws -> Void) -> String {
        do {
            try restore()
            return "restored"
        } catch let error as CryptoKitError {
            if case .incorrectParameterSize = error { return "incorrectParameterSize" }
            return "\(error)"
        } catch {
            return "\(error)"
        }
    }

    @Test("a dataRepresentation whose access control was edited (biometry flags cleared, or marked a software key kept in memory) does not restore: CryptoKitError.incorrectParameterSize, as iOS refuses a blob its Secure Enclave did not seal; the unedited blob restores")
    func editedAccessControlDoesNotRestore() async throws {
        let sim = try TestDevice()
        let outcomes = await sim.blocking { () -> [String] in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                               [.privateKeyUsage, .biometryCurrentSet], nil),
                  let blob = try? SecureEnclave.P256.Signing.PrivateKey(accessControl: access).dataRepresentation,
                  let fields = try? JSONSerialization.jsonObject(with: blob) as? [String: Any]
            else { return ["no key"] }
            func restore(_ change: [String: Any]) -> String {
                guard let edited = try? JSONSerialization.data(withJSONObject: fields.merging(change) { $1 }, options: .sortedKeys) else {
                    return "not encoded"
                }
                return Self.restoreOutcome { _ = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: edited) }
            }
            return [restore([:]), restore(["flags": 0]), restore(["software": true, "isPermanent": false]),
                    restore(["accessibility": "always"])]
        }
        #expect(outcomes == ["restored", "incorrectParameterSize", "incorrectParameterSize", "incorrectParameterSize"])
    }

    @Test("an ML-DSA or ML-KEM dataRepresentation whose wrapping key's access control was edited does not restore either (CryptoKitError.incorrectParameterSize); the unedited blobs restore")
    func editedPostQuantumBlobsDoNotRestore() async throws {
        let sim = try TestDevice()
        let outcomes = await sim.blocking { () -> [String] in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                               [.privateKeyUsage, .biometryCurrentSet], nil),
                  let signing = try? SecureEnclave.MLDSA65.PrivateKey(accessControl: access).dataRepresentation,
                  let agreement = try? SecureEnclave.MLKEM768.PrivateKey(accessControl: access).dataRepresentation
            else { return ["no key"] }
            func edited(_ blob: Data) -> Data {
                guard var fields = try? JSONSerialization.jsonObject(with: blob) as? [String: Any],
                      var wrapping = fields["wrappingKey"] as? [String: Any] else { return Data() }
                wrapping["flags"] = 0
                fields["wrappingKey"] = wrapping
                return (try? JSONSerialization.data(withJSONObject: fields, options: .sortedKeys)) ?? Data()
            }
            return [Self.restoreOutcome { _ = try SecureEnclave.MLDSA65.PrivateKey(dataRepresentation: signing) },
                    Self.restoreOutcome { _ = try SecureEnclave.MLDSA65.PrivateKey(dataRepresentation: edited(signing)) },
                    Self.restoreOutcome { _ = try SecureEnclave.MLKEM768.PrivateKey(dataRepresentation: agreement) },
                    Self.restoreOutcome { _ = try SecureEnclave.MLKEM768.PrivateKey(dataRepresentation: edited(agreement)) }]
        }
        #expect(outcomes == ["restored", "incorrectParameterSize", "restored", "incorrectParameterSize"])
    }

    @Test("SecureEnclave.MLDSA65/87 (iOS 26): each signature runs the key's evaluation; the public key verifies, with and without a context string; dataRepresentation restores the key on its device only")
    func mldsaSignsAfterEvaluation() async throws {
        let sim = try TestDevice()
        let challenge = challenge
        sim.user.enqueue([.present("thumb"), .present("thumb"), .present("thumb"), .cancel])
        let results = await sim.blocking { () -> [Bool] in
            do {
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                             [.privateKeyUsage, .biometryCurrentSet], nil)!
                let key = try SecureEnclave.MLDSA65.PrivateKey(accessControl: access)
                let signature = try key.signature(for: challenge)
                let restored = try SecureEnclave.MLDSA65.PrivateKey(dataRepresentation: key.dataRepresentation)
                let labelled = try restored.signature(for: challenge, context: Data("login".utf8))
                let large = try SecureEnclave.MLDSA87.PrivateKey(accessControl: access)
                let large87 = try large.signature(for: challenge)
                var cancelled = false
                do { _ = try key.signature(for: challenge) } catch let error as LAError { cancelled = error.code == .userCancel }
                return [key.publicKey.isValidSignature(signature, for: challenge),
                        !key.publicKey.isValidSignature(signature, for: Data("other".utf8)),
                        restored.publicKey.isValidSignature(labelled, for: challenge, context: Data("login".utf8)),
                        !restored.publicKey.isValidSignature(labelled, for: challenge),
                        large.publicKey.isValidSignature(large87, for: challenge),
                        cancelled]
            } catch {
                Issue.record("\(error)")
                return []
            }
        }
        #expect(results == [true, true, true, true, true, true])
        #expect(sim.user.pending.isEmpty)
        let blob = await sim.blocking { (try? SecureEnclave.MLDSA65.PrivateKey().dataRepresentation) ?? Data() }
        let other = try TestDevice(seed: 8)
        let opened = await other.blocking { () -> Bool in
            (try? SecureEnclave.MLDSA65.PrivateKey(dataRepresentation: blob).signature(for: Data("x".utf8))) != nil
        }
        #expect(!blob.isEmpty && !opened)
        #expect(throws: CryptoKitError.incorrectParameterSize) {
            try LocalAuthenticationSystem.withAuthenticator(sim.authenticator) {
                _ = try SecureEnclave.MLDSA87.PrivateKey(dataRepresentation: blob)  // an ML-DSA-65 key's blob
            }
        }
    }

    @Test("SecureEnclave.MLKEM768/1024 (iOS 26): decapsulation runs the key's evaluation and opens what the public key encapsulated")
    func mlkemDecapsulatesAfterEvaluation() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb"), .present("thumb"), .cancel])
        let results = await sim.blocking { () -> [Bool] in
            do {
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                             [.privateKeyUsage, .biometryAny], nil)!
                let key = try SecureEnclave.MLKEM768.PrivateKey(accessControl: access)
                let sent = try key.publicKey.encapsulate()
                let opened = try key.decapsulate(sent.encapsulated)
                let large = try SecureEnclave.MLKEM1024.PrivateKey(accessControl: access)
                let sentLarge = try large.publicKey.encapsulate()
                let restored = try SecureEnclave.MLKEM1024.PrivateKey(dataRepresentation: large.dataRepresentation)
                let openedLarge = try restored.decapsulate(sentLarge.encapsulated)
                var cancelled = false
                do { _ = try key.decapsulate(sent.encapsulated) } catch let error as LAError { cancelled = error.code == .userCancel }
                let plain = try SecureEnclave.MLKEM768.PrivateKey.generate()  // privateKeyUsage only: no prompt
                let sentPlain = try plain.publicKey.encapsulate()
                return [opened == sent.sharedSecret, openedLarge == sentLarge.sharedSecret, cancelled,
                        try plain.decapsulate(sentPlain.encapsulated) == sentPlain.sharedSecret]
            } catch {
                Issue.record("\(error)")
                return []
            }
        }
        #expect(results == [true, true, true, true])
        #expect(sim.user.pending.isEmpty)
    }

    @Test("SecureEnclave.P256.KeyAgreement: after Touch ID, its shared secret equals the other party's (ECDH); the key restores from its dataRepresentation; a cancelled prompt throws LAError.userCancel")
    func keyAgreement() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb"), .present("thumb"), .cancel])
        let results = await sim.blocking { () -> [Bool] in
            do {
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                             [.privateKeyUsage, .biometryCurrentSet], nil)!
                let key = try SecureEnclave.P256.KeyAgreement.PrivateKey(accessControl: access)
                let other = P256.KeyAgreement.PrivateKey()
                let ours = try key.sharedSecretFromKeyAgreement(with: other.publicKey)
                let theirs = try other.sharedSecretFromKeyAgreement(with: key.publicKey)
                // Apple's sample code derives a symmetric key from it.
                let derived = ours.hkdfDerivedSymmetricKey(using: SHA256.self, salt: Data(), sharedInfo: Data("ck".utf8), outputByteCount: 32)
                let expected = theirs.hkdfDerivedSymmetricKey(using: SHA256.self, salt: Data(), sharedInfo: Data("ck".utf8), outputByteCount: 32)
                let restored = try SecureEnclave.P256.KeyAgreement.PrivateKey(dataRepresentation: key.dataRepresentation)
                let again = try restored.sharedSecretFromKeyAgreement(with: other.publicKey)
                var cancelled = false
                do {
                    _ = try restored.sharedSecretFromKeyAgreement(with: other.publicKey)
                } catch let error as LAError {
                    cancelled = error.code == .userCancel
                }
                return [ours.withUnsafeBytes { Data($0) } == theirs.withUnsafeBytes { Data($0) },
                        derived == expected,
                        again.withUnsafeBytes { Data($0) } == theirs.withUnsafeBytes { Data($0) },
                        restored.publicKey.x963Representation == key.publicKey.x963Representation,
                        cancelled]
            } catch {
                Issue.record("\(error)")
                return []
            }
        }
        #expect(results == [true, true, true, true, true])
        #expect(sim.user.pending.isEmpty)
    }

    @Test("a SecureEnclave key-agreement key is an HPKE recipient's key (iOS 17): it opens what an HPKE sender sealed to its public key, after Touch ID")
    func keyAgreementHPKE() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.present("thumb")])
        let opened = await sim.blocking { () -> Data? in
            do {
                let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                             [.privateKeyUsage, .biometryAny], nil)!
                let key = try SecureEnclave.P256.KeyAgreement.PrivateKey(accessControl: access)
                let info = Data("touchstone hpke".utf8)
                var sender = try HPKE.Sender(recipientKey: key.publicKey, ciphersuite: .P256_SHA256_AES_GCM_256, info: info)
                let sealed = try sender.seal(Data("hello".utf8))
                var recipient = try HPKE.Recipient(privateKey: key, ciphersuite: .P256_SHA256_AES_GCM_256, info: info,
                                                   encapsulatedKey: sender.encapsulatedKey)
                return try recipient.open(sealed)
            } catch {
                Issue.record("\(error)")
                return nil
            }
        }
        #expect(opened == Data("hello".utf8))
        #expect(sim.user.pending.isEmpty)
    }
}
#endif
