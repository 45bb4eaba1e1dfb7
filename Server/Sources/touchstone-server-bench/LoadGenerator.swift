import Crypto
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The closed-loop login load of the benchmark, kept cheap so that it takes as little of the
/// cores it shares with the server as it can: one plain thread per connection, blocking
/// loopback sockets, requests written as bytes, and the one value it needs from a response
/// (the challenge) found by a scan instead of a JSON parser. Each thread runs challenge → P-256
/// signature → login until the deadline and records every login's latency.
enum LoadGenerator {
    /// What the threads measured.
    struct Outcome: Sendable {
        /// One latency per successful login, in nanoseconds.
        var latencies: [UInt64] = []
        /// The first error a thread met (the run is then void).
        var failure: String?
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A device bound to the bench's account: its ID and its P-256 private key's raw bytes.
    struct BoundDevice: Sendable {
        var deviceID: String
        var rawKey: Data
    }

    /// Runs one thread per device against `127.0.0.1:port` for `seconds`; blocks until they end.
    static func run(port: Int, devices: [BoundDevice], seconds: Double) -> Outcome {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        let outcome = Mutex(Outcome())
        let done = DispatchGroup()
        for device in devices {
            let deviceID = device.deviceID, rawKey = device.rawKey
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                var latencies: [UInt64] = []
                latencies.reserveCapacity(Int(seconds * 20_000))
                do {
                    let key = try P256.Signing.PrivateKey(rawRepresentation: rawKey)
                    let connection = try BlockingHTTPConnection(port: port)
                    defer { connection.close() }
                    let challengeBody = Array(#"{"deviceID":"\#(deviceID)"}"#.utf8)
                    while monotonicNanoseconds() < deadline {
                        let start = monotonicNanoseconds()
                        let challengeReply = try connection.post("/v1/challenges", body: challengeBody)
                        guard challengeReply.status == 200, let challenge = stringValue(of: "challenge", in: challengeReply.body),
                              let bytes = Data(base64Encoded: challenge)
                        else { throw Failure(description: "/v1/challenges answered \(challengeReply.status)") }
                        let signature = try key.signature(for: bytes).derRepresentation.base64EncodedString()
                        let loginBody = Array(#"{"deviceID":"\#(deviceID)","challenge":"\#(challenge)","signature":"\#(signature)"}"#.utf8)
                        let loginReply = try connection.post("/v1/logins", body: loginBody)
                        guard loginReply.status == 200 else { throw Failure(description: "/v1/logins answered \(loginReply.status)") }
                        latencies.append(monotonicNanoseconds() - start)
                    }
                    outcome.withLock { $0.latencies += latencies }
                } catch {
                    outcome.withLock { $0.failure = $0.failure ?? "\(error)" }
                }
            }
            thread.start()
        }
        done.wait()
        return outcome.withLock { $0 }
    }

    /// ``run(port:devices:seconds:)`` on a thread of its own, so that waiting for the load
    /// threads never holds one of Swift's cooperative threads.
    static func running(port: Int, devices: [BoundDevice], seconds: Double) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: run(port: port, devices: devices, seconds: seconds)) }.start()
        }
    }

    /// The string value of `"key":"…"` in a flat JSON object whose only escape is `\/` (the
    /// server's challenge reply: base64 and a date), or nil.
    static func stringValue(of key: String, in body: [UInt8]) -> String? {
        let pattern = Array("\"\(key)\":\"".utf8)
        guard body.count > pattern.count else { return nil }
        for start in 0...(body.count - pattern.count) where body[start..<(start + pattern.count)].elementsEqual(pattern) {
            let valueStart = start + pattern.count
            guard let end = body[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            return String(decoding: body[valueStart..<end], as: UTF8.self).replacingOccurrences(of: "\\/", with: "/")
        }
        return nil
    }

    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// One keep-alive HTTP/1.1 connection over a blocking socket: a request is written whole, and
/// the reply read up to its `Content-Length`.
final class BlockingHTTPConnection {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 16_384)
    private var pending: [UInt8] = []

    init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoadGenerator.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw LoadGenerator.Failure(description: "connect to port \(port): \(reason)")
        }
    }

    func close() {
        Glibc.close(descriptor)
    }

    /// Sends `POST path` with a JSON body and returns the status and body of the reply.
    func post(_ path: String, body: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        var request = Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        request += body
        try request.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var sent = 0
            while sent < bytes.count {
                let count = send(descriptor, base + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                guard count > 0 else { throw LoadGenerator.Failure(description: "send: \(String(cString: strerror(errno)))") }
                sent += count
            }
        }
        return try readReply()
    }

    private func readReply() throws -> (status: Int, body: [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while true {
            if headerEnd == nil, pending.count >= 4 {
                headerEnd = (0...(pending.count - 4)).first { pending[$0..<($0 + 4)].elementsEqual(separator) }
            }
            if let end = headerEnd {
                let head = String(decoding: pending[..<end], as: UTF8.self)
                let lines = head.split(separator: "\r\n")
                guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1.1 "),
                      let status = Int(statusLine.dropFirst(9).prefix(3))
                else { throw LoadGenerator.Failure(description: "malformed status line") }
                var length = 0
                for line in lines.dropFirst() where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                let total = end + 4 + length
                if pending.count >= total {
                    let body = Array(pending[(end + 4)..<total])
                    pending.removeFirst(total)
                    return (status, body)
                }
            }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                throw LoadGenerator.Failure(description: count == 0 ? "the server closed the connection" : "recv: \(String(cString: strerror(errno)))")
            }
            pending += buffer[0..<count]
        }
    }
}
