#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The `login` commands' HTTP client: one HTTP/1.1 request per connection over POSIX sockets,
// plain `http://` only.
//
// Why not URLSession: on Linux it lives in FoundationNetworking, which loads libcurl and its
// dependencies (OpenSSL, nghttp2, GSSAPI, LDAP, ...) when the process starts. Linking it into
// the REPL made the first prompt measurably slower for every user, for a feature few sessions
// use (figures in docs/SERVER.md, "The REPL's client"). touchstone-server speaks plain HTTP
// behind a TLS proxy, and the REPL talks to a local server, so a small client that refuses
// `https://` (saying so) is enough here. Apps that need TLS use URLSession, as the
// FingerprintLogin example does.

/// Where the login server listens: `http://host[:port][/base]`.
struct LoginEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// A host name, an IPv4 address or an IPv6 address (without brackets).
    var host: String
    /// The TCP port (80 when the URL has none).
    var port: UInt16
    /// A path prefix without a trailing slash (empty for the root).
    var basePath: String

    /// Parses `text`; only `http://` URLs without user information are accepted.
    init(parsing text: String) throws(LoginError) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("https://") {
            throw .badURL(text, "https is not supported by the REPL's client: run touchstone-server on plain http (loopback) or reach it through a local TLS proxy")
        }
        guard lowered.hasPrefix("http://") else { throw .badURL(text, "the URL must start with http://") }
        let rest = text.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let path = rest.dropFirst(authority.count)
        guard !path.contains("?"), !path.contains("#") else { throw .badURL(text, "a query or fragment is not allowed") }
        guard !authority.contains("@") else { throw .badURL(text, "user information is not allowed in the URL") }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .badURL(text, "unterminated IPv6 address") }
            host = authority[authority.index(after: authority.startIndex) ..< close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .badURL(text, "unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || "-._:".contains($0) }) else {
            throw .badURL(text, "missing or invalid host")
        }
        var port: UInt16 = 80
        if let portText {
            guard let parsed = UInt16(portText), parsed > 0 else { throw .badURL(text, "the port must be 1 to 65535") }
            port = parsed
        }
        self.host = String(host)
        self.port = port
        var base = String(path)
        while base.hasSuffix("/") { base.removeLast() }
        self.basePath = base
    }

    var description: String {
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostText):\(port)\(basePath)"
    }
}

/// One HTTP response: status, headers (names lowercased) and body.
struct LoginHTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
}

/// Sends one request per connection (`Connection: close`) and reads the whole answer.
struct LoginHTTPClient: Sendable {
    /// The server.
    var endpoint: LoginEndpoint
    /// How long connecting, sending and each read may take, in milliseconds.
    var timeoutMilliseconds: Int32 = 10_000
    /// The largest response accepted.
    static let maxResponseSize = 1 << 20

    /// Sends `method path` with an optional JSON body and bearer token.
    func request(_ method: String, _ path: String, json body: [UInt8]? = nil, bearer: String? = nil) throws(LoginError) -> LoginHTTPResponse {
        let descriptor = try openConnection()
        defer { close(descriptor) }
        var head = "\(method) \(endpoint.basePath)\(path) HTTP/1.1\r\n"
        let hostText = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        head += "Host: \(hostText):\(endpoint.port)\r\nUser-Agent: touchstone-repl\r\nAccept: application/json\r\nConnection: close\r\n"
        if let bearer { head += "Authorization: Bearer \(bearer)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" } else if method != "GET" {
            head += "Content-Length: 0\r\n"
        }
        head += "\r\n"
        try writeAll(descriptor, Array(head.utf8) + (body ?? []))
        return try Self.parse(try readAll(descriptor), url: endpoint.description)
    }

    // MARK: Sockets

    private func unreachable(_ reason: String) -> LoginError {
        .unreachable(url: endpoint.description, reason: reason)
    }

