#if !canImport(Darwin)
import Foundation
import Logging

/// The system's trusted roots, what a ``SecTrust`` trusts besides its custom anchors: the
/// certificates of the PEM bundle `SSL_CERT_FILE` names, else Debian's and Ubuntu's
/// `/etc/ssl/certs/ca-certificates.crt` (the `ca-certificates` package), else Fedora's
/// `/etc/pki/tls/certs/ca-bundle.crt`. Read once, at the first evaluation that needs them; a
/// bundle that cannot be read gives no anchors (and a debug log line), so nothing chains to a
/// system root.
enum SystemAnchors {
    static let bundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]

    static let certificates: [SecCertificate] = {
        let environment = ProcessInfo.processInfo.environment["SSL_CERT_FILE"].map { [$0] } ?? []
        for path in environment + bundles {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            return certificates(pem: text)
        }
        LocalAuthenticationSystem.callLogger.withLock { $0 }.debug("no system certificate bundle could be read", metadata: [
            "tried": .string((environment + bundles).joined(separator: ", ")),
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
