import Foundation
import Hummingbird
import NIOHTTP1
import Logging
import NIOCore
import PostgresNIO
import GRDB

/// An error the API answers with: a status and the JSON body `{"error": code, "message": text}`.
///
/// Messages are written for the client and never contain a password, a token or a key.
public struct APIError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// A stable machine-readable code, such as `invalid_credentials`.
    public var code: String
    /// A sentence for people.
    public var message: String
    /// Seconds to wait, sent as `Retry-After` (429 and 503).
    public var retryAfter: Int?
    /// The methods the path answers, sent as `Allow` (only for 405).
    public var allow: String?

    /// Creates an error.
    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, retryAfter: Int? = nil, allow: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.allow = allow
    }

    /// 405 `method_not_allowed` with `Allow` listing `allowed`.
    static func methodNotAllowed(_ allowed: [HTTPRequest.Method]) -> APIError {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        return APIError(.methodNotAllowed, "method_not_allowed", "This path answers \(list) only.", allow: list)
    }

    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(.badRequest, code, message) }

    /// The one answer for a wrong password and an unknown user.
    static let invalidCredentials = APIError(.unauthorized, "invalid_credentials", "Unknown username or wrong password.")
    /// The one answer for every failed device login.
    static let loginFailed = APIError(.unauthorized, "login_failed", "The device could not be authenticated.")
    /// App Attest asked of a server started without `--app-attest-root`.
    static let appAttestNotConfigured = APIError.badRequest(
        "app_attest_not_configured", "This server verifies no App Attest attestations (start it with --app-attest-root and --app-id).")
    /// The message of a 429 for failed logins.
    static let tooManyFailures = "Too many failed logins; retry later."
    /// A missing, unknown or expired bearer token.
    static let unauthorized = APIError(.unauthorized, "unauthorized", "A valid bearer token is required.")

    /// The JSON body.
    struct Body: Codable, Equatable {
        var error: String
        var message: String
    }

    /// The response for this error.
    func response() -> Response {
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let allow { headers[.allow] = allow }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bodyData)))
    }

    /// The JSON body's bytes (keys sorted).
    var bodyData: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(Body(error: code, message: message))) ?? Data()
    }
}

/// Turns every error a handler throws into a JSON error response, so no request ends in a bare
/// status, a stack trace or a dropped connection; unexpected errors are logged (by type and
/// description, which never hold request secrets) and answered 500. A cancelled request is
/// 503 `request_cancelled`, logged at info.
/// Refusals by a limit and database failures are counted in `metrics`.
struct APIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: LoginMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            metrics.answered(error)
            return error.response()
        } catch let RepositoryError.unavailable(reason) {
            metrics.databaseError(unavailable: true)
            // The operator needs the reason; the client only that it may try again.
            context.logger.warning("database unavailable", metadata: ["reason": .string(reason)])
            return APIError(.serviceUnavailable, "database_unavailable", "The database cannot be reached now; try again later.",
                            retryAfter: 5).response()
        } catch is CancellationError {
            // The request's task was cancelled (the server is stopping, or the database client
            // gave up on a cancelled caller): nothing failed that the operator must fix.
            context.logger.info("request cancelled before it finished")
            return APIError(.serviceUnavailable, "request_cancelled", "The request was cancelled before it finished; try again.",
                            retryAfter: 5).response()
        } catch is HTTPParserError {
            // The body did not parse as HTTP (a malformed chunk, say): the client's fault.
            return APIError.badRequest("malformed_request", "The request is not valid HTTP.").response()
        } catch let error where error is IOError || error is ChannelError {
            // The connection failed while the request was read: the client hung up or reset it
            // mid-body. Its doing, not the server's; nobody reads this answer.
            context.logger.info("connection failed while the request was read", metadata: [
                "error.type": .string(String(reflecting: type(of: error))),
            ])
            return APIError.badRequest("malformed_request", "The connection failed while the request was read.").response()
        } catch is NIOTooManyBytesError {
            return APIError(.contentTooLarge, "body_too_large", "The request body is larger than 64 KiB.").response()
        } catch let error as HTTPError {
            let code = error.status == .notFound ? "not_found" : "http_error"
            return APIError(error.status, code, error.body ?? error.status.reasonPhrase).response()
        } catch {
            var metadata: Logger.Metadata = [
                "error.type": .string(String(reflecting: type(of: error))),
                "error": .string(String(describing: error)),
            ]
            // PSQLError's description is a fixed sentence (its debug description holds the
            // query and its values): the fields that say what failed, and no values.
            if error is PSQLError || error is DatabaseError { metrics.databaseError(unavailable: false) }
            if let error = error as? PSQLError {
                for (key, field) in [("error.sqlstate", PSQLError.ServerInfo.Field.sqlState),
                                     ("error.table", .tableName), ("error.constraint", .constraintName)] {
                    if let value = error.serverInfo?[field] { metadata[key] = .string(value) }
                }
                metadata["error.code"] = .string("\(error.code)")
            }
            context.logger.error("request failed", metadata: metadata)
            return APIError(.internalServerError, "internal", "The server failed; try again later.").response()
        }
    }
}
