#if !canImport(Darwin)
import Foundation

/// What a ``SecTrust`` evaluation found: the verdict, the chain it built (leaf first, as far as
/// it got) and, when not trusted, the failure it reports.
struct TrustOutcome: Sendable {
    let result: SecTrustResultType
    let chain: [SecCertificate]
    let failure: TrustFailure?
    /// Every check that failed, those the exceptions cover included (what
    /// `SecTrustCopyExceptions` records).
    let issues: [TrustIssue]
}

/// Why an evaluation did not trust: the status and the sentence of the error
/// `SecTrustEvaluateWithError` gives, as Apple words them ("“example.com” certificate is not
/// trusted"), and the detail of its underlying error.
struct TrustFailure: Sendable, Equatable {
    let status: OSStatus
    let message: String
    let detail: String
}

/// The checks of Apple's `SecPolicyChecks.list` an evaluation makes: each one's name (what
/// an exception lists), kind, status and sentence.
enum TrustCheck: String, Sendable, CaseIterable {
    case anchorTrusted = "AnchorTrusted", missingIntermediate = "MissingIntermediate"
    case temporalValidity = "TemporalValidity", basicConstraints = "BasicConstraints", basicConstraintsCA = "BasicConstraintsCA"
    case pathLength = "BasicConstraintsPathLen"
    case keyUsage = "KeyUsage", criticalExtensions = "CriticalExtensions", weakKeySize = "WeakKeySize", keySize = "KeySize"
    case signatureHashAlgorithms = "SignatureHashAlgorithms", sslHostname = "SSLHostname"
    case extendedKeyUsage = "ExtendedKeyUsage", serverAuthEKU = "ServerAuthEKU"
    case validityPeriodMaximums = "ValidityPeriodMaximums", revocationResponseRequired = "RevocationResponseRequired"

    /// Apple's `SecTrustErrorSubType`, in its priority order: the lowest is reported.
    enum Kind: Int, Comparable, Sendable {
        case keySize = 2, weakHash = 3, compliance = 5, pinning = 6, trust = 7, usage = 8, name = 9, expired = 10

        static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }

        /// A certificate's subject summary as Apple's sentences name it, in curly quotes.
        static func quoted(_ summary: String) -> String { "\u{201C}\(summary)\u{201D}" }

        /// The sentence of `SecFrameworkStrings.h` for this kind, naming the certificate by its
        /// subject `summary` (in curly quotes, but for the pinning sentence, which names the
        /// chain).
        func message(_ summary: String) -> String {
            let certificate = self == .pinning ? summary : Self.quoted(summary)
            return switch self {
            case .keySize: "\(certificate) certificate is using a broken key size"
            case .weakHash: "\(certificate) certificate is using a broken signature algorithm"
            case .compliance: "\(certificate) certificate is not standards compliant"
            case .pinning: "\(certificate) certificates do not meet pinning requirements"
            case .trust: "\(certificate) certificate is not trusted"
            case .usage: "\(certificate) certificate is not permitted for this usage"
            case .name: "\(certificate) certificate name does not match input"
            case .expired: "\(certificate) certificate is expired"
            }
        }
    }

    var kind: Kind {
        switch self {
        case .weakKeySize, .keySize: .keySize
        case .signatureHashAlgorithms: .weakHash
        case .basicConstraints, .basicConstraintsCA, .pathLength, .criticalExtensions, .validityPeriodMaximums: .compliance
        case .revocationResponseRequired: .pinning
        case .anchorTrusted, .missingIntermediate: .trust
        case .keyUsage, .extendedKeyUsage, .serverAuthEKU: .usage
        case .sslHostname: .name
        case .temporalValidity: .expired
        }
    }

    var status: OSStatus {
        switch self {
        case .anchorTrusted: errSecNotTrusted
        case .missingIntermediate: errSecCreateChainFailed
        case .temporalValidity: errSecCertificateExpired
        case .basicConstraints: errSecNoBasicConstraints
        case .basicConstraintsCA: errSecNoBasicConstraintsCA
        case .pathLength: errSecPathLengthConstraintExceeded
        case .keyUsage: errSecInvalidKeyUsageForPolicy
        case .criticalExtensions: errSecUnknownCriticalExtensionFlag
        case .weakKeySize, .keySize: errSecUnsupportedKeySize
        case .signatureHashAlgorithms: errSecInvalidDigestAlgorithm
        case .sslHostname: errSecHostNameMismatch
        case .extendedKeyUsage, .serverAuthEKU: errSecInvalidExtendedKeyUsage
        case .validityPeriodMaximums: errSecCertificateValidityPeriodTooLong
        case .revocationResponseRequired: errSecIncompleteCertRevocationCheck
        }
    }

    /// The check's own sentence (`SecPolicyChecks.list`), for the underlying error.
    var detail: String {
        switch self {
        case .anchorTrusted: "Root is not trusted"
        case .missingIntermediate: "Unable to build chain to root (possible missing intermediate)"
        case .temporalValidity: "Certificate is not temporally valid"
        case .basicConstraints: "Basic constraints are required but missing"
        case .basicConstraintsCA: "Basic constraints do not mark an issuer as a CA"
        case .pathLength: "Path length constraint exceeded"
        case .keyUsage: "Key usage does not match certificate usage"
        case .criticalExtensions: "Found unknown critical extensions"
        case .weakKeySize: "Certificate is using a broken key size"
        case .keySize: "Key size is not permitted for this use"
        case .signatureHashAlgorithms: "Signature hash algorithm is not permitted for this use"
        case .sslHostname: "SSL hostname does not match name(s) in certificate"
        case .extendedKeyUsage, .serverAuthEKU: "Extended key usage does not match certificate usage"
        case .validityPeriodMaximums: "Certificate exceeds maximum temporal validity period"
        case .revocationResponseRequired: "Failed to check revocation"
        }
    }

    /// Whether no override helps (`.fatalTrustFailure`; an exception does not cover it).
    var fatal: Bool { self == .weakKeySize }
}

