import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// A request the connection handler refused before routing, carried to ``FramingErrorMiddleware``
/// in a header of its own so that the refusal is answered in order (after the responses to the
/// requests before it on the connection) and as JSON, like every other error.
enum FramingError: String {
    /// An HTTP/1.1 request without `Host` (RFC 9112 §3.2).
    case missingHost = "missing_host"
    /// More than one `Host` line (RFC 9112 §3.2).
    case duplicateHost = "duplicate_host"
    /// A `Host` that is not `host[:port]` (RFC 9112 §3.2, RFC 3986 §3.2.2).
    case invalidHost = "invalid_host"
    /// The client's address holds ``LoginServerConfiguration/maxConnectionsPerAddress``
    /// connections already (answered by the connection handler as the connection opens, not
    /// through the router).
    case tooManyConnections = "too_many_connections"

    /// The header that carries it. Removed from every request as it arrives, so a client
    /// cannot send it.
    static let headerName = "touchstone-framing-error"

    /// The answer: 400 for a bad `Host`, 429 for one connection too many; the connection
    /// closes after it either way.
    var apiError: APIError {
        switch self {
        case .missingHost:
            APIError.badRequest(rawValue, "An HTTP/1.1 request needs a Host header (RFC 9112 §3.2).")
        case .duplicateHost:
            APIError.badRequest(rawValue, "A request has one Host header, not several (RFC 9112 §3.2).")
        case .invalidHost:
            APIError.badRequest(rawValue, "The Host header is not a host name or address with an optional port.")
        case .tooManyConnections:
            APIError(.tooManyRequests, rawValue, "This address has too many connections open; close one or retry later.",
                     retryAfter: 1)
        }
    }

    /// The `Host` problem of `head`, if it has one: none for an HTTP/1.0 request without
    /// `Host` (it predates the header).
    static func hostProblem(_ head: HTTPRequestHead) -> FramingError? {
        let hosts = head.headers["host"]
        guard let host = hosts.first else {
            return head.version.major == 1 && head.version.minor == 0 ? nil : .missingHost
        }
        if hosts.count > 1 { return .duplicateHost }
        return isValidHost(host) ? nil : .invalidHost
    }

    /// Whether `value` is `uri-host [ ":" port ]` (RFC 3986): a registered name, an IPv4
    /// address or a bracketed IPv6 literal, and a port of at most 65535. Empty is valid (a
    /// request whose target has no authority).
    static func isValidHost(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        var hostEnd = bytes.endIndex
        var portStart: Int?
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            guard isIPLiteral(bytes[1..<close]) else { return false }
            hostEnd = close + 1
            if hostEnd < bytes.endIndex {
                guard bytes[hostEnd] == UInt8(ascii: ":") else { return false }
                portStart = hostEnd + 1
            }
        } else {
            if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
                hostEnd = colon
                portStart = colon + 1
            }
            guard isRegisteredName(bytes[..<hostEnd]) else { return false }
        }
        guard let portStart else { return true }
        let port = bytes[portStart...]
        guard port.count <= 5, port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
        return port.isEmpty || Int(String(decoding: port, as: UTF8.self)).map { $0 <= 65535 } ?? false
    }

    /// The inside of `[...]`: an IPv6 address (hex digits, `:` and, for an embedded IPv4
    /// address, `.`; at least two colons) or `IPvFuture` (`v` hex digits `.` then unreserved,
    /// sub-delims or `:`).
    private static func isIPLiteral(_ literal: ArraySlice<UInt8>) -> Bool {
        guard let first = literal.first else { return false }
        if first == UInt8(ascii: "v") || first == UInt8(ascii: "V") {
            let rest = literal.dropFirst()
            guard let dot = rest.firstIndex(of: UInt8(ascii: ".")), dot > rest.startIndex,
                  rest[..<dot].allSatisfy(isHexDigit) else { return false }
            let tail = rest[(dot + 1)...]
            return !tail.isEmpty && tail.allSatisfy { $0 == UInt8(ascii: ":") || $0 != UInt8(ascii: "%") && isRegisteredName([$0][...]) }
        }
        return literal.filter { $0 == UInt8(ascii: ":") }.count >= 2
            && literal.allSatisfy { isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
    }

    /// `reg-name` (which covers IPv4 too): unreserved characters, sub-delims and `%HH`.
    private static func isRegisteredName(_ name: ArraySlice<UInt8>) -> Bool {
        var index = name.startIndex
        while index < name.endIndex {
            let byte = name[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < name.endIndex, isHexDigit(name[index + 1]), isHexDigit(name[index + 2]) else { return false }
                index += 3
                continue
            }
            let isAlphanumeric = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            guard isAlphanumeric || "-._~!$&'()*+,;=".utf8.contains(byte) else { return false }
            index += 1
        }
        return true
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }
}

/// Answers a request the connection handler marked (``FramingError``) with its error, before
/// any route runs.
struct FramingErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let mark = request.headers.first(where: { $0.name.canonicalName == FramingError.headerName }) {
            throw (FramingError(rawValue: mark.value) ?? .invalidHost).apiError
        }
        return try await next(request, context)
    }
}

/// Open connections per client address, against a cap (nginx's `limit_conn`): a connection
/// past the cap is answered 429 `too_many_connections` to its first request and closed, so one
/// address cannot hold every slot of ``LoginServerConfiguration/maxConnections``. Trusted
/// proxies are not counted: every client behind them shares their address.
final class ConnectionsPerAddress: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    /// The most connections one address may hold.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection from `address`; whether it is within the cap. Every call is
    /// matched by one ``close(_:)``, admitted or not.
    func open(_ address: String) -> Bool {
        counts.withLockedValue { counts in
            let count = (counts[address] ?? 0) + 1
            counts[address] = count
            return count <= limit
        }
    }

    /// Uncounts a connection from `address`.
    func close(_ address: String) {
        counts.withLockedValue { counts in
            guard let count = counts[address] else { return }
            counts[address] = count > 1 ? count - 1 : nil
        }
    }

    /// The connections counted for `address` (tests).
    func count(_ address: String) -> Int {
        counts.withLockedValue { $0[address] ?? 0 }
    }
}
