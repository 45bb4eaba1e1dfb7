import TouchstoneAppAttestFormat

/// Everything the server is told at start. The defaults are the numbers.
public struct LoginServerConfiguration: Sendable {
    /// Address to listen on.
    public var host: String = "127.0.0.1"
    /// TCP port to listen on (0 picks a free one).
    public var port: Int = 8080
    /// Where the state lives.
    public var database: DatabaseLocation = .defaultLocation()
    /// PBKDF2-SHA256 rounds for new password hashes (never below 210,000 outside tests).
    public var passwordRounds: Int = PasswordHasher.minimumRounds
    /// How long a bearer session lasts.
    public var sessionLifetime: Duration = .seconds(3600)
    /// How long a login challenge stays usable.
    public var challengeLifetime: Duration = .seconds(60)
    /// The window failures are counted in.
    public var failureWindow: Duration = .seconds(600)
    /// Failed password logins allowed per account in one window; the next is answered 429.
    public var accountFailureLimit: Int = 10
    /// Failed logins (of any kind) allowed per client address in one window.
    public var addressFailureLimit: Int = 100
    /// Accounts one client address may create in one failure window (``failureWindow``); the
    /// next is answered 429. Every creation costs a password hash, and creating is open to
    /// anyone: this keeps one client from filling the table and the hashing threads.
    public var accountCreationLimit: Int = 20
    /// Password hashes (account creations and password logins) that may wait or run at once;
    /// a request beyond them is answered 503 `server_busy` at once, instead of queueing behind
    /// a flood of hashes that take about a tenth of a second each.
    public var maxPendingPasswordHashes: Int = 64
    /// Connections served at once; while this many are open the server accepts no new one
    /// (they wait in the system's backlog) until one closes. Every connection can hold a
    /// request, a task and a file descriptor: without a bound, thousands of slow clients
    /// could take them all.
    public var maxConnections: Int = 4096
    /// Connections one client address may hold open at once (nginx's `limit_conn`); one more
    /// is answered 429 `too_many_connections` and closed, so one address cannot take the
    /// ``maxConnections`` slots. The peer address counts, not `X-Forwarded-For`; trusted
    /// proxies (``trustedProxies``) are not capped.
    public var maxConnectionsPerAddress: Int = 256
    /// The proxies whose `X-Forwarded-For` names the client (see ``TrustedProxies``); none by
    /// default, and then the client is the connection's peer.
    public var trustedProxies: TrustedProxies = .none
    /// The client addresses that may read `GET /metrics` (Prometheus text); every other client
    /// gets 404 there. Loopback only by default. Behind a trusted proxy the client is the
    /// forwarded address, as for every limit.
    public var metricsClients: AddressRanges = .loopback
    /// The largest request body accepted; larger ones are answered 413.
    public var maxBodySize: Int = 64 * 1024
    /// A connection that sends nothing for this long is closed, also in the middle of a request
    /// (a client that stalls its body): idle connections cannot pile up, and SIGTERM never waits
    /// longer than this for a silent client.
    public var idleTimeout: Duration = .seconds(30)

    /// The longest a request waits for one PostgreSQL step (a query, a transaction, a free
    /// connection): past it the request is answered 503 `database_unavailable` instead of
    /// hanging while the database is unreachable. SQLite steps have no such timer: they are
    /// bounded by its busy timeout (lock waits), not by this.
    public var databaseTimeout: Duration = .seconds(10)

    /// App Attest (docs/APP-ATTEST.md): the App ID, environment and roots that attestations of
    /// `appattest` devices are verified against (`--app-attest-root`, `--app-id`); nil refuses
    /// such bindings (`app_attest_not_configured`).
    public var appAttest: AppAttestVerifier?
    /// Whether only App Attest keys may be bound (`--require-app-attest`): `key` and `token`
    /// bindings are refused (`app_attest_required`), so a stolen password cannot bind a key
    /// from a script. Devices bound before stay.
    public var requireAppAttest = false

    /// The defaults.
    public init() {}
}