/// One failed check on one certificate of the chain (0: the leaf).
struct TrustIssue: Sendable, Equatable {
    let check: TrustCheck
    let index: Int
}

extension [TrustIssue] {
    /// The checks that failed on each of `count` certificates, leaf first, in the order found
    /// (what the underlying error, the exceptions and `SecTrustCopyResult`'s details list).
    func checksByCertificate(_ count: Int) -> [[TrustCheck]] {
        var checks = [[TrustCheck]](repeating: [], count: count)
        for issue in self where checks.indices.contains(issue.index) { checks[issue.index].append(issue.check) }
        return checks
    }
}

/// One evaluation of a ``SecTrust``'s settings, as Apple's trustd makes it
/// (`SecPolicyServer.c`): builds the chain from the leaf to an anchor, checking each issuer's
/// signature (a path whose signature fails is dropped), then runs every check of the
/// policies — RFC 5280's on the chain (validity, CA constraints, key usage, critical
/// extensions), basic X.509's weak keys, SSL's host name, extended key usage, key sizes,
/// signature hashes and validity periods — and reports the failure of the lowest kind
/// (``TrustCheck/Kind``), the one nearest the leaf on a tie. Not made here: revocation (nothing is
/// fetched), certificate transparency, the public-suffix rule for wildcards, name
/// constraints, and key-identifier linkage.
struct TrustEvaluation {
    /// The longest chain built, anchor included.
    static let maximumLength = 10

    let certificates: [SecCertificate]
    let policies: [SecPolicy]
    let custom: [SecCertificate]
    let system: [SecCertificate]
    let date: Date
    let exceptions: TrustExceptions?

    init(_ settings: SecTrust.State) {
        certificates = settings.certificates
        policies = settings.policies
        custom = settings.anchors ?? []
        system = settings.anchorsOnly ? [] : SystemAnchors.certificates
        date = settings.verifyDate ?? Date()
        exceptions = settings.exceptions
    }

    /// Whether `certificate` alone satisfies `policy` at `date` (now when nil), as iOS's
    /// securityd filters a keychain query's certificates (`_FilterWithPolicy`): the basic X.509
    /// and revocation policies evaluate its chain to a system root; another policy (SSL) checks
    /// the certificate itself, no anchor needed (`SecTrustEvaluateLeafOnly`).
    static func satisfies(_ certificate: SecCertificate, policy: SecPolicy, at date: Date?) -> Bool {
        var settings = SecTrust.State(certificates: [certificate], policies: [policy])
        settings.verifyDate = date
        let chained = policy.oid == kSecPolicyAppleX509Basic as String || policy.oid == kSecPolicyAppleRevocation as String
        let result = TrustEvaluation(settings).run(leafOnly: !chained).result
        return result == .unspecified || result == .proceed
    }

