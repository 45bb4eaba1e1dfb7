import Foundation
import GRDB
import _CryptoExtras
import Crypto
import Hummingbird
@testable import LoginServer
import Testing

@Suite("Bad input, logs, restarts and the real socket", .timeLimit(.minutes(2)))
struct RobustnessTests {
    @Test("malformed JSON, wrong types and missing fields are 400 with a JSON error")
    func malformedBodies() async throws {
        try await TestServer.make(.sqlite).run { client in
            for raw in ["", "{", "[]", "null", "\"text\"", "{\"username\": 5, \"password\": \"x\"}", "{\"username\": \"ada\"}",
                        "{\"username\": null, \"password\": \"correct horse\"}", "\u{FF}\u{FE}"] {
                for path in ["/v1/accounts", "/v1/sessions", "/v1/challenges", "/v1/logins", "/v1/logins/token"] {
                    let reply = try await client.send(.post, path, raw: raw)
                    #expect(reply.status == .badRequest, "\(path) \(raw)")
                    #expect(reply.errorCode == "malformed_request", "\(path) \(raw)")
                    #expect(reply.string("message")?.isEmpty == false)
                }
            }
        }
    }

    @Test("a body over 64 KiB is 413; one just under is read")
    func oversizedBody() async throws {
        try await TestServer.make(.sqlite).run { client in
            let big = "{\"username\": \"" + String(repeating: "a", count: 70_000) + "\", \"password\": \"x\"}"
            let reply = try await client.send(.post, "/v1/accounts", raw: big)
            #expect(reply.status == .contentTooLarge)
            #expect(reply.errorCode == "body_too_large")
            let fits = "{\"username\": \"" + String(repeating: "a", count: 60_000) + "\", \"password\": \"correct horse\"}"
            #expect(try await client.send(.post, "/v1/accounts", raw: fits).status == .badRequest)
        }
    }

    @Test("unknown routes are a JSON 404")
    func unknownRoute() async throws {
        try await TestServer.make(.sqlite).run { client in
            let reply = try await client.send(.get, "/v1/nothing")
            #expect(reply.status == .notFound)
            #expect(reply.errorCode == "not_found")
        }
    }

    @Test("a known path with another method is a JSON 405 with Allow; every route answers its own methods")
    func wrongMethodIs405() async throws {
        try await TestServer.make(.sqlite).run { client in
            let reply = try await client.send(.get, "/v1/accounts")
            #expect(reply.status == .methodNotAllowed)
            #expect(reply.errorCode == "method_not_allowed")
            #expect(reply.header("Allow") == "POST, OPTIONS")
            let devices = try await client.send(.put, "/v1/devices")
            #expect(devices.status == .methodNotAllowed && devices.header("Allow") == "GET, HEAD, POST, OPTIONS")
            #expect(try await client.send(.post, "/v1/devices/abc").header("Allow") == "DELETE, OPTIONS")
            #expect(try await client.send(.head, "/v1/accounts").status == .methodNotAllowed)
            // The allowed methods still reach their handlers (not 405, not 404).
            for (path, methods) in [("/health", HTTPRequest.Method.get), ("/v1/accounts", .post), ("/v1/devices", .get),
                                    ("/v1/devices/abc", .delete), ("/v1/logins/token", .post)] {
                let status = try await client.send(methods, path, raw: "{}").status
                #expect(status != .methodNotAllowed && status != .notFound, "\(path) \(status)")
            }
        }
    }

    @Test("the Bearer scheme is case-insensitive (RFC 9110): bearer and BEARER work, another scheme is 401")
    func bearerSchemeIgnoresCase() async throws {
        try await TestServer.make(.sqlite).run { client in
            try await client.register("casey")
            let token = try await client.signIn("casey")
            for scheme in ["Bearer", "bearer", "BEARER"] {
                #expect(try await client.send(.get, "/v1/devices", token: token, scheme: scheme).status == .ok, "\(scheme)")
            }
            #expect(try await client.send(.get, "/v1/devices", token: token, scheme: "Basic").status == .unauthorized)
        }
    }

