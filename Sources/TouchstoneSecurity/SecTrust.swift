#if !canImport(Darwin)
import Foundation
import Touchstone

/// A trust evaluation: the certificates to check (the leaf first, then any others that may
/// help build its chain), the policies to check them against, the anchors, the time.
///
/// ```swift
/// var trust: SecTrust?
/// let status = SecTrustCreateWithCertificates([leaf, intermediate] as CFArray, SecPolicyCreateSSL(true, "example.com" as CFString), &trust)
/// if status == errSecSuccess, let trust {
///     SecTrustSetAnchorCertificates(trust, [root] as CFArray)
///     var error: CFError?
///     let trusted = SecTrustEvaluateWithError(trust, &error)
///     print(trusted, error?.localizedDescription ?? "")
/// }
/// ```
///
/// The evaluation is real, as Apple's trustd makes it: path building and validation
/// (signatures, validity times, CA constraints, key usages, critical extensions) and the SSL
/// policy's host name, usage and TLS rules, reported with Apple's codes and sentences. Our
/// limits: the anchors are the custom ones and the system's bundle
/// (`/etc/ssl/certs/ca-certificates.crt`, or the file `SSL_CERT_FILE` names), not Apple's
/// store; no revocation or certificate transparency check is made (nothing is fetched from the
/// network); there are no user trust settings, so a success is `.unspecified`, or `.proceed`
/// when exceptions (``SecTrustSetExceptions(_:_:)``) set its failures aside. On Linux,
/// URLSession (libcurl) checks a server's certificate itself and never hands a `SecTrust` to a
/// delegate.
public final class SecTrust: Sendable, CustomStringConvertible {
    struct State: Sendable {
        var certificates: [SecCertificate]
        var policies: [SecPolicy]
        var anchors: [SecCertificate]?
        var anchorsOnly = false
        var verifyDate: Date?
        var networkFetchAllowed = true
        /// The failures set aside (``SecTrustSetExceptions(_:_:)``).
        var exceptions: TrustExceptions?
        /// The last evaluation's outcome, until something it depended on changes.
        var outcome: TrustOutcome?
        /// Counts the changes, so that an evaluation of settings changed meanwhile is not kept.
        var generation: UInt64 = 0
    }

    let state: Locked<State>

    init(certificates: [SecCertificate], policies: [SecPolicy]) {
        state = Locked(State(certificates: certificates, policies: policies))
    }

    /// `<SecTrustRef: …>`.
    public var description: String { "<SecTrustRef: \(Unmanaged.passUnretained(self).toOpaque())>" }

    /// Changes the settings and forgets the last outcome (the next read evaluates again).
    func update(_ change: (inout State) -> Void) {
        state.withLock { state in
            change(&state)
            state.outcome = nil
            state.generation &+= 1
        }
    }

    /// The last outcome, or a new evaluation's (made outside the lock, and kept only when the
    /// settings did not change meanwhile).
    func evaluated() -> TrustOutcome {
        let settings = state.withLock { $0 }
        if let outcome = settings.outcome { return outcome }
        let outcome = TrustEvaluation(settings).run()
        state.withLock { if $0.generation == settings.generation { $0.outcome = outcome } }
        return outcome
    }
}

/// A trust evaluation's verdict, as Apple's enum numbers it.
public enum SecTrustResultType: UInt32, Sendable {
    /// Not evaluated.
    case invalid = 0
    /// Trusted because the user said so: here, exceptions set every failure aside.
    case proceed = 1
    /// Deprecated by Apple; never returned.
    case confirm = 2
    /// Distrusted because the user said so (never here).
    case deny = 3
    /// Trusted: the chain ends at an anchor and every policy holds.
    case unspecified = 4
    /// Not trusted, for a reason the user could override (an unknown root, an expired
    /// certificate, a host name that does not match...).
    case recoverableTrustFailure = 5
    /// Not trusted, and no override helps (a signature that does not verify, a malformed
    /// chain).
    case fatalTrustFailure = 6
    /// The evaluation itself failed.
    case otherError = 7
}