    /// The evaluation; with `leafOnly`, of the leaf alone against the policies (no chain, no
    /// anchor), as `SecTrustEvaluateLeafOnly`.
    func run(leafOnly: Bool = false) -> TrustOutcome {
        guard let leaf = certificates.first else {
            let failure = TrustFailure(status: errSecParam, message: "no certificate to evaluate", detail: "no certificate to evaluate")
            return TrustOutcome(result: .otherError, chain: [], failure: failure, issues: [])
        }
        let (chain, anchor) = leafOnly ? ([leaf], nil) : buildPath(from: leaf)
        let found = check(chain, anchor: anchor, anchorRequired: !leafOnly)
        // What an exception covers (that check failing on that certificate) is set aside.
        let issues = found.filter { !(exceptions?.covers($0, in: chain) ?? false) }
        // The lowest kind; on a tie the certificate nearest the leaf, then the first check.
        guard let reported = issues.enumerated().min(by: {
            ($0.element.check.kind, $0.element.index, $0.offset) < ($1.element.check.kind, $1.element.index, $1.offset)
        })?.element else {
            return TrustOutcome(result: found.isEmpty ? .unspecified : .proceed, chain: chain, failure: nil, issues: found)
        }
        // The underlying error's text: each certificate with failures, and their checks.
        let detail = issues.checksByCertificate(chain.count).enumerated().filter { !$0.element.isEmpty }.map { index, failed in
            "Certificate \(index) \(quoted(chain[index])) has errors: \(failed.map(\.detail).joined(separator: ", "));"
        }.joined(separator: " ")
        let failure = TrustFailure(status: reported.check.status, message: reported.check.kind.message(chain[reported.index].subjectSummary ?? ""),
                                   detail: detail)
        let result: SecTrustResultType = issues.contains(where: \.check.fatal) ? .fatalTrustFailure : .recoverableTrustFailure
        return TrustOutcome(result: result, chain: chain, failure: failure, issues: found)
    }

    // MARK: The chain

    /// The most issuers path building tries (each a signature check).
    static let maximumSteps = 64

    /// The path from `leaf` up to an anchor, as trustd's path builder finds one: a certificate
    /// that is itself an anchor ends a path; otherwise each certificate that issued the last one
    /// (its normalized subject is the last one's normalized issuer and its key verifies the
    /// signature) is tried, anchors first, then the trust's other certificates in order, depth
    /// first. Of the anchored paths found, the first whose certificates are all valid at the
    /// verify date is taken, else the first; without one, the longest path built, unanchored.
    /// At most ``maximumLength`` certificates a path and ``maximumSteps`` issuers tried.
    private func buildPath(from leaf: SecCertificate) -> (chain: [SecCertificate], anchor: SecCertificate?) {
        let anchors = custom + system
        let candidates = anchors + certificates.dropFirst()
        var longest = [leaf]
        var firstAnchored: [SecCertificate]?
        var validAnchored: [SecCertificate]?
        var steps = 0
        /// Extends `chain`; true once an anchored path valid throughout is found (the search
        /// stops there).
        func extend(_ chain: [SecCertificate]) -> Bool {
            let current = chain[chain.count - 1]
            if anchors.contains(current) {
                if firstAnchored == nil { firstAnchored = chain }
                guard chain.allSatisfy(isValidAtDate) else { return false }
                validAnchored = chain
                return true
            }
            if chain.count > longest.count { longest = chain }
            guard chain.count < Self.maximumLength else { return false }
            for candidate in candidates where candidate.certificate.chainSubject == current.certificate.chainIssuer
                && !chain.contains(candidate) {
                guard steps < Self.maximumSteps else { return false }
                steps += 1
                if verifies(candidate, current), extend(chain + [candidate]) { return true }
            }
            return false
        }
        _ = extend([leaf])
        guard let best = validAnchored ?? firstAnchored else { return (longest, nil) }
        return (best, best[best.count - 1])
    }

