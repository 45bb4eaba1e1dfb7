import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

extension HTTPServerBuilder {
    /// HTTP/1 as ``LoginHTTP1Channel`` serves it, closing a connection left idle for `idleTimeout`;
    /// a body declared over `maxBodySize` bytes gets no `100 Continue`.
    static func loginHTTP1(idleTimeout: TimeAmount, maxBodySize: Int) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            LoginHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)),
                              maxBodySize: maxBodySize)
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
/// the body).
struct LoginHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    /// The largest body that is let in with `100 Continue`.
    let maxBodySize: Int

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Right after NIO's request decoder and response encoder, which still know the
            // request's version. (No protocol upgrade is configured: an upgrade would remove
            // the decoder and leave this handler facing bytes.)
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(ConnectionHeaderHandler(maxBodySize: maxBodySize), position: .after(decoder))
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
/// - an HTTP/1.1 request with `Expect: 100-continue` gets `100 Continue` at once (RFC 9110
///   §10.1.1) when it is the only request on the connection still to be answered and its
///   declared body is within the limit; a body declared larger gets no 100, so its 413 comes
///   before the client sends it. A request pipelined behind another gets no 100 either (it
///   would land inside the earlier response): its client sends the body after its own wait.
final class ConnectionHeaderHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let maxBodySize: Int
    /// What each request still waiting for its response asked for.
    private var pending: [(keepAlive: Bool, isHTTP10: Bool)] = []
    /// A response whose head went out and whose end has not.
    private var responding = false

    init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if pending.isEmpty, !responding, expectsContinue(head) {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
        }
        let keepAlive = head.isKeepAlive
        pending.append((keepAlive, head.version.major == 1 && head.version.minor == 0))
        if keepAlive {
            context.fireChannelRead(data)
        } else {
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.fireChannelRead(wrapInboundOut(.head(head)))
        }
    }

    /// Whether `head` waits for `100 Continue` before sending a body the server would take.
    private func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        // (Header values are matched without their spaces and tabs: neither value has any inside.)
        func bare(_ value: String) -> String { value.filter { $0 != " " && $0 != "\t" } }
        guard head.version.major == 1, head.version.minor >= 1,
              head.headers["expect"].contains(where: { bare($0).lowercased() == "100-continue" })
        else { return false }
        let declared = head.headers["content-length"].first.flatMap { Int(bare($0)) }
        return declared.map { $0 <= maxBodySize } ?? true
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .end = part { responding = false }
        // An interim response (100 Continue) is not the request's answer; an answer with no
        // request behind it (a parse error's 400) has nothing to apply.
        guard case var .head(head) = part, head.status.code >= 200 else {
            context.write(data, promise: promise)
            return
        }
        responding = true
        guard !pending.isEmpty else {
            context.write(data, promise: promise)
            return
        }
        let request = pending.removeFirst()
        if !request.keepAlive {
            head.headers.replaceOrAdd(name: "connection", value: "close")
        } else if request.isHTTP10 {
            head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
        }
        context.write(wrapOutboundOut(.head(head)), promise: promise)
    }
}
