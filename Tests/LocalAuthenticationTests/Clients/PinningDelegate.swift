#if !canImport(Darwin)
import CryptoKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Security

// Client code in the style of apps that pin their server's public key in a URLSession delegate
// (our own code, as such delegates are written): the server-trust challenge, the SSL policy for
// the host, SecTrustEvaluateWithError, then the SHA-256 of a key in the chain against a pinned
// set. Only the FoundationNetworking import is Linux's.

/// Accepts a server only when the system trusts its chain and a key in it is pinned.
final class PinningDelegate: NSObject, URLSessionDelegate, @unchecked Sendable {
    /// Base64 SHA-256 digests of pinned keys' external representations.
    let pinnedKeyHashes: Set<String>
    /// Extra roots to trust (a private CA), or none for the system's.
    let anchors: [SecCertificate]

    init(pinnedKeyHashes: Set<String>, anchors: [SecCertificate] = []) {
        self.pinnedKeyHashes = pinnedKeyHashes
        self.anchors = anchors
    }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let serverTrust = challenge.protectionSpace.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        if accepts(serverTrust, host: challenge.protectionSpace.host) {
            completionHandler(.useCredential, URLCredential(trust: serverTrust))
        } else {
            completionHandler(.cancelAuthenticationChallenge, nil)
        }
    }

    /// Whether `trust` holds for `host` and pins one of our keys.
    func accepts(_ trust: SecTrust, host: String) -> Bool {
        SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
        if !anchors.isEmpty {
            SecTrustSetAnchorCertificates(trust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, false)
        }
        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error) else {
            print("pinning: \(error?.localizedDescription ?? "not trusted")")
            return false
        }
        guard let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate] else { return false }
        return chain.contains { certificate in
            guard let key = SecCertificateCopyKey(certificate),
                  let data = SecKeyCopyExternalRepresentation(key, nil) as Data? else { return false }
            return pinnedKeyHashes.contains(Data(SHA256.hash(data: data)).base64EncodedString())
        }
    }

    /// The pin of `certificate`'s key, as the app's configuration lists it.
    static func pin(of certificate: SecCertificate) -> String? {
        guard let key = SecCertificateCopyKey(certificate),
              let data = SecKeyCopyExternalRepresentation(key, nil) as Data? else { return nil }
        return Data(SHA256.hash(data: data)).base64EncodedString()
    }
}
#endif
