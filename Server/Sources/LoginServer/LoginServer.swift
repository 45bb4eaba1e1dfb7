import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Builds the fingerprint-login server.
///
/// ```swift
/// var configuration = LoginServerConfiguration()
/// configuration.database = try DatabaseLocation(parsing: "sqlite:///tmp/login.sqlite")
/// let repository = try LoginServer.makeRepository(for: configuration.database, logger: logger)
/// let app = LoginServer.makeApplication(configuration: configuration, repository: repository, logger: logger)
/// try await app.runService()  // SIGTERM / SIGINT drain in-flight requests, then return
/// ```
public enum LoginServer {
    /// The repository for a database location: SQLite or PostgreSQL. A PostgreSQL statement
    /// running past `statementTimeout` is cancelled by the database (see
    /// ``PostgresLoginRepository/init(location:logger:statementTimeout:)``); a SQLite step that
    /// waits longer than it for its turn fails without running.
    public static func makeRepository(for location: DatabaseLocation, logger: Logger,
                                      statementTimeout: Duration? = LoginServerConfiguration().databaseTimeout) throws -> any LoginRepository {
        switch location {
        case .sqlite(let path): return try SQLiteLoginRepository(path: path, maximumWait: statementTimeout)
        case .postgres(let postgres): return PostgresLoginRepository(location: postgres, logger: logger, statementTimeout: statementTimeout)
        }
    }

    /// The repository `configuration` names: its database, with its ``LoginServerConfiguration/databaseTimeout``
    /// as PostgreSQL's statement limit.
    public static func makeRepository(for configuration: LoginServerConfiguration, logger: Logger) throws -> any LoginRepository {
        try makeRepository(for: configuration.database, logger: logger, statementTimeout: configuration.databaseTimeout)
    }

    /// The application: routes, JSON errors, migrations before the first request, and the
    /// PostgreSQL pool (if any) as a service of the same service group. `onServerRunning` gets
    /// the listening channel (its `localAddress` tells the port when `port` is 0). `metrics` is
    /// where the server counts (``LoginMetrics``; `GET /metrics` prints it).
    public static func makeApplication(
        configuration: LoginServerConfiguration,
        repository: any LoginRepository,
        clock: any LoginClock = SystemLoginClock(),
        logger: Logger,
        metrics: LoginMetrics = LoginMetrics(),
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> Application<RouterResponder<LoginRequestContext>> {
        let router = Router(context: LoginRequestContext.self)
        // The client first, so that every limit and log line below sees it, not a proxy.
        router.add(middleware: ClientAddressMiddleware(proxies: configuration.trustedProxies))
        // Outside the error middleware: every request is timed with the status it was answered.
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.add(middleware: APIErrorMiddleware(metrics: metrics))
        // Requests the connection refused (Host rules, the per-address connection cap).
        router.add(middleware: FramingErrorMiddleware())
        // Every database step of a request has a deadline (503 past it, never a hang); SQLite's
        // are bounded by its busy timeout already, so its failures are only classified.
        let timed = DeadlineRepository(base: repository, timeout: repository is SQLiteLoginRepository ? nil : configuration.databaseTimeout)
        LoginAPI(repository: timed, clock: clock, configuration: configuration, metrics: metrics).addRoutes(to: router)
        // TimeAmount(_:) clamps a huge duration instead of overflowing; at least a millisecond.
        let idle = TimeAmount(max(configuration.idleTimeout, .milliseconds(1)))
        var app = Application(
            router: router,
            server: .loginHTTP1(idleTimeout: idle, maxBodySize: configuration.maxBodySize,
                                connections: ConnectionsPerAddress(limit: max(1, configuration.maxConnectionsPerAddress)),
                                trustedProxies: configuration.trustedProxies),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "touchstone-server",
                                 availableConnectionsDelegate: MaximumAvailableConnections(max(1, configuration.maxConnections),
                                                                                           logger: logger)),
            onServerRunning: onServerRunning,
            logger: logger
        )
        if let postgres = repository as? PostgresLoginRepository {
            app.addServices(postgres.client)
        }
        app.beforeServerStarts {
            try await timed.migrate()
            logger.info("database ready", metadata: ["database": .string(configuration.database.description)])
        }
        return app
    }
}
