#if !canImport(Darwin)
import Foundation

/// A trust policy, what a certificate is checked for: basic X.509 (`SecPolicyCreateBasicX509`),
/// SSL (`SecPolicyCreateSSL`) or revocation (`SecPolicyCreateRevocation`). A ``SecTrust``
/// checks its certificates against its policies, and a certificate query's `kSecMatchPolicy`
/// keeps the certificates that satisfy one on their own.
public final class SecPolicy: Sendable, Hashable, CustomStringConvertible {
    /// Apple's object identifier of the policy (`kSecPolicyAppleX509Basic`, `kSecPolicyAppleSSL`).
    let oid: String
    /// For SSL: whether the policy checks a server's certificate (false: a client's).
    let server: Bool?
    /// For SSL: the host name a server certificate must name.
    let hostname: String?
    /// For revocation: the `kSecRevocation…` flags.
    let revocationFlags: CFOptionFlags?

    init(oid: String, server: Bool? = nil, hostname: String? = nil, revocationFlags: CFOptionFlags? = nil) {
        self.oid = oid
        self.server = server
        self.hostname = hostname
        self.revocationFlags = revocationFlags
    }

    /// Equal when the kind, side and host name are.
    public static func == (lhs: SecPolicy, rhs: SecPolicy) -> Bool {
        lhs.oid == rhs.oid && lhs.server == rhs.server && lhs.hostname == rhs.hostname && lhs.revocationFlags == rhs.revocationFlags
    }

    /// Hashes the kind, side and host name.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(oid)
        hasher.combine(server)
        hasher.combine(hostname)
        hasher.combine(revocationFlags)
    }

    /// `<SecPolicy: oid: … name: …>`.
    public var description: String { "<SecPolicy: oid: \(oid) name: \(hostname ?? "")>" }
}

/// `SecPolicyCopyProperties`' key of the policy's object identifier.
nonisolated(unsafe) public let kSecPolicyOid: CFString = "SecPolicyOid"
/// `SecPolicyCopyProperties`' key of an SSL policy's host name.
nonisolated(unsafe) public let kSecPolicyName: CFString = "SecPolicyName"
/// `SecPolicyCopyProperties`' key, true for an SSL policy that checks a client.
nonisolated(unsafe) public let kSecPolicyClient: CFString = "SecPolicyClient"
/// The object identifier of the basic X.509 policy.
nonisolated(unsafe) public let kSecPolicyAppleX509Basic: CFString = "1.2.840.113635.100.1.2"
/// The object identifier of the SSL policy.
nonisolated(unsafe) public let kSecPolicyAppleSSL: CFString = "1.2.840.113635.100.1.3"

/// The type identifier of `SecPolicy`.
public func SecPolicyGetTypeID() -> CFTypeID { CFTypeKind.secPolicy.rawValue }

/// The basic X.509 policy.
public func SecPolicyCreateBasicX509() -> SecPolicy {
    SecPolicy(oid: kSecPolicyAppleX509Basic as String)
}

/// The SSL policy for a server's certificate (`server` true) naming `hostname`, or for a
/// client's (`server` false).
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    SecPolicy(oid: kSecPolicyAppleSSL as String, server: server, hostname: hostname.map { $0 as String })
}

/// `SecPolicyCopyProperties`' key of a revocation policy's flags (`kSecRevocation…`).
nonisolated(unsafe) public let kSecPolicyRevocationFlags: CFString = "SecPolicyRevocationFlags"

/// A policy named by its identifier, as Apple's `SecPolicy.c` makes it: `kSecPolicyAppleSSL`
/// (a server's, or with `kSecPolicyClient` true a client's; `kSecPolicyName` the host name,
/// which must be a string), `kSecPolicyAppleX509Basic`, or `kSecPolicyAppleRevocation` (any
/// available method); nil for another identifier.
public func SecPolicyCreateWithProperties(_ policyIdentifier: CFTypeRef, _ properties: CFDictionary?) -> SecPolicy? {
    guard let identifier = policyIdentifier as? String else { return nil }
    let name = properties?.object(forKey: kSecPolicyName as String)
    if name != nil, !(name is String) { return nil }
    if identifier == kSecPolicyAppleSSL as String {
        let client = (properties?.object(forKey: kSecPolicyClient as String) as? Bool) == true
        return SecPolicyCreateSSL(!client, name as? CFString)
    }
    if identifier == kSecPolicyAppleX509Basic as String { return SecPolicyCreateBasicX509() }
    if identifier == kSecPolicyAppleRevocation as String { return SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod) }
    return nil
}

/// The policy's properties: `kSecPolicyOid`, and for SSL `kSecPolicyName` (when a host name
/// was given) and `kSecPolicyClient` (for a client policy).
public func SecPolicyCopyProperties(_ policyRef: SecPolicy) -> CFDictionary? {
    var properties: [String: Any] = [kSecPolicyOid as String: policyRef.oid]
    if let hostname = policyRef.hostname { properties[kSecPolicyName as String] = hostname }
    if policyRef.server == false { properties[kSecPolicyClient as String] = true }
    return properties as NSDictionary
}

/// The object identifier of the revocation policy.
nonisolated(unsafe) public let kSecPolicyAppleRevocation: CFString = "1.2.840.113635.100.1.12"

/// Revocation checking by OCSP (`SecPolicyCreateRevocation`'s flags).
public let kSecRevocationOCSPMethod: CFOptionFlags = 1 << 0
/// Revocation checking by certificate revocation lists.
public let kSecRevocationCRLMethod: CFOptionFlags = 1 << 1
/// With both methods, CRLs first.
public let kSecRevocationPreferCRL: CFOptionFlags = 1 << 2
/// A certificate is trusted only with a positive revocation answer.
public let kSecRevocationRequirePositiveResponse: CFOptionFlags = 1 << 3
/// Only cached revocation answers are used; nothing is fetched.
public let kSecRevocationNetworkAccessDisabled: CFOptionFlags = 1 << 4
/// Any method available (OCSP and CRLs).
public let kSecRevocationUseAnyAvailableMethod: CFOptionFlags = kSecRevocationOCSPMethod | kSecRevocationCRLMethod

/// A revocation policy with `revocationFlags` (`kSecRevocation…`); nil without a flag or with
/// a bit past them. Our limit: no revocation answer is ever fetched or cached here, so the
/// policy changes no evaluation, except that with `kSecRevocationRequirePositiveResponse` a
/// chain is not trusted (errSecIncompleteCertRevocationCheck), as on a device that cannot
/// reach the responder.
public func SecPolicyCreateRevocation(_ revocationFlags: CFOptionFlags) -> SecPolicy? {
    // As Apple's: no flag, or one past the five, is no policy.
    guard revocationFlags != 0, revocationFlags < 1 << 7 else { return nil }
    return SecPolicy(oid: kSecPolicyAppleRevocation as String, revocationFlags: revocationFlags)
}
#endif
