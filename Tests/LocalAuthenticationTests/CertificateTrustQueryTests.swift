#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
@testable import TouchstoneSecurity
import TouchstoneTesting

/// `kSecMatchPolicy` and `kSecMatchTrustedOnly` in certificate queries, as iOS's securityd
/// filters with them (`SecItemServer.c`: `_FilterWithPolicy`, `_FilterWithTrust`), over chains
/// scripts/trust-check.py makes.
@Suite("Certificate queries by policy and trust")
struct CertificateTrustQueryTests {
    @Test("kSecMatchPolicy keeps the certificates that satisfy it alone (SSL: the certificate itself names the host and is valid at kSecMatchValidOnDate or now, no anchor needed; basic X.509: it chains to a system root); kSecMatchTrustedOnly keeps those trusted on their own; anything but a SecPolicy is errSecParam")
    func policyAndTrustFilterCertificates() async throws {
        let (valid, time) = try SecTrustTests.testCase("valid")
        let expired = try SecTrustTests.testCase("expired").0.certificates[0]
        let wildcard = try SecTrustTests.testCase("wildcard").0.certificates[0]
        let now = Date()
        let systemRoot = try #require(SystemAnchors.certificates.first { $0.certificate.notBefore < now && now < $0.certificate.notAfter },
                                      "no system roots: install ca-certificates (scripts/install-deps.sh does)")
        // Each stored certificate by a letter: valid, expired, wildcard, root.
        let named: [(String, SecCertificate)] = [("v", valid.certificates[0]), ("e", expired), ("w", wildcard), ("r", systemRoot)]
        let thenValid = time.addingTimeInterval(-300 * 86_400)  // the expired leaf's time, before the others'
        let device = try TestDevice()
        let found = await device.blocking { () -> [String] in
            for (_, certificate) in named {
                _ = SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as CFDictionary, nil)
            }
            func letters(_ extra: [String: Any]) -> String {
                let query: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecReturnRef as String: true,
                                            kSecMatchLimit as String: kSecMatchLimitAll]
                var result: CFTypeRef?
                let status = SecItemCopyMatching(query.merging(extra) { $1 } as CFDictionary, &result)
                guard status == errSecSuccess else { return "\(status)" }
                return ((result as? [SecCertificate]) ?? []).map { certificate in named.first { $0.1 == certificate }?.0 ?? "?" }.joined()
            }
            return [
                letters([kSecMatchPolicy as String: SecPolicyCreateSSL(true, "www.example.test" as CFString)]),
                letters([kSecMatchPolicy as String: SecPolicyCreateSSL(true, "api.example.test" as CFString)]),
                letters([kSecMatchPolicy as String: SecPolicyCreateSSL(true, "www.example.test" as CFString), kSecMatchValidOnDate as String: thenValid]),
                letters([kSecMatchPolicy as String: SecPolicyCreateBasicX509()]),
                letters([kSecMatchTrustedOnly as String: true]),
                letters([kSecMatchTrustedOnly as String: false]),
                letters([kSecMatchPolicy as String: "policy"]),
            ]
        }
        #expect(found == ["vw", "w", "e", "r", "r", "vewr", "\(errSecParam)"])
    }
}
#endif
