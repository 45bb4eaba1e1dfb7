import Crypto
import Foundation
import Testing

/// A device's signing key, as an app would hold it in the Secure Enclave.
struct P256Key: Sendable {
    /// The private key's raw bytes (`P256.Signing.PrivateKey` is not `Sendable`).
    let raw = P256.Signing.PrivateKey().rawRepresentation

    var privateKey: P256.Signing.PrivateKey {
        get throws { try P256.Signing.PrivateKey(rawRepresentation: raw) }
    }

    var publicKeyBase64: String {
        ((try? privateKey.publicKey.x963Representation) ?? Data()).base64EncodedString()
    }

    /// The DER signature over the decoded challenge, base64.
    func sign(_ challengeBase64: String) throws -> String {
        let challenge = try #require(Data(base64Encoded: challengeBase64))
        return try privateKey.signature(for: challenge).derRepresentation.base64EncodedString()
    }
}
