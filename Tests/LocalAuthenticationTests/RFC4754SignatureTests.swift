#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// The iOS 17 `…RFC4754…` ECDSA algorithms: the same signatures as X9.62, encoded as the raw
/// r || s of RFC 4754 (64 bytes for P-256) instead of DER.
@Suite("RFC 4754 ECDSA (iOS 17): raw r || s signatures")
struct RFC4754SignatureTests {
    static let message = Data("rfc4754-2026".utf8)

    @Test("the RFC 4754 identifiers are Apple's, under the Swift member and the C name alike")
    func identifiersAreApples() {
        let expected: [(SecKeyAlgorithm, String)] = [
            (.ecdsaSignatureDigestRFC4754, "algid:sign:ECDSA:digest-RFC4754"),
            (.ecdsaSignatureDigestRFC4754SHA256, "algid:sign:ECDSA:digest-RFC4754:SHA256"),
            (.ecdsaSignatureMessageRFC4754SHA512, "algid:sign:ECDSA:message-RFC4754:SHA512"),
            (kSecKeyAlgorithmECDSASignatureDigestRFC4754SHA1, "algid:sign:ECDSA:digest-RFC4754:SHA1"),
            (kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA256, "algid:sign:ECDSA:message-RFC4754:SHA256"),
            (kSecKeyAlgorithmECDSASignatureMessageRFC4754SHA224, "algid:sign:ECDSA:message-RFC4754:SHA224"),
        ]
        for (algorithm, identifier) in expected { #expect(algorithm.identifier == identifier) }
    }

    @Test("an RFC 4754 signature is 64 bytes that CryptoKit's P256 rawRepresentation verifies over the named hash or the given digest")
    func signaturesAreRawRS() async throws {
        let sim = try TestDevice(enrolled: [])
        let message = Self.message
        let digest384 = Data(SHA384.hash(data: message))
        let out = await sim.blocking { () -> ([Data], Data, [Bool])? in
            guard let key = KeyAlgorithmTests.makeKey(), let publicKey = SecKeyCopyPublicKey(key) else { return nil }
            let signatures = [
                SecKeyCreateSignature(key, .ecdsaSignatureMessageRFC4754SHA256, message as CFData, nil) as Data?,
                SecKeyCreateSignature(key, .ecdsaSignatureDigestRFC4754SHA384, digest384 as CFData, nil) as Data?,
                SecKeyCreateSignature(key, .ecdsaSignatureDigestRFC4754, digest384 as CFData, nil) as Data?,
            ].compactMap { $0 }
            let supported = [
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageRFC4754SHA256),
                SecKeyIsAlgorithmSupported(publicKey, .verify, .ecdsaSignatureDigestRFC4754SHA512),
                SecKeyIsAlgorithmSupported(key, .sign, .ecdsaSignatureMessageRFC4754SHA224),
            ]
            return (signatures, SecKeyCopyExternalRepresentation(publicKey, nil)! as Data, supported)
        }
        let (signatures, publicBytes, supported) = try #require(out)
        #expect(supported == [true, true, true])
        try #require(signatures.count == 3)
        #expect(signatures.allSatisfy { $0.count == 64 })
        let publicKey = try P256.Signing.PublicKey(x963Representation: publicBytes)
        let sha256 = try P256.Signing.ECDSASignature(rawRepresentation: signatures[0])
        #expect(publicKey.isValidSignature(sha256, for: SHA256.hash(data: message)))
        let sha384 = try P256.Signing.ECDSASignature(rawRepresentation: signatures[1])
        #expect(publicKey.isValidSignature(sha384, for: SHA384.hash(data: message)))
        let anyDigest = try P256.Signing.ECDSASignature(rawRepresentation: signatures[2])
        #expect(publicKey.isValidSignature(anyDigest, for: SHA384.hash(data: message)))
    }

    @Test("SecKeyVerifySignature takes r || s for RFC 4754 and DER for X9.62, and refuses each form under the other (errSecVerifyFailed)")
    func verifyingTakesTheAlgorithmsForm() async throws {
        let sim = try TestDevice(enrolled: [])
        let message = Self.message
        let results = await sim.blocking { () -> [Bool]? in
            guard let key = KeyAlgorithmTests.makeKey(), let publicKey = SecKeyCopyPublicKey(key),
                  let raw = SecKeyCreateSignature(key, .ecdsaSignatureMessageRFC4754SHA256, message as CFData, nil),
                  let der = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, nil) else { return nil }
            var error: Unmanaged<CFError>?
            let rawAsDER = SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, raw, &error)
            let code = (error?.takeRetainedValue() as NSError?)?.code
            return [
                SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message as CFData, raw, nil),
                SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, der, nil),
                !rawAsDER && code == Int(errSecVerifyFailed),
                !SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageRFC4754SHA256, message as CFData, der, nil),
                !SecKeyVerifySignature(publicKey, .ecdsaSignatureMessageRFC4754SHA384, message as CFData, raw, nil),
            ]
        }
        #expect(results == [true, true, true, true, true])
    }
}
#endif
