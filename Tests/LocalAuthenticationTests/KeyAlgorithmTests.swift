#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// `SecKeyAlgorithm`: Apple's whole SecKey.h list, and the hashes and ECIES forms a P-256
/// Secure Enclave key supports, each checked against swift-crypto directly (never only against
/// our own inverse), plus the CoreFoundation and SecKey functions iOS wrappers call around them.
@Suite("SecKeyAlgorithm: Apple's identifiers, other hashes, the iOS 10 ECIES form")
struct KeyAlgorithmTests {
    static let message = Data("key-algorithms-2026".utf8)

    /// A key without access control flags beyond privateKeyUsage: it signs without a prompt.
    static func makeKey() -> SecKey? {
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage], nil)!
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: false, kSecAttrAccessControl as String: access],
        ]
        return SecKeyCreateRandomKey(attributes as CFDictionary, nil)
    }

    static func publicKey(_ key: SecKey) throws -> P256.Signing.PublicKey {
        try P256.Signing.PublicKey(x963Representation: SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(key)!, nil)! as Data)
    }

    @Test("the identifiers are Apple's, under the Swift member and the C name alike")
    func identifiersAreApples() {
        let expected: [(SecKeyAlgorithm, String)] = [
            (.rsaSignatureRaw, "algid:sign:RSA:raw"),
            (.rsaSignatureDigestPKCS1v15Raw, "algid:sign:RSA:digest-PKCS1v15"),
            (.rsaSignatureMessagePKCS1v15SHA512, "algid:sign:RSA:message-PKCS1v15:SHA512"),
            (.rsaSignatureDigestPSSSHA224, "algid:sign:RSA:digest-PSS:SHA224:SHA224:24"),
            (.rsaSignatureMessagePSSSHA512, "algid:sign:RSA:message-PSS:SHA512:SHA512:64"),
            (.rsaEncryptionOAEPSHA256AESGCM, "algid:encrypt:RSA:OAEP:SHA256:AESGCM"),
            (.ecdsaSignatureRFC4754, "algid:sign:ECDSA:RFC4754"),
            (.ecdsaSignatureDigestX962, "algid:sign:ECDSA:digest-X962"),
            (.ecdsaSignatureMessageX962SHA224, "algid:sign:ECDSA:message-X962:SHA224"),
            (.ecdsaSignatureMessageX962SHA512, "algid:sign:ECDSA:message-X962:SHA512"),
            (.eciesEncryptionStandardX963SHA1AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA1:AESGCM"),
            (.eciesEncryptionCofactorX963SHA512AESGCM, "algid:encrypt:ECIES:ECDHC:KDFX963:SHA512:AESGCM"),
            (.eciesEncryptionStandardVariableIVX963SHA384AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA384:AESGCM-KDFIV"),
            (.ecdhKeyExchangeCofactorX963SHA1, "algid:keyexchange:ECDHC:KDFX963:SHA1"),
            (kSecKeyAlgorithmECIESEncryptionStandardX963SHA256AESGCM, "algid:encrypt:ECIES:ECDH:KDFX963:SHA256:AESGCM"),
            (kSecKeyAlgorithmECDSASignatureMessageX962SHA256, "algid:sign:ECDSA:message-X962:SHA256"),
            (kSecKeyAlgorithmRSAEncryptionPKCS1, "algid:encrypt:RSA:PKCS1"),
        ]
        for (algorithm, identifier) in expected {
            #expect(algorithm.identifier == identifier)
            #expect(SecKeyAlgorithm(rawValue: identifier as CFString) == algorithm)
        }
    }

    @Test("a P-256 key supports ECDSA over SHA-1/224/256/384/512 and given digests (ecdsaSignatureRFC4754 among them, SecKeyAdaptors.m's alias of ecdsaSignatureDigestRFC4754), ECIES and ECDH with those KDF hashes; not RSA")
    func supportMatrix() async throws {
        let sim = try TestDevice(enrolled: [])
        let rows = await sim.blocking { () -> [Bool] in
            guard let key = Self.makeKey(), let publicKey = SecKeyCopyPublicKey(key) else { return [] }
            return [
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA1),
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA384),
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA512),
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureDigestX962SHA224),
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureDigestX962),
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageX962SHA224),
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureRFC4754),
                !SecKeyIsAlgorithmSupported(key, .sign, .rsaSignatureMessagePKCS1v15SHA256),
                !SecKeyIsAlgorithmSupported(publicKey, .sign, .ecdsaSignatureMessageX962SHA256),
                SecKeyIsAlgorithmSupported(publicKey, .verify, .ecdsaSignatureMessageX962SHA384),
                SecKeyIsAlgorithmSupported(publicKey, .encrypt, .eciesEncryptionStandardX963SHA256AESGCM),
                SecKeyIsAlgorithmSupported(publicKey, .encrypt, .eciesEncryptionCofactorX963SHA1AESGCM),
                SecKeyIsAlgorithmSupported(key, .decrypt, .eciesEncryptionStandardVariableIVX963SHA512AESGCM),
                SecKeyIsAlgorithmSupported(publicKey, .encrypt, .eciesEncryptionStandardX963SHA224AESGCM),
                !SecKeyIsAlgorithmSupported(publicKey, .encrypt, .rsaEncryptionOAEPSHA256AESGCM),
                SecKeyIsAlgorithmSupported(key, .keyExchange, .ecdhKeyExchangeStandardX963SHA512),
                SecKeyIsAlgorithmSupported(key, .keyExchange, .ecdhKeyExchangeStandardX963SHA224),
            ]
        }
        #expect(rows.count == 17 && rows.allSatisfy { $0 })
    }

    @Test("ECDSA over SHA-1, SHA-384 and SHA-512 of a message: swift-crypto verifies each over that hash, and no other")
    func messageSignaturesUseTheNamedHash() async throws {
        let sim = try TestDevice(enrolled: [])
        let message = Self.message
        let signatures = await sim.blocking { () -> [Data]? in
            guard let key = Self.makeKey() else { return nil }
            return [SecKeyAlgorithm.ecdsaSignatureMessageX962SHA1, .ecdsaSignatureMessageX962SHA384, .ecdsaSignatureMessageX962SHA512].compactMap {
                SecKeyCreateSignature(key, $0, message as CFData, nil) as Data?
            } + [SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(key)!, nil)! as Data]
        }
        let all = try #require(signatures)
        try #require(all.count == 4)
        let publicKey = try P256.Signing.PublicKey(x963Representation: all[3])
        let sha1 = try P256.Signing.ECDSASignature(derRepresentation: all[0])
        let sha384 = try P256.Signing.ECDSASignature(derRepresentation: all[1])
        let sha512 = try P256.Signing.ECDSASignature(derRepresentation: all[2])
        #expect(publicKey.isValidSignature(sha1, for: Insecure.SHA1.hash(data: message)))
        #expect(publicKey.isValidSignature(sha384, for: SHA384.hash(data: message)))
        #expect(publicKey.isValidSignature(sha512, for: SHA512.hash(data: message)))
        #expect(!publicKey.isValidSignature(sha384, for: SHA512.hash(data: message)))
        #expect(!publicKey.isValidSignature(sha384, for: message))  // not SHA-256
    }

    @Test("a given digest signs as its message does; a digest of the wrong length is errSecParam; ecdsaSignatureRFC4754 signs the digest as r || s (SecKeyAdaptors.m: ecdsaSignatureDigestRFC4754)")
    func digestSignatures() async throws {
        let sim = try TestDevice(enrolled: [])
        let message = Self.message
        let results = await sim.blocking { () -> [Int] in
            guard let key = Self.makeKey(), let publicKey = SecKeyCopyPublicKey(key) else { return [] }
            let digest = Data(SHA384.hash(data: message))
            var error: Unmanaged<CFError>?
            let signature = SecKeyCreateSignature(key, .ecdsaSignatureDigestX962SHA384, digest as CFData, &error) as Data?
            let verifiedAsMessage = signature.map {
                SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA384, message as CFData, $0 as CFData, nil)
            } ?? false
            let anyLength = SecKeyCreateSignature(key, .ecdsaSignatureDigestX962, digest as CFData, nil) != nil
            let wrong = SecKeyCreateSignature(key, .ecdsaSignatureDigestX962SHA256, digest as CFData, &error)
            let wrongCode = wrong == nil ? (error?.takeRetainedValue() as NSError?)?.code ?? 0 : 0
            // The iOS 10 name signs the digest as given, as r || s (SecKeyAdaptors.m runs it as
            // ecdsaSignatureDigestRFC4754).
            let rfc4754 = SecKeyCreateSignature(key, .ecdsaSignatureRFC4754, digest as CFData, nil) as Data?
            let rfc4754Verifies = rfc4754.map {
                SecKeyVerifySignature(publicKey, .ecdsaSignatureDigestRFC4754, digest as CFData, $0 as CFData, nil)
                    && SecKeyVerifySignature(publicKey, .ecdsaSignatureRFC4754, digest as CFData, $0 as CFData, nil)
            } ?? false
            return [verifiedAsMessage ? 1 : 0, anyLength ? 1 : 0, wrongCode, rfc4754?.count ?? 0, rfc4754Verifies ? 1 : 0]
        }
        #expect(results == [1, 1, Int(errSecParam), 64, 1])
    }

    @Test("SecKeyRawSign / SecKeyRawVerify (deprecated, in wrappers' iOS branches): PKCS1 over a SHA-256 digest is DER X9.62 that swift-crypto verifies; sigRaw is r || s, ecdsaSignatureDigestRFC4754 as SecKey.m maps it; a bad signature is errSSLCrypto; a short buffer, a public key signing and RSA-only encryption are errSecParam")
    func legacyRawSignAndVerify() async throws {
        let sim = try TestDevice(enrolled: [])
        let digest = [UInt8](SHA256.hash(data: Self.message))
        let outcome = await sim.blocking { () -> (statuses: [OSStatus], signature: Data, publicKey: Data)? in
            guard let key = Self.makeKey(), let publicKey = SecKeyCopyPublicKey(key) else { return nil }
            var signature = [UInt8](repeating: 0, count: 128)
            var length = signature.count
            let signed = SecKeyRawSign(key, .PKCS1, digest, digest.count, &signature, &length)
            let produced = Data(signature.prefix(length))
            let verified = SecKeyRawVerify(publicKey, .PKCS1, digest, digest.count, Array(produced), produced.count)
            var otherDigest = digest
            otherDigest[0] ^= 1
            let wrongDigest = SecKeyRawVerify(publicKey, .PKCS1, otherDigest, otherDigest.count, Array(produced), produced.count)
            var small = [UInt8](repeating: 0, count: 8)
            var smallLength = small.count
            let tooSmall = SecKeyRawSign(key, .PKCS1, digest, digest.count, &small, &smallLength)
            var raw = [UInt8](repeating: 0, count: 128)
            var rawLength = raw.count
            let sigRaw = SecKeyRawSign(key, .sigRaw, digest, digest.count, &raw, &rawLength)
            let sigRawLength = OSStatus(rawLength)
            let sigRawVerified = SecKeyRawVerify(publicKey, .sigRaw, digest, digest.count, raw, rawLength)
            let sigRawAsModern = SecKeyVerifySignature(publicKey, .ecdsaSignatureDigestRFC4754, Data(digest) as CFData,
                                                       Data(raw.prefix(rawLength)) as CFData, nil) ? errSecSuccess : errSecVerifyFailed
            let byPublicKey = SecKeyRawSign(publicKey, .PKCS1, digest, digest.count, &raw, &rawLength)
            var cipher = [UInt8](repeating: 0, count: 256)
            var cipherLength = cipher.count
            let encrypt = SecKeyEncrypt(publicKey, .PKCS1, digest, digest.count, &cipher, &cipherLength)
            let statuses = [signed, verified, wrongDigest, tooSmall, OSStatus(smallLength), sigRaw, sigRawLength, sigRawVerified,
                            sigRawAsModern, byPublicKey, encrypt]
            return (statuses, produced, SecKeyCopyExternalRepresentation(publicKey, nil)! as Data)
        }
        let (statuses, signature, publicKeyBytes) = try #require(outcome)
        #expect(statuses == [errSecSuccess, errSecSuccess, errSSLCrypto, errSecParam, 8, errSecSuccess, 64, errSecSuccess,
                             errSecSuccess, errSecParam, errSecParam])
        #expect(errSSLCrypto == -9809)
        let publicKey = try P256.Signing.PublicKey(x963Representation: publicKeyBytes)
        let parsed = try P256.Signing.ECDSASignature(derRepresentation: signature)
        #expect(publicKey.isValidSignature(parsed, for: SHA256.hash(data: Self.message)))
        #expect(SecPadding.PKCS1.rawValue == 1 && SecPadding.OAEP.rawValue == 2 && SecPadding.sigRaw.rawValue == 0x4000
                && SecPadding.PKCS1SHA256.rawValue == 0x8004 && SecPadding.PKCS1SHA512.rawValue == 0x8006)
    }

    @Test("the iOS 10 ECIES form (X9.63 KDF gives the 16-byte key, IV of 16 zero bytes) opens bytes built from Apple's description with swift-crypto")
    func legacyECIESMatchesApplesConstruction() async throws {
        let sim = try TestDevice(enrolled: [])
        let opened = try await sim.blocking { () -> Result<(Data?, Data?, Data?), any Error> in Result {
            guard let key = Self.makeKey() else { return (nil, nil, nil) }
            let recipient = try P256.KeyAgreement.PublicKey(x963Representation: SecKeyCopyExternalRepresentation(SecKeyCopyPublicKey(key)!, nil)! as Data)
            // Built here, independently of Touchstone's ECIES: ECDH, X9.63 (SHA-256, counter 1,
            // shared info = the ephemeral key), 16 bytes of key, AES-GCM with 16 zero bytes of IV.
            let ephemeral = P256.KeyAgreement.PrivateKey()
            let ephemeralBytes = ephemeral.publicKey.x963Representation
            let secret = try ephemeral.sharedSecretFromKeyAgreement(with: recipient).withUnsafeBytes { Data($0) }
            let aesKey = SymmetricKey(data: Data(SHA256.hash(data: secret + Data([0, 0, 0, 1]) + ephemeralBytes)).prefix(16))
            let box = try AES.GCM.seal(Data("legacy".utf8), using: aesKey, nonce: AES.GCM.Nonce(data: Data(count: 16)))
            let ciphertext = ephemeralBytes + box.ciphertext + box.tag
            let legacy = SecKeyCreateDecryptedData(key, .eciesEncryptionStandardX963SHA256AESGCM, ciphertext as CFData, nil) as Data?
            let asVariableIV = SecKeyCreateDecryptedData(key, .eciesEncryptionStandardVariableIVX963SHA256AESGCM, ciphertext as CFData, nil) as Data?
            // And the other way: our legacy SHA-512 encryption opens with the same construction.
            let ours = SecKeyCreateEncryptedData(SecKeyCopyPublicKey(key)!, .eciesEncryptionCofactorX963SHA512AESGCM, Data("sha512".utf8) as CFData, nil)! as Data
            let ourEphemeral = ours.prefix(65)
            let privateSide = SecKeyCreateDecryptedData(key, .eciesEncryptionCofactorX963SHA512AESGCM, ours as CFData, nil) as Data?
            #expect(ourEphemeral.first == 0x04 && ours.count == 65 + 6 + 16)
            return (legacy, asVariableIV, privateSide)
        } }.get()
        #expect(opened.0 == Data("legacy".utf8))
        #expect(opened.1 == nil)  // the variable-IV form derives another key and IV
        #expect(opened.2 == Data("sha512".utf8))
    }

    @Test("SecKeyGeneratePair returns both halves, in the Secure Enclave or (without the token) a software key")
    func generatePair() async throws {
        let sim = try TestDevice(enrolled: [])
        let (status, matches, softwareStatus) = await sim.blocking { () -> (OSStatus, Bool, OSStatus) in
            var publicKey: SecKey?, privateKey: SecKey?
            let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                             kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]
            let status = SecKeyGeneratePair(parameters as CFDictionary, &publicKey, &privateKey)
            let matches = privateKey.flatMap(SecKeyCopyPublicKey) == publicKey && publicKey != nil
            var software: SecKey?
            let softwareStatus = SecKeyGeneratePair([kSecAttrKeyType as String: kSecAttrKeyTypeEC, kSecAttrKeySizeInBits as String: 256] as CFDictionary,
                                                    nil, &software)
            return (status, matches && software.map { SecKeyCopyExternalRepresentation($0, nil) != nil } == true, softwareStatus)
        }
        #expect(status == errSecSuccess && matches)
        #expect(softwareStatus == errSecSuccess)
    }

    @Test("CFGetTypeID tells keys, access controls, booleans, numbers, strings and data apart")
    func typeIDs() async throws {
        let sim = try TestDevice(enrolled: [])
        let isKey = await sim.blocking { Self.makeKey().map { CFGetTypeID($0) == SecKeyGetTypeID() } ?? false }
        #expect(isKey)
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [], nil)
        #expect(CFGetTypeID(access) == SecAccessControlGetTypeID())
        #expect(CFGetTypeID(kCFBooleanTrue) == CFBooleanGetTypeID() && CFGetTypeID(true as NSNumber) == CFBooleanGetTypeID())
        #expect(CFGetTypeID(NSNumber(value: 1)) == CFNumberGetTypeID())
        #expect(CFGetTypeID("text" as NSString) == CFStringGetTypeID())
        #expect(CFGetTypeID(Data([1]) as NSData) == CFDataGetTypeID())
        #expect(CFGetTypeID(["a": 1] as NSDictionary) == CFDictionaryGetTypeID() && CFGetTypeID([1] as NSArray) == CFArrayGetTypeID())
        #expect(CFGetTypeID("text" as NSString) != SecKeyGetTypeID())
    }

    @Test("CFDataCreateWithBytesNoCopy, CFDataGetBytePtr and CFErrorCreate behave as CoreFoundation's")
    func coreFoundationData() throws {
        var bytes: [UInt8] = [1, 2, 3, 4]
        let data = bytes.withUnsafeBufferPointer { CFDataCreateWithBytesNoCopy(nil, $0.baseAddress, 3, kCFAllocatorNull) }
        bytes[0] = 9
        #expect(data as Data? == Data([1, 2, 3]))  // a copy: later writes to the buffer do not show
        #expect(CFDataGetLength(data) == 3 && CFDataGetBytePtr(data)?[2] == 3)
        #expect(CFDataCreate(nil, nil, 0) as Data? == Data() && CFDataCreate(nil, nil, 2) == nil)
        let error = try #require(CFErrorCreate(nil, NSOSStatusErrorDomain as CFErrorDomain, CFIndex(errSecVerifyFailed),
                                               [NSLocalizedDescriptionKey: "bad signature"] as CFDictionary))
        #expect(error.domain == NSOSStatusErrorDomain && error.code == -67808 && error.localizedDescription == "bad signature")
        #expect(errSecInvalidRecord == -67701)
        #expect(SecCopyErrorMessageString(errSecInvalidRecord, nil) as String? == "An invalid record was encountered.")
    }
}
#endif
