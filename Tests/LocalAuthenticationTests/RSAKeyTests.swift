#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import TestSupport
import Testing
import TouchstoneTesting

/// RSA `SecKey`s (issue 34): PKCS#1 keys, message signatures and PKCS#1 / OAEP encryption,
/// each checked against pyca/cryptography — an implementation we did not write — through
/// ``IndependentKeyCheck``.
@Suite("RSA SecKeys, checked against pyca/cryptography")
struct RSAKeyTests {
    static let signatureAlgorithms: [String: SecKeyAlgorithm] = [
        "pkcs1v15-SHA1": .rsaSignatureMessagePKCS1v15SHA1, "pkcs1v15-SHA256": .rsaSignatureMessagePKCS1v15SHA256,
        "pkcs1v15-SHA384": .rsaSignatureMessagePKCS1v15SHA384, "pkcs1v15-SHA512": .rsaSignatureMessagePKCS1v15SHA512,
        "pss-SHA1": .rsaSignatureMessagePSSSHA1, "pss-SHA256": .rsaSignatureMessagePSSSHA256,
        "pss-SHA384": .rsaSignatureMessagePSSSHA384, "pss-SHA512": .rsaSignatureMessagePSSSHA512,
    ]
    static let encryptionAlgorithms: [String: SecKeyAlgorithm] = [
        "pkcs1": .rsaEncryptionPKCS1, "oaep-SHA1": .rsaEncryptionOAEPSHA1, "oaep-SHA256": .rsaEncryptionOAEPSHA256,
    ]

    func check(_ command: String, input: [String: Any] = [:]) throws -> [String: Any] {
        try IndependentKeyCheck.run([command], input: input)
    }

    func bytes(_ value: Any?) throws -> Data { try IndependentKeyCheck.bytes(value) }

