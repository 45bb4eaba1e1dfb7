#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import TestSupport
import Testing
import TouchstoneTesting
import Touchstone

/// RSA `SecKey`s (issue 34): PKCS#1 keys, every RSA signature and encryption form of SecKey.h
/// (message and digest signatures, PKCS#1 v1.5 and PSS, raw; PKCS#1 v1.5, OAEP, OAEP-then-AES-GCM
/// and raw encryption), each checked against pyca/cryptography — an implementation we did not
/// write — through ``IndependentKeyCheck``.
@Suite("RSA SecKeys, checked against pyca/cryptography")
struct RSAKeyTests {
    /// Apple's algorithm for each scheme of scripts/seckey-check.py. A `digest-` scheme signs
    /// the message's digest (``signedInput(_:_:)``); `raw` signs the message as a block.
    static let signatureAlgorithms: [String: SecKeyAlgorithm] = [
        "pkcs1v15-SHA1": .rsaSignatureMessagePKCS1v15SHA1, "pkcs1v15-SHA224": .rsaSignatureMessagePKCS1v15SHA224,
        "pkcs1v15-SHA256": .rsaSignatureMessagePKCS1v15SHA256,
        "pkcs1v15-SHA384": .rsaSignatureMessagePKCS1v15SHA384, "pkcs1v15-SHA512": .rsaSignatureMessagePKCS1v15SHA512,
        "pss-SHA1": .rsaSignatureMessagePSSSHA1, "pss-SHA224": .rsaSignatureMessagePSSSHA224, "pss-SHA256": .rsaSignatureMessagePSSSHA256,
        "pss-SHA384": .rsaSignatureMessagePSSSHA384, "pss-SHA512": .rsaSignatureMessagePSSSHA512,
        "digest-pkcs1v15-SHA1": .rsaSignatureDigestPKCS1v15SHA1, "digest-pkcs1v15-SHA224": .rsaSignatureDigestPKCS1v15SHA224,
        "digest-pkcs1v15-SHA256": .rsaSignatureDigestPKCS1v15SHA256,
        "digest-pkcs1v15-SHA384": .rsaSignatureDigestPKCS1v15SHA384, "digest-pkcs1v15-SHA512": .rsaSignatureDigestPKCS1v15SHA512,
        "digest-pss-SHA1": .rsaSignatureDigestPSSSHA1, "digest-pss-SHA224": .rsaSignatureDigestPSSSHA224,
        "digest-pss-SHA256": .rsaSignatureDigestPSSSHA256,
        "digest-pss-SHA384": .rsaSignatureDigestPSSSHA384, "digest-pss-SHA512": .rsaSignatureDigestPSSSHA512,
        "raw": .rsaSignatureRaw,
    ]
    /// Apple's algorithm for each padding of scripts/seckey-check.py.
    static let encryptionAlgorithms: [String: SecKeyAlgorithm] = [
        "pkcs1": .rsaEncryptionPKCS1, "oaep-SHA1": .rsaEncryptionOAEPSHA1, "oaep-SHA224": .rsaEncryptionOAEPSHA224,
        "oaep-SHA256": .rsaEncryptionOAEPSHA256,
        "oaep-SHA384": .rsaEncryptionOAEPSHA384, "oaep-SHA512": .rsaEncryptionOAEPSHA512, "raw": .rsaEncryptionRaw,
        "aesgcm-SHA1": .rsaEncryptionOAEPSHA1AESGCM, "aesgcm-SHA224": .rsaEncryptionOAEPSHA224AESGCM,
        "aesgcm-SHA256": .rsaEncryptionOAEPSHA256AESGCM,
        "aesgcm-SHA384": .rsaEncryptionOAEPSHA384AESGCM, "aesgcm-SHA512": .rsaEncryptionOAEPSHA512AESGCM,
    ]

    /// What a scheme's algorithm signs for `message`: its digest for a `digest-` scheme, the
    /// message itself otherwise (`raw` reads it as a number, left-padded to a block).
    static func signedInput(_ scheme: String, _ message: Data) -> Data {
        guard scheme.hasPrefix("digest-") else { return message }
        return switch scheme.split(separator: "-").last {
        case "SHA1": Data(Insecure.SHA1.hash(data: message))
        case "SHA224": ECIES.Hash.sha224.digest(message)
        case "SHA256": Data(SHA256.hash(data: message))
        case "SHA384": Data(SHA384.hash(data: message))
        default: Data(SHA512.hash(data: message))
        }
    }

