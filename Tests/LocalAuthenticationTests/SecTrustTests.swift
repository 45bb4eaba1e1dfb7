#if !canImport(Darwin)
import Foundation
import FoundationNetworking
import Security
import Testing
@testable import TouchstoneSecurity

/// `SecTrust` over chains pyca/cryptography makes (scripts/trust-check.py), judged as Apple's
/// trustd judges them (`SecPolicyChecks.list`: the code and sentence of the failure of the
/// lowest kind) and, for the WebPKI rules both share, as pyca's own verifier does.
@Suite("SecTrust")
struct SecTrustTests {
    /// One case of the script's.
    struct Case {
        let certificates: [SecCertificate]
        let anchors: [SecCertificate]
        let host: String?
        /// pyca's verdict (nil when it has none: no anchors or no host).
        let pyca: Bool?
    }

    static let made: (time: Date, cases: [String: Case])? = {
        let script = IndependentKeyCheck.root.appendingPathComponent("scripts/trust-check.py")
        guard let json = try? IndependentKeyCheck.run(["chains"], script: script), let time = json["time"] as? Double, let cases = json["cases"] as? [String: [String: Any]] else {
            return nil
        }
        func certificates(_ value: Any?) -> [SecCertificate] {
            (value as? [String] ?? []).compactMap { Data(base64Encoded: $0).flatMap { SecCertificateCreateWithData(nil, $0 as CFData) } }
        }
        return (Date(timeIntervalSince1970: time), cases.mapValues { fields in
            let anchors = certificates(fields["anchors"])
            let host = fields["host"] as? String
            return Case(certificates: certificates(fields["certificates"]), anchors: anchors, host: host,
                        pyca: anchors.isEmpty || host == nil ? nil : fields["pyca"] as? Bool)
        })
    }()

