#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
import Touchstone
import TouchstoneBuiltins
@testable import TouchstoneREPL

/// The `login` commands without a real server: URL and answer parsing, the order of steps,
/// secrets kept out of the echo and `--json`, errors that name the URL or quote the server.
/// The whole story against touchstone-server runs in scripts/server-test.sh
/// (Tests/ServerTranscripts/fingerprint-login.touchstone).
@Suite struct LoginCommandTests {
    func session() throws -> CommandSession {
        var composition = Composition()
        composition.seed = 1
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        return try CommandSession(composition: composition, table: .repl())
    }

    @Test func serverURLsAreParsedAndOnlyPlainHTTPIsAccepted() throws {
        let local = try LoginEndpoint(parsing: "http://127.0.0.1:8080")
        #expect(local.host == "127.0.0.1" && local.port == 8080 && local.basePath.isEmpty)
        let v6 = try LoginEndpoint(parsing: "http://[::1]:9000/login/")
        #expect(v6.host == "::1" && v6.port == 9000 && v6.basePath == "/login")
        #expect(v6.description == "http://[::1]:9000/login")
        #expect(try LoginEndpoint(parsing: "HTTP://localhost").port == 80)
        for bad in ["https://127.0.0.1:8443", "ftp://host", "127.0.0.1:8080", "http://", "http://user:pw@host", "http://host:0",
                    "http://host:70000", "http://host:80?x=1", "http://[::1", "http://ho st"] {
            #expect(throws: LoginError.self, "\(bad)") { try LoginEndpoint(parsing: bad) }
        }
        do {
            _ = try LoginEndpoint(parsing: "https://example.test")
        } catch {
            #expect(error.description.contains("https is not supported"))
        }
    }

    @Test func answersAreSplitIntoStatusHeadersAndBody() throws {
        let plain = Array("HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}extra".utf8)
        let parsed = try LoginHTTPClient.parse(plain, url: "u")
        #expect(parsed.status == 201 && parsed.headers["content-type"] == "application/json" && parsed.body == Array("{}".utf8))
        let chunked = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n".utf8)
        #expect(try LoginHTTPClient.parse(chunked, url: "u").body == Array("abcde".utf8))
        #expect(throws: LoginError.self) { try LoginHTTPClient.parse([], url: "u") }
        #expect(throws: LoginError.self) { try LoginHTTPClient.parse(Array("SSH-2.0-OpenSSH\r\n\r\n".utf8), url: "u") }
        #expect(throws: LoginError.self) { try LoginHTTPClient.parse(Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".utf8), url: "u") }
        #expect(throws: LoginError.self) { try LoginHTTPClient.parse(Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8), url: "u") }
    }

    @Test func stepsOutOfOrderSayWhatComesFirst() async throws {
        let repl = try session()
        #expect(await repl.execute("login enable").error?.name == "notSignedIn")
        #expect(await repl.execute("login fingerprint thumb").error?.name == "notEnabled")
        #expect(await repl.execute("login disable").error?.name == "notEnabled")
        #expect(await repl.execute("login password alice").error?.name == "usage")  // no terminal to ask on
        #expect(await repl.execute("login register").error?.message.contains("missing the username") == true)
        #expect(await repl.execute("login frobnicate").error?.name == "usage")
        #expect(await repl.execute("login").error?.name == "usage")
        #expect(await repl.execute("login server https://127.0.0.1:8443").error?.name == "badURL")
        let status = await repl.execute("login status")
        #expect(status.ok)
        #expect(status.text.contains("fingerprint login: off"))
        #expect(status.json["result"]?["signedIn"] == false)
    }

    @Test func anUnreachableServerIsNamedAndThePasswordStaysHidden() async throws {
        let port = try closedLoopbackPort()
        let repl = try session()
        let server = await repl.execute("login server http://127.0.0.1:\(port)")
        #expect(server.text == "login server: http://127.0.0.1:\(port)")
        let record = await repl.execute("login register alice 'sup3r secret'")
        #expect(record.error?.name == "serverUnreachable")
        #expect(record.error?.message.contains("http://127.0.0.1:\(port)") == true)
        #expect(record.containsSecret)
        #expect(record.input == "login register alice ****")
        #expect(!record.json.serialized.contains("sup3r"))
        #expect(!record.text.contains("sup3r"))
        let password = await repl.execute("login password alice 'sup3r secret'")
        #expect(password.input == "login password alice ****")
    }

