#if !canImport(Darwin) && canImport(FoundationNetworking)
import Foundation
import FoundationNetworking
import TouchstoneSecurity

// What Apple's Foundation declares with Security's types, and what swift-corelibs-foundation
// marks unavailable or leaves out because it has no Security. Code that reads
// `#if canImport(Security)` as "Apple's Foundation" compiles here with them (Alamofire's
// server-trust evaluators, for one): with Touchstone in a package's graph, SwiftPM lets every
// module of it see this `Security` module. On Linux, URLSession (libcurl) checks a server's
// certificate itself: no challenge of these methods ever reaches a delegate, and a protection
// space has no server trust.

/// The authentication method of a server-trust challenge (never sent on Linux).
public let NSURLAuthenticationMethodServerTrust = "NSURLAuthenticationMethodServerTrust"
/// The authentication method of a client-certificate challenge (never sent on Linux).
public let NSURLAuthenticationMethodClientCertificate = "NSURLAuthenticationMethodClientCertificate"
/// The `userInfo` key of a failed download's resume data (Linux's URLSession gives none).
public let NSURLSessionDownloadTaskResumeData = "NSURLSessionDownloadTaskResumeData"

extension URLProtectionSpace {
    /// The server's trust of a server-trust challenge: always nil on Linux, where none is sent.
    public var serverTrust: SecTrust? { nil }
}

extension URLCredential {
    /// A credential that accepts the server trust `trust`. Linux's URLSession sends no
    /// server-trust challenge to answer with it, so it is kept as a credential of no user.
    public convenience init(trust: SecTrust) {
        self.init(user: "", password: "", persistence: .none)
    }
}
#endif
