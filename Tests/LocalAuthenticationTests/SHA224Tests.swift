#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import TestSupport
import Touchstone
import TouchstoneTesting

/// SHA-224 (issue 34): Touchstone's own FIPS 180-4 implementation (no listed package offers a
/// plain SHA-224), checked against FIPS 180-4's examples and Python's `hashlib`, and the P-256
/// algorithms of SecKey.h that hash with it, checked against pyca/cryptography. The RSA ones
/// are in `RSAKeyTests`, with the other hashes.
@Suite("SHA-224 and the SecKey algorithms that use it")
struct SHA224Tests {
    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    @Test("SHA-224 gives FIPS 180-4's example digests: \"abc\", the 448-bit two-block message, a million a's, and the empty message")
    func fipsExamples() {
        let sha224 = ECIES.Hash.sha224
        #expect(Self.hex(sha224.digest(Data("abc".utf8))) == "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")
        #expect(Self.hex(sha224.digest(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525")
        #expect(Self.hex(sha224.digest(Data(repeating: UInt8(ascii: "a"), count: 1_000_000)))
                == "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67")
        #expect(Self.hex(sha224.digest(Data())) == "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f")
        #expect(sha224.digest(Data("abd".utf8)) != sha224.digest(Data("abc".utf8)))
    }

    @Test("SHA-224 agrees with Python's hashlib at every length from 0 to 300 bytes (each padding boundary: 55, 56, 63, 64, 119, 120 bytes...) and at 10,000")
    func agreesWithHashlib() throws {
        // Seeded: a failure names an input that runs again.
        var generator = SeededGenerator(state: 224)
        let inputs = (Array(0...300) + [10_000]).map { length in Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        let answer = try IndependentKeyCheck.run(["sha224"], input: ["inputs": inputs.map { $0.base64EncodedString() }])
        let digests = try #require(answer["digests"] as? [String])
        try #require(digests.count == inputs.count)
        for (input, digest) in zip(inputs, digests) {
            #expect(ECIES.Hash.sha224.digest(input) == Data(base64Encoded: digest), "\(input.count) bytes")
        }
    }

    /// What a P-256 key pyca made signs, encrypts and derives with the SHA-224 algorithms, and
    /// whether it verifies pyca's SHA-224 signature.
    struct P256Outcome: Sendable {
        var verifiesTheirs = false
        var ours: Data?
        var rfc4754Verifies = false
        var ciphertexts: [String: String] = [:]
        var peerPublicKey = Data()
        var derived: [String: String] = [:]
        var supported: [Bool] = []
    }

    @Test("a P-256 key signs over SHA-224 (X9.62 and RFC 4754), encrypts with ECIES over SHA-224 (both forms, standard and cofactor) and derives with the X9.63 KDF over SHA-224, as pyca/cryptography does")
    func p256AlgorithmsMatchPyca() async throws {
        let made = try IndependentKeyCheck.run(["ec-make", "P-256"])
        let privateBytes = try IndependentKeyCheck.bytes(made["privateKey"])
        let message = try IndependentKeyCheck.bytes(made["message"])
        let theirs = try IndependentKeyCheck.bytes((made["signatures"] as? [String: String])?["SHA224"])
        let sim = try TestDevice(enrolled: [])
        let outcome = await sim.blocking { () -> P256Outcome in
            var outcome = P256Outcome()
            let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                             kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
            guard let key = SecKeyCreateWithData(privateBytes as CFData, attributes as CFDictionary, nil),
                  let publicKey = SecKeyCopyPublicKey(key) else { return outcome }
            let algorithms: [SecKeyAlgorithm] = [
                .ecdsaSignatureMessageX962SHA224, .ecdsaSignatureMessageRFC4754SHA224,
                .eciesEncryptionStandardX963SHA224AESGCM, .eciesEncryptionCofactorX963SHA224AESGCM,
                .eciesEncryptionStandardVariableIVX963SHA224AESGCM, .eciesEncryptionCofactorVariableIVX963SHA224AESGCM,
                .ecdhKeyExchangeStandardX963SHA224, .ecdhKeyExchangeCofactorX963SHA224,
            ]
            let operations: [SecKeyOperationType] = [.sign, .sign, .decrypt, .decrypt, .decrypt, .decrypt, .keyExchange, .keyExchange]
            outcome.supported = zip(operations, algorithms).map { SecKeyIsAlgorithmSupported(key, $0, $1) }
            outcome.verifiesTheirs = SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA224, message as CFData, theirs as CFData, nil)
            outcome.ours = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA224, message as CFData, nil) as Data?
            if let raw = SecKeyCreateSignature(key, .ecdsaSignatureMessageRFC4754SHA224, message as CFData, nil) {
                outcome.rfc4754Verifies = SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageRFC4754SHA224, message as CFData, raw, nil)
                    && !SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message as CFData, raw, nil)
            }
            let forms: [String: SecKeyAlgorithm] = [
                "SHA224": .eciesEncryptionStandardX963SHA224AESGCM, "SHA224-cofactor": .eciesEncryptionCofactorX963SHA224AESGCM,
                "SHA224-variableIV": .eciesEncryptionStandardVariableIVX963SHA224AESGCM,
                "SHA224-variableIV-cofactor": .eciesEncryptionCofactorVariableIVX963SHA224AESGCM,
            ]
            for (name, algorithm) in forms {
                if let sealed = SecKeyCreateEncryptedData(publicKey, algorithm, message as CFData, nil) as Data? {
                    outcome.ciphertexts[name] = sealed.base64EncodedString()
                }
            }
            let peer = P256.KeyAgreement.PrivateKey()
            outcome.peerPublicKey = peer.publicKey.x963Representation
            let peerKey = SecKeyCreateWithData(outcome.peerPublicKey as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                                                 kSecAttrKeyClass as String: kSecAttrKeyClassPublic] as CFDictionary, nil)
            let parameters: [String: Any] = [kSecKeyKeyExchangeParameterRequestedSize as String: 40,
                                             kSecKeyKeyExchangeParameterSharedInfo as String: Data("info".utf8)]
            for algorithm in [SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA224, .ecdhKeyExchangeCofactorX963SHA224] {
                if let peerKey, let derived = SecKeyCopyKeyExchangeResult(key, algorithm, peerKey, parameters as CFDictionary, nil) as Data? {
                    outcome.derived[algorithm.identifier] = derived.base64EncodedString()
                }
            }
            return outcome
        }
        #expect(outcome.supported == Array(repeating: true, count: 8))
        #expect(outcome.verifiesTheirs)
        #expect(outcome.rfc4754Verifies)
        let ours = try #require(outcome.ours)
        let verified = try IndependentKeyCheck.run(["ec-verify"], input: [
            "publicKey": privateBytes.prefix(65).base64EncodedString(), "message": message.base64EncodedString(),
            "signatures": ["SHA224": ours.base64EncodedString(), "SHA256": ours.base64EncodedString()],
        ])
        #expect(verified["SHA224"] as? Bool == true)
        #expect(verified["SHA256"] as? Bool == false)

        // pyca opens each ECIES form (on P-256 the cofactor form is the standard one).
        try #require(outcome.ciphertexts.count == 4)
        var sent = outcome.ciphertexts
        sent["SHA256"] = outcome.ciphertexts["SHA224"]  // a SHA-224 ciphertext does not open as SHA-256's
        let opened = try IndependentKeyCheck.run(["ec-open"], input: ["privateKey": privateBytes.base64EncodedString(), "ciphertexts": sent])
        for name in outcome.ciphertexts.keys {
            #expect(try IndependentKeyCheck.bytes(opened[name]) == message, "\(name)")
        }
        #expect(opened["SHA256"] is NSNull)

        let derived = try IndependentKeyCheck.run(["ec-x963"], input: [
            "privateKey": privateBytes.base64EncodedString(), "peerPublicKey": outcome.peerPublicKey.base64EncodedString(),
            "sharedInfo": Data("info".utf8).base64EncodedString(), "size": 40,
        ])
        let expected = try IndependentKeyCheck.bytes(derived["SHA224"])
        #expect(expected.count == 40)
        #expect(outcome.derived[SecKeyAlgorithm.ecdhKeyExchangeStandardX963SHA224.identifier].flatMap { Data(base64Encoded: $0) } == expected)
        #expect(outcome.derived[SecKeyAlgorithm.ecdhKeyExchangeCofactorX963SHA224.identifier].flatMap { Data(base64Encoded: $0) } == expected)
        #expect(try IndependentKeyCheck.bytes(derived["SHA256"]) != expected)
    }
}
#endif
