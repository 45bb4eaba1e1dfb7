import Foundation
@testable import LoginServer
import NIOHTTP1
import Testing

/// RFC 9112's framing rules at the connection: `Host` (§3.2), `Transfer-Encoding` in HTTP/1.0
/// (§6.1), and the per-address connection cap.
@Suite("HTTP framing: Host, HTTP/1.0 Transfer-Encoding, connections per address", .timeLimit(.minutes(2)))
struct HTTPFramingTests {
    private typealias Raw = RobustnessTests

    @Test("Host values: names, IPv4, bracketed IPv6 and ports up to 65535 are valid; spaces, userinfo, bad brackets or ports are not")
    func hostGrammar() {
        for valid in ["", "x", "localhost", "example.com:8080", "127.0.0.1", "127.0.0.1:65535", "[::1]", "[::1]:8080",
                      "[::ffff:127.0.0.1]", "[v1.fe80::a+b]", "a-b_c~d.e", "%41b", "host:"] {
            #expect(FramingError.isValidHost(valid), "\(valid)")
        }
        for invalid in ["a b", "user@host", "[::1", "::1]", "[::1]x", "[]", "[1]", "[.]", "[v.x]", "[v1.]", "host:65536", "host:123456", "host:8x",
                        "%4", "%zz", "a/b", "a?b", "é.example"] {
            #expect(!FramingError.isValidHost(invalid), "\(invalid)")
        }
    }

