import Crypto
import Foundation
import Testing
import TouchstoneAppAttestFormat

/// Authenticator data as devices write it, beyond what Touchstone's own devices emit: the AT
/// flag set in assertions without credential data (recorded iOS 14 assertions: flags 0x40, 37
/// bytes), and a CBOR map of extensions appended after the rest (Apple's 2026 sample
/// attestation in "Attestation Object Validation Guide": `apple_bundle_version_01`,
/// `apple_validation_category_01`, with the ED flag clear). A server verifying real devices
/// must take both.
@Suite("Authenticator data layouts devices write")
struct AuthenticatorDataLayoutTests {
    static let appID = "ABCDE12345.com.example.app"
    static let clientDataHash = Data(SHA256.hash(data: Data("request".utf8)))
    static let extensions = CBOR.map([(.text("apple_bundle_version_01"), .text("1")),
                                      (.text("apple_validation_category_01"), .bytes(Data([1, 0, 0, 0])))])

    /// An assertion over `authenticatorData` signed by `key`, as a device makes one.
    static func assertion(_ authenticatorData: Data, by key: P256.Signing.PrivateKey) throws -> Data {
        let nonce = AppAttestDerivation.nonce(authenticatorData: authenticatorData, clientDataHash: clientDataHash)
        return AssertionObject(signature: try key.signature(for: nonce).derRepresentation, authenticatorData: authenticatorData).encoded
    }

    @Test("an assertion whose AT flag is set though no credential data follows (as devices write them), one with flags 0 (as earlier Touchstone versions did) and one with an extension map after the counter all verify; the counter is read from each")
    func assertionLayoutsVerify() throws {
        let key = P256.Signing.PrivateKey()
        let verifier = try AppAttestVerifier(appID: Self.appID, environment: .development, trustedRootsPEM: [])
        let rpIDHash = AppAttestDerivation.rpIDHash(appID: Self.appID)
        var counters: [UInt32] = []
        for (flags, extensions, counter) in [(UInt8(0x40), nil, UInt32(1)), (0x00, nil, 2), (0x40, Self.extensions, 3)] as [(UInt8, CBOR?, UInt32)] {
            var data = AuthenticatorData(rpIDHash: rpIDHash, flags: flags, counter: counter)
            data.extensions = extensions
            let assertion = try Self.assertion(data.encoded, by: key)
            counters.append(try verifier.verifyAssertion(assertion, clientDataHash: Self.clientDataHash, publicKey: key.publicKey.x963Representation,
                                                         previousCounter: counter - 1))
            #expect(try AuthenticatorData(parsing: data.encoded, as: .assertion) == data)
        }
        #expect(counters == [1, 2, 3])
    }

    @Test("an attestation's authenticator data with an extension map after the COSE key is read, the map kept and written back the same; bytes after it that are not one CBOR map are refused, by name")
    func attestationExtensionMap() throws {
        let key = P256.Signing.PrivateKey().publicKey
        let credential = AuthenticatorData.AttestedCredential(aaguid: Data("appattestdevelop".utf8), credentialID: AppAttestDerivation.keyID(of: key), publicKey: key)
        var data = AuthenticatorData(rpIDHash: AppAttestDerivation.rpIDHash(appID: Self.appID), flags: 0x40, counter: 0, credential: credential)
        data.extensions = Self.extensions
        let parsed = try AuthenticatorData(parsing: data.encoded, as: .attestation)
        #expect(parsed == data && parsed.extensions == Self.extensions && parsed.encoded == data.encoded)
        #expect {
            _ = try AuthenticatorData(parsing: data.encoded.dropLast(3), as: .attestation)
        } throws: { error in
            "\(error)".contains("are not one CBOR value")
        }
        data.extensions = nil
        #expect {
            _ = try AuthenticatorData(parsing: data.encoded + CBOR.int(7).encoded, as: .attestation)
        } throws: { error in
            "\(error)".contains("are not a CBOR map of extensions")
        }
    }
}
