// libFuzzer target: DER X.509 certificates through both readers — App Attest's
// (`Certificate`, with the chain check) and `SecCertificateCreateWithData` with every
// accessor, a trust evaluation (the system's roots, then itself as anchor) and a keychain
// round trip (the keychain derives attributes from the certificate).
import Foundation
import FuzzSupport
import Security
import TouchstoneAppAttest
import TouchstoneAppAttestFormat
import TouchstoneTesting

writeSeedsIfAsked {
    let device = try TestDevice()
    let appAttest = device.authenticator.appAttest
    let keyID = try appAttest.generateKey()
    let attestation = try AttestationObject(decoding: appAttest.attestKey(keyID, clientDataHash: Data(repeating: 1, count: 32)))
    return [try appAttest.testRoot().derEncoded] + attestation.certificates
}

fuzz { input in
    let der = input.rest()
    if let certificate = try? Certificate(derEncoded: der) {
        precondition(certificate.derEncoded == der)
        _ = certificate.extensionValue(AppAttestDerivation.nonceExtensionOID)
        _ = certificate.pem
        _ = try? CertificateChain.validate(leaf: certificate, intermediates: [], roots: [certificate], at: certificate.notBefore)
    }
    guard let secCertificate = SecCertificateCreateWithData(nil, der as CFData) else { return }
    _ = SecCertificateCopyData(secCertificate)
    _ = SecCertificateCopySubjectSummary(secCertificate)
    var commonName: CFString?
    _ = SecCertificateCopyCommonName(secCertificate, &commonName)
    var emails: CFArray?
    _ = SecCertificateCopyEmailAddresses(secCertificate, &emails)
    _ = SecCertificateCopyKey(secCertificate)
    _ = SecCertificateCopySerialNumberData(secCertificate, nil)
    _ = SecCertificateCopyNormalizedIssuerSequence(secCertificate)
    _ = SecCertificateCopyNormalizedSubjectSequence(secCertificate)
    // A trust of it as its own anchor, under the SSL policy: every check reads its fields.
    var trust: SecTrust?
    if SecTrustCreateWithCertificates([secCertificate, secCertificate] as CFArray, SecPolicyCreateSSL(true, "fuzz.example" as CFString), &trust) == errSecSuccess,
       let trust {
        _ = SecTrustEvaluateWithError(trust, nil)
        SecTrustSetAnchorCertificates(trust, [secCertificate] as CFArray)
        _ = SecTrustEvaluateWithError(trust, nil)
        precondition(SecTrustGetCertificateCount(trust) >= 1)
    }
    // The keychain's attributes of a certificate come from its fields.
    let add: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecValueRef as String: secCertificate,
                              kSecAttrLabel as String: "fuzz"]
    var added: CFTypeRef?
    if SecItemAdd(add as CFDictionary, &added) == errSecSuccess {
        let query: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "fuzz",
                                    kSecReturnAttributes as String: true, kSecReturnRef as String: true,
                                    kSecMatchLimit as String: kSecMatchLimitAll]
        var found: CFTypeRef?
        _ = SecItemCopyMatching(query as CFDictionary, &found)
        let status = SecItemDelete([kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "fuzz"] as CFDictionary)
        precondition(status == errSecSuccess, "the certificate just added could not be deleted: \(status)")
    }
}