    /// What a padding's decryption gives for `message`: the 256-byte block for raw RSA.
    static func decrypted(_ padding: String, _ message: Data) -> Data {
        padding == "raw" ? Data(count: 256 - message.count) + message : message
    }

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

    @Test("an RSA key made by pyca imports from PKCS#1, exports the same bytes, verifies pyca's signatures as message and digest signatures, and decrypts its PKCS#1, OAEP, OAEP-then-AES-GCM and raw ciphertexts")
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
        #expect(signatures.count == 10)
        // pyca's message signatures; each is also the digest-form signature of the message's digest.
        for (scheme, signature) in signatures {
            for form in [scheme, "digest-" + scheme] {
                let algorithm = try #require(Self.signatureAlgorithms[form])
                let input = Self.signedInput(form, message)
                #expect(SecKeyVerifySignature(publicKey, algorithm, input as CFData, try bytes(signature) as CFData, nil), "\(form)")
                var error: Unmanaged<CFError>?
                var other = input
                other[other.startIndex] ^= 1
                #expect(!SecKeyVerifySignature(publicKey, algorithm, other as CFData, try bytes(signature) as CFData, &error))
                #expect((error?.takeRetainedValue() as NSError?)?.code == Int(errSecVerifyFailed))
            }
        }
        let ciphertexts = try #require(made["ciphertexts"] as? [String: String])
        #expect(ciphertexts.count == Self.encryptionAlgorithms.count)
        for (padding, ciphertext) in ciphertexts {
            let algorithm = try #require(Self.encryptionAlgorithms[padding])
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, try bytes(ciphertext) as CFData, nil) as Data?
                    == Self.decrypted(padding, message), "\(padding)")
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
            let signature = try #require(SecKeyCreateSignature(privateKey, algorithm, Self.signedInput(scheme, message) as CFData, nil) as Data?)
            #expect(signature.count == 256)
            signatures[scheme] = signature.base64EncodedString()
        }
        let publicBytes = try #require(SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        let verified = try check("verify", input: ["publicKey": publicBytes.base64EncodedString(),
                                                   "message": message.base64EncodedString(), "signatures": signatures])
        #expect(verified.count == signatures.count && verified.values.allSatisfy { $0 as? Bool == true }, "\(verified)")

        var ciphertexts: [String: String] = [:]
        for (padding, algorithm) in Self.encryptionAlgorithms {
            #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm) && SecKeyIsAlgorithmSupported(privateKey, .decrypt, algorithm))
            let sealed = try #require(SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, nil))
            #expect(SecKeyCreateDecryptedData(privateKey, algorithm, sealed, nil) as Data? == Self.decrypted(padding, message))
            ciphertexts[padding] = (sealed as Data).base64EncodedString()
        }
        let privateBytes = try #require(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        let opened = try check("decrypt", input: ["privateKey": privateBytes.base64EncodedString(), "ciphertexts": ciphertexts])
        #expect(opened.count == ciphertexts.count)
        for (padding, plaintext) in opened { #expect(try bytes(plaintext) == Self.decrypted(padding, message), "\(padding)") }
    }

    @Test("OAEP-then-AES-GCM with a 4096-bit key wraps a 256-bit AES key (SecKey.h: 128 bits below 4096), and pyca opens it")
    func aesGCMKeySize() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 4096]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let message = Data("a long secret".utf8)
        let sealed = try #require(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA256AESGCM, message as CFData, nil) as Data?)
        #expect(sealed.count == 512 + message.count + 16)
        let privateBytes = try #require(SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        let opened = try check("decrypt", input: ["privateKey": privateBytes.base64EncodedString(),
                                                  "ciphertexts": ["aesgcm-SHA256": sealed.base64EncodedString()]])
        #expect(try bytes(opened["aesgcm-SHA256"]) == message)
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

    /// The flags of `SecKeyCopyAttributes` that Apple's software-key dictionary sets, in one
    /// order: permanent, private, modifiable, sensitive, always sensitive, extractable, never
    /// extractable, encrypt, decrypt, derive, sign, verify, sign-recover, verify-recover, wrap, unwrap.
    static func flags(_ attributes: [String: Any]) -> [Bool?] {
        [kSecAttrIsPermanent as String, "priv", "modi", kSecAttrIsSensitive as String, "asen", kSecAttrIsExtractable as String, "next",
         kSecAttrCanEncrypt as String, kSecAttrCanDecrypt as String, kSecAttrCanDerive as String, kSecAttrCanSign as String,
         kSecAttrCanVerify as String, "snrc", "vyrc", kSecAttrCanWrap as String, kSecAttrCanUnwrap as String].map { attributes[$0] as? Bool }
    }

    @Test("SecKeyCopyAttributes of an RSA key is Apple's software-key dictionary (SecKey.m, SecRSAKey.c): permanent, extractable, a private key decrypts, signs and unwraps, a public one encrypts, verifies, wraps and decrypts too, neither derives; kSecValueData holds its PKCS#1 bytes")
    func softwareKeyDictionary() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        let privateAttributes = try #require(SecKeyCopyAttributes(privateKey) as? [String: Any])
        let publicAttributes = try #require(SecKeyCopyAttributes(publicKey) as? [String: Any])
        #expect(Self.flags(privateAttributes) == [true, true, true, false, false, true, false,
                                                  false, true, false, true, false, false, false, false, true])
        #expect(Self.flags(publicAttributes) == [true, true, true, false, false, true, false,
                                                 true, true, false, false, true, false, false, true, false])
        #expect(privateAttributes[kSecValueData as String] as? Data == SecKeyCopyExternalRepresentation(privateKey, nil) as Data?)
        #expect(publicAttributes[kSecValueData as String] as? Data == SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)
        #expect(privateAttributes[kSecAttrEffectiveKeySize as String] as? Int == 2048)
    }

    @Test("SecKeyCreateWithData reads a public key as X.509 SubjectPublicKeyInfo or PKCS#1 and a private key as PKCS#1, as iOS (SecRSAKey.c's SecRSAPublicKeyInit through corecrypto's ccrsa_import_pub, X.509 first): the key read from the SubjectPublicKeyInfo exports as PKCS#1; a PKCS#8 private key or damaged bytes are errSecParam")
    func pkcs1OrSubjectPublicKeyInfo() throws {
        let made = try check("make")
        let (fromInfo, infoError) = key(try bytes(made["spki"]), isPrivate: false)
        #expect(infoError == nil)
        #expect(try fromInfo.flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? } == bytes(made["publicKey"]))
        var damaged = try bytes(made["publicKey"])
        damaged.removeLast(20)
        for (bytes, isPrivate) in [(try bytes(made["pkcs8"]), true), (damaged, false), (Data([0x30, 0x03, 0x02, 0x01, 0x00]), true)] {
            let (key, error) = key(bytes, isPrivate: isPrivate)
            #expect(key == nil && (error as NSError?)?.code == Int(errSecParam))
        }
    }

    @Test("an RSA key under 1024 bits (iOS reads 512 and up: our limit, BoringSSL reads none smaller) is errSecParam with a message naming its size, not a claim that its bytes are not PKCS#1")
    func smallKeyNamesItsSize() throws {
        // A 512-bit RSAPublicKey: modulus 2^511 + 1, exponent 65537 (only its shape matters here).
        let modulus: [UInt8] = [0x00, 0x80] + [UInt8](repeating: 0, count: 62) + [0x01]
        let body: [UInt8] = [0x02, 0x41] + modulus + [0x02, 0x03, 0x01, 0x00, 0x01]
        let (key, error) = key(Data([0x30, UInt8(body.count)] + body), isPrivate: false)
        #expect(key == nil && (error as NSError?)?.code == Int(errSecParam))
        #expect((error as NSError?)?.userInfo["NSDescription"] as? String
            == "RSA keys are read here with 1024 to 8192 bits, a whole number of bytes, not 512")
        // SecCFError.c's keys (the second is kSOSCountKey), and the sentence Linux's Foundation reads.
        #expect(Set(((error as NSError?)?.userInfo ?? [:]).keys) == ["NSDescription", "numberOfErrorsDeep", NSLocalizedDescriptionKey])
        #expect((error as NSError?)?.userInfo["numberOfErrorsDeep"] as? Int == 0)
    }

    @Test("a key too small for a form does not support it, as Apple's adaptors answer (SecKeyAdaptors.m): OAEP needs a block of 2 × the hash length + 2 bytes, PSS signing 2 × 8 × the hash length + 9 bits; verifying has no such check")
    func formsTheKeyIsTooSmallForAreUnsupported() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 1024]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        // A 1,024-bit key: a 128-byte block; SHA-512 needs 130 (OAEP) and 1,033 bits (PSS), SHA-384 98 and 777.
        for algorithm in [SecKeyAlgorithm.rsaEncryptionOAEPSHA512, .rsaEncryptionOAEPSHA512AESGCM] {
            #expect(!SecKeyIsAlgorithmSupported(publicKey, .encrypt, algorithm) && !SecKeyIsAlgorithmSupported(privateKey, .decrypt, algorithm))
        }
        #expect(SecKeyIsAlgorithmSupported(publicKey, .encrypt, .rsaEncryptionOAEPSHA384) && SecKeyIsAlgorithmSupported(privateKey, .decrypt, .rsaEncryptionOAEPSHA384))
        #expect(!SecKeyIsAlgorithmSupported(privateKey, .sign, .rsaSignatureMessagePSSSHA512))
        #expect(!SecKeyIsAlgorithmSupported(privateKey, .sign, .rsaSignatureDigestPSSSHA512))
        #expect(SecKeyIsAlgorithmSupported(privateKey, .sign, .rsaSignatureMessagePSSSHA384))
        #expect(SecKeyIsAlgorithmSupported(privateKey, .sign, .rsaSignatureMessagePKCS1v15SHA512))
        #expect(SecKeyIsAlgorithmSupported(publicKey, .verify, .rsaSignatureMessagePSSSHA512))
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateSignature(privateKey, .rsaSignatureMessagePSSSHA512, Data("m".utf8) as CFData, &error) == nil)
        #expect((error?.takeRetainedValue() as NSError?)?.code == Int(errSecParam))
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

    @Test("the deprecated SecKeyEncrypt / SecKeyDecrypt (the way older apps encrypt a password to a server's key) work with RSA keys as Apple's SecKey.c maps them: .PKCS1, .OAEP and no padding (raw, leading zeros taken off); another padding and a small buffer are errSecParam")
    func legacyEncryption() throws {
        let made = try check("make")
        let privateKey = try #require(key(try bytes(made["privateKey"]), isPrivate: true).0)
        let publicKey = try #require(key(try bytes(made["publicKey"]), isPrivate: false).0)
        let password = Array("hunter2".utf8)
        for padding in [SecPadding.PKCS1, .OAEP, []] {
            var cipher = [UInt8](repeating: 0, count: 256)
            var cipherLength = cipher.count
            #expect(SecKeyEncrypt(publicKey, padding, password, password.count, &cipher, &cipherLength) == errSecSuccess)
            #expect(cipherLength == 256)
            var plain = [UInt8](repeating: 0, count: 256)
            var plainLength = plain.count
            #expect(SecKeyDecrypt(privateKey, padding, cipher, cipherLength, &plain, &plainLength) == errSecSuccess)
            #expect(Array(plain.prefix(plainLength)) == password, "\(padding)")
        }
        let pycaCiphertext = try bytes((made["ciphertexts"] as? [String: String])?["pkcs1"])
        var plain = [UInt8](repeating: 0, count: 256)
        var plainLength = plain.count
        #expect(SecKeyDecrypt(privateKey, .PKCS1, Array(pycaCiphertext), pycaCiphertext.count, &plain, &plainLength) == errSecSuccess)
        #expect(Data(plain.prefix(plainLength)) == (try bytes(made["message"])))
        var small = [UInt8](repeating: 0, count: 16)
        var smallLength = small.count
        #expect(SecKeyEncrypt(publicKey, .PKCS1, password, password.count, &small, &smallLength) == errSecParam)
        var cipher = [UInt8](repeating: 0, count: 256)
        var cipherLength = cipher.count
        #expect(SecKeyEncrypt(publicKey, .PKCS1SHA256, password, password.count, &cipher, &cipherLength) == errSecParam)
    }

    @Test("the deprecated SecKeyRawSign / SecKeyRawVerify with an RSA key, as Apple's SecKey.c maps them: .PKCS1SHA256 signs a SHA-256 digest (pyca verifies it as PKCS#1 v1.5 over the message), .PKCS1 a DigestInfo given whole; a bad signature is errSSLCrypto")
    func legacySigning() throws {
        let made = try check("make")
        let privateKey = try #require(key(try bytes(made["privateKey"]), isPrivate: true).0)
        let publicKey = try #require(key(try bytes(made["publicKey"]), isPrivate: false).0)
        let message = try bytes(made["message"])
        let digest = Array(SHA256.hash(data: message))
        var signature = [UInt8](repeating: 0, count: 256)
        var signatureLength = signature.count
        #expect(SecKeyRawSign(privateKey, .PKCS1SHA256, digest, digest.count, &signature, &signatureLength) == errSecSuccess)
        #expect(signatureLength == 256)
        #expect(SecKeyRawVerify(publicKey, .PKCS1SHA256, digest, digest.count, signature, signatureLength) == errSecSuccess)
        // The same bytes as pyca's own PKCS#1 v1.5 SHA-256 signature of the message (deterministic).
        #expect(Data(signature) == (try bytes((made["signatures"] as? [String: String])?["pkcs1v15-SHA256"])))
        // .PKCS1 takes the DigestInfo itself: the same signature again.
        let digestInfo: [UInt8] = [0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20] + digest
        var again = [UInt8](repeating: 0, count: 256)
        var againLength = again.count
        #expect(SecKeyRawSign(privateKey, .PKCS1, digestInfo, digestInfo.count, &again, &againLength) == errSecSuccess)
        #expect(again == signature)
        signature[0] ^= 1
        #expect(SecKeyRawVerify(publicKey, .PKCS1SHA256, digest, digest.count, signature, signatureLength) == errSSLCrypto)
        #expect(SecKeyRawSign(privateKey, .OAEP, digest, digest.count, &again, &againLength) == errSecParam)
    }

    @Test("RSA input rules as Apple's code has them: a PSS digest of the wrong length, a raw input above the modulus or longer than the key, a plaintext longer than the padding allows are errSecParam; a PKCS#1 v1.5 digest of any length is signed as given; raw verification drops the block's leading zeros; SHA-224 PSS goes by Apple's identifier, which names a salt of 24")
    func inputRules() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
        let privateKey = try #require(SecKeyCreateRandomKey(parameters as CFDictionary, nil))
        let publicKey = try #require(SecKeyCopyPublicKey(privateKey))
        func signingError(_ algorithm: SecKeyAlgorithm, _ input: Data) -> Int? {
            var error: Unmanaged<CFError>?
            #expect(SecKeyCreateSignature(privateKey, algorithm, input as CFData, &error) == nil)
            return (error?.takeRetainedValue() as NSError?)?.code
        }
        func encryptionError(_ algorithm: SecKeyAlgorithm, _ input: Data) -> Int? {
            var error: Unmanaged<CFError>?
            #expect(SecKeyCreateEncryptedData(publicKey, algorithm, input as CFData, &error) == nil)
            return (error?.takeRetainedValue() as NSError?)?.code
        }
        // Apple's SHA-224 PSS identifiers name a salt of 24 bytes (its code salts with 28, which
        // pyca checks in pycaVerifiesOurSignatures); the same identifier saying 28 is not Apple's.
        #expect(SecKeyAlgorithm.rsaSignatureDigestPSSSHA224.identifier == "algid:sign:RSA:digest-PSS:SHA224:SHA224:24")
        let notApples = SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA224:SHA224:28" as CFString)
        for algorithm: SecKeyAlgorithm in [notApples, .ecdsaSignatureMessageX962SHA256] {
            #expect(!SecKeyIsAlgorithmSupported(privateKey, .sign, algorithm))
            #expect(signingError(algorithm, Data(count: 28)) == Int(errSecParam))
        }
        #expect(signingError(.rsaSignatureDigestPSSSHA224, Data(count: 27)) == Int(errSecParam))
        #expect(!SecKeyIsAlgorithmSupported(privateKey, .keyExchange, .ecdhKeyExchangeStandard))
        #expect(signingError(.rsaSignatureDigestPSSSHA512, Data(count: 32)) == Int(errSecParam))
        #expect(signingError(.rsaSignatureRaw, Data(repeating: 0xFF, count: 256)) == Int(errSecParam))  // above the modulus
        #expect(signingError(.rsaSignatureRaw, Data(count: 257)) == Int(errSecParam))
        // Apple's PKCS#1 v1.5 digest forms do not check the length: 20 bytes under SHA-256's OID.
        let short = Data(repeating: 7, count: 20)
        let odd = try #require(SecKeyCreateSignature(privateKey, .rsaSignatureDigestPKCS1v15SHA256, short as CFData, nil))
        #expect(SecKeyVerifySignature(publicKey, .rsaSignatureDigestPKCS1v15SHA256, short as CFData, odd, nil))
        // Raw: a shorter input is a number, left-padded; verification drops the leading zeros,
        // so an input that starts with a zero byte never verifies (Apple's quirk).
        for (input, verifies) in [(Data([1, 2, 3]), true), (Data([0, 1, 2, 3]), false)] {
            let raw = try #require(SecKeyCreateSignature(privateKey, .rsaSignatureRaw, input as CFData, nil) as Data?)
            #expect(raw.count == 256)
            #expect(SecKeyVerifySignature(publicKey, .rsaSignatureRaw, input as CFData, raw as CFData, nil) == verifies)
        }
        #expect(signingError(.rsaSignatureDigestPKCS1v15Raw, Data(count: 246)) == Int(errSecParam))  // 256 - 11 at most
        #expect(SecKeyCreateSignature(privateKey, .rsaSignatureDigestPKCS1v15Raw, Data(count: 245) as CFData, nil) != nil)
        #expect(encryptionError(.rsaEncryptionPKCS1, Data(count: 246)) == Int(errSecParam))  // 256 - 11 at most
        #expect(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionPKCS1, Data(count: 245) as CFData, nil) != nil)
        #expect(encryptionError(.rsaEncryptionOAEPSHA512, Data(count: 127)) == Int(errSecParam))  // 256 - 2 * 64 - 2 at most
        #expect(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA512, Data(count: 126) as CFData, nil) != nil)
        #expect(encryptionError(.rsaEncryptionRaw, Data(count: 257)) == Int(errSecParam))

        // A digest signature verifies as the message signature of what was hashed.
        let message = Data("header.payload".utf8)
        let signature = try #require(SecKeyCreateSignature(privateKey, .rsaSignatureDigestPKCS1v15SHA256,
                                                           Data(SHA256.hash(data: message)) as CFData, nil))
        #expect(SecKeyVerifySignature(publicKey, .rsaSignatureMessagePKCS1v15SHA256, message as CFData, signature, nil))
        // Hand-encoded OAEP and PSS refuse what is not theirs: a changed OAEP-SHA-384 ciphertext
        // is errSecParam, random blocks verify under no digest form (and trap nowhere).
        var oaep = try #require(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA384, message as CFData, nil) as Data?)
        oaep[oaep.startIndex + 100] ^= 1
        var oaepError: Unmanaged<CFError>?
        #expect(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA384, oaep as CFData, &oaepError) == nil)
        #expect((oaepError?.takeRetainedValue() as NSError?)?.code == Int(errSecParam))
        let digest = Data(SHA256.hash(data: message))
        for block in [Data((0..<256).map { _ in UInt8.random(in: 0...0x7F) }), Data(repeating: 0xFF, count: 256), Data(count: 256), Data(count: 3)] {
            for algorithm: SecKeyAlgorithm in [.rsaSignatureDigestPSSSHA256, .rsaSignatureDigestPKCS1v15SHA256, .rsaSignatureRaw] {
                #expect(!SecKeyVerifySignature(publicKey, algorithm, digest as CFData, block as CFData, nil))
            }
        }
        // A PKCS#1 v1.5 digest so long its DigestInfo would be 127 bytes or more.
        #expect(signingError(.rsaSignatureDigestPKCS1v15SHA256, Data(count: 108)) == Int(errSecParam))
        // A caller-made PSS identifier with another MGF1 hash or salt length is not Apple's.
        #expect(!SecKeyIsAlgorithmSupported(privateKey, .sign, SecKeyAlgorithm(rawValue: "algid:sign:RSA:digest-PSS:SHA256:SHA1:20" as CFString)))
        // A sealed AES-GCM ciphertext that is changed does not open.
        var sealed = try #require(SecKeyCreateEncryptedData(publicKey, .rsaEncryptionOAEPSHA512AESGCM, message as CFData, nil) as Data?)
        sealed[sealed.endIndex - 1] ^= 1
        var error: Unmanaged<CFError>?
        #expect(SecKeyCreateDecryptedData(privateKey, .rsaEncryptionOAEPSHA512AESGCM, sealed as CFData, &error) == nil)
        #expect((error?.takeRetainedValue() as NSError?)?.code == Int(errSecParam))
    }

    @Test("our RSA key limits: access-controlled RSA keys are errSecUnimplemented; no RSA key in the Secure Enclave; sizes as iOS and BoringSSL allow")
    func limits() throws {
        let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeySizeInBits as String: 2048]
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