    private static func errorText(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "errno \(code)" }
        return String(cString: text).lowercased()
    }

    private func openConnection() throws(LoginError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = gai_strerror(status).map { String(cString: $0) } ?? "cannot resolve the host"
            throw unreachable("cannot resolve \(endpoint.host): \(reason.lowercased())")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
            guard descriptor >= 0 else { lastError = errno; continue }
            if let error = attemptConnection(descriptor, address.pointee) {
                lastError = error
                close(descriptor)
                continue
            }
            return descriptor
        }
        throw unreachable(Self.errorText(lastError))
    }

    /// Connects with a timeout (non-blocking connect, then poll); nil on success, else errno.
    private func attemptConnection(_ descriptor: Int32, _ address: addrinfo) -> Int32? {
        let flags = fcntl(descriptor, F_GETFL, 0)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        if connect(descriptor, address.ai_addr, address.ai_addrlen) != 0 {
            guard errno == EINPROGRESS else { return errno }
            var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&poller, 1, timeoutMilliseconds)
            if ready == 0 { return ETIMEDOUT }
            if ready < 0 { return errno }
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length) == 0 else { return errno }
            if socketError != 0 { return socketError }
        }
        _ = fcntl(descriptor, F_SETFL, flags)
        var noDelay: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        return nil
    }

    private func waitUntilReady(_ descriptor: Int32, for events: Int32) throws(LoginError) {
        var poller = pollfd(fd: descriptor, events: Int16(events), revents: 0)
        let ready = poll(&poller, 1, timeoutMilliseconds)
        if ready == 0 { throw unreachable("no answer within \(timeoutMilliseconds / 1000) s") }
        if ready < 0, errno != EINTR { throw unreachable(Self.errorText(errno)) }
    }

    private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(LoginError) {
        var offset = 0
        while offset < bytes.count {
            try waitUntilReady(descriptor, for: Int32(POLLOUT))
            let sent = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                #if os(Linux)
                return send(descriptor, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                #else
                return send(descriptor, base + offset, bytes.count - offset, 0)
                #endif
            }
            if sent < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw unreachable(Self.errorText(errno))
            }
            offset += sent
        }
    }

    private func readAll(_ descriptor: Int32) throws(LoginError) -> [UInt8] {
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            try waitUntilReady(descriptor, for: Int32(POLLIN))
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw unreachable(Self.errorText(errno))
            }
            if count == 0 { return response }
            response += chunk[0 ..< count]
            guard response.count <= Self.maxResponseSize else {
                throw .protocolError(url: endpoint.description, "the answer is larger than \(Self.maxResponseSize) bytes")
            }
        }
    }

    // MARK: Parsing

    /// Splits a complete HTTP/1.1 response (read to the end of the connection).
    static func parse(_ bytes: [UInt8], url: String) throws(LoginError) -> LoginHTTPResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let headEnd = bytes.firstRange(of: separator) else {
            throw .protocolError(url: url, bytes.isEmpty ? "the server closed the connection without answering" : "the answer has no complete header")
        }
        let head = String(decoding: bytes[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst()
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]), (100 ... 599).contains(status) else {
            throw .protocolError(url: url, "not an HTTP/1.1 answer")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
            headers[name] = value
        }
        var body = Array(bytes[headEnd.upperBound...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body, url: url)
        } else if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0, length <= body.count else {
                throw .protocolError(url: url, "the answer is shorter than its Content-Length")
            }
            body = Array(body[..<length])
        }
        return LoginHTTPResponse(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ bytes: [UInt8], url: String) throws(LoginError) -> [UInt8] {
        var body: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = bytes[index...].firstRange(of: [13, 10]) else { throw .protocolError(url: url, "truncated chunked body") }
            let sizeText = String(decoding: bytes[index ..< lineEnd.lowerBound], as: UTF8.self).prefix { $0 != ";" }
            guard let size = Int(sizeText.trimmingCharacters(in: " "), radix: 16), size >= 0 else {
                throw .protocolError(url: url, "bad chunk size")
            }
            index = lineEnd.upperBound
            if size == 0 { return body }
            guard index + size <= bytes.count else { throw .protocolError(url: url, "truncated chunked body") }
            body += bytes[index ..< index + size]
            index += size + 2
            guard index <= bytes.count else { throw .protocolError(url: url, "truncated chunked body") }
        }
    }
}

private extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