    /// Whether `certificate` is valid at the verify date.
    private func isValidAtDate(_ certificate: SecCertificate) -> Bool {
        certificate.certificate.notBefore <= date && date <= certificate.certificate.notAfter
    }

    /// Whether `issuer`'s public key verifies `certificate`'s signature.
    private func verifies(_ issuer: SecCertificate, _ certificate: SecCertificate) -> Bool {
        guard let check = certificate.signatureCheck, let key = SecCertificateCopyKey(issuer) else { return false }
        return SecKeyVerifySignature(key, check.algorithm, check.signed, check.signature, nil)
    }

    /// The SHA-1 signature algorithms (RSA and ECDSA), which the SSL policy refuses below the root.
    static let sha1Signatures: Set<String> = ["1.2.840.113549.1.1.5", "1.2.840.10045.4.1"]

    /// The certificate signature algorithms (RFC 4055, RFC 5758) and the `SecKey` algorithm
    /// that checks each.
    static let signatureAlgorithms: [String: SecKeyAlgorithm] = [
        "1.2.840.113549.1.1.5": .rsaSignatureMessagePKCS1v15SHA1,
        "1.2.840.113549.1.1.11": .rsaSignatureMessagePKCS1v15SHA256,
        "1.2.840.113549.1.1.12": .rsaSignatureMessagePKCS1v15SHA384,
        "1.2.840.113549.1.1.13": .rsaSignatureMessagePKCS1v15SHA512,
        "1.2.840.10045.4.1": .ecdsaSignatureMessageX962SHA1,
        "1.2.840.10045.4.3.2": .ecdsaSignatureMessageX962SHA256,
        "1.2.840.10045.4.3.3": .ecdsaSignatureMessageX962SHA384,
        "1.2.840.10045.4.3.4": .ecdsaSignatureMessageX962SHA512,
    ]

    // MARK: The checks

    /// Every check `chain` fails, from the leaf up (`SecPolicyChecks.list`'s names and codes).
    private func check(_ chain: [SecCertificate], anchor: SecCertificate?, anchorRequired: Bool) -> [TrustIssue] {
        var issues: [TrustIssue] = []
        let top = chain.count - 1
        if anchor == nil, anchorRequired {
            // An unknown root (AnchorTrusted: its issuer is itself, by name), or a chain that
            // stops short of any root (MissingIntermediate).
            let last = chain[top].certificate
            issues.append(last.chainSubject == last.chainIssuer
                ? TrustIssue(check: .anchorTrusted, index: top)
                : TrustIssue(check: .missingIntermediate, index: top))
        }
        let ssl = policies.filter { $0.oid == kSecPolicyAppleSSL as String }
        // The TLS rules on keys and hashes are the server policy's (`SecPolicyCreateSSL`).
        let server = ssl.contains { $0.server ?? true }
        for (index, certificate) in chain.enumerated() {
            let x509 = certificate.certificate
            if !isValidAtDate(certificate) {
                issues.append(TrustIssue(check: .temporalValidity, index: index))
            }
            if index > 0 {
                // Every issuer is a CA, the anchor too, as trustd checks each parent (a v1 or v2
                // certificate, which has no extensions, is taken as one); the anchor's path
                // length is its own business (RFC 5280 §6.1: an anchor's fields are input).
                if x509.version == 2, !x509.trust.hasBasicConstraints {
                    issues.append(TrustIssue(check: .basicConstraints, index: index))
                } else if x509.version == 2, !x509.trust.isCA {
                    issues.append(TrustIssue(check: .basicConstraintsCA, index: index))
                } else if certificate != anchor, let limit = x509.trust.pathLength, index - 1 > limit {
                    issues.append(TrustIssue(check: .pathLength, index: index))
                }
                if !x509.trust.allows(keyUsageBit: 5) {
                    issues.append(TrustIssue(check: .keyUsage, index: index))
                }
            }
            if certificate != anchor, x509.trust.critical.contains(where: { !TrustExtensions.understood.contains($0) }) {
                issues.append(TrustIssue(check: .criticalExtensions, index: index))
            }
            if let bits = x509.keySize {  // computed: for RSA, a read of the key
                if bits.rsa ? bits.size < 1024 : bits.size < 224 {
                    issues.append(TrustIssue(check: .weakKeySize, index: index))
                } else if server, bits.rsa ? bits.size < 2048 : bits.size < 256 {
                    issues.append(TrustIssue(check: .keySize, index: index))
                }
            }
            if server, Self.sha1Signatures.contains(x509.signatureAlgorithm), x509.chainSubject != x509.chainIssuer {
                issues.append(TrustIssue(check: .signatureHashAlgorithms, index: index))
            }
        }
        for policy in ssl { issues += checkSSL(policy, leaf: chain[0], systemAnchored: anchor.map(system.contains) ?? false) }
        if policies.contains(where: { ($0.revocationFlags ?? 0) & kSecRevocationRequirePositiveResponse != 0 }) {
            // No revocation answer is fetched or cached here: one required is one missing.
            issues.append(TrustIssue(check: .revocationResponseRequired, index: 0))
        }
        return issues
    }

