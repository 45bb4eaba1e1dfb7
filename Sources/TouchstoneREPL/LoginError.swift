/// What went wrong in a `login` command: the server's URL, reaching it, its answer, or a step
/// taken out of order. Never carries a password or a token.
public enum LoginError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server URL cannot be used (`problem` says why).
    case badURL(String, String)
    /// No connection (refused, timed out, unknown host); names the URL.
    case unreachable(url: String, reason: String)
    /// The answer is not HTTP or not the JSON expected.
    case protocolError(url: String, String)
    /// The server answered with an error: HTTP status, its `error` code and `message`.
    case server(status: Int, code: String, message: String)
    /// A step needs an earlier one (`notSignedIn`, `notEnabled`).
    case notReady(name: String, message: String)

    /// The error's name: the server's error code for `server`, else the case.
    public var name: String {
        switch self {
        case .badURL: "badURL"
        case .unreachable: "serverUnreachable"
        case .protocolError: "badAnswer"
        case let .server(_, code, _): code
        case let .notReady(name, _): name
        }
    }

    /// The HTTP status for `server`, else a small stable number.
    public var code: Int {
        switch self {
        case .badURL: 1
        case .unreachable: 2
        case .protocolError: 3
        case let .server(status, _, _): status
        case .notReady: 4
        }
    }

    public var description: String {
        switch self {
        case let .badURL(url, problem):
            "cannot use '\(url)' as the login server: \(problem)"
        case let .unreachable(url, reason):
            "cannot reach the login server at \(url) (\(reason)); start one (make server) or choose it with login server <url>"
        case let .protocolError(url, problem):
            "the login server at \(url) gave an answer the REPL cannot read: \(problem)"
        case let .server(status, _, message):
            "HTTP \(status): \(message)"
        case let .notReady(_, message):
            message
        }
    }
}