/// The callback of ``SecTrustEvaluateAsyncWithError(_:_:_:)``.
public typealias SecTrustWithErrorCallback = @Sendable (SecTrust, Bool, CFError?) -> Void

/// The type identifier of `SecTrust`.
public func SecTrustGetTypeID() -> CFTypeID { CFTypeKind.secTrust.rawValue }

/// Makes a trust of `certificates` (one `SecCertificate`, or an array of them, the leaf first)
/// and `policies` (one `SecPolicy`, an array of them, or nil for the basic X.509 policy).
/// errSecParam when either holds anything else, or is an empty array.
@discardableResult
public func SecTrustCreateWithCertificates(_ certificates: CFTypeRef, _ policies: CFTypeRef?, _ trust: UnsafeMutablePointer<SecTrust?>) -> OSStatus {
    guard let certificateList = objects(certificates, of: SecCertificate.self), !certificateList.isEmpty,
          let policyList = policies.map({ objects($0, of: SecPolicy.self) }) ?? [SecPolicyCreateBasicX509()], !policyList.isEmpty else {
        trust.pointee = nil
        return errSecParam
    }
    trust.pointee = SecTrust(certificates: certificateList, policies: policyList)
    return errSecSuccess
}

/// `value` as a list of `type`: one of them, or an array of nothing but them; nil otherwise.
private func objects<T: AnyObject>(_ value: CFTypeRef, of type: T.Type) -> [T]? {
    (value as? T).map { [$0] } ?? value as? [T]
}

/// Replaces the policies (one `SecPolicy` or an array of them); errSecParam for anything else.
@discardableResult
public func SecTrustSetPolicies(_ trust: SecTrust, _ policies: CFTypeRef) -> OSStatus {
    guard let list = objects(policies, of: SecPolicy.self), !list.isEmpty else { return errSecParam }
    trust.update { $0.policies = list }
    return errSecSuccess
}

/// The policies, as an array.
@discardableResult
public func SecTrustCopyPolicies(_ trust: SecTrust, _ policies: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    policies.pointee = trust.state.withLock { $0.policies } as NSArray
    return errSecSuccess
}

/// Sets the anchors the chain may end at (an array of `SecCertificate`). With an array, only
/// these are trusted, until ``SecTrustSetAnchorCertificatesOnly(_:_:)`` adds the system's back;
/// nil goes back to the system's alone. errSecParam for an element that is no certificate.
@discardableResult
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    guard let anchorCertificates else {
        trust.update { state in
            state.anchors = nil
            state.anchorsOnly = false
        }
        return errSecSuccess
    }
    guard let anchors = objects(anchorCertificates, of: SecCertificate.self) else { return errSecParam }
    trust.update { state in
        state.anchors = anchors
        state.anchorsOnly = true
    }
    return errSecSuccess
}

/// Whether only the custom anchors are trusted (true), or the system's too (false).
@discardableResult
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.update { $0.anchorsOnly = anchorCertificatesOnly }
    return errSecSuccess
}

/// The custom anchors, or nil when none were set.
@discardableResult
public func SecTrustCopyCustomAnchorCertificates(_ trust: SecTrust, _ anchors: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    anchors.pointee = trust.state.withLock { $0.anchors }.map { $0 as NSArray }
    return errSecSuccess
}

/// Evaluates at `verifyDate` instead of now.
@discardableResult
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
    trust.update { $0.verifyDate = verifyDate as Date }
    return errSecSuccess
}

/// The time the evaluation checks validity at (seconds since 2001-01-01): the set date, or now.
public func SecTrustGetVerifyTime(_ trust: SecTrust) -> CFAbsoluteTime {
    (trust.state.withLock { $0.verifyDate } ?? Date()).timeIntervalSinceReferenceDate
}