    @Test("an HTTP/1.1 request without Host, with two Host lines or an invalid one is 400 with Connection: close; HTTP/1.0 without Host is served")
    func hostRules() async throws {
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .seconds(120) }
        let replies = try await server.run { client in
            try await Raw.onOwnThread {
                [
                    try Raw.exchangeUntilClosed(port: client.port, Array("GET /health HTTP/1.1\r\n\r\n".utf8)),
                    try Raw.exchangeUntilClosed(port: client.port, Array("GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8)),
                    try Raw.exchangeUntilClosed(port: client.port, Array("GET /health HTTP/1.1\r\nHost: a b\r\n\r\n".utf8)),
                    try Raw.exchangeUntilClosed(port: client.port, Array("GET /health HTTP/1.0\r\n\r\n".utf8)),
                ]
            }
        }
        for (reply, code) in zip(replies.prefix(3), ["missing_host", "duplicate_host", "invalid_host"]) {
            #expect(reply.reply.hasPrefix("HTTP/1.1 400 "), "\(code): \(reply.reply)")
            #expect(reply.reply.contains(#""error":"\#(code)""#), "\(reply.reply)")
            #expect(reply.reply.lowercased().contains("\r\nconnection: close\r\n"))
            #expect(reply.closed, "\(code): the server closed the connection")
        }
        #expect(replies[3].reply.hasPrefix("HTTP/1.1 200 ") || replies[3].reply.hasPrefix("HTTP/1.0 200 "), "\(replies[3].reply)")
    }

    @Test("a client cannot send the internal framing-error header: it is removed, and the request is served")
    func framingHeaderFromTheClientIsIgnored() async throws {
        let server = try await TestServer.make(.sqlite)
        let reply = try await server.run { client in
            try await client.send(.get, "/health", headers: [(FramingError.headerName, "too_many_connections")], body: nil)
        }
        #expect(reply.status == .ok)
    }

    @Test("HTTP/1.0 with Transfer-Encoding: chunked is answered and the connection closes; the bytes after it are never a second request")
    func http10TransferEncodingCloses() async throws {
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .seconds(120) }
        let exchange = try await server.run { client in
            try await Raw.onOwnThread {
                try Raw.exchangeUntilClosed(port: client.port, Array(("POST /v1/sessions HTTP/1.0\r\nTransfer-Encoding: chunked\r\n"
                    + "Connection: keep-alive\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
                    + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
            }
        }
        #expect(exchange.closed, "the server closed the connection: \(exchange.reply)")
        #expect(exchange.reply.lowercased().contains("\r\nconnection: close\r\n"), "\(exchange.reply)")
        #expect(!exchange.reply.contains(#""status":"ok""#), "the smuggled second request was served: \(exchange.reply)")
    }

    @Test("a connection past the cap that sends nothing is answered 429 and closed at once: it holds no slot until the idle timeout")
    func silentConnectionPastTheCapIsClosed() async throws {
        let server = try await TestServer.make(.sqlite) {
            $0.idleTimeout = .seconds(120)
            $0.maxConnectionsPerAddress = 1
        }
        let silent = try await server.run { client in
            try await Raw.onOwnThread { () -> (reply: String, closed: Bool) in
                let held = try Raw.connectLoopback(port: client.port)
                defer { close(held) }
                try Raw.sendAll(held, Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                _ = try Raw.readHead(held)
                return try Raw.exchangeUntilClosed(port: client.port, [])
            }
        }
        #expect(silent.reply.hasPrefix("HTTP/1.1 429 "), "\(silent.reply)")
        #expect(silent.reply.contains(#""error":"too_many_connections""#))
        #expect(silent.closed, "closed by the server, not after the client's 10 s")
    }

    @Test("one address past --max-connections-per-address gets 429 too_many_connections and a closed connection; a freed slot lets the next in")
    func connectionsPerAddressAreCapped() async throws {
        let server = try await TestServer.make(.sqlite) {
            $0.idleTimeout = .seconds(120)
            $0.maxConnectionsPerAddress = 3
        }
        let (held, refused, afterwards) = try await server.run { client in
            try await Raw.onOwnThread { () -> ([String], (reply: String, closed: Bool), String) in
                // Three keep-alive connections, each answered once and left open.
                var open: [Int32] = []
                defer { open.forEach { close($0) } }
                var held: [String] = []
                for _ in 0..<3 {
                    let fd = try Raw.connectLoopback(port: client.port)
                    open.append(fd)
                    try Raw.sendAll(fd, Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                    held.append(try Raw.readHead(fd))
                }
                let refused = try Raw.exchangeUntilClosed(port: client.port, Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                close(open.removeLast())
                // The server sees the close asynchronously: retry until the slot is free (bounded).
                var afterwards = ""
                for _ in 0..<50 {
                    afterwards = try Raw.exchange(port: client.port, Array("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
                    if afterwards.hasPrefix("HTTP/1.1 200 ") { break }
                }
                return (held, refused, afterwards)
            }
        }
        #expect(held.allSatisfy { $0.hasPrefix("HTTP/1.1 200 ") }, "\(held)")
        #expect(refused.reply.hasPrefix("HTTP/1.1 429 "), "\(refused.reply)")
        #expect(refused.reply.contains(#""error":"too_many_connections""#))
        #expect(refused.reply.lowercased().contains("\r\nretry-after: 1\r\n"))
        #expect(refused.closed)
        #expect(afterwards.hasPrefix("HTTP/1.1 200 "), "\(afterwards)")
    }

    @Test("the per-address count goes up and down and never below zero; a trusted proxy is not capped")
    func connectionCounting() throws {
        let counts = ConnectionsPerAddress(limit: 2)
        #expect(counts.open("10.0.0.1"))
        #expect(counts.open("10.0.0.1"))
        #expect(!counts.open("10.0.0.1"))
        #expect(counts.open("10.0.0.2"))
        counts.close("10.0.0.1")
        counts.close("10.0.0.1")
        #expect(counts.count("10.0.0.1") == 1)
        counts.close("10.0.0.1")
        counts.close("10.0.0.1")
        #expect(counts.count("10.0.0.1") == 0)
        #expect(counts.open("10.0.0.1"))
        let proxies = try TrustedProxies(parsing: ["10.0.0.0/8"])
        #expect(proxies.trusts("10.0.0.1"))
    }
}
