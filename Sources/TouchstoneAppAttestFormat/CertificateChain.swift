import Foundation

/// RFC 5280 path validation for App Attest's chains (§6.1, for the subset of X.509 that
/// ``Certificate`` reads): from a leaf through intermediates to a trusted root.
///
/// At each step: the issuer's subject is the certificate's issuer and its key verifies the
/// signature; every certificate, the root too, is valid at the given time; every issuer is a
/// CA (basicConstraints cA, keyUsage keyCertSign when present) whose path length allows the
/// certificates below it; no certificate has a critical extension this reader does not know;
/// the leaf, when it has keyUsage, has digitalSignature. A root is trusted as a whole
/// certificate (its DER bytes), not by name.
public enum CertificateChain {
    /// The most certificates a path may hold, root included.
    public static let maximumLength = 5

    private static let knownCritical: Set<[UInt]> = [
        Certificate.Extension.basicConstraintsOID, Certificate.Extension.keyUsageOID,
    ]

    /// The path from `leaf` to one of `roots` through `intermediates`, leaf first and root
    /// last; throws the first reason no path holds.
    public static func validate(
        leaf: Certificate, intermediates: [Certificate], roots: [Certificate], at time: Date
    ) throws(AppAttestFormatError) -> [Certificate] {
        try checkValidity(leaf, at: time)
        try checkCritical(leaf)
        if let usage = try keyUsage(leaf), usage & 0x80 == 0 {
            throw AppAttestFormatError("the leaf certificate's keyUsage lacks digitalSignature")
        }
        var path = [leaf]
        var failure = AppAttestFormatError("no trusted root issued the chain")
        while path.count < maximumLength, let current = path.last {
            // A trusted root that signed the current certificate ends the path.
            for root in roots where root.subject == current.issuer {
                do {
                    try checkIssuer(root, of: current, below: path.count - 1, at: time)
                    return path + [root]
                } catch {
                    failure = error
                }
            }
            guard let issuer = intermediates.first(where: { $0.subject == current.issuer && !path.contains($0) }) else {
                throw failure
            }
            try checkIssuer(issuer, of: current, below: path.count - 1, at: time)
            path.append(issuer)
        }
        throw AppAttestFormatError("the chain is longer than \(maximumLength) certificates")
    }

    /// Checks that `issuer` may have issued `certificate` with `below` intermediates under it.
    private static func checkIssuer(_ issuer: Certificate, of certificate: Certificate, below: Int, at time: Date) throws(AppAttestFormatError) {
        guard issuer.publicKey.isValidSignature(certificate.signature, for: certificate.tbsBytes, algorithm: certificate.signatureAlgorithm) else {
            throw AppAttestFormatError("a certificate's signature does not verify under its issuer's key")
        }
        try checkValidity(issuer, at: time)
        try checkCritical(issuer)
        guard let constraints = try basicConstraints(issuer), constraints.isCA else {
            throw AppAttestFormatError("an issuing certificate is not a CA (basicConstraints)")
        }
        if let pathLength = constraints.pathLength, below > pathLength {
            throw AppAttestFormatError("an issuing certificate's path length \(pathLength) is exceeded")
        }
        if let usage = try keyUsage(issuer), usage & 0x04 == 0 {
            throw AppAttestFormatError("an issuing certificate's keyUsage lacks keyCertSign")
        }
    }

    private static func checkValidity(_ certificate: Certificate, at time: Date) throws(AppAttestFormatError) {
        guard certificate.notBefore <= time, time <= certificate.notAfter else {
            throw AppAttestFormatError("a certificate is valid from \(certificate.notBefore) to \(certificate.notAfter), not at \(time)")
        }
    }

    private static func checkCritical(_ certificate: Certificate) throws(AppAttestFormatError) {
        if let unknown = certificate.extensions.first(where: { $0.critical && !knownCritical.contains($0.oid) }) {
            throw AppAttestFormatError("a certificate has a critical extension \(unknown.oid.map(String.init).joined(separator: ".")) this verifier does not know")
        }
    }

    /// basicConstraints, or nil when absent.
    private static func basicConstraints(_ certificate: Certificate) throws(AppAttestFormatError) -> (isCA: Bool, pathLength: Int?)? {
        guard let value = certificate.extensionValue(Certificate.Extension.basicConstraintsOID) else { return nil }
        do {
            return try Certificate.Extension.readBasicConstraints(value)
        } catch {
            throw AppAttestFormatError("a basicConstraints extension is malformed")
        }
    }

    /// keyUsage's first byte of bits, or nil when absent.
    private static func keyUsage(_ certificate: Certificate) throws(AppAttestFormatError) -> UInt8? {
        guard let value = certificate.extensionValue(Certificate.Extension.keyUsageOID) else { return nil }
        do {
            return try Certificate.Extension.readKeyUsage(value).first ?? 0
        } catch {
            throw AppAttestFormatError("a keyUsage extension is malformed")
        }
    }
}
