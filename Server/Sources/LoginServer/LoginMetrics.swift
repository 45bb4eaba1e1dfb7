import CoreMetrics
import Foundation
import Hummingbird
import Prometheus
import Synchronization

/// What the server counts for operators, through swift-metrics with swift-prometheus as its
/// backend, served as Prometheus text at `GET /metrics` (to ``LoginServerConfiguration/metricsClients``).
///
/// Each server has a registry of its own (no global `MetricsSystem.bootstrap`), so servers in
/// one process — the tests run many — never mix their counts. The families:
///
/// | name | labels | what |
/// |---|---|---|
/// | `touchstone_logins_total` | `kind` | sessions opened: `password`, `signature`, `appattest`, `token` |
/// | `touchstone_login_failures_total` | `kind`, `reason` | failed logins (see ``FailureReason``) |
/// | `touchstone_rate_limit_refusals_total` | `limit` | requests refused by a limit: `failed_logins`, `connections_per_address`, `password_hashing` |
/// | `touchstone_database_errors_total` | `kind` | `unavailable` (503) and `failed` (500) database steps |
/// | `touchstone_http_request_duration_seconds` | `route`, `method`, `status` | a histogram of every request's time to its response |
///
/// Every label takes values from a fixed set (routes are the router's patterns, `unmatched`
/// for the rest), so no client can grow the registry.
public final class LoginMetrics: Sendable {
    /// The registry the families live in; `/metrics` prints it.
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    /// Why a login failed, as the metrics tell it (the client always sees one answer).
    public enum FailureReason: String, Sendable, CaseIterable {
        /// An unknown username or a wrong password.
        case wrongPassword = "wrong_password"
        /// No device (signature, App Attest) or token (token login) of that ID is bound.
        case unknownDevice = "unknown_device"
        /// A signature or assertion that does not verify.
        case badSignature = "bad_signature"
        /// An App Attest counter that did not grow: a cloned key or a replay.
        case counterNotIncreased = "counter_not_increased"
        /// A valid signature over a challenge that was spent, expired or never issued.
        case challengeSpent = "challenge_spent"
        /// A password login that raced a password change and lost.
        case passwordChanged = "password_changed"
    }

    /// The kinds of login.
    public enum LoginKind: String, Sendable, CaseIterable {
        case password, signature, appattest, token
    }

    private let logins: [LoginKind: CoreMetrics.Counter]
    private let failures: [String: CoreMetrics.Counter]
    private let refusals: [String: CoreMetrics.Counter]
    private let databaseErrors: [String: CoreMetrics.Counter]
    /// Request timers by route, method and status, made on first use.
    private let timers = Mutex<[TimerKey: CoreMetrics.Timer]>([:])

    struct TimerKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// The histogram's buckets: from half a millisecond (a login on a quiet server) to the
    /// database deadline's 10 s.
    static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
        .seconds(5), .seconds(10),
    ]

    /// The rate-limit refusals by the API error code that carries them.
    static let refusalCodes = ["rate_limited": "failed_logins", "too_many_connections": "connections_per_address",
                               "server_busy": "password_hashing"]

    /// A registry of its own, or `registry`.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        self.factory = factory
        // Every fixed series exists from the start, at 0, so a dashboard's rate() has a baseline.
        logins = Dictionary(uniqueKeysWithValues: LoginKind.allCases.map { kind in
            (kind, Counter(label: "touchstone_logins_total", dimensions: [("kind", kind.rawValue)], factory: factory))
        })
        var failures: [String: CoreMetrics.Counter] = [:]
        for kind in LoginKind.allCases {
            for reason in Self.reasons(for: kind) {
                failures[kind.rawValue + "/" + reason.rawValue] = Counter(
                    label: "touchstone_login_failures_total", dimensions: [("kind", kind.rawValue), ("reason", reason.rawValue)],
                    factory: factory)
            }
        }
        self.failures = failures
        refusals = Dictionary(uniqueKeysWithValues: Set(Self.refusalCodes.values).map { limit in
            (limit, Counter(label: "touchstone_rate_limit_refusals_total", dimensions: [("limit", limit)], factory: factory))
        })
        databaseErrors = Dictionary(uniqueKeysWithValues: ["unavailable", "failed"].map { kind in
            (kind, Counter(label: "touchstone_database_errors_total", dimensions: [("kind", kind)], factory: factory))
        })
    }

    /// The reasons a login of `kind` can fail for.
    static func reasons(for kind: LoginKind) -> [FailureReason] {
        switch kind {
        case .password: [.wrongPassword, .passwordChanged]
        case .signature: [.unknownDevice, .badSignature, .challengeSpent]
        case .appattest: [.badSignature, .counterNotIncreased, .challengeSpent]
        case .token: [.unknownDevice]
        }
    }

    /// Counts a session opened by a login of `kind`.
    func loggedIn(_ kind: LoginKind) {
        logins[kind]?.increment()
    }

    /// Counts a failed login of `kind`.
    func loginFailed(_ kind: LoginKind, _ reason: FailureReason) {
        failures[kind.rawValue + "/" + reason.rawValue]?.increment()
    }

    /// Counts what an API error says: a refusal by a limit (429, or 503 `server_busy`), or nothing.
    func answered(_ error: APIError) {
        if let limit = Self.refusalCodes[error.code] { refusals[limit]?.increment() }
    }

    /// Counts a database step that failed: `unavailable` (answered 503) or `failed` (500).
    func databaseError(unavailable: Bool) {
        databaseErrors[unavailable ? "unavailable" : "failed"]?.increment()
    }

    /// Records one request's duration under its route, method and status.
    func requestFinished(route: String, method: String, status: Int, nanoseconds: UInt64) {
        let key = TimerKey(route: route, method: method, status: status)
        let timer = timers.withLock { timers in
            if let timer = timers[key] { return timer }
            let timer = Timer(label: "touchstone_http_request_duration_seconds",
                              dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory)
            timers[key] = timer
            return timer
        }
        timer.recordNanoseconds(nanoseconds)
    }

    /// The registry in Prometheus text format (version 0.0.4).
    public func text() -> String {
        registry.emitToString()
    }
}

/// Times every request, from when the router has it to when its response is ready, under the
/// route pattern it matched (`unmatched` when none did).
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: LoginMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        // Inside APIErrorMiddleware's answer: every error is a response by now.
        let response = try await next(request, context)
        let nanoseconds = DispatchTime.now().uptimeNanoseconds - start  // monotonic: never negative
        // The router's pattern; Hummingbird names a request no route matched "NotFound".
        let route = context.endpointPath.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "unmatched"
        metrics.requestFinished(route: route, method: request.method.rawValue,
                                status: response.status.code, nanoseconds: nanoseconds)
        return response
    }
}