    static func testCase(_ name: String) throws -> (Case, Date) {
        let made = try #require(made, "scripts/trust-check.py made no chains: run scripts/pyattest-env.sh (make test does)")
        return (try #require(made.cases[name], "no case \(name)"), made.time)
    }

    /// A trust of `name`'s certificates under the SSL policy for its host, its anchors set
    /// (when it has any), at the script's time.
    static func trust(_ name: String, policies: [SecPolicy]? = nil) throws -> SecTrust {
        let (testCase, time) = try testCase(name)
        var trust: SecTrust?
        let policy = policies ?? [SecPolicyCreateSSL(true, testCase.host as CFString?)]
        #expect(SecTrustCreateWithCertificates(testCase.certificates as CFArray, policy as CFArray, &trust) == errSecSuccess)
        let made = try #require(trust)
        if !testCase.anchors.isEmpty { #expect(SecTrustSetAnchorCertificates(made, testCase.anchors as CFArray) == errSecSuccess) }
        #expect(SecTrustSetVerifyDate(made, time as NSDate) == errSecSuccess)
        return made
    }

    /// The verdict: trusted, and else the error's code and sentence.
    static func evaluate(_ trust: SecTrust) -> (trusted: Bool, status: Int?, message: String?) {
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust, &error)
        return (trusted, error?.code, error?.localizedDescription)
    }

    static let trusted = ["valid", "validUppercaseHostWithDot", "noHost", "wildcard", "ipAddress", "leafIsItsAnchor", "intermediateAsAnchor",
                          "crossSignedFirst"]

    @Test("trusted chains: to a custom root through an intermediate, a host in another case with a final dot, no host, a wildcard, an IP address, a leaf that is its own anchor, an intermediate as anchor, a cross-signed intermediate to an unknown root listed before the one to the anchor (the path builder backs out of it); the result is .unspecified (no user trust settings)",
          arguments: trusted)
    func trustedChainsAreTrusted(name: String) throws {
        let trust = try Self.trust(name)
        let verdict = Self.evaluate(trust)
        #expect(verdict.trusted, "\(name): \(verdict.message ?? "")")
        var result = SecTrustResultType.invalid
        #expect(SecTrustGetTrustResult(trust, &result) == errSecSuccess)
        #expect(result == .unspecified)
    }

    @Test("the built chain: leaf, intermediate, root; as far as it got when no anchor is reached; the leaf's key")
    func theChainIsTheBuiltPath() throws {
        let (valid, _) = try Self.testCase("valid")
        let trust = try Self.trust("valid")
        #expect(SecTrustGetCertificateCount(trust) == 3)
        #expect(SecTrustCopyCertificateChain(trust) as? [SecCertificate] == valid.certificates + valid.anchors)
        #expect(SecTrustGetCertificateAtIndex(trust, 2) == valid.anchors[0])
        #expect(SecTrustGetCertificateAtIndex(trust, 3) == nil)
        #expect(SecTrustCopyKey(trust) == SecCertificateCopyKey(valid.certificates[0]))
        #expect(SecTrustGetCertificateCount(try Self.trust("missingIntermediate")) == 1)
        #expect(SecTrustGetCertificateCount(try Self.trust("leafIsItsAnchor")) == 1)
    }

    /// Each failing case: the status, and the certificate the sentence names with its kind.
    static let failures: [(String, OSStatus, String)] = [
        ("hostMismatch", errSecHostNameMismatch, "“www.example.test” certificate name does not match input"),
        ("wildcardTwoLabelsDeep", errSecHostNameMismatch, "“www.example.test” certificate name does not match input"),
        ("wildcardBareDomain", errSecHostNameMismatch, "“www.example.test” certificate name does not match input"),
        ("ipAddressAsName", errSecHostNameMismatch, "“www.example.test” certificate name does not match input"),
        ("expired", errSecCertificateExpired, "“www.example.test” certificate is expired"),
        ("notYetValid", errSecCertificateExpired, "“www.example.test” certificate is expired"),
        ("untrustedRoot", errSecNotTrusted, "“Touchstone Trust Root” certificate is not trusted"),
        ("missingIntermediate", errSecCreateChainFailed, "“www.example.test” certificate is not trusted"),
        ("forgedSignature", errSecCreateChainFailed, "“www.example.test” certificate is not trusted"),
        ("issuerNotACA", errSecNoBasicConstraints, "“Touchstone Not A CA” certificate is not standards compliant"),
        ("issuerCAFalse", errSecNoBasicConstraintsCA, "“Touchstone CA False” certificate is not standards compliant"),
        // An anchor is a parent like any other: a leaf trusted as anchor issues nothing.
        ("nonCAAnchorIssues", errSecNoBasicConstraintsCA, "“www.example.test” certificate is not standards compliant"),
        ("clientUsageOnly", errSecInvalidExtendedKeyUsage, "“www.example.test” certificate is not permitted for this usage"),
        ("weakKey", errSecUnsupportedKeySize, "“www.example.test” certificate is using a broken key size"),
        ("validityTooLong", errSecCertificateValidityPeriodTooLong, "“www.example.test” certificate is not standards compliant"),
        ("sha1Signature", errSecInvalidDigestAlgorithm, "“www.example.test” certificate is using a broken signature algorithm"),
        // Two failures: the kind of lower rank is reported (Trust before Name before Expired).
        ("expiredAndHostMismatch", errSecHostNameMismatch, "“www.example.test” certificate name does not match input"),
        ("untrustedRootAndExpired", errSecNotTrusted, "“Touchstone Trust Root” certificate is not trusted"),
    ]

    @Test("a failed evaluation reports Apple's code and sentence for its check (a forged signature drops the path, so no chain is found; a certificate not yet valid is reported as expired), a recoverable failure, and names the check in its underlying error",
          arguments: failures.map(\.0))
    func failuresReportApplesCodeAndSentence(name: String) throws {
        let (_, status, message) = try #require(Self.failures.first { $0.0 == name })
        let trust = try Self.trust(name)
        var error: CFError?
        #expect(!SecTrustEvaluateWithError(trust, &error))
        #expect(error?.domain == NSOSStatusErrorDomain)
        #expect(error?.code == Int(status), "\(name)")
        #expect(error?.localizedDescription == message)
        let underlying = error?.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.localizedDescription.hasPrefix("Certificate ") == true)
        var result = SecTrustResultType.invalid
        #expect(SecTrustEvaluate(trust, &result) == errSecSuccess)
        #expect(result == .recoverableTrustFailure)
    }

