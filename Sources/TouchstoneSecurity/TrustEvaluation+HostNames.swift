#if !canImport(Darwin)
import Foundation

/// The SSL policy's host name match.
extension TrustEvaluation {
    /// Whether `certificate` names `hostname`, as trustd matches it
    /// (`SecPolicyCheckCertSSLHostname`): first among its subjectAltName dNSName entries that
    /// read as DNS names (``SecCertificate/isDNSName(_:)``), without case, the host's final dot
    /// dropped, label for label, where a whole first label `*` stands for one label in a name of
    /// three or more; then, when the host reads as an IP address (``ipAddress(_:)``), among its
    /// iPAddress entries, byte for byte. The subject's common name is not read (iOS 13 stopped
    /// trusting it), and an empty host names nothing.
    static func names(_ certificate: SecCertificate, _ hostname: String) -> Bool {
        let host = (hostname.hasSuffix(".") ? String(hostname.dropLast()) : hostname).lowercased()
            .split(separator: ".", omittingEmptySubsequences: false)
        let named = certificate.certificate.alternativeDNSNames.filter(SecCertificate.isDNSName).contains { name in
            let pattern = name.lowercased().split(separator: ".", omittingEmptySubsequences: false)
            guard pattern.count == host.count else { return false }
            if pattern.first == "*" {
                return pattern.count >= 3 && !host[0].isEmpty && pattern.dropFirst() == host.dropFirst()
            }
            return pattern == host
        }
        if named { return true }
        guard let address = ipAddress(hostname) else { return false }
        return certificate.certificate.trust.ipAddresses.contains(address)
    }

    /// `text`'s bytes as an IP address, as Apple's `convertIPAddress` reads one: IPv4 as four
    /// decimal parts of at most 255 (leading zeros allowed: "010.0.0.1" is 10.0.0.1), IPv6 as
    /// `inet_pton` reads it, in brackets or not ("[::1]"); nil for anything else (a name, a
    /// zone index).
    static func ipAddress(_ text: String) -> Data? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4 {
            let bytes = parts.compactMap { part -> UInt8? in
                guard (1...3).contains(part.count), part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber) else { return nil }
                return UInt8(part)
            }
            return bytes.count == 4 ? Data(bytes) : nil
        }
        var unbracketed = Substring(text)
        if unbracketed.hasPrefix("["), unbracketed.hasSuffix("]") { unbracketed = unbracketed.dropFirst().dropLast() }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, String(unbracketed), &v6) == 1 else { return nil }
        return withUnsafeBytes(of: &v6) { Data($0) }
    }
}
#endif