    /// The SSL policy's checks of the leaf (`SecPolicyCreateSSLWithKeyUsage`): the host name
    /// when one is given; the extended key usage (absent, any, or server authentication or SGC
    /// for a server's; client authentication for a client's); and for a server's, serverAuth
    /// itself (from a system root always, otherwise for a leaf issued after 1 July 2019) and the
    /// validity period (825 days and an hour for a leaf issued from 1 July 2019, or from a
    /// system root from 1 March 2018; 398 days from a system root from 1 September 2020).
    private func checkSSL(_ policy: SecPolicy, leaf: SecCertificate, systemAnchored: Bool) -> [TrustIssue] {
        var issues: [TrustIssue] = []
        let x509 = leaf.certificate
        let server = policy.server ?? true
        if let hostname = policy.hostname, !Self.names(leaf, hostname) {
            issues.append(TrustIssue(check: .sslHostname, index: 0))
        }
        let purposes = server ? [TrustExtensions.serverAuth, TrustExtensions.netscapeSGC, TrustExtensions.microsoftSGC] : [TrustExtensions.clientAuth]
        let usages = x509.trust.extendedKeyUsage
        if let usages, !usages.contains(TrustExtensions.anyExtendedKeyUsage), !usages.contains(where: purposes.contains) {
            issues.append(TrustIssue(check: .extendedKeyUsage, index: 0))
        } else if server, systemAnchored || x509.notBefore > Self.july2019, !(usages ?? []).contains(TrustExtensions.serverAuth) {
            issues.append(TrustIssue(check: .serverAuthEKU, index: 0))
        }
        let days = x509.notAfter.timeIntervalSince(x509.notBefore) / 86_400
        let tooLong = (x509.notBefore >= Self.july2019 && days > 825 + 1.0 / 24)
            || (systemAnchored && x509.notBefore >= Self.march2018 && days > 825 + 1.0 / 24)
            || (systemAnchored && x509.notBefore >= Self.september2020 && days > 398)
        if server, tooLong {
            issues.append(TrustIssue(check: .validityPeriodMaximums, index: 0))
        }
        return issues
    }

    static let march2018 = Date(timeIntervalSince1970: 1_519_862_400)  // 2018-03-01T00:00:00Z
    static let july2019 = Date(timeIntervalSince1970: 1_561_939_200)  // 2019-07-01T00:00:00Z
    static let september2020 = Date(timeIntervalSince1970: 1_598_918_400)  // 2020-09-01T00:00:00Z

    /// A certificate as Apple's messages name it: its subject summary in curly quotes.
    private func quoted(_ certificate: SecCertificate) -> String {
        TrustCheck.Kind.quoted(certificate.subjectSummary ?? "")
    }
}
/// How a certificate's signature is checked.
extension SecCertificate {
    /// The certificate's signed part, the `SecKey` algorithm of its issuer's signature and the
    /// signature; nil for an algorithm `SecKey` does not verify (RSA PKCS #1 v1.5 and ECDSA,
    /// with SHA-1 or SHA-2, it does). The trust evaluation checks with it, and so does
    /// `touchstone-bench security`, beside it.
    package var signatureCheck: (signed: CFData, algorithm: SecKeyAlgorithm, signature: CFData)? {
        guard let algorithm = TrustEvaluation.signatureAlgorithms[certificate.signatureAlgorithm] else { return nil }
        return (certificate.signedBytes as CFData, algorithm, certificate.signature as CFData)
    }
}
#endif
