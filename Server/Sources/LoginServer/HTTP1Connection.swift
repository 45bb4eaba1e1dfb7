import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

extension HTTPServerBuilder {
    /// HTTP/1 as ``LoginHTTP1Channel`` serves it, closing a connection left idle for `idleTimeout`.
    static func loginHTTP1(idleTimeout: TimeAmount) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            LoginHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)))
        }
    }
}

/// Hummingbird's HTTP/1 channel, with the connection rules of RFC 9112 §9.3 that its
/// request loop misses: it keeps a connection open unless the request says exactly
/// `Connection: close`. An HTTP/1.0 request without `keep-alive`, or a `Connection` header
/// that lists `close` in another case or among other tokens, kept the connection open until
/// the idle timeout, and a client reading the response to the end waited that long.
struct LoginHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // Right after NIO's request decoder, which still knows the request's version.
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(ConnectionCloseHandler(), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Rewrites the `Connection` header of a request after which the connection must close
/// (NIO's `isKeepAlive` is false: HTTP/1.0 without `keep-alive`, or `close` among the tokens
/// in any case) to exactly `close`, the spelling Hummingbird's request loop closes on.
final class ConnectionCloseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case var .head(head) = unwrapInboundIn(data), !head.isKeepAlive else {
            context.fireChannelRead(data)
            return
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }
}