    @Test func theServersErrorBodyIsShownWithItsStatusAndCode() async throws {
        let server = try CannedHTTPServer(status: "401 Unauthorized", body: #"{"error":"invalid_credentials","message":"Wrong username or password."}"#)
        let repl = try session()
        _ = await repl.execute("login server http://127.0.0.1:\(server.port)")
        let record = await repl.execute("login password alice 'not it at all'")
        #expect(record.error?.name == "invalid_credentials")
        #expect(record.error?.code == 401)
        #expect(record.text.hasPrefix("error: invalid_credentials: HTTP 401: Wrong username or password."))
        #expect(record.error?.matches("invalid_credentials") == true)
        let request = server.request()
        #expect(request.hasPrefix("POST /v1/sessions HTTP/1.1\r\n"))
        #expect(request.contains(#"{"username":"alice","password":"not it at all"}"#))
    }

    @Test func anInteractivePasswordIsAskedForWithoutEcho() async throws {
        let server = try CannedHTTPServer(status: "201 Created", body: #"{"profileID":"p1"}"#)
        let repl = try session()
        repl.isInteractive = true
        let asked = PromptLog()
        repl.readSecret = { prompt in asked.append(prompt); return "typed pass 1" }
        _ = await repl.execute("login server http://127.0.0.1:\(server.port)")
        let record = await repl.execute("login register carol")
        #expect(asked.prompts == ["password for carol: "])
        #expect(record.text == "ok: registered carol (profile p1)")
        #expect(server.request().contains(#""password":"typed pass 1""#))
    }

    @Test func loginIsInHelpAndCompletion() async throws {
        let repl = try session()
        _ = await repl.execute("enroll thumb")
        #expect(await repl.execute("help").text.contains("login "))
        #expect(await repl.execute("help login").text.contains("login fingerprint [outcome ...]"))
        let completer = Completer(session: repl)
        #expect(completer.candidates(lineBeforeCursor: "log") == ["login"])
        #expect(completer.candidates(lineBeforeCursor: "login fi") == ["fingerprint"])
        #expect(completer.candidates(lineBeforeCursor: "login fingerprint th") == ["thumb"])
    }

    /// A loopback port nothing listens on (bound, then closed).
    func closedLoopbackPort() throws -> UInt16 {
        let listener = try CannedHTTPServer(status: nil, body: "")
        listener.stop()
        return listener.port
    }
}

final class PromptLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ prompt: String) { lock.withLock { list.append(prompt) } }
    var prompts: [String] { lock.withLock { list } }
}

/// A one-shot HTTP server on a loopback port: answers the first request with a canned answer
/// and remembers the request.
final class CannedHTTPServer: @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32
    private let lock = NSLock()
    private var received = ""
    private let done = DispatchSemaphore(value: 0)
    private var stopped = false

    struct SetupError: Error {}

    /// Listens on a free loopback port; answers one request with `status` and a JSON `body`
    /// (with no `status`, only takes the port).
    init(status: String?, body: String) throws {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SetupError() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard bound == 0, named == 0, listen(fd, 4) == 0 else { close(fd); throw SetupError() }
        descriptor = fd
        port = UInt16(bigEndian: address.sin_port)
        guard let status else { return }
        let answer = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let descriptor = self.descriptor
        Thread { [self] in
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { done.signal(); return }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                bytes += buffer[0 ..< count]
                let text = String(decoding: bytes, as: UTF8.self)
                if let end = text.range(of: "\r\n\r\n") {
                    let length = text[..<end.lowerBound].split(separator: "\r\n")
                        .first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                    if text.utf8.count - text.utf8.distance(from: text.startIndex, to: end.upperBound) >= length { break }
                }
            }
            lock.withLock { received = String(decoding: bytes, as: UTF8.self) }
            let reply = Array(answer.utf8)
            _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
            close(connection)
            done.signal()
        }.start()
    }

    /// The request received (waits for the answer to have been sent).
    func request() -> String {
        _ = done.wait(timeout: .now() + 10)
        return lock.withLock { received }
    }

    func stop() {
        lock.withLock {
            if !stopped { close(descriptor) }
            stopped = true
        }
    }

    deinit { stop() }
}
