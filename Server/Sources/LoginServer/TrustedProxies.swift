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
    /// One address range.
    struct Range: Sendable, Equatable {
        let network: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == network.count else { return false }
            var bits = prefix
            for (have, want) in zip(address, network) {
                guard bits > 0 else { return true }
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                guard have & mask == want & mask else { return false }
                bits -= 8
            }
            return true
        }
    }

    /// Why a range was refused.
    public struct ParseError: Error, CustomStringConvertible {
        /// What was wrong, for the user.
        public var description: String
    }

    let ranges: [Range]

    /// No proxy is trusted: every client is its connection's peer.
    public static let none = TrustedProxies(ranges: [])

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Parses ranges such as `10.0.0.0/8`, `192.168.1.7` (one address), `fd00::/8`.
    public init(parsing texts: [String]) throws {
        ranges = try texts.map { text in
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard let address = Self.bytes(of: parts[0]) else {
                throw ParseError(description: "'\(text)' is not an IP address or range (such as 10.0.0.0/8 or fd00::/8)")
            }
            let width = address.count * 8
            guard parts.count == 1 || (Int(parts[1]).map { (0...width).contains($0) } ?? false) else {
                throw ParseError(description: "'\(text)': the prefix length must be a number from 0 to \(width)")
            }
            return Range(network: address, prefix: parts.count == 1 ? width : Int(parts[1]) ?? width)
        }
    }

    /// Whether `address` (text) lies in a trusted range.
    func trusts(_ address: String) -> Bool {
        Self.bytes(of: address).map(trusts(bytes:)) ?? false
    }

    /// Whether the address of these bytes lies in a trusted range.
    func trusts(bytes: [UInt8]) -> Bool {
        ranges.contains { $0.contains(bytes) }
    }

    /// The client a request from `peer` stands for: `peer` itself, unless it is a trusted proxy
    /// that forwarded `forwardedFor` (the `X-Forwarded-For` values, in order).
    func client(peer: String, forwardedFor: [String]) -> String {
        guard !ranges.isEmpty, trusts(peer) else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        for hop in hops.reversed() {
            guard let bytes = Self.bytes(of: hop) else { return peer }  // not an address: believe nothing further left
            if !trusts(bytes: bytes) { return Self.text(of: bytes) }
        }
        return hops.first.flatMap { Self.bytes(of: $0).map(Self.text(of:)) } ?? peer
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address in text (an IPv6 one may be in brackets).
    static func bytes(of text: String) -> [UInt8]? {
        var text = text
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// An address's usual text form.
    static func text(of bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard written != nil else { return "unknown" }
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: text, as: UTF8.self)
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