    @Test("the underlying error lists each certificate with failures and its checks, as Apple's does")
    func underlyingErrorListsEveryFailedCheck() throws {
        var sha1Error: CFError?
        #expect(!SecTrustEvaluateWithError(try Self.trust("sha1Signature"), &sha1Error))
        #expect((sha1Error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription
            == "Certificate 0 “www.example.test” has errors: Signature hash algorithm is not permitted for this use;")
        var error: CFError?
        #expect(!SecTrustEvaluateWithError(try Self.trust("expiredAndHostMismatch"), &error))
        let underlying = error?.userInfo[NSUnderlyingErrorKey] as? NSError
        #expect(underlying?.code == Int(errSecHostNameMismatch))
        #expect(underlying?.localizedDescription
            == "Certificate 0 “www.example.test” has errors: Certificate is not temporally valid, SSL hostname does not match name(s) in certificate;")
        #expect(!SecTrustEvaluateWithError(try Self.trust("untrustedRootAndExpired"), &error))
        #expect((error?.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription
            == "Certificate 0 “www.example.test” has errors: Certificate is not temporally valid; Certificate 2 “Touchstone Trust Root” has errors: Root is not trusted;")
    }

    @Test("pyca's verifier agrees on every chain it judges, except Apple's own rules: a 1,024-bit RSA key and a validity past 825 days for TLS, a leaf trusted as its own anchor")
    func pycaAgreesOnTheSharedRules() throws {
        let made = try #require(Self.made, "scripts/trust-check.py made no chains")
        let appleOnly: Set<String> = ["weakKey", "validityTooLong", "leafIsItsAnchor", "oddNames", "brokenKey"]
        var judged = 0
        for (name, testCase) in made.cases {
            guard let pyca = testCase.pyca, !appleOnly.contains(name) else { continue }
            judged += 1
            #expect(Self.evaluate(try Self.trust(name)).trusted == pyca, "\(name)")
        }
        #expect(judged >= 15)
    }

    @Test("host names as trustd matches them: dNSName entries that read as DNS names (not \"1.2.3\" or \"www..example.test\"), without case and a final dot, a wildcard for one label; IP addresses as Apple reads them (leading zeros, brackets) against iPAddress entries; an empty host matches nothing",
          arguments: [("api.example.test", true), ("API.EXAMPLE.TEST.", true), ("a.b.example.test", false), ("example.test", false),
                      ("1.2.3", false), ("www..example.test", false), ("-bad.example.test", true), ("10.0.0.1", true), ("010.000.0.1", true),
                      ("10.0.0.2", false), ("[::1]", true), ("::1", true), ("0:0:0:0:0:0:0:1", true), ("::1%lo", false), ("", false),
                      ("256.0.0.1", false)])
    func hostNamesMatchAsTrustdDoes(host: String, named: Bool) throws {
        let (odd, _) = try Self.testCase("oddNames")
        #expect(TrustEvaluation.names(odd.certificates[0], host) == named, "\(host)")
    }

    @Test("an SSL policy with an empty host name checks it (and fails); a client's policy checks the host when given and the client usage, not the server's TLS rules")
    func emptyHostAndClientPolicies() throws {
        #expect(Self.evaluate(try Self.trust("valid", policies: [SecPolicyCreateSSL(true, "" as CFString)])).status == Int(errSecHostNameMismatch))
        for name in ["clientUsageOnly", "weakKey", "validityTooLong", "sha1Signature"] {
            let verdict = Self.evaluate(try Self.trust(name, policies: [SecPolicyCreateSSL(false, nil)]))
            #expect(verdict.trusted == (name == "clientUsageOnly"), "\(name): \(verdict.message ?? "trusted")")
        }
        // A server-only leaf (EKU serverAuth) is not a client's.
        #expect(Self.evaluate(try Self.trust("valid", policies: [SecPolicyCreateSSL(false, nil)])).status == Int(errSecInvalidExtendedKeyUsage))
        #expect(Self.evaluate(try Self.trust("clientUsageOnly", policies: [SecPolicyCreateSSL(false, "mail.example.test" as CFString)])).status
                    == Int(errSecHostNameMismatch))
    }

    @Test("the basic X.509 policy (policies nil) checks the chain, not the host, the usage or the TLS rules")
    func basicPolicyChecksTheChainOnly() throws {
        var trust: SecTrust?
        let (clientOnly, time) = try Self.testCase("clientUsageOnly")
        #expect(SecTrustCreateWithCertificates(clientOnly.certificates as CFArray, nil, &trust) == errSecSuccess)
        let made = try #require(trust)
        var policies: CFArray?
        #expect(SecTrustCopyPolicies(made, &policies) == errSecSuccess)
        #expect(policies as? [SecPolicy] == [SecPolicyCreateBasicX509()])
        _ = SecTrustSetAnchorCertificates(made, clientOnly.anchors as CFArray)
        _ = SecTrustSetVerifyDate(made, time as NSDate)
        #expect(Self.evaluate(made).trusted)
        for name in ["validityTooLong", "hostMismatch", "weakKey", "sha1Signature"] {
            #expect(Self.evaluate(try Self.trust(name, policies: [SecPolicyCreateBasicX509()])).trusted, "\(name)")
        }
        #expect(Self.evaluate(try Self.trust("expired", policies: [SecPolicyCreateBasicX509()])).status == Int(errSecCertificateExpired))
    }

    @Test("changing the anchors, the policies or the date evaluates again; anchors-only false adds the system's roots to the custom ones; nil anchors go back to the system's alone")
    func settingsChangesEvaluateAgain() throws {
        let (valid, _) = try Self.testCase("valid")
        let trust = try Self.trust("valid")
        #expect(Self.evaluate(trust).trusted)
        #expect(SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess)
        #expect(Self.evaluate(trust).trusted)
        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "mail.example.test" as CFString)) == errSecSuccess)
        #expect(Self.evaluate(trust).status == Int(errSecHostNameMismatch))
        #expect(SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, "www.example.test" as CFString)) == errSecSuccess)
        #expect(SecTrustSetVerifyDate(trust, Date(timeIntervalSince1970: 4_000_000_000) as NSDate) == errSecSuccess)
        #expect(Self.evaluate(trust).status == Int(errSecCertificateExpired))
        #expect(SecTrustGetVerifyTime(trust) == Date(timeIntervalSince1970: 4_000_000_000).timeIntervalSinceReferenceDate)
        var anchors: CFArray?
        #expect(SecTrustCopyCustomAnchorCertificates(trust, &anchors) == errSecSuccess)
        #expect(anchors as? [SecCertificate] == valid.anchors)
        #expect(SecTrustSetAnchorCertificates(trust, nil) == errSecSuccess)
        #expect(SecTrustCopyCustomAnchorCertificates(trust, &anchors) == errSecSuccess)
        #expect(anchors == nil)
        #expect(Self.evaluate(trust).status == Int(errSecCreateChainFailed))
        #expect(SecTrustSetAnchorCertificates(trust, [] as CFArray) == errSecSuccess)
        #expect(Self.evaluate(trust).status == Int(errSecCreateChainFailed))
    }

    @Test("bad arguments are errSecParam: no certificate, an element that is no certificate, no policy, an anchor that is no certificate")
    func badArgumentsAreParamErrors() throws {
        let (valid, _) = try Self.testCase("valid")
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates([] as CFArray, nil, &trust) == errSecParam)
        #expect(trust == nil)
        #expect(SecTrustCreateWithCertificates([valid.certificates[0], "text"] as CFArray, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(valid.certificates[0], [] as CFArray, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(valid.certificates[0], "policy" as CFString, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(valid.certificates[0], SecPolicyCreateBasicX509(), &trust) == errSecSuccess)
        let made = try #require(trust)
        #expect(CFGetTypeID(made) == SecTrustGetTypeID())
        #expect(SecTrustSetAnchorCertificates(made, ["text"] as CFArray) == errSecParam)
        #expect(SecTrustSetPolicies(made, [] as CFArray) == errSecParam)
    }

    @Test("a revocation policy: nil without a flag or with a bit past them; no answer is fetched, so a required positive response fails (errSecIncompleteCertRevocationCheck) and any other flag changes nothing")
    func revocationPolicyNeedsAnAnswerOnlyWhenRequired() throws {
        #expect(SecPolicyCreateRevocation(0) == nil)
        #expect(SecPolicyCreateRevocation(1 << 7) == nil)
        #expect(kSecRevocationUseAnyAvailableMethod == 3 && kSecRevocationNetworkAccessDisabled == 16)
        let (valid, _) = try Self.testCase("valid")
        let ssl = SecPolicyCreateSSL(true, valid.host as CFString?)
        let any = try #require(SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod))
        #expect(Self.evaluate(try Self.trust("valid", policies: [ssl, any])).trusted)
        let required = try #require(SecPolicyCreateRevocation(kSecRevocationOCSPMethod | kSecRevocationRequirePositiveResponse))
        #expect(Self.evaluate(try Self.trust("valid", policies: [ssl, required])).status == Int(errSecIncompleteCertRevocationCheck))
    }

    @Test("exceptions: copied from a failed evaluation they make it .proceed (a user accepted the certificate); they stop covering a new failure or another leaf; nil or bad data drops them")
    func exceptionsSetRecordedFailuresAside() throws {
        let trust = try Self.trust("hostMismatch")
        #expect(!SecTrustEvaluateWithError(trust, nil))
        let exceptions = try #require(SecTrustCopyExceptions(trust))
        #expect(SecTrustSetExceptions(trust, exceptions))
        var result = SecTrustResultType.invalid
        #expect(SecTrustEvaluateWithError(trust, nil))
        SecTrustGetTrustResult(trust, &result)
        #expect(result == .proceed)
        // A failure the exceptions do not name is reported again.
        SecTrustSetVerifyDate(trust, Date(timeIntervalSince1970: 4_000_000_000) as NSDate)
        #expect(Self.evaluate(trust).status == Int(errSecCertificateExpired))
        // Exceptions of another leaf do not apply; nil and bad data drop them.
        let other = try Self.trust("expired")
        #expect(!SecTrustSetExceptions(other, exceptions))
        #expect(Self.evaluate(other).status == Int(errSecCertificateExpired))
        #expect(!SecTrustSetExceptions(trust, nil))
        #expect(!SecTrustSetExceptions(trust, Data("not a property list".utf8) as CFData))
        // A trusted chain's exceptions name no check, and change nothing.
        let valid = try Self.trust("valid")
        #expect(SecTrustSetExceptions(valid, SecTrustCopyExceptions(valid)))
        SecTrustGetTrustResult(valid, &result)
        #expect(result == .unspecified)
        // A 1,024-bit key is refused by the SSL policy (recoverable, so an exception covers it).
        let weak = try Self.trust("weakKey")
        #expect(Self.evaluate(weak).status == Int(errSecUnsupportedKeySize))
        #expect(SecTrustSetExceptions(weak, SecTrustCopyExceptions(weak)))
        SecTrustGetTrustResult(weak, &result)
        #expect(result == .proceed)
    }

    @Test("a broken key size (a 512-bit RSA leaf) is fatal under any policy, and no exception sets it aside")
    func brokenKeySizeIsFatal() throws {
        for policies in [[SecPolicyCreateBasicX509()], [SecPolicyCreateSSL(true, "www.example.test" as CFString)]] {
            let trust = try Self.trust("brokenKey", policies: policies)
            var error: CFError?
            #expect(!SecTrustEvaluateWithError(trust, &error))
            #expect(error?.code == Int(errSecUnsupportedKeySize))
            #expect(error?.localizedDescription == "“www.example.test” certificate is using a broken key size")
            var result = SecTrustResultType.invalid
            SecTrustGetTrustResult(trust, &result)
            #expect(result == .fatalTrustFailure)
            #expect(SecTrustSetExceptions(trust, SecTrustCopyExceptions(trust)))
            #expect(!SecTrustEvaluateWithError(trust, nil))
            SecTrustGetTrustResult(trust, &result)
            #expect(result == .fatalTrustFailure)
        }
    }

    @Test("SecTrustCopyResult: the verdict, the failed checks of each certificate by Apple's names, the verify date")
    func copyResultGivesVerdictAndDetails() throws {
        let (_, time) = try Self.testCase("expiredAndHostMismatch")
        let results = try #require(SecTrustCopyResult(try Self.trust("expiredAndHostMismatch")) as? [String: Any])
        #expect((results[kSecTrustResultValue as String] as? NSNumber)?.uint32Value == SecTrustResultType.recoverableTrustFailure.rawValue)
        let details = try #require(results["TrustResultDetails"] as? [[String: Any]])
        #expect(details.map { Set($0.keys) } == [["TemporalValidity", "SSLHostname"], [], []])
        #expect(results[kSecTrustEvaluationDate as String] as? Date == time)
        let trusted = try #require(SecTrustCopyResult(try Self.trust("valid")) as? [String: Any])
        #expect((trusted[kSecTrustResultValue as String] as? NSNumber)?.uint32Value == SecTrustResultType.unspecified.rawValue)
        #expect(trusted[kSecTrustCertificateTransparency as String] == nil)
    }

    @Test("two SSL policies that fail the same check: one failure reported, the check named once in the details")
    func twoPoliciesFailingTheSameCheck() throws {
        let ssl = SecPolicyCreateSSL(true, "mail.example.test" as CFString)
        let trust = try Self.trust("valid", policies: [ssl, ssl])
        #expect(Self.evaluate(trust).status == Int(errSecHostNameMismatch))
        let results = try #require(SecTrustCopyResult(trust) as? [String: Any])
        #expect((results["TrustResultDetails"] as? [[String: Any]])?.first?.keys.sorted() == ["SSLHostname"])
    }

    @Test("SecPolicyCreateWithProperties makes SSL (server, or client with kSecPolicyClient), basic X.509 and revocation policies; nil for another identifier or a host name that is no string")
    func policiesFromProperties() throws {
        #expect(SecPolicyCreateWithProperties(kSecPolicyAppleSSL, [kSecPolicyName as String: "www.example.test"] as CFDictionary)
                    == SecPolicyCreateSSL(true, "www.example.test" as CFString))
        #expect(SecPolicyCreateWithProperties(kSecPolicyAppleSSL, [kSecPolicyClient as String: true] as CFDictionary) == SecPolicyCreateSSL(false, nil))
        #expect(SecPolicyCreateWithProperties(kSecPolicyAppleX509Basic, nil) == SecPolicyCreateBasicX509())
        #expect(SecPolicyCreateWithProperties(kSecPolicyAppleRevocation, nil) == SecPolicyCreateRevocation(kSecRevocationUseAnyAvailableMethod))
        #expect(SecPolicyCreateWithProperties("1.2.3.4" as CFString, nil) == nil)
        #expect(SecPolicyCreateWithProperties(kSecPolicyAppleSSL, [kSecPolicyName as String: 7] as CFDictionary) == nil)
    }

    @Test("SecTrustEvaluateAsync (deprecated) calls back with the verdict")
    func deprecatedAsyncEvaluationGivesTheVerdict() async throws {
        let trust = try Self.trust("expired")
        let result = await withCheckedContinuation { continuation in
            SecTrustEvaluateAsync(trust, DispatchQueue(label: "trust-result")) { _, result in continuation.resume(returning: result) }
        }
        #expect(result == .recoverableTrustFailure)
    }

    @Test("SecTrustEvaluateAsyncWithError calls back on the queue given, with the verdict and error")
    func asyncEvaluationCallsBackOnTheQueue() async throws {
        let trust = try Self.trust("hostMismatch")
        let queue = DispatchQueue(label: "trust-callback")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let (trusted, code, onQueue) = await withCheckedContinuation { continuation in
            #expect(SecTrustEvaluateAsyncWithError(trust, queue) { _, trusted, error in
                continuation.resume(returning: (trusted, error?.code, DispatchQueue.getSpecific(key: key) == true))
            } == errSecSuccess)
        }
        #expect(!trusted && code == Int(errSecHostNameMismatch) && onQueue)
    }

    @Test("anchors-only: false adds the system's roots to the custom anchors, true (with custom anchors or none) leaves them out")
    func anchorsOnlyDecidesOnTheSystemRoots() throws {
        let now = Date()
        let root = try #require(SystemAnchors.certificates.first { $0.certificate.notBefore < now && now < $0.certificate.notAfter })
        let (valid, _) = try Self.testCase("valid")
        var trust: SecTrust?
        SecTrustCreateWithCertificates(root, nil, &trust)
        let made = try #require(trust)
        SecTrustSetAnchorCertificates(made, valid.anchors as CFArray)
        #expect(!SecTrustEvaluateWithError(made, nil))
        SecTrustSetAnchorCertificatesOnly(made, false)
        #expect(SecTrustEvaluateWithError(made, nil))
        SecTrustSetAnchorCertificates(made, nil)
        #expect(SecTrustEvaluateWithError(made, nil))
        SecTrustSetAnchorCertificatesOnly(made, true)
        #expect(Self.evaluate(made).status == Int(errSecNotTrusted))
    }

    @Test("the system's roots are trusted without custom anchors: a root of the bundle (scripts/install-deps.sh installs ca-certificates) is trusted as its own anchor under the basic policy; with custom anchors alone it is an unknown root")
    func systemRootsAreAnchors() throws {
        let roots = SystemAnchors.certificates
        #expect(roots.count >= 50, "no system certificate bundle was read: install ca-certificates (scripts/install-deps.sh does)")
        let now = Date()
        let root = try #require(roots.first { $0.certificate.notBefore < now && now < $0.certificate.notAfter })
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates(root, nil, &trust) == errSecSuccess)
        let made = try #require(trust)
        #expect(SecTrustEvaluateWithError(made, nil))
        let (valid, _) = try Self.testCase("valid")
        SecTrustSetAnchorCertificates(made, valid.anchors as CFArray)
        #expect(Self.evaluate(made).status == Int(errSecNotTrusted))
    }

    @Test("the system's roots come from a PEM bundle: each certificate block in order, other blocks and damaged ones skipped")
    func systemRootsComeFromThePEMBundle() throws {
        let (valid, _) = try Self.testCase("valid")
        func pem(_ certificate: SecCertificate) -> String {
            let body = (SecCertificateCopyData(certificate) as Data).base64EncodedString(options: .lineLength64Characters)
            return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
        }
        let bundle = "# roots\n" + pem(valid.anchors[0]) + "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
            + "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n" + pem(valid.certificates[1])
        #expect(SystemAnchors.certificates(pem: bundle) == [valid.anchors[0], valid.certificates[1]])
    }

    @Test("an app's public-key pinning delegate (client code): a trusted chain with a pinned key is accepted, one without is not, nor a host the certificate does not name; Linux's URLSession sends no server trust, so a challenge has none and gets the default handling")
    func pinningDelegateRunsUnchanged() async throws {
        let (valid, time) = try Self.testCase("valid")
        func makeTrust() throws -> SecTrust {
            var trust: SecTrust?
            SecTrustCreateWithCertificates(valid.certificates as CFArray, nil, &trust)
            guard let trust else { throw CocoaError(.coderInvalidValue) }
            SecTrustSetVerifyDate(trust, time as NSDate)
            return trust
        }
        let pin = try #require(PinningDelegate.pin(of: valid.certificates[1]))
        let pinned = PinningDelegate(pinnedKeyHashes: [pin], anchors: valid.anchors)
        #expect(pinned.accepts(try makeTrust(), host: "www.example.test"))
        #expect(!pinned.accepts(try makeTrust(), host: "mail.example.test"))
        #expect(!PinningDelegate(pinnedKeyHashes: ["AAAA"], anchors: valid.anchors).accepts(try makeTrust(), host: "www.example.test"))
        #expect(!PinningDelegate(pinnedKeyHashes: [pin]).accepts(try makeTrust(), host: "www.example.test"))

        let space = URLProtectionSpace(host: "www.example.test", port: 443, protocol: "https", realm: nil,
                                       authenticationMethod: NSURLAuthenticationMethodServerTrust)
        let challenge = URLAuthenticationChallenge(protectionSpace: space, proposedCredential: nil, previousFailureCount: 0,
                                                   failureResponse: nil, error: nil, sender: IgnoringSender())
        let disposition = await withCheckedContinuation { continuation in
            pinned.urlSession(URLSession.shared, didReceive: challenge) { disposition, _ in continuation.resume(returning: disposition) }
        }
        #expect(disposition == .performDefaultHandling)
    }

    /// A challenge's sender that does nothing (the delegate answers through its handler).
    final class IgnoringSender: NSObject, URLAuthenticationChallengeSender {
        func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
        func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
        func cancel(_ challenge: URLAuthenticationChallenge) {}
        func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
        func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
    }

    @Test("import Security declares what Apple's Foundation does with its types: a protection space's serverTrust (nil: Linux's URLSession sends no such challenge), the challenge methods' names, URLCredential(trust:)")
    func foundationNetworkingNamesCompileAndAreInert() throws {
        let space = URLProtectionSpace(host: "example.test", port: 443, protocol: "https", realm: nil,
                                       authenticationMethod: NSURLAuthenticationMethodServerTrust)
        #expect(space.serverTrust == nil)
        #expect(NSURLAuthenticationMethodServerTrust == "NSURLAuthenticationMethodServerTrust")
        #expect(NSURLAuthenticationMethodClientCertificate == "NSURLAuthenticationMethodClientCertificate")
        #expect(NSURLSessionDownloadTaskResumeData == "NSURLSessionDownloadTaskResumeData")
        let (valid, _) = try Self.testCase("valid")
        var trust: SecTrust?
        _ = SecTrustCreateWithCertificates(valid.certificates as CFArray, nil, &trust)
        #expect(URLCredential(trust: try #require(trust)).persistence == .none)
    }
}

#endif
