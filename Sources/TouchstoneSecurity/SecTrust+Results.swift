#if !canImport(Darwin)
import Crypto
import Foundation

/// What `SecTrustCopyExceptions` gives and `SecTrustSetExceptions` takes, as Apple's
/// `SecTrust.c` makes it: for each certificate of an evaluated chain, leaf first, its SHA-1
/// digest ("SHA1Digest") and the names of the checks that failed on it (``TrustCheck``), as a
/// property list (an array of dictionaries). A later evaluation sets aside a failure that its
/// certificate's entry names, when the certificate is still the one digested; a fatal one
/// (a broken key size) is never set aside.
struct TrustExceptions: Sendable, Equatable {
    struct Entry: Sendable, Equatable {
        let digest: Data
        let checks: Set<String>
    }

    let entries: [Entry]

    static let digestKey = "SHA1Digest"

    /// The exceptions that would accept `outcome`'s failures.
    init(_ outcome: TrustOutcome) {
        entries = zip(outcome.chain, outcome.issues.checksByCertificate(outcome.chain.count)).map { certificate, checks in
            Entry(digest: Self.digest(certificate), checks: Set(checks.map(\.rawValue)))
        }
    }

    /// Reads exceptions `SecTrustCopyExceptions` wrote; nil for data that is not an array of
    /// dictionaries each with a 20-byte digest.
    init?(data: Data) {
        guard let list = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [[String: Any]] else { return nil }
        var entries: [Entry] = []
        for dictionary in list {
            guard let digest = dictionary[Self.digestKey] as? Data, digest.count == Insecure.SHA1.byteCount else { return nil }
            entries.append(Entry(digest: digest, checks: Set(dictionary.keys).subtracting([Self.digestKey])))
        }
        self.entries = entries
    }

    /// The property list (binary), one dictionary per certificate: its digest and each failed
    /// check's name with the value false.
    var data: Data {
        let list: [[String: Any]] = entries.map { entry in
            var dictionary: [String: Any] = [Self.digestKey: entry.digest]
            for check in entry.checks { dictionary[check] = false }
            return dictionary
        }
        return (try? PropertyListSerialization.data(fromPropertyList: list, format: .binary, options: 0)) ?? Data()
    }

    /// Whether these exceptions name a leaf, and it is `leaf`.
    func apply(toLeaf leaf: SecCertificate) -> Bool {
        entries.first?.digest == Self.digest(leaf)
    }

    /// Whether `issue` is set aside: not fatal, and named by the entry of its certificate,
    /// which is the certificate digested.
    func covers(_ issue: TrustIssue, in chain: [SecCertificate]) -> Bool {
        guard !issue.check.fatal, entries.indices.contains(issue.index), chain.indices.contains(issue.index) else { return false }
        let entry = entries[issue.index]
        return entry.checks.contains(issue.check.rawValue) && entry.digest == Self.digest(chain[issue.index])
    }

    static func digest(_ certificate: SecCertificate) -> Data {
        Data(Insecure.SHA1.hash(data: certificate.certificate.der))
    }
}

/// The exceptions that would make the trust's last evaluation (evaluating first when needed)
/// succeed: to keep and hand to ``SecTrustSetExceptions(_:_:)`` once the user accepted a
/// certificate (the failures recorded for each certificate of its chain).
public func SecTrustCopyExceptions(_ trust: SecTrust) -> CFData? {
    TrustExceptions(trust.evaluated()).data as CFData
}

/// Sets exceptions from ``SecTrustCopyExceptions(_:)``: the failures they record are set aside
/// while the chain's certificates are the ones recorded, and a trust whose every failure is
/// set aside evaluates to `.proceed`. True when they name this trust's leaf; otherwise (or for
/// nil, or data that is no exceptions) they are dropped and false is returned, as Apple's.
@discardableResult
public func SecTrustSetExceptions(_ trust: SecTrust, _ exceptions: CFData?) -> Bool {
    let leaf = trust.state.withLock { $0.certificates.first }
    guard let read = exceptions.flatMap({ TrustExceptions(data: $0 as Data) }), let leaf, read.apply(toLeaf: leaf) else {
        trust.update { $0.exceptions = nil }
        return false
    }
    trust.update { $0.exceptions = read }
    return true
}

/// `SecTrustCopyResult`'s key of the verdict (a `SecTrustResultType` raw value, an `NSNumber`).
nonisolated(unsafe) public let kSecTrustResultValue: CFString = "TrustResultValue"
/// `SecTrustCopyResult`'s key of the verify date, when one was set.
nonisolated(unsafe) public let kSecTrustEvaluationDate: CFString = "TrustEvaluationDate"
/// `SecTrustCopyResult`'s key of an extended-validation certificate (never set here).
nonisolated(unsafe) public let kSecTrustExtendedValidation: CFString = "TrustExtendedValidation"
/// `SecTrustCopyResult`'s key of an extended-validation organization (never set here).
nonisolated(unsafe) public let kSecTrustOrganizationName: CFString = "Organization"
/// `SecTrustCopyResult`'s key of a revocation check made (never set here: nothing is fetched).
nonisolated(unsafe) public let kSecTrustRevocationChecked: CFString = "TrustRevocationChecked"
/// `SecTrustCopyResult`'s key of a revocation reason (never set here).
nonisolated(unsafe) public let kSecTrustRevocationReason: CFString = "TrustRevocationReason"
/// `SecTrustCopyResult`'s key of the revocation answer's end (never set here).
nonisolated(unsafe) public let kSecTrustRevocationValidUntilDate: CFString = "TrustExpirationDate"
/// `SecTrustCopyResult`'s key of certificate transparency (never set here).
nonisolated(unsafe) public let kSecTrustCertificateTransparency: CFString = "TrustCertificateTransparency"

/// The evaluation's results (evaluating first when needed), as Apple's `SecTrust.c` builds
/// them: ``kSecTrustResultValue``, the per-certificate details ("TrustResultDetails": for each
/// certificate of the chain, leaf first, the names of the checks that failed on it, each with
/// false), and ``kSecTrustEvaluationDate`` when a verify date was set. The keys of what is
/// fetched (revocation, certificate transparency, extended validation) are never set here.
public func SecTrustCopyResult(_ trust: SecTrust) -> CFDictionary? {
    let outcome = trust.evaluated()
    // (A check two policies both fail is named once.)
    let details: [[String: Any]] = outcome.issues.checksByCertificate(outcome.chain.count).map { checks in
        Dictionary(checks.map { ($0.rawValue, false as Any) }) { first, _ in first }
    }
    var results: [String: Any] = [kSecTrustResultValue as String: NSNumber(value: outcome.result.rawValue), "TrustResultDetails": details]
    if let date = trust.state.withLock({ $0.verifyDate }) { results[kSecTrustEvaluationDate as String] = date }
    return results as NSDictionary
}

/// The callback of ``SecTrustEvaluateAsync(_:_:_:)``.
public typealias SecTrustCallback = @Sendable (SecTrust, SecTrustResultType) -> Void

/// Evaluates the trust on another thread and calls `result` on `queue` (a global queue when
/// nil) with the verdict (deprecated by Apple in iOS 13 for
/// ``SecTrustEvaluateAsyncWithError(_:_:_:)``).
@discardableResult
public func SecTrustEvaluateAsync(_ trust: SecTrust, _ queue: DispatchQueue?, _ result: @escaping SecTrustCallback) -> OSStatus {
    DispatchQueue.global().async {
        let verdict = trust.evaluated().result
        (queue ?? DispatchQueue.global()).async { result(trust, verdict) }
    }
    return errSecSuccess
}
#endif
