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

    /// The parts of a `postgres://` URL. Its description hides the password.
    public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
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

        /// The URL with any password replaced by `***`, safe to log.
        public var description: String {
            "postgres://\(username)\(password == nil ? "" : ":***")@\(host):\(port)/\(database)"
        }
    }

    /// Why a `--database` URL was refused.
    public struct ParseError: Error, CustomStringConvertible {
        /// What was wrong, for the user.
        public var description: String
    }

    /// Parses a `sqlite://` or `postgres://` URL. A postgres URL without a password takes
    /// `PGPASSWORD` from `environment` (as libpq does), so that the password need not be on the
    /// command line, where every user of the machine can read it. The only query parameter
    /// accepted is `sslmode=disable`: the server has no TLS, and a URL asking for it must not
    /// connect in plain text.
    ///
    /// ```swift
    /// let location = try DatabaseLocation(parsing: "postgres://touchstone@127.0.0.1:5432/login")
    /// ```
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
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
        if let port = components.port, !(1...65535).contains(port) {
            throw ParseError(description: "a postgres URL's port must be between 1 and 65535, not \(port)")
        }
        for item in components.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("sslmode", "disable"?):
                continue
            case ("sslmode", let mode):
                throw ParseError(description: "sslmode=\(mode ?? "") is not supported: the server does not speak TLS to PostgreSQL "
                    + "(reach the database over a private network or a local tunnel, and leave sslmode out or set it to disable)")
            default:
                throw ParseError(description: "unknown postgres URL parameter '\(item.name)' (only sslmode=disable is accepted)")
            }
        }
        guard components.fragment == nil else {
            throw ParseError(description: "a postgres URL takes no fragment ('#...')")
        }
        let password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self = .postgres(PostgresLocation(
            host: host,
            port: components.port ?? 5432,
            username: user.removingPercentEncoding ?? user,
            password: password ?? environment["PGPASSWORD"].flatMap { $0.isEmpty ? nil : $0 },
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
            return location.description
        }
    }
}
