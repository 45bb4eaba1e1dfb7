#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// P-384 and P-521 `SecKey`s (issue 34: SecKey.h's EC sizes beyond P-256), in memory, each
/// checked against pyca/cryptography through ``IndependentKeyCheck``.
@Suite("P-384 and P-521 SecKeys, checked against pyca/cryptography")
struct CurveKeyTests {
    static let messageAlgorithms: [String: SecKeyAlgorithm] = [
        "SHA1": .ecdsaSignatureMessageX962SHA1, "SHA224": .ecdsaSignatureMessageX962SHA224, "SHA256": .ecdsaSignatureMessageX962SHA256,
        "SHA384": .ecdsaSignatureMessageX962SHA384, "SHA512": .ecdsaSignatureMessageX962SHA512,
    ]

    func key(_ data: Data, isPrivate: Bool) -> SecKey? {
        let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                         kSecAttrKeyClass as String: isPrivate ? kSecAttrKeyClassPrivate : kSecAttrKeyClassPublic]
        return SecKeyCreateWithData(data as CFData, attributes as CFDictionary, nil)
    }

    @Test("a P-384 or P-521 key made by pyca imports from X9.63, exports the same bytes and verifies pyca's ECDSA signatures; pyca verifies ours", arguments: ["P-384", "P-521"])
    func signaturesBothWays(curve: String) throws {
        let made = try IndependentKeyCheck.run(["ec-make", curve])
        let (privateBytes, publicBytes) = (try IndependentKeyCheck.bytes(made["privateKey"]), try IndependentKeyCheck.bytes(made["publicKey"]))
        let message = try IndependentKeyCheck.bytes(made["message"])
        let privateKey = try #require(key(privateBytes, isPrivate: true))
        let publicKey = try #require(key(publicBytes, isPrivate: false))
        #expect(SecKeyCopyExternalRepresentation(privateKey, nil) as Data? == privateBytes)
        #expect(SecKeyCopyExternalRepresentation(publicKey, nil) as Data? == publicBytes)
        #expect(SecKeyCopyPublicKey(privateKey) == publicKey)
        let bits = curve == "P-384" ? 384 : 521
        #expect(SecKeyGetBlockSize(publicKey) == (bits + 7) / 8)
        let attributes = try #require(SecKeyCopyAttributes(privateKey) as? [String: Any])
        #expect(attributes[kSecAttrKeySizeInBits as String] as? Int == bits && attributes[kSecAttrKeyType as String] as? String == "73")

        let theirs = try #require(made["signatures"] as? [String: String])
        var ours: [String: String] = [:]
        for (hash, algorithm) in Self.messageAlgorithms {
            #expect(SecKeyVerifySignature(publicKey, algorithm, message as CFData, try IndependentKeyCheck.bytes(theirs[hash]) as CFData, nil), "\(hash)")
            ours[hash] = try #require(SecKeyCreateSignature(privateKey, algorithm, message as CFData, nil) as Data?).base64EncodedString()
        }
        let verified = try IndependentKeyCheck.run(["ec-verify"], input: ["publicKey": publicBytes.base64EncodedString(),
                                                                           "message": message.base64EncodedString(), "signatures": ours])
        #expect(verified.count == ours.count && verified.values.allSatisfy { $0 as? Bool == true }, "\(verified)")
    }

    @Test("SecKeyCopyAttributes of an EC software key is Apple's software-key dictionary (SecKey.m, SecECKey.m): a P-384 private key signs, decrypts, derives and unwraps; a P-256 public key of a Secure Enclave key encrypts, verifies and wraps, and derives nothing; kSecValueData holds the X9.63 bytes")
    func softwareKeyDictionary() async throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 384]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let privateAttributes = try #require(SecKeyCopyAttributes(privateKey) as? [String: Any])
        #expect(RSAKeyTests.flags(privateAttributes) == [true, true, true, false, false, true, false,
                                                         false, true, true, true, false, false, false, false, true])
        #expect(privateAttributes[kSecValueData as String] as? Data == SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        #expect((privateAttributes[kSecValueData as String] as? Data)?.count == 145)

        let sim = try TestDevice(enrolled: [])
        let seen = await sim.blocking { () -> (flags: [Bool?], value: Data?, bytes: Data?, token: Bool, tag: Bool)? in
            let enclave: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                          kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                                          kSecPrivateKeyAttrs as String: [kSecAttrApplicationTag as String: Data("tag".utf8)]]
            guard let key = SecKeyCreateRandomKey(enclave as CFDictionary, nil), let publicKey = SecKeyCopyPublicKey(key),
                  let attributes = SecKeyCopyAttributes(publicKey) as? [String: Any],
                  let privateAttributes = SecKeyCopyAttributes(key) as? [String: Any] else { return nil }
            return (RSAKeyTests.flags(attributes), attributes[kSecValueData as String] as? Data,
                    SecKeyCopyExternalRepresentation(publicKey, nil) as Data?,
                    privateAttributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String,
                    privateAttributes[kSecValueData as String] == nil)
        }
        let publicSide = try #require(seen)
        #expect(publicSide.flags == [true, true, true, false, false, true, false,
                                     true, false, false, false, true, false, false, true, false])
        #expect(publicSide.value != nil && publicSide.value == publicSide.bytes)
        #expect(publicSide.token && publicSide.tag)  // a Secure Enclave key keeps its own dictionary, without bytes
    }

    @Test("SecKeyCreateRandomKey makes P-384 and P-521 keys without a token: digest and RFC 4754 signatures verify, ECDH agrees with swift-crypto's")
    func randomKeys() throws {
        for bits in [384, 521] {
            let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: bits]
            let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
            let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
            #expect("\(privateKey)".hasPrefix("<SecKey private EC \(bits) "))
            let digest = Data(SHA384.hash(data: Data("payload".utf8)))
            let signature = try #require(SecKeyCreateSignature(privateKey, .ecdsaSignatureDigestX962SHA384, digest as CFData, nil))
            #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureDigestX962SHA384, digest as CFData, signature, nil))
            let raw = try #require(SecKeyCreateSignature(privateKey, .ecdsaSignatureMessageRFC4754SHA256, Data("m".utf8) as CFData, nil) as Data?)
            #expect(raw.count == 2 * ((bits + 7) / 8))
            #expect(SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageRFC4754SHA256, Data("m".utf8) as CFData, raw as CFData, nil))

            let publicBytes = try #require(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
            let parameters32: [String: Any] = [kSecKeyKeyExchangeParameterRequestedSize as String: 32]
            if bits == 384 {
                let other = P384.KeyAgreement.PrivateKey()
                let otherKey = try #require(self.key(other.publicKey.x963Representation, isPrivate: false))
                let ours = try #require(SecKeyCopyKeyExchangeResult(privateKey, .ecdhKeyExchangeStandard, otherKey, [:] as CFDictionary, nil) as Data?)
                let theirs = try other.sharedSecretFromKeyAgreement(with: P384.KeyAgreement.PublicKey(x963Representation: publicBytes))
                #expect(ours == theirs.withUnsafeBytes { Data($0) })
                let derived = try #require(SecKeyCopyKeyExchangeResult(privateKey, .ecdhKeyExchangeStandardX963SHA256, otherKey,
                                                                       parameters32 as CFDictionary, nil) as Data?)
                #expect(derived == theirs.x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: Data(), outputByteCount: 32)
                    .withUnsafeBytes { Data($0) })
            } else {
                let other = P521.KeyAgreement.PrivateKey()
                let otherKey = try #require(self.key(other.publicKey.x963Representation, isPrivate: false))
                let ours = try #require(SecKeyCopyKeyExchangeResult(privateKey, .ecdhKeyExchangeStandard, otherKey, [:] as CFDictionary, nil) as Data?)
                let theirs = try other.sharedSecretFromKeyAgreement(with: P521.KeyAgreement.PublicKey(x963Representation: publicBytes))
                #expect(ours == theirs.withUnsafeBytes { Data($0) })
            }
        }
    }

    /// Every ECIES form of SecKey.h, by the name seckey-check.py's `ec-open` reads.
    static let eciesAlgorithms: [String: SecKeyAlgorithm] = [
        "SHA1": .eciesEncryptionStandardX963SHA1AESGCM, "SHA224": .eciesEncryptionCofactorX963SHA224AESGCM,
        "SHA256": .eciesEncryptionStandardX963SHA256AESGCM, "SHA384": .eciesEncryptionCofactorX963SHA384AESGCM,
        "SHA512": .eciesEncryptionStandardX963SHA512AESGCM,
        "SHA224-variableIV": .eciesEncryptionStandardVariableIVX963SHA224AESGCM,
        "SHA256-variableIV": .eciesEncryptionCofactorVariableIVX963SHA256AESGCM,
        "SHA384-variableIV": .eciesEncryptionStandardVariableIVX963SHA384AESGCM,
        "SHA512-variableIV": .eciesEncryptionCofactorVariableIVX963SHA512AESGCM,
    ]

    @Test("ECIES with a P-384 or P-521 key is Apple's with AES-256 (SecKeyAdaptors.m: 128-bit AES for EC keys of at most 256 bits, 256-bit above): pyca opens every form we seal, we open what we seal, and only the private key decrypts", arguments: ["P-384", "P-521"])
    func eciesOnLargerCurvesUsesAES256(curve: String) throws {
        let made = try IndependentKeyCheck.run(["ec-make", curve])
        let privateBytes = try IndependentKeyCheck.bytes(made["privateKey"])
        let privateKey = try #require(key(privateBytes, isPrivate: true))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let pointLength = curve == "P-384" ? 97 : 133
        let message = Data("sealed to a \(curve) key".utf8)
        var sealed: [String: String] = [:]
        for (name, algorithm) in Self.eciesAlgorithms {
            #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm) && SecKeyIsAlgorithmSupported(privateKey, .decrypt, algorithm), "\(name)")
            #expect(!SecKeyIsAlgorithmSupported(privateKey, .encrypt, algorithm) && !SecKeyIsAlgorithmSupported(publicKey, .decrypt, algorithm), "\(name)")
            let ciphertext = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, nil) as Data?, "\(name)")
            #expect(ciphertext.count == pointLength + message.count + 16, "\(name)")
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, ciphertext as CFData, nil) as Data? == message, "\(name)")
            sealed[name] = ciphertext.base64EncodedString()
        }
        let opened = try IndependentKeyCheck.run(["ec-open"], input: ["privateKey": privateBytes.base64EncodedString(), "ciphertexts": sealed])
        for name in sealed.keys {
            #expect(try IndependentKeyCheck.bytes(opened[name]) == message, "pyca could not open \(name)")
        }
    }

    /// A P-521 key pair Apple's framework made (`SecKeyCreateRandomKey` on macOS, exported with
    /// `SecKeyCopyExternalRepresentation`) and "Hello World!" it sealed with
    /// `.eciesEncryptionStandardVariableIVX963SHA512AESGCM`: published with encrypt-me/python-client
    /// (tests/apple-encryption/example).
    static let appleP521Key = Data(base64Encoded: "BACMskXbMc8pQ5H7HWDu95Dmrc+KC/Z6tb7Eb+TAmmY6ZQc9MmB3WlyYleY1W1G1wPkyMGitnu7nRn4Wg84DNeKDgwH7l9xe5wn4eoSKKvkNiEr4eCUOvz8nHH0khtt1zsnQMGT+FOPKvgy/VO5m1RnBBtsw4gvg/Oew6TDFdfxz7XWqOgB8L3Na37EPuUA8c13MCfyris6H/nFqOeIVBJiZxOTbXrUDcU+i4Rs7pMA/nTV5OB3pqvaxBHchZ25u/qFqDRuTlw==")
    static let appleP521Ciphertext = Data(base64Encoded: "BADrH65RHTCek7hlKatpnr1ibz2qZzeKIVBiYILQhTsVnjZ+M/rJeHKqtlNZpkoMbXfz9jQau6Qe0AVfMOzvuc7BnQAsShJ1fqYYTxpPdv+eVkYb7ZYkHHlMvfE3Wv0HolpnU+/S31l3iI10lVQiUTsgrXXm8dQKUOxUNYbkJnY+9tNld1P4DGMnfvf78Ry5x3yGFq1//Qj82G33+ftlemk=")
    /// A P-384 ciphertext of "P384-SHA384-VIV" made on an Apple platform with
    /// `.eciesEncryptionCofactorVariableIVX963SHA384AESGCM`, and its key: published with
    /// jedda/ECIES (ecies_test.go).
    static let appleP384Key = Data(base64Encoded: "BOhWfO1ko3UpWGi34yg3cKI8NnQ+gINet0/W4dDrWfPhdWs13GDHI1QkLpx3SCxu6OZ7rrDGurbzOpZgEq+sW0iVLhb42S7IKLmcAGQeejtqUBa/98PtpDwDdmZZmiGxpbku3rAFGKIQLY7vWLeW/wm2CD5g/hjeAKPsHuc611A7/k9A9GOkU8nd+3TKNvMcRg==")
    static let appleP384Ciphertext = Data(base64Encoded: "BM45TREbxELfwpTVBmltz+sB3vhkM85m/yiAsE8JSNmXVOeeUGzmxP5Z2jegApPxtOS8ilfhTN/m2XkOoJWGw3MKuekq5V5PcdvAi5xKcoOEynkS7uAKS3nhBH/+g+9/iNoTcRSrEpbgm8dOCGe+VRQ7hK8vI0ZRw74kernlNDw=")

    @Test("ECIES ciphertexts Apple's framework made with a P-521 key it exported and a P-384 key open here; one altered byte is errSecParam 'ECIES: Failed to aes-gcm decrypt data'")
    func applesLargerCurveCiphertextsOpen() throws {
        let (p521Bytes, p521Ciphertext) = (try #require(Self.appleP521Key), try #require(Self.appleP521Ciphertext))
        let (p384Bytes, p384Ciphertext) = (try #require(Self.appleP384Key), try #require(Self.appleP384Ciphertext))
        let p521 = try #require(key(p521Bytes, isPrivate: true))
        #expect(SecKeyCreateDecryptedData(p521, .eciesEncryptionStandardVariableIVX963SHA512AESGCM, p521Ciphertext as CFData, nil) as Data?
            == Data("Hello World!".utf8))
        let p384 = try #require(key(p384Bytes, isPrivate: true))
        #expect(SecKeyCreateDecryptedData(p384, .eciesEncryptionCofactorVariableIVX963SHA384AESGCM, p384Ciphertext as CFData, nil) as Data?
            == Data("P384-SHA384-VIV".utf8))

        var altered = p521Ciphertext
        altered[altered.count - 20] ^= 1
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateDecryptedData(p521, .eciesEncryptionStandardVariableIVX963SHA512AESGCM, altered as CFData, &error) == nil)
        let failure = error?.takeRetainedValue() as NSError?
        #expect(failure?.code == Int(errSecParam) && String(describing: failure).contains("ECIES: Failed to aes-gcm decrypt data"))
        // A P-256 ciphertext is too short a point for a P-521 key: errSecParam, not a crash.
        #expect(SecKeyCreateDecryptedData(p521, .eciesEncryptionStandardVariableIVX963SHA512AESGCM, Data(count: 81) as CFData, nil) == nil)
    }

    @Test("our P-384/P-521 limits: access-control flags are refused; P-192 and other sizes are errSecParam; bad bytes are errSecParam")
    func limits() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 384]
        func status(_ extra: [String: Any]) -> Int? {
            var error: Unmanaged<CFError>?
            _ = SecKeyCreateRandomKey(parameters.merging(extra) { $1 } as CFDictionary, &error)
            return (error?.takeRetainedValue() as NSError?)?.code
        }
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, [.privateKeyUsage], nil)!
        #expect(status([kSecPrivateKeyAttrs as String: [kSecAttrAccessControl as String: access]]) == Int(errSecUnimplemented))
        #expect(status([kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave]) == Int(errSecParam))
        #expect(status([kSecAttrKeySizeInBits as String: 192]) == Int(errSecParam))
        #expect(status([kSecAttrKeySizeInBits as String: 512]) == Int(errSecParam))
        #expect(key(Data(count: 97), isPrivate: false) == nil)  // the right length, not a point
        #expect(key(Data(count: 49), isPrivate: false) == nil)  // P-192's length
    }
}
#endif
