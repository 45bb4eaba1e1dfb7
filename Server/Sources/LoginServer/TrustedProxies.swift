import Foundation
import HTTPTypes
import Hummingbird

/// The proxies (load balancers) whose `X-Forwarded-For` the server believes: address ranges in
/// CIDR notation (`10.0.0.0/8`, `192.168.1.7`, `fd00::/8`, `::1`).
///
/// Behind a proxy every request comes from the proxy's address, so the per-address limits
/// (failed logins, account creations, challenges) would count every client as one: 100
/// failures from anyone, and every login from everyone is refused. For a request whose peer is
/// a trusted proxy, the client is the right-most address of `X-Forwarded-For` that is not
/// itself a trusted proxy — what the outermost proxy of ours saw. Entries further left were
/// written by the client and are never believed. A header from a peer that is not trusted is
/// ignored: anyone can send one.
public struct TrustedProxies: Sendable, Equatable {
    /// Why a range was refused.
    public typealias ParseError = AddressRanges.ParseError

    let ranges: AddressRanges

    /// No proxy is trusted: every client is its connection's peer.
    public static let none = TrustedProxies(ranges: [])

    init(ranges: AddressRanges) {
        self.ranges = ranges
    }

    init(ranges: [AddressRanges.Range]) {
        self.ranges = AddressRanges(ranges: ranges)
    }

    /// Parses ranges such as `10.0.0.0/8`, `192.168.1.7` (one address), `fd00::/8`.
    public init(parsing texts: [String]) throws {
        ranges = try AddressRanges(parsing: texts)
    }

    /// Whether `address` (text) lies in a trusted range.
    func trusts(_ address: String) -> Bool {
        ranges.contains(address)
    }

    /// Whether the address of these bytes lies in a trusted range.
    func trusts(bytes: [UInt8]) -> Bool {
        ranges.contains(bytes: bytes)
    }

    /// The client a request from `peer` stands for: `peer` itself, unless it is a trusted proxy
    /// that forwarded `forwardedFor` (the `X-Forwarded-For` values, in order).
    func client(peer: String, forwardedFor: [String]) -> String {
        guard !ranges.isEmpty, trusts(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard let bytes = AddressRanges.bytes(of: hop) else { return peer }  // not an address: believe nothing further left
            if !trusts(bytes: bytes) { return AddressRanges.text(of: bytes) }
        }
        return hops.first.flatMap { AddressRanges.bytes(of: $0).map(AddressRanges.text(of:)) } ?? peer
    }
}

/// Resolves each request's client address through ``TrustedProxies`` (first in the chain, so
/// every limit and log line sees the client, not the proxy).
struct ClientAddressMiddleware: RouterMiddleware {
    let proxies: TrustedProxies

    func handle(_ request: Request, context: LoginRequestContext,
                next: (Request, LoginRequestContext) async throws -> Response) async throws -> Response {
        var context = context
        context.remoteAddress = proxies.client(peer: context.remoteAddress,
                                               forwardedFor: request.headers[values: .xForwardedFor])
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-For`.
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
