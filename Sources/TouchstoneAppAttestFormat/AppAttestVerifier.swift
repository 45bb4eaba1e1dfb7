import Crypto
import Foundation
import SwiftASN1

/// Checks App Attest attestations and assertions as a server does, in the order of Apple's
/// "Validating apps that connect to your server" (REFERENCE §12). Give it the roots it trusts:
/// Apple's App Attest root in production, a Touchstone device's test root in tests.
///
/// ```swift
/// let verifier = try AppAttestVerifier(appID: "TOUCHSTONE.com.example.app", environment: .development, trustedRootsPEM: [rootPEM])
/// let key = try verifier.verifyAttestation(attestation, keyID: keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
/// // store key.publicKey, key.counter (0), key.receipt
/// let counter = try verifier.verifyAssertion(assertion, clientDataHash: Data(SHA256.hash(data: challenge2)),
///                                            publicKey: key.publicKey, previousCounter: key.counter)
/// ```
public struct AppAttestVerifier: Sendable {
    /// The App ID attestations must be for: `<team id>.<bundle id>`.
    public var appID: String
    /// The environment whose aaguid attestations must carry.
    public var environment: AppAttestEnvironment
    /// The roots a credential certificate's chain may end in.
    public var trustedRoots: [Certificate]

    /// A verifier for `appID` trusting `trustedRoots`, accepting attestations of `environment`
    /// only (no default: a server that forgot it must not accept development builds).
    public init(appID: String, environment: AppAttestEnvironment, trustedRoots: [Certificate]) {
        self.appID = appID
        self.environment = environment
        self.trustedRoots = trustedRoots
    }

    /// A verifier trusting the roots in PEM text (each may hold several certificates).
    public init(appID: String, environment: AppAttestEnvironment, trustedRootsPEM: [String]) throws(AppAttestFormatError) {
        var roots: [Certificate] = []
        for text in trustedRootsPEM { roots += try Certificate.certificates(pem: text) }
        self.init(appID: appID, environment: environment, trustedRoots: roots)
    }

    /// A key that passed attestation: what the server keeps.
    public struct AttestedKey: Sendable {
        /// The key id (32 bytes; apps send it in base64).
        public let keyID: Data
        /// The key's public half, X9.63 (65 bytes).
        public let publicKey: Data
        /// The counter in the attestation (0); the first assertion must be above it.
        public let counter: UInt32
        /// The receipt, for Apple's fraud-metric service.
        public let receipt: Data
    }

    /// Verifies an attestation object for the key `keyID` (32 bytes, or use
    /// ``keyID(base64:)``) and the `clientDataHash` the app passed to `attestKey` (SHA-256 of
    /// the server's one-time challenge), at `now` (certificate validity). Returns the key.
    public func verifyAttestation(
        _ attestation: Data, keyID: Data, clientDataHash: Data, now: Date = Date()
    ) throws(AppAttestVerificationError) -> AttestedKey {
        let object: AttestationObject
        do {
            object = try AttestationObject(decoding: attestation)
        } catch {
            throw AppAttestVerificationError(.malformed, error.description)
        }
        // 1. The chain from the credential certificate to a trusted root.
        var chain: [Certificate] = []
        do {
            for der in object.certificates { chain.append(try Certificate(derEncoded: der)) }
        } catch {
            throw AppAttestVerificationError(.malformed, "attStmt.x5c: \(error)")
        }
        guard let credentialCertificate = chain.first else { throw AppAttestVerificationError(.malformed, "attStmt.x5c is empty") }
        do {
            _ = try CertificateChain.validate(leaf: credentialCertificate, intermediates: Array(chain.dropFirst()), roots: trustedRoots, at: now)
        } catch {
            throw AppAttestVerificationError(.untrustedChain, "the credential certificate does not chain to a trusted App Attest root: \(error)")
        }
        // 2-4. The nonce in the credential certificate's extension.
        let nonce = AppAttestDerivation.nonce(authenticatorData: object.authenticatorData, clientDataHash: clientDataHash)
        guard let extensionValue = credentialCertificate.extensionValue(AppAttestDerivation.nonceExtensionOID)
        else { throw AppAttestVerificationError(.nonceMismatch, "the credential certificate has no nonce extension (1.2.840.113635.100.8.2)") }
        guard Self.nonce(inExtension: extensionValue) == nonce else {
            throw AppAttestVerificationError(.nonceMismatch, "the nonce extension does not hold SHA-256(authData ‖ clientDataHash): another challenge or altered authData")
        }
        // 5. The key id is the SHA-256 of the credential certificate's public key.
        guard let publicKey = credentialCertificate.publicKey.p256 else {
            throw AppAttestVerificationError(.keyIDMismatch, "the credential certificate's key is not a P-256 key")
        }
        guard AppAttestDerivation.keyID(of: publicKey) == keyID else {
            throw AppAttestVerificationError(.keyIDMismatch, "SHA-256 of the credential certificate's public key is not the key id")
        }
        let authenticatorData: AuthenticatorData
        do {
            authenticatorData = try AuthenticatorData(parsing: object.authenticatorData, as: .attestation)
        } catch {
            throw AppAttestVerificationError(.malformed, error.description)
        }
        // 6. The App ID.
        guard authenticatorData.rpIDHash == AppAttestDerivation.rpIDHash(appID: appID) else {
            throw AppAttestVerificationError(.appIDMismatch, "the rpIdHash is not SHA-256 of \(appID)")
        }
        // 7. The counter starts at 0.
        guard authenticatorData.counter == 0 else {
            throw AppAttestVerificationError(.counterMismatch, "an attestation's counter is 0, not \(authenticatorData.counter)")
        }
        guard let credential = authenticatorData.credential else {
            throw AppAttestVerificationError(.malformed, "the authenticator data has no attested credential data")
        }
        // 8. The environment.
        guard credential.aaguid == environment.aaguid else {
            let found = AppAttestEnvironment(aaguid: credential.aaguid).map(\.rawValue) ?? "unknown"
            throw AppAttestVerificationError(.environmentMismatch, "the aaguid is \(found)'s, not \(environment.rawValue)'s")
        }
        // 9. The credential id is the key id; its COSE key is the certificate's (our extra check).
        guard credential.credentialID == keyID else {
            throw AppAttestVerificationError(.keyIDMismatch, "the credential id is not the key id")
        }
        guard credential.publicKey == publicKey.x963Representation else {
            throw AppAttestVerificationError(.keyIDMismatch, "the credential public key is not the credential certificate's")
        }
        return AttestedKey(keyID: keyID, publicKey: publicKey.x963Representation, counter: authenticatorData.counter, receipt: object.receipt)
    }

