#if !canImport(Darwin)
import Foundation
import Logging

/// The system's trusted roots, what a ``SecTrust`` trusts besides its custom anchors: the
/// certificates of the PEM bundle `SSL_CERT_FILE` names when it is set (that file alone), else
/// Debian's and Ubuntu's `/etc/ssl/certs/ca-certificates.crt` (the `ca-certificates` package),
/// else Fedora's `/etc/pki/tls/certs/ca-bundle.crt`. Read once, at the first evaluation that
/// needs them; a bundle that cannot be read gives no anchors (and a warning in the log), so
/// nothing chains to a system root: a missing file never widens what is trusted.
enum SystemAnchors {
    static let bundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]

    static let certificates: [SecCertificate] = {
        let named = ProcessInfo.processInfo.environment["SSL_CERT_FILE"].flatMap { $0.isEmpty ? nil : [$0] }
        let paths = named ?? bundles
        for path in paths {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            return certificates(pem: text)
        }
        LocalAuthenticationSystem.callLogger.withLock { $0 }.warning("no system certificate bundle could be read: SecTrust trusts custom anchors only", metadata: [
            "tried": .string(paths.joined(separator: ", ")),
        ])
        return []
    }()

    /// The certificates of a PEM text, in order; a block that is not a certificate is skipped.
    static func certificates(pem: String) -> [SecCertificate] {
        var found: [SecCertificate] = []
        var base64: String?
        for line in pem.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "-----BEGIN CERTIFICATE-----" {
                base64 = ""
            } else if trimmed == "-----END CERTIFICATE-----" {
                if let text = base64, let der = Data(base64Encoded: text),
                   let certificate = SecCertificateCreateWithData(nil, der as CFData) {
                    found.append(certificate)
                }
                base64 = nil
            } else if base64 != nil {
                base64?.append(trimmed)
            }
        }
        return found
    }
}
#endif