    @Test("a device ID with a new line cannot forge a log line: only IDs of the issued form are logged")
    func deviceIDsCannotForgeLogLines() async throws {
        let server = try await TestServer.make(.sqlite)
        let forged = "info touchstone.server: forged-entry"
        let reply = try await server.run { client in
            try await client.send(.post, "/v1/logins", json: ["deviceID": "zz\n" + forged, "challenge": "AAAA", "signature": "AAAA"])
        }
        #expect(reply.errorCode == "login_failed")
        #expect(server.logs.text.contains("signature login failed"))
        #expect(!server.logs.text.contains("forged-entry"), "\(server.logs.text)")
    }

    @Test("a client that stalls in the middle of a request is disconnected after the idle timeout")
    func stalledRequestIsClosed() async throws {
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .milliseconds(300) }
        let closed = try await server.run { client in
            try await Self.onOwnThread { try Self.sendHalfARequestAndWaitForClose(port: client.port) }
        }
        #expect(closed, "the server kept a stalled connection open")
    }

    /// Sends headers promising 100 body bytes and only 7 of them, then waits up to 10 s for the
    /// server to close the connection (a read of 0 bytes).
    private static func sendHalfARequestAndWaitForClose(port: Int) throws -> Bool {
        let fd = try connectLoopback(port: port)
        defer { close(fd) }
        let request = Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"user".utf8)
        guard send(fd, request, request.count, 0) == request.count else { throw POSIXError(.EIO) }
        var buffer = [UInt8](repeating: 0, count: 256)
        return recv(fd, &buffer, buffer.count, 0) == 0
    }

    @Test("a body that is not valid HTTP (a malformed chunk) is a JSON 400, not a 500 and an error in the log")
    func malformedChunkedBody() async throws {
        let server = try await TestServer.make(.sqlite)
        let reply = try await server.run { client in
            try await Self.onOwnThread {
                try Self.exchange(port: client.port, Array("""
                    POST /v1/accounts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n
                    """.utf8))
            }
        }
        #expect(reply.hasPrefix("HTTP/1.1 400 "))
        #expect(reply.contains(#""error":"malformed_request""#))
        // The connection closes after it, and the answer says so.
        #expect(reply.lowercased().contains("\r\nconnection: close\r\n"))
        #expect(!server.logs.text.contains("request failed"))
    }

    @Test("a body trickling in a byte at a time is cut off once the idle timeout passes after its head, although bytes keep coming")
    func tricklingBodyIsClosed() async throws {
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .milliseconds(600) }
        let (closed, sent) = try await server.run { client in
            try await Self.onOwnThread { () throws -> (Bool, Int) in
                let fd = try Self.connectLoopback(port: client.port)
                defer { close(fd) }
                try Self.sendAll(fd, Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\n".utf8))
                // One byte every 100 ms: the idle timer never sees 600 ms of silence.
                for index in 0..<60 {
                    usleep(100_000)
                    guard send(fd, [UInt8(ascii: " ")], 1, Int32(MSG_NOSIGNAL)) == 1 else { return (true, index) }
                    var buffer = [UInt8](repeating: 0, count: 512)
                    let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    if count == 0 { return (true, index + 1) }
                }
                return (false, 60)
            }
        }
        #expect(closed, "the whole 6 s body was read")
        #expect(sent < 30, "closed after \(sent) bytes (100 ms apart); the deadline is 600 ms after the head")
    }

    @Test("with maxConnections open, a new connection waits in the backlog and is served once one closes")
    func connectionBound() async throws {
        let server = try await TestServer.make(.sqlite) {
            $0.maxConnections = 2
            $0.idleTimeout = .seconds(60)
        }
        let (whileFull, afterClose) = try await server.run { client in
            try await Self.onOwnThread { () throws -> (String, String) in
                let first = try Self.connectLoopback(port: client.port), second = try Self.connectLoopback(port: client.port)
                // Both served (so both counted) before the third comes.
                for fd in [first, second] {
                    try Self.sendAll(fd, Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                    _ = try Self.readHead(fd)
                }
                let third = try Self.connectLoopback(port: client.port)
                defer { close(third) }
                var wait = timeval(tv_sec: 0, tv_usec: 500_000)
                setsockopt(third, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                try Self.sendAll(third, Array("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
                let whileFull = try Self.readHead(third)
                close(first)
                wait = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(third, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                let afterClose = try Self.readHead(third)
                close(second)
                return (whileFull, afterClose)
            }
        }
        #expect(whileFull.isEmpty, "answered while two connections were open: \(whileFull)")
        #expect(afterClose.hasPrefix("HTTP/1.1 200 "), "\(afterClose)")
    }

    @Test("a client resetting the connection in the middle of a body is logged at info, not as a server error")
    func resetMidBodyIsNotAnError() async throws {
        let server = try await TestServer.make(.sqlite)
        try await server.run { client in
            try await Self.onOwnThread {
                let fd = try Self.connectLoopback(port: client.port)
                try Self.sendAll(fd, Array("POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Length: 60\r\n\r\n{\"username\"".utf8))
                usleep(100_000)
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
                close(fd)
            }
            // The server has noticed once it answers the next request.
            _ = try await client.send(.get, "/health")
        }
        let lines = server.logs.text.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("error ") }, "\(lines.filter { $0.hasPrefix("error ") })")
        #expect(lines.contains { $0.hasPrefix("info ") && $0.contains("connection failed while the request was read") })
    }

    @Test("a request after which the connection must close (HTTP/1.0 without keep-alive, Connection: Close or close among other tokens) gets its answer and the close at once, not after the idle timeout",
          arguments: [
              "GET /health HTTP/1.0\r\n\r\n",
              "GET /health HTTP/1.0\r\nConnection: close\r\n\r\n",
              "GET /health HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n",
              "GET /health HTTP/1.1\r\nHost: x\r\nConnection: TE, close\r\n\r\n",
          ])
    func connectionClosesAfterItsRequest(_ request: String) async throws {
        // An idle timeout far past the client's 10 s read timeout: only the connection rule
        // can close the connection in time.
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .seconds(120) }
        let (reply, closed) = try await server.run { client in
            try await Self.onOwnThread { try Self.exchangeUntilClosed(port: client.port, Array(request.utf8)) }
        }
        #expect(reply.hasPrefix("HTTP/1.1 200 "))
        #expect(reply.lowercased().contains("\r\nconnection: close\r\n"), "the response says so (RFC 9112 §9.6)")
        #expect(closed, "the server kept the connection open after the response")
    }

    @Test("an HTTP/1.1 request, and an HTTP/1.0 one with keep-alive, keep the connection open for the next")
    func keepAliveKeepsTheConnection() async throws {
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .seconds(120) }
        let replies = try await server.run { client in
            try await Self.onOwnThread {
                try ["GET /health HTTP/1.1\r\nHost: x\r\n\r\n", "GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"].map { head in
                    // The second request on the same connection ends it, so the read ends.
                    try Self.exchangeUntilClosed(port: client.port, Array((head + "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").utf8))
                }
            }
        }
        for (reply, closed) in replies {
            #expect(reply.components(separatedBy: "HTTP/1.1 200 ").count == 3, "both requests answered on one connection")
            #expect(closed)
        }
        // The HTTP/1.0 client is told the connection stays; the HTTP/1.1 one needs no word.
        let first = replies.map { $0.reply.components(separatedBy: "\r\n\r\n")[0].lowercased() }
        #expect(!first[0].contains("connection:"))
        #expect(first[1].contains("\r\nconnection: keep-alive"))
    }

    @Test("Expect: 100-continue: the client is told to go on before it sends the body, then answered as usual")
    func expectContinueIsAnswered() async throws {
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .seconds(120) }
        let body = Array(#"{"username":"ada","password":"correct horse battery"}"#.utf8)
        let (interim, answer) = try await server.run { client in
            try await Self.onOwnThread {
                let fd = try Self.connectLoopback(port: client.port)
                defer { close(fd) }
                try Self.sendAll(fd, Array(("POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Content-Length: \(body.count)\r\nExpect: 100-Continue, x-other\r\nConnection: close\r\n\r\n").utf8))
                // Nothing else can come before the body is sent (a missing 100 times out here).
                let interim = try Self.readHead(fd)
                try Self.sendAll(fd, body)
                return (interim, try Self.readHead(fd))
            }
        }
        #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 201 "))
    }

    @Test("no 100 Continue for a body declared over the limit (its 413 comes first, and the connection closes) or for HTTP/1.0; a request pipelined behind another gets it after that response")
    func expectContinueWithheld() async throws {
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .seconds(120) }
        let body = #"{"username":"ada","password":"correct horse battery"}"#
        let (tooLarge, http10, pipelined) = try await server.run { client in
            try await Self.onOwnThread {
                let fd = try Self.connectLoopback(port: client.port)
                defer { close(fd) }
                try Self.sendAll(fd, Array(("POST /v1/accounts HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n"
                    + "Expect: 100-continue\r\n\r\n").utf8))
                let tooLarge = try Self.readHead(fd)
                let http10 = try Self.exchange(port: client.port, Array(("POST /v1/accounts HTTP/1.0\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Expect: 100-continue\r\n\r\n" + body).utf8))
                let pipelined = try Self.exchange(port: client.port, Array(("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n"
                    + "Connection: close\r\n\r\n" + body).utf8))
                return (tooLarge, http10, pipelined)
            }
        }
        #expect(tooLarge.hasPrefix("HTTP/1.1 413 "))
        #expect(tooLarge.lowercased().contains("\r\nconnection: close\r\n"), "the body will not come: the connection closes (\(tooLarge))")
        #expect(http10.hasPrefix("HTTP/1.1 201 "))
        #expect(!http10.contains("100 Continue"))
        // The second request gets its 100 once the first response is complete, never inside it.
        #expect(pipelined.hasPrefix("HTTP/1.1 200 "))
        let interims = pipelined.components(separatedBy: "HTTP/1.1 100 Continue").count - 1
        #expect(pipelined.components(separatedBy: "HTTP/1.1 ").count - 1 - interims == 2, "both requests answered")
        #expect(interims == 1, "the pipelined request gets its 100 after the first response")
        if let interim = pipelined.range(of: "HTTP/1.1 100 Continue") {
            #expect(pipelined[..<interim.lowerBound].hasSuffix(#""status":"ok"}"#))
        }
    }

    @Test("a body over the limit still arriving gets its 413 and the connection closes: declared without Expect, or chunked without end")
    func oversizedBodyClosesConnection() async throws {
        let server = try await TestServer.make(.sqlite) { $0.idleTimeout = .seconds(120) }
        let chunk = String(repeating: "a", count: 16 * 1024)
        let (declared, chunked, huge) = try await server.run { client in
            try await Self.onOwnThread {
                // Declares a terabyte and sends 70 KB of it: the rest never comes.
                let declared = try Self.exchangeUntilClosed(port: client.port, Array(("POST /v1/accounts HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Length: 1000000000000\r\n\r\n" + String(repeating: "b", count: 70_000)).utf8))
                // Chunked, five 16 KiB chunks and no last chunk: a stream that would go on.
                let chunks = (0..<5).map { _ in String(16 * 1024, radix: 16) + "\r\n" + chunk + "\r\n" }.joined()
                let chunked = try Self.exchangeUntilClosed(port: client.port, Array(("POST /v1/accounts HTTP/1.1\r\nHost: x\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n" + chunks).utf8))
                // A length past Int's range (the parser takes up to 2^64 - 1).
                let huge = try Self.exchangeUntilClosed(port: client.port, Array(("POST /v1/accounts HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Length: 18446744073709551615\r\n\r\n" + String(repeating: "b", count: 1_000)).utf8))
                return (declared, chunked, huge)
            }
        }
        for (name, exchange) in [("declared", declared), ("chunked", chunked), ("huge", huge)] {
            #expect(exchange.reply.hasPrefix("HTTP/1.1 413 "), "\(name): \(exchange.reply)")
            #expect(exchange.reply.lowercased().contains("\r\nconnection: close\r\n"), "\(name)")
            #expect(exchange.closed, "\(name): the server closed the connection (not the client's 10 s timeout)")
        }
    }

    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw POSIXError(.EIO) }
    }

    /// Reads what the server sends until the end of a response head (or 10 s pass): the interim
    /// 100, or a final response's head and whatever of its body came with it.
    static func readHead(_ fd: Int32) throws -> String {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while String(decoding: answer, as: UTF8.self).range(of: "\r\n\r\n") == nil {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// Sends `request` on a new connection; returns what the server answers, and whether the
    /// server closed the connection (rather than the client's 10 s read timeout ending it).
    static func exchangeUntilClosed(port: Int, _ request: [UInt8]) throws -> (reply: String, closed: Bool) {
        let fd = try connectLoopback(port: port)
        defer { close(fd) }
        guard send(fd, request, request.count, 0) == request.count else { throw POSIXError(.EIO) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count < 0, errno == EINTR { continue }
            if count == 0 { return (String(decoding: answer, as: UTF8.self), true) }
            guard count > 0 else { return (String(decoding: answer, as: UTF8.self), false) }
            answer += buffer[0..<count]
        }
    }

    /// Sends `request` on a new connection and returns everything the server answers until it
    /// closes the connection (or 10 s pass).
    static func exchange(port: Int, _ request: [UInt8]) throws -> String {
        try exchangeUntilClosed(port: port, request).reply
    }

    /// Runs blocking socket work on a thread of its own. On a task it would hold one of the
    /// concurrency pool's threads (two on a 2-core machine) while the server needs them to
    /// answer: tests run in parallel, and two blocked reads starved the server until they timed out.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// A blocking TCP connection to 127.0.0.1:`port` whose reads time out after 10 s.
    static func connectLoopback(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EBADF) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    @Test("no password, session token, device token or challenge reaches the log")
    func noSecretsInLogs() async throws {
        let server = try await TestServer.make(.sqlite)
        let password = "s3cret-Password-\(UUID().uuidString)"
        let secrets = try await server.run { client in
            try await client.register("ada", password)
            _ = try? await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": password + "x"])
            let session = try await client.signIn("ada", password)
            let deviceToken = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
            _ = try await client.send(.post, "/v1/devices", json: ["kind": "token", "deviceToken": deviceToken], token: session)
            let tokenLogin = try await client.send(.post, "/v1/logins/token", json: ["deviceToken": deviceToken])
            let key = P256Key()
            let deviceID = try await client.bindKey(key, token: session)
            let challenge = try await client.challenge(deviceID)
            let signatureLogin = try await client.login(deviceID, challenge: challenge, signature: try key.sign(challenge))
            return [
                password, password + "x", session, deviceToken, challenge,
                tokenLogin.string("token") ?? "missing", signatureLogin.string("token") ?? "missing",
            ]
        }
        let logs = server.logs.text
        #expect(logs.contains("password login"))
        #expect(logs.contains("signature login"))
        for secret in secrets {
            #expect(!logs.contains(secret), "a secret reached the log")
            #expect(!logs.contains(String(secret.prefix(12))), "part of a secret reached the log")
        }
    }

    @Test("the whole flow over a real loopback socket", arguments: Backend.available)
    func liveSocket(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            #expect(try await client.send(.get, "/health").status == .ok)
            let device = try await EnrolledDevice.make(client)
            let challenge = try await client.challenge(device.deviceID)
            let reply = try await client.login(device.deviceID, challenge: challenge, signature: try device.key.sign(challenge))
            #expect(reply.status == .ok)
            #expect(reply.string("profileID") == device.profileID)
            let big = String(repeating: "x", count: 100_000)
            #expect(try await client.send(.post, "/v1/sessions", raw: big).status == .contentTooLarge)
        }
    }

    @Test("PostgreSQL is configured and reachable (the suite never runs without it)")
    func postgresExpected() async throws {
        #expect(Backend.postgresURL != nil, "run scripts/server-test.sh, which starts a private PostgreSQL cluster")
        try await TestServer.make(.postgres).run { client in
            let reply = try await client.send(.get, "/health")
            #expect(reply.status == .ok)
        }
    }
}