/// Whether the evaluation may fetch from the network (kept; nothing is fetched here).
@discardableResult
public func SecTrustSetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: Bool) -> OSStatus {
    trust.update { $0.networkFetchAllowed = allowFetch }
    return errSecSuccess
}

/// Whether the evaluation may fetch from the network.
@discardableResult
public func SecTrustGetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: UnsafeMutablePointer<DarwinBoolean>) -> OSStatus {
    allowFetch.pointee = DarwinBoolean(trust.state.withLock { $0.networkFetchAllowed })
    return errSecSuccess
}

/// The number of certificates in the evaluated chain (evaluating first when needed): the path
/// from the leaf to its anchor, or as far as it could be built.
public func SecTrustGetCertificateCount(_ trust: SecTrust) -> CFIndex {
    trust.evaluated().chain.count
}

/// The certificate at `ix` in the evaluated chain (0: the leaf, without evaluating); nil past
/// its end. Deprecated by Apple in iOS 15 for ``SecTrustCopyCertificateChain(_:)``.
public func SecTrustGetCertificateAtIndex(_ trust: SecTrust, _ ix: CFIndex) -> SecCertificate? {
    if ix == 0 { return trust.state.withLock { $0.certificates.first } }
    let chain = trust.evaluated().chain
    return chain.indices.contains(ix) ? chain[ix] : nil
}

/// The evaluated chain, leaf first (evaluating first when needed).
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    trust.evaluated().chain as NSArray
}

/// The leaf certificate's public key; nil when it is of a kind `SecKey` does not hold.
public func SecTrustCopyKey(_ trust: SecTrust) -> SecKey? {
    trust.state.withLock { $0.certificates.first }.flatMap(SecCertificateCopyKey)
}

/// The leaf certificate's public key (deprecated by Apple in iOS 14 for
/// ``SecTrustCopyKey(_:)``, which this is).
public func SecTrustCopyPublicKey(_ trust: SecTrust) -> SecKey? {
    SecTrustCopyKey(trust)
}

/// Evaluates the trust: true when the chain ends at an anchor and every policy holds; else
/// false, with `error` as Apple's (domain `NSOSStatusErrorDomain`, the code and sentence of
/// the failure of the lowest kind in Apple's order; its underlying error lists every check that
/// failed).
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    let outcome = trust.evaluated()
    if let failure = outcome.failure {
        let underlying = NSError(domain: NSOSStatusErrorDomain, code: Int(failure.status), userInfo: [NSLocalizedDescriptionKey: failure.detail])
        error?.pointee = NSError(domain: NSOSStatusErrorDomain, code: Int(failure.status), userInfo: [
            NSLocalizedDescriptionKey: failure.message, NSUnderlyingErrorKey: underlying,
        ])
        return false
    }
    error?.pointee = nil
    return true
}

/// Evaluates the trust and reports only the verdict (deprecated by Apple in iOS 13 for
/// ``SecTrustEvaluateWithError(_:_:)``).
@discardableResult
public func SecTrustEvaluate(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    SecTrustGetTrustResult(trust, result)
}

/// The evaluation's verdict, evaluating first when needed (as Apple's does, whatever its
/// header says of `.invalid`).
@discardableResult
public func SecTrustGetTrustResult(_ trust: SecTrust, _ result: UnsafeMutablePointer<SecTrustResultType>) -> OSStatus {
    result.pointee = trust.evaluated().result
    return errSecSuccess
}

/// Evaluates the trust on another thread and calls `result` on `queue` with the verdict.
@discardableResult
public func SecTrustEvaluateAsyncWithError(_ trust: SecTrust, _ queue: DispatchQueue, _ result: @escaping SecTrustWithErrorCallback) -> OSStatus {
    DispatchQueue.global().async {
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust, &error)
        queue.async { [error] in result(trust, trusted, error) }
    }
    return errSecSuccess
}
#endif
