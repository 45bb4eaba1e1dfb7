import Hummingbird
import NIOCore

/// The request context of the login server: Hummingbird's core context plus the peer address
/// the per-address rate limit counts against.
public struct LoginRequestContext: RequestContext {
    /// Hummingbird's per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address, or `"unknown"` when the channel has none (in-process tests):
    /// the connection's peer, or for a request through a trusted proxy the client it forwarded
    /// (``TrustedProxies``).
    public internal(set) var remoteAddress: String

    /// Creates the context for one request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