    func key(_ data: Data, isPrivate: Bool) -> (SecKey?, CFError?) {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA,
                                         kSecAttrKeyClass as String: isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic]
        let key = SecKeyCreateWithData(data as CFData, attributes as CFDictionary, &error)
        return (key, error?.takeRetainedValue())
    }

    @Test("an RSA key made by pyca imports from PKCS#1, exports the same bytes, verifies pyca's signatures and decrypts its PKCS#1 and OAEP ciphertexts")
    func importsAndReadsWhatPycaMade() throws {
        let made = try check("make")
        let (privateBytes, publicBytes, message) = (try bytes(made["privateKey"]), try bytes(made["publicKey"]), try bytes(made["message"]))
        let privateKey = try #require(key(privateBytes, isPrivate: true).0)
        let publicKey = try #require(key(publicBytes, isPrivate: false).0)
        #expect(SecKeyCopyExternalRepresentation(privateKey, nil) as Data? == privateBytes)
        #expect(SecKeyCopyExternalRepresentation(publicKey, nil) as Data? == publicBytes)
        #expect(SecKeyCopyPublicKey(privateKey) == publicKey)
        #expect(SecKeyGetBlockSize(publicKey) == 256)

        let signatures = try #require(made["signatures"] as? [String: String])
        #expect(signatures.count == Self.signatureAlgorithms.count)
        for (scheme, signature) in signatures {
            let algorithm = try #require(Self.signatureAlgorithms[scheme])
            #expect(SecKeyVerifySignature(publicKey, algorithm, message as CFData, try bytes(signature) as CFData, nil), "\(scheme)")
            var error: Unmanaged<CFError>?
            #expect(!SecKeyVerifySignature(publicKey, algorithm, Data("other".utf8) as CFData, try bytes(signature) as CFData, &error))
            #expect((error?.takeRetainedValue() as NSError?)?.code == Int(errSecVerifyFailed))
        }
        let ciphertexts = try #require(made["ciphertexts"] as? [String: String])
        #expect(ciphertexts.count == Self.encryptionAlgorithms.count)
        for (padding, ciphertext) in ciphertexts {
            let algorithm = try #require(Self.encryptionAlgorithms[padding])
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, try bytes(ciphertext) as CFData, nil) as Data? == message, "\(padding)")
        }
    }

    @Test("signatures of an RSA key from SecKeyCreateRandomKey verify in pyca, under every supported scheme; what it encrypts, pyca and its private key decrypt")
    func pycaVerifiesOurSignatures() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let message = Data("a JWT's header.payload".utf8)
        var signatures: [String: String] = [:]
        for (scheme, algorithm) in Self.signatureAlgorithms {
            #expect(SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm) && SecKeyIsAlgorithmSupported(publicKey, .verify, algorithm))
            signatures[scheme] = try #require(SecKeyCreateSignature(privateKey, algorithm, message as CFData, nil) as Data?).base64EncodedString()
        }
        let publicBytes = try #require(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        let verified = try check("verify", input: ["publicKey": publicBytes.base64EncodedString(),
                                                   "message": message.base64EncodedString(), "signatures": signatures])
        #expect(verified.count == signatures.count && verified.values.allSatisfy { $0 as? Bool == true }, "\(verified)")

        var ciphertexts: [String: String] = [:]
        for (padding, algorithm) in Self.encryptionAlgorithms {
            let sealed = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, nil))
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, sealed, nil) as Data? == message)
            ciphertexts[padding] = (sealed as Data).base64EncodedString()
        }
        let privateBytes = try #require(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        let opened = try check("decrypt", input: ["privateKey": privateBytes.base64EncodedString(), "ciphertexts": ciphertexts])
        #expect(opened.count == ciphertexts.count)
        for (padding, plaintext) in opened { #expect(try bytes(plaintext) == message, "\(padding)") }
    }

    @Test("RSA key attributes are Apple's: type 42, the modulus size, PKCS#1 bytes, the application label the SHA-1 of the public key")
    func attributes() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: "2048"]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let attributes = try #require(SecKeyCopyAttributes(privateKey) as? [String: Any])
        #expect(attributes[kSecAttrKeyType as String] as? String == "42")
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == 2048)
        #expect(attributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPrivate as String)
        #expect(attributes[kSecAttrCanSign as String] as? Bool == true)
        let publicAttributes = try #require(SecKeyCopyAttributes(publicKey) as? [String: Any])
        #expect(publicAttributes[kSecAttrKeyClass as String] as? String == kSecAttrKeyClassPublic as String)
        #expect(publicAttributes[kSecAttrCanVerify as String] as? Bool == true && publicAttributes[kSecAttrCanEncrypt as String] as? Bool == true)
        let publicBytes = try #require(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        #expect(publicAttributes[kSecAttrApplicationLabel as String] as? Data == Data(Insecure.SHA1.hash(data: publicBytes)))
        #expect("\(publicKey)".hasPrefix("<SecKey public RSA 2048 "))
    }

    @Test("SecKeyCreateWithData takes PKCS#1 only, as iOS (SecRSAKey.c): an X.509 SubjectPublicKeyInfo, a PKCS#8 private key or damaged bytes are errSecParam")
    func pkcs1Only() throws {
        let made = try check("make")
        var damaged = try bytes(made["publicKey"])
        damaged.removeLast(20)
        for (bytes, isPrivate) in [(try bytes(made["spki"]), false), (try bytes(made["pkcs8"]), true), (damaged, false),
                                   (Data([0x30, 0x03, 0x02, 0x01, 0x00]), true)] {
            let (key, error) = key(bytes, isPrivate: isPrivate)
            #expect(key == nil && (error as NSError?)?.code == Int(errSecParam))
        }
    }

    @Test("a ciphertext that does not decrypt is errSecParam \"RSAdecrypt wrong input\", as iOS reports it")
    func decryptFailure() throws {
        let made = try check("make")
        let privateKey = try #require(key(try bytes(made["privateKey"]), isPrivate: true).0)
        let ciphertext = try bytes((made["ciphertexts"] as? [String: String])?["oaep-SHA256"])
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA1, ciphertext as CFData, &error) == nil)  // the wrong padding
        let failure = error?.takeRetainedValue() as NSError?
        #expect(failure?.code == Int(errSecParam) && failure?.domain == NSOSStatusErrorDomain)
    }

    @Test("the deprecated SecKeyEncrypt / SecKeyDecrypt (the way older apps encrypt a password to a server's key) work with RSA keys: .PKCS1 and .OAEP; raw padding and a small buffer are errSecParam")
    func legacyEncryption() throws {
        let made = try check("make")
        let privateKey = try #require(key(try bytes(made["privateKey"]), isPrivate: true).0)
        let publicKey = try #require(key(try bytes(made["publicKey"]), isPrivate: false).0)
        let password = Array("hunter2".utf8)
        for padding in [SecPadding.PKCS1, .OAEP] {
            var cipher = [UInt8](repeating: 0, count: 256)
            var cipherLength = cipher.count
            #expect(SecKeyEncrypt(publicKey, padding, password, password.count, &cipher, &cipherLength) == errSecSuccess)
            #expect(cipherLength == 256)
            var plain = [UInt8](repeating: 0, count: 256)
            var plainLength = plain.count
            #expect(SecKeyDecrypt(privateKey, padding, cipher, cipherLength, &plain, &plainLength) == errSecSuccess)
            #expect(Array(plain.prefix(plainLength)) == password)
        }
        let pycaCiphertext = try bytes((made["ciphertexts"] as? [String: String])?["pkcs1"])
        var plain = [UInt8](repeating: 0, count: 256)
        var plainLength = plain.count
        #expect(SecKeyDecrypt(privateKey, .PKCS1, Array(pycaCiphertext), pycaCiphertext.count, &plain, &plainLength) == errSecSuccess)
        #expect(Data(plain.prefix(plainLength)) == (try bytes(made["message"])))
        var small = [UInt8](repeating: 0, count: 16)
        var smallLength = small.count
        #expect(SecKeyEncrypt(publicKey, .PKCS1, password, password.count, &small, &smallLength) == errSecParam)
        #expect(SecKeyEncrypt(publicKey, [], password, password.count, &small, &smallLength) == errSecParam)
    }

    @Test("our RSA limits: SHA-224, digest, raw and AES-GCM forms are unsupported (errSecParam); a too-long plaintext is errSecParam; access-controlled RSA keys are errSecUnimplemented; no RSA key in the Secure Enclave")
    func limits() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        for algorithm: SecKeyAlgorithm in [.rsaSignatureMessagePKCS1v15SHA224, .rsaSignatureDigestPKCS1v15SHA256, .rsaSignatureRaw,
                                           .rsaSignatureDigestPSSSHA256, .ecdsaSignatureMessageX962SHA256] {
            #expect(!SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm))
            var error: Unmanaged<CFError>?
            #expect(SecKeyCreateSignature(privateKey, algorithm, Data(count: 32) as CFData, &error) == nil)
            #expect((error?.takeRetainedValue() as NSError?)?.code == Int(errSecParam))
        }
        #expect(!SecKeyIsAlgorithmSupported(publicKey, .encrypt, .rsaEncryptionOAEPSHA256AESGCM))
        #expect(!SecKeyIsAlgorithmSupported(privateKey, .keyExchange, .ecdhKeyExchangeStandard))
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data(count: 246) as CFData, &error) == nil)  // 256 - 11 max
        #expect((error?.takeRetainedValue() as NSError?)?.code == Int(errSecParam))
        #expect(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data(count: 245) as CFData, nil) != nil)

        func status(_ extra: [String: Any]) -> Int? {
            var error: Unmanaged<CFError>?
            _ = SecKeyCreateRandomKey(parameters.merging(extra) { $1 } as CFDictionary, &error)
            return (error?.takeRetainedValue() as NSError?)?.code
        }
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage], nil)!
        #expect(status([kSecAttrAccessControl as String: access]) == Int(errSecUnimplemented))
        #expect(status([kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]) == Int(errSecParam))
        #expect(status([kSecAttrKeySizeInBits as String: 1000]) == Int(errSecParam))  // iOS makes it; BoringSSL does not
        #expect(status([kSecAttrKeySizeInBits as String: 16384]) == Int(errSecKeySizeNotAllowed))
        #expect(status([kSecAttrKeySizeInBits as String: 256]) == Int(errSecKeySizeNotAllowed))
    }
}
#endif
