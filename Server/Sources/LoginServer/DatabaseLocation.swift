import Foundation

/// Where the server keeps its state, parsed from the `--database` URL.
///
/// - `sqlite:///absolute/path/login.sqlite` (or `sqlite:relative/path`) — one file, the default.
/// - `postgres://user[:password]@host[:port]/database` (also `postgresql://`) — shared state for
///   several servers behind a load balancer.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    /// A SQLite database file.
    case sqlite(path: String)
    /// A PostgreSQL database.
    case postgres(PostgresLocation)

    /// The parts of a `postgres://` URL.
    public struct PostgresLocation: Sendable, Equatable {
        /// Host name or address.
        public var host: String
        /// TCP port (5432 when the URL names none).
        public var port: Int
        /// User name.
        public var username: String
        /// Password, if the URL carries one.
        public var password: String?
        /// Database name.
        public var database: String

        /// Creates a location from its parts.
        public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
        }
    }

    /// Why a `--database` URL was refused.
    public struct ParseError: Error, CustomStringConvertible {
        /// What was wrong, for the user.
        public var description: String
    }

    /// Parses a `sqlite://` or `postgres://` URL.
    ///
    /// ```swift
    /// let location = try DatabaseLocation(parsing: "postgres://touchstone@127.0.0.1:5432/login")
    /// ```
    public init(parsing text: String) throws {
        if text.hasPrefix("sqlite:") {
            var path = String(text.dropFirst("sqlite:".count))
            if path.hasPrefix("//") { path.removeFirst(2) }
            guard !path.isEmpty else {
                throw ParseError(description: "a sqlite URL needs a path: sqlite:///path/to/login.sqlite")
            }
            self = .sqlite(path: path)
            return
        }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://"),
              let components = URLComponents(string: text)
        else {
            throw ParseError(description: "unsupported database URL (use sqlite:///path or postgres://user@host:port/db)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw ParseError(description: "a postgres URL needs a host: postgres://user@host:5432/db")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ParseError(description: "a postgres URL needs a user: postgres://user@host:5432/db")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else {
            throw ParseError(description: "a postgres URL needs a database name: postgres://user@host:5432/db")
        }
        self = .postgres(PostgresLocation(
            host: host,
            port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: components.password.map { $0.removingPercentEncoding ?? $0 },
            database: database
        ))
    }

    /// The default: `$XDG_DATA_HOME/touchstone/login.sqlite`, or `~/.local/share/touchstone/login.sqlite`.
    public static func defaultLocation(environment: [String: String] = ProcessInfo.processInfo.environment) -> DatabaseLocation {
        let base: String
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            base = xdg
        } else {
            base = (environment["HOME"] ?? ".") + "/.local/share"
        }
        return .sqlite(path: base + "/touchstone/login.sqlite")
    }

    /// The URL with any password replaced by `***`, safe to log.
    public var description: String {
        switch self {
        case .sqlite(let path):
            return "sqlite://" + path
        case .postgres(let location):
            let password = location.password == nil ? "" : ":***"
            return "postgres://\(location.username)\(password)@\(location.host):\(location.port)/\(location.database)"
        }
    }
}
