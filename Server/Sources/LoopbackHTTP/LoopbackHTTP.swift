import NIOCore
import NIOHTTP1
import NIOPosix

/// A minimal HTTP/1.1 client for the server's tests and benchmark, on the swift-nio modules the
/// server already builds (HummingbirdTesting would add async-http-client and HTTP/2 to every CI
/// build).
///
/// ```swift
/// let reply = try await LoopbackHTTP.send(port: 8080, method: .GET, path: "/health")
/// try await LoopbackHTTP.withConnection(port: 8080) { connection in
///     for _ in 0..<100 { _ = try await connection.send(method: .GET, path: "/health") }
/// }
/// ```
public enum LoopbackHTTP {
    /// One response: status code, headers (names lowercased, last value wins) and body.
    public struct Reply: Sendable {
        /// The status code.
        public var status: Int
        /// Header values by lowercased name.
        public var headers: [String: String]
        /// The body bytes.
        public var body: [UInt8]
    }

    /// Errors of the client.
    public enum Failure: Error {
        /// The server closed the connection before a whole response.
        case connectionClosed
    }

    /// Sends one request on a new connection to `host:port` and closes it.
    public static func send(
        host: String = "127.0.0.1", port: Int, method: HTTPMethod, path: String,
        headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> Reply {
        try await withConnection(host: host, port: port) { connection in
            try await connection.send(method: method, path: path, headers: headers, body: body)
        }
    }

    /// Opens one keep-alive connection for `body`, then closes it.
    public static func withConnection<Result>(
        host: String = "127.0.0.1", port: Int,
        _ body: (Connection) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel
                    )
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            let connection = Connection(host: host, iterator: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(connection)
        }
    }

    /// One open connection; requests on it go one after another.
    public final class Connection {
        private let host: String
        private var iterator: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
        private let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>

        init(
            host: String,
            iterator: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator,
            outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
        ) {
            self.host = host
            self.iterator = iterator
            self.outbound = outbound
        }

        /// Sends a request and reads its whole response.
        public func send(method: HTTPMethod, path: String, headers: [(String, String)] = [], body: [UInt8]? = nil) async throws -> Reply {
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
            head.headers.add(name: "Host", value: host)
            for (name, value) in headers { head.headers.add(name: name, value: value) }
            head.headers.add(name: "Content-Length", value: String(body?.count ?? 0))
            try await outbound.write(.head(head))
            if let body, !body.isEmpty {
                try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
            }
            try await outbound.write(.end(nil))

            var reply = Reply(status: 0, headers: [:], body: [])
            while let part = try await iterator.next() {
                switch part {
                case .head(let responseHead):
                    reply.status = Int(responseHead.status.code)
                    for (name, value) in responseHead.headers { reply.headers[name.lowercased()] = value }
                case .body(let buffer):
                    reply.body += Array(buffer.readableBytesView)
                case .end:
                    return reply
                }
            }
            throw Failure.connectionClosed
        }
    }
}