    /// Verifies an assertion by `publicKey` over `clientDataHash` (SHA-256 of the client data
    /// the app passed to `generateAssertion`); returns the new counter to store, which is above
    /// `previousCounter` (a counter that does not grow is a cloned key or a replay).
    /// `publicKey` is the attested key's X9.63 form (``AttestedKey/publicKey``).
    public func verifyAssertion(
        _ assertion: Data, clientDataHash: Data, publicKey: Data, previousCounter: UInt32
    ) throws(AppAttestVerificationError) -> UInt32 {
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: publicKey) else {
            throw AppAttestVerificationError(.malformed, "the stored public key is not a P-256 point")
        }
        let object: AssertionObject
        let authenticatorData: AuthenticatorData
        do {
            object = try AssertionObject(decoding: assertion)
            authenticatorData = try AuthenticatorData(parsing: object.authenticatorData, as: .assertion)
        } catch {
            throw AppAttestVerificationError(.malformed, error.description)
        }
        let nonce = AppAttestDerivation.nonce(authenticatorData: object.authenticatorData, clientDataHash: clientDataHash)
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: object.signature),
              publicKey.isValidSignature(signature, for: nonce)
        else { throw AppAttestVerificationError(.badSignature, "the signature is not the key's over SHA-256(authenticatorData ‖ clientDataHash)") }
        guard authenticatorData.rpIDHash == AppAttestDerivation.rpIDHash(appID: appID) else {
            throw AppAttestVerificationError(.appIDMismatch, "the rpIdHash is not SHA-256 of \(appID)")
        }
        guard authenticatorData.counter > previousCounter else {
            throw AppAttestVerificationError(.counterMismatch, "the counter \(authenticatorData.counter) is not above the stored \(previousCounter): a cloned key or a replay")
        }
        return authenticatorData.counter
    }

    /// The 32 bytes of a key id an app sends in base64, or nil.
    public static func keyID(base64 text: String) -> Data? {
        guard let data = Data(base64Encoded: text), data.count == 32 else { return nil }
        return data
    }

    /// The octet string of the nonce extension (`SEQUENCE { [1] EXPLICIT OCTET STRING }`).
    static func nonce(inExtension value: [UInt8]) -> Data? {
        do {
            let node = try DER.parse(value)
            return try DER.sequence(node, identifier: .sequence) { nodes in
                try DER.explicitlyTagged(&nodes, tagNumber: 1, tagClass: .contextSpecific) { node in
                    Data(try ASN1OctetString(derEncoded: node).bytes)
                }
            }
        } catch {
            return nil
        }
    }
}

/// Why an attestation or an assertion was refused: the step that failed, and how.
public struct AppAttestVerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The check that failed.
    public enum Step: String, Sendable, Equatable {
        /// Not the format (CBOR, certificates, authenticator data).
        case malformed
        /// The certificate chain does not end in a trusted root, or a certificate is not valid now.
        case untrustedChain
        /// The nonce extension does not match the authenticator data and client data hash.
        case nonceMismatch
        /// The key id, credential id and certificate key do not agree.
        case keyIDMismatch
        /// The rpIdHash is not the App ID's.
        case appIDMismatch
        /// The counter is not 0 (attestation) or not above the stored one (assertion).
        case counterMismatch
        /// The aaguid is not the expected environment's.
        case environmentMismatch
        /// The assertion's signature does not verify.
        case badSignature
    }

    /// The check that failed.
    public let step: Step
    /// What was found.
    public let detail: String

    /// An error at `step`.
    public init(_ step: Step, _ detail: String) {
        self.step = step
        self.detail = detail
    }

    public var description: String { "\(step.rawValue): \(detail)" }
}
