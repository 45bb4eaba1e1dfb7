import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

extension HTTPServerBuilder {
    /// HTTP/1 as ``LoginHTTP1Channel`` serves it, closing a connection left idle for `idleTimeout`;
    /// a body declared over `maxBodySize` bytes gets no `100 Continue`.
    /// A request's body must arrive in full within `idleTimeout` of its head, however steadily
    /// its bytes trickle in.
    /// A connection from an address that already holds `connections.limit` (a trusted proxy
    /// excepted) is answered 429 and closed.
    static func loginHTTP1(idleTimeout: TimeAmount, maxBodySize: Int, connections: ConnectionsPerAddress,
                           trustedProxies: TrustedProxies) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            LoginHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)),
                              maxBodySize: maxBodySize, bodyTimeout: idleTimeout,
                              connections: connections, trustedProxies: trustedProxies)
        }
    }
}

/// Hummingbird's HTTP/1 channel, with the connection rules of RFC 9112 §9.3 and §9.6 that its
/// request loop misses: it keeps a connection open unless the request says exactly
/// `Connection: close`, and its responses never say whether the connection stays. An HTTP/1.0
/// request without `keep-alive`, or a `Connection` header that lists `close` in another case or
/// among other tokens, kept the connection open until the idle timeout, and a client reading
/// the response to the end waited that long; an HTTP/1.0 client asking for keep-alive was not
/// told it got it. It also answers `Expect: 100-continue`, which Hummingbird leaves unanswered
/// (a client that sends it waits for the interim response, curl for a second, before sending
/// the body). And it applies RFC 9112's framing rules Hummingbird leaves to the application:
/// `Host` (§3.2: an HTTP/1.1 request without one, two `Host` lines or an invalid one is 400)
/// and `Transfer-Encoding` in HTTP/1.0 (§6.1: the framing is faulty, the connection closes
/// after the answer), and the per-address connection cap.
struct LoginHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    /// The largest body that is let in with `100 Continue`.
    let maxBodySize: Int
    /// How long a request's body may take to arrive, from its head.
    let bodyTimeout: TimeAmount
    /// The open connections per client address.
    let connections: ConnectionsPerAddress
    /// Proxies whose connections are not counted per address.
    let trustedProxies: TrustedProxies

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let overConnectionLimit: Bool
        if let peer = channel.remoteAddress?.ipAddress, !trustedProxies.trusts(peer) {
            // An IPv4 client on a dual-stack listener is one address, however it is written.
            let address = peer.hasPrefix("::ffff:") && peer.contains(".") ? String(peer.dropFirst(7)) : peer
            overConnectionLimit = !connections.open(address)
            let connections = self.connections
            channel.closeFuture.whenComplete { _ in connections.close(address) }
        } else {
            overConnectionLimit = false
        }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Right after NIO's request decoder and response encoder, which still know the
            // request's version. (No protocol upgrade is configured: an upgrade would remove
            // the decoder and leave this handler facing bytes.)
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            let handler = ConnectionHeaderHandler(maxBodySize: maxBodySize, bodyTimeout: bodyTimeout,
                                                  overConnectionLimit: overConnectionLimit)
            try channel.pipeline.syncOperations.addHandler(handler, position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Applies the `Connection` rules per request, in order (responses come back in the order of
/// their requests, pipelined or not):
/// - a request after which the connection must close (NIO's `isKeepAlive` is false: HTTP/1.0
///   without `keep-alive`, or `close` among the tokens in any case) reaches Hummingbird with
///   exactly `Connection: close`, the spelling its request loop closes on, and its response
///   says `Connection: close`;
/// - the response to an HTTP/1.0 request that keeps the connection says `Connection: keep-alive`;
/// - an HTTP/1.1 request with `Expect: 100-continue` (alone or in a list) gets `100 Continue`
///   (RFC 9110 §10.1.1) when its declared body is within the limit: at once when no earlier
///   request on the connection is still being answered, else right after the earlier response
///   ends (sent earlier, it would land inside that response). A body declared larger gets no
///   100 and its request is answered with `Connection: close`: its 413 comes before the client
///   sends the body, and the connection closes rather than wait for a body that will not come.
/// - a request whose declared body is over the limit is answered with `Connection: close`
///   whether or not it asked for `100 Continue`, and a 413 sent while its request's body is
///   still arriving (a chunked body, which declares no length) closes the connection once it is
///   written: Hummingbird would otherwise read and discard the rest of the body, however long,
///   before the next request, and a client streaming without end would hold the connection
///   (data keeps arriving, so the idle timeout never fires);
/// - a body that has not arrived in full `bodyTimeout` after its head closes the connection: a
///   client sending a byte every few seconds resets the idle timeout each time, and thousands of
///   such connections would each hold a request open for as long as they liked;
/// - the answer to a request the parser could not read (a malformed chunk) says
///   `Connection: close`, as the connection closes after it;
/// - an HTTP/1.0 request with `Transfer-Encoding` is answered with `Connection: close` (RFC 9112
///   §6.1: its framing is faulty, so bytes after it are never read as another request);
/// - a request with a `Host` problem (``FramingError/hostProblem(_:)``) reaches the router
///   marked with ``FramingError/headerName`` (answered by ``FramingErrorMiddleware``, in order)
///   and with `Connection: close`. A client's own header of that name is removed;
/// - a connection past its address's cap is answered 429 as soon as it opens and closed
///   (``refuseConnection(context:)``).
final class ConnectionHeaderHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A request still waiting for its response.
    private struct Pending {
        var keepAlive: Bool
        var isHTTP10: Bool
        /// The HTTP version of a `100 Continue` still owed to it (it came while an earlier
        /// response was being written).
        var continueOwed: HTTPVersion?
        /// Whether its body has been read to the end.
        var received = false
    }

    private let maxBodySize: Int
    private let bodyTimeout: TimeAmount
    private var pending: [Pending] = []
    /// Closes the connection when the body being read is late (see ``bodyTimeout``).
    private var bodyDeadline: Scheduled<Void>?
    /// The request parser failed: the connection closes after the answer.
    private var parserFailed = false
    /// A response whose head went out and whose end has not.
    private var responding = false
    /// The response being written closes the connection when it ends (a 413 sent before its
    /// request's body ended).
    private var closeAfterResponse = false

    /// The connection is one past its address's cap: it is answered 429 as it opens.
    private let overConnectionLimit: Bool
    /// The 429 went out: nothing more is read or answered.
    private var refused = false

    init(maxBodySize: Int, bodyTimeout: TimeAmount, overConnectionLimit: Bool = false) {
        self.maxBodySize = maxBodySize
        self.bodyTimeout = bodyTimeout
        self.overConnectionLimit = overConnectionLimit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's requests are not served (it was answered when it opened).
        guard !refused else { return }
        let part = unwrapInboundIn(data)
        if case .end = part {
            bodyDeadline?.cancel()
            bodyDeadline = nil
            if let last = pending.indices.last { pending[last].received = true }
        }
        guard case var .head(head) = part else {
            context.fireChannelRead(data)
            return
        }
        let declared = declaredLength(head)
        if head.headers.contains(name: "transfer-encoding") || (declared ?? 0) > 0 {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            bodyDeadline?.cancel()
            bodyDeadline = context.eventLoop.scheduleTask(in: bodyTimeout) { bound.value.close(promise: nil) }
        }
        let tooLarge = declared.map { $0 > maxBodySize } ?? false
        let isHTTP10 = head.version.major == 1 && head.version.minor == 0
        head.headers.remove(name: FramingError.headerName)
        let framingError = FramingError.hostProblem(head)
        let faultyFraming = isHTTP10 && head.headers.contains(name: "transfer-encoding")
        var request = Pending(keepAlive: head.isKeepAlive && !tooLarge && framingError == nil && !faultyFraming, isHTTP10: isHTTP10)
        if let framingError {
            head.headers.add(name: FramingError.headerName, value: framingError.rawValue)
        }
        if !tooLarge, framingError == nil, expectsContinue(head) {
            if pending.isEmpty, !responding {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            } else {
                request.continueOwed = head.version
            }
        }
        pending.append(request)
        if !request.keepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if overConnectionLimit, context.channel.isActive { refuseConnection(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        if overConnectionLimit { refuseConnection(context: context) }
        context.fireChannelActive()
    }

    /// A connection past its address's cap is answered at once, before any request (a client
    /// that never sends one must not hold the slot until the idle timeout): 429
    /// `too_many_connections`, then a lingering close, as after an early 413. Whatever it sends
    /// is discarded.
    private func refuseConnection(context: ChannelHandlerContext) {
        guard !refused else { return }
        refused = true
        let error = FramingError.tooManyConnections.apiError
        let body = error.bodyData
        var head = HTTPResponseHead(version: .http1_1, status: .tooManyRequests)
        head.headers.add(name: "content-type", value: "application/json; charset=utf-8")
        head.headers.add(name: "content-length", value: String(body.count))
        head.headers.add(name: "retry-after", value: String(error.retryAfter ?? 1))
        head.headers.add(name: "connection", value: "close")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in
            bound.value.close(mode: .output, promise: nil)
            bound.value.eventLoop.scheduleTask(in: .seconds(2)) { bound.value.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { parserFailed = true }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        bodyDeadline?.cancel()
        bodyDeadline = nil
        context.fireChannelInactive()
    }

    /// Whether `head` is an HTTP/1.1 request waiting for `100 Continue` before its body.
    private func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        head.version.major == 1 && head.version.minor >= 1
            && head.headers[canonicalForm: "expect"].contains(where: { $0.lowercased() == "100-continue" })
    }

    /// The body length `head` declares (`Content-Length`), when it declares one; `Int.max` for
    /// one too large for an `Int` (the parser takes lengths up to 2^64 - 1, and such a body is
    /// over any limit: it must not pass for one that declares none).
    private func declaredLength(_ head: HTTPRequestHead) -> Int? {
        head.headers["content-length"].first.map { Int($0.filter { $0 != " " && $0 != "\t" }) ?? .max }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .end = part {
            responding = false
            if closeAfterResponse {
                closeAfterResponse = false
                let written = promise ?? context.eventLoop.makePromise()
                context.writeAndFlush(data, promise: written)
                // A lingering close: closing a socket with unread input sends a reset, which
                // can drop the 413 before the client reads it. So the sending side closes first
                // (the client reads the answer, then the end), the rest of the body is read and
                // discarded for up to two seconds, and then the connection closes.
                let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
                written.futureResult.whenComplete { _ in
                    bound.value.close(mode: .output, promise: nil)
                    bound.value.eventLoop.scheduleTask(in: .seconds(2)) { bound.value.close(promise: nil) }
                }
                return
            }
            context.write(data, promise: promise)
            // The next request may be waiting for its 100: it goes out right after this response.
            if let version = pending.first?.continueOwed {
                pending[0].continueOwed = nil
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .continue))), promise: nil)
            }
            return
        }
        // An interim response (100 Continue) is not the request's answer; an answer with no
        // request behind it (a parse error's 400) has nothing to apply.
        guard case var .head(head) = part, head.status.code >= 200 else {
            context.write(data, promise: promise)
            return
        }
        responding = true
        guard !pending.isEmpty else {
            if parserFailed { head.headers.replaceOrAdd(name: "connection", value: "close") }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
            return
        }
        let request = pending.removeFirst()
        closeAfterResponse = head.status == .payloadTooLarge && !request.received
        if parserFailed || closeAfterResponse || !request.keepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        } else if request.isHTTP10 {
            head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
        }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
