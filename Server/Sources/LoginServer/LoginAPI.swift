import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TouchstoneAppAttestFormat

/// The HTTP API of seed 003's fingerprint login (REFERENCE §11): accounts, password sessions,
/// device binding, challenges and device logins. Stateless apart from the repository.
struct LoginAPI: Sendable {
    let repository: any LoginRepository
    let clock: any LoginClock
    let configuration: LoginServerConfiguration
    let hasher: PasswordHasher
    let hashing: AdmissionGate
    let metrics: LoginMetrics

    init(repository: any LoginRepository, clock: any LoginClock, configuration: LoginServerConfiguration,
         metrics: LoginMetrics = LoginMetrics()) {
        self.repository = repository
        self.metrics = metrics
        self.clock = clock
        self.configuration = configuration
        self.hasher = PasswordHasher(rounds: configuration.passwordRounds)
        self.hashing = AdmissionGate(limit: configuration.maxPendingPasswordHashes)
    }

    /// Adds every route to `router`.
    func addRoutes(to router: Router<LoginRequestContext>) {
        // Liveness: the process serves requests (it answers while the database is down).
        let health: @Sendable (Request, LoginRequestContext) async throws -> Response = { _, _ in
            try json(["status": "ok"])
        }
        // Readiness: the database answers too (503 `database_unavailable` when it does not),
        // what a load balancer should route by.
        let ready: @Sendable (Request, LoginRequestContext) async throws -> Response = { _, _ in
            try await repository.ping()
            return try json(["status": "ready"])
        }
        let listDevices: @Sendable (Request, LoginRequestContext) async throws -> Response = { request, context in
            try await self.listDevices(request, context)
        }
        // Prometheus text for the addresses allowed to scrape it; for the rest the 404 of a path
        // that does not exist.
        let metricsText: @Sendable (Request, LoginRequestContext) async throws -> Response = { _, context in
            guard configuration.metricsClients.contains(context.remoteAddress) else { throw HTTPError(.notFound) }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        for (path, handler) in [("/health", health), ("/health/ready", ready), ("/metrics", metricsText), ("/v1/devices", listDevices)] {
            router.get(RouterPath(path), use: handler)
            // HEAD wherever GET works (RFC 9110 §9.3.2): the same status and headers, no body.
            // (A response's headers already hold its body's length, which HEAD keeps.)
            router.head(RouterPath(path)) { request, context in try await handler(request, context).createHeadResponse() }
        }
        let v1 = router.group("v1")
        v1.post("accounts") { request, context in try await createAccount(request, context) }
        v1.post("sessions") { request, context in try await createSession(request, context) }
        v1.delete("sessions") { request, context in try await endSession(request, context) }
        v1.put("accounts/password") { request, context in try await changePassword(request, context) }
        v1.delete("accounts/sessions") { request, context in try await endAllSessions(request, context) }
        v1.post("devices") { request, context in try await bindDevice(request, context) }
        v1.post("devices/attest-challenges") { request, context in try await createAttestChallenge(request, context) }
        v1.delete("devices/:id") { request, context in try await deleteDevice(request, context) }
        v1.post("challenges") { request, context in try await createChallenge(request, context) }
        v1.post("logins") { request, context in try await signatureLogin(request, context) }
        v1.post("logins/token") { request, context in try await tokenLogin(request, context) }
        // A known path with another method is 405 with `Allow`, not 404: the client has the
        // right address and the wrong verb. OPTIONS answers 204 with the same `Allow`.
        for (path, allowed) in Self.routes {
            let advertised = Self.advertised(allowed)
            let list = advertised.map(\.rawValue).joined(separator: ", ")
            router.on(RouterPath(path), method: .options) { _, _ -> Response in
                Response(status: .noContent, headers: [.allow: list])
            }
            for method in [HTTPRequest.Method.get, .head, .post, .put, .patch, .delete] where !advertised.contains(method) {
                router.on(RouterPath(path), method: method) { _, _ -> Response in throw APIError.methodNotAllowed(advertised) }
            }
        }
    }

    /// The methods a path answers as `Allow` lists them: its own, HEAD beside GET, and OPTIONS.
    static func advertised(_ allowed: [HTTPRequest.Method]) -> [HTTPRequest.Method] {
        var methods = allowed
        if let get = methods.firstIndex(of: .get) { methods.insert(.head, at: get + 1) }
        return methods + [.options]
    }

    /// Every path and the methods it answers (kept beside the routes above; a test checks
    /// that each is served).
    static let routes: [(String, [HTTPRequest.Method])] = [
        ("/health", [.get]), ("/health/ready", [.get]), ("/metrics", [.get]), ("/v1/accounts", [.post]), ("/v1/sessions", [.post, .delete]), ("/v1/devices", [.get, .post]),
        ("/v1/devices/:id", [.delete]), ("/v1/challenges", [.post]), ("/v1/logins", [.post]), ("/v1/logins/token", [.post]),
        ("/v1/accounts/password", [.put]), ("/v1/accounts/sessions", [.delete]), ("/v1/devices/attest-challenges", [.post]),
    ]

    /// Runs slow work (a PBKDF2 hash: tens of milliseconds) on NIO's blocking thread pool, so it
    /// never holds one of the few threads that run every request's async code.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }

    /// Runs a password hash off the event loops (see ``offload(_:)``), when fewer than
    /// ``LoginServerConfiguration/maxPendingPasswordHashes`` wait or run; else 503 `server_busy`
    /// at once (the thread pool's queue has no bound of its own).
    func hashPassword<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try enterHashing()
        defer { hashing.leave() }
        return try await Self.offload(work)
    }

    /// Takes a slot for one password hash (`hashing.leave()` when done), or throws 503 `server_busy`.
    func enterHashing() throws {
        guard hashing.enter() else {
            throw APIError(.serviceUnavailable, "server_busy", "The server is busy checking passwords; try again shortly.", retryAfter: 1)
        }
    }
}

/// A bound on work in progress: ``enter()`` admits up to `limit` at once (each admitted one
/// calls ``leave()`` when done), and refuses the rest instead of queueing them.
final class AdmissionGate: Sendable {
    private let inProgress = Atomic<Int>(0)
    let limit: Int

    /// A gate admitting `limit` at once (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Whether the work may start; when true, ``leave()`` must follow.
    func enter() -> Bool {
        var current = inProgress.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = inProgress.compareExchange(expected: current, desired: current + 1, ordering: .acquiring)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Ends admitted work.
    func leave() {
        inProgress.subtract(1, ordering: .releasing)
    }

    /// Work admitted and not yet left.
    var count: Int { inProgress.load(ordering: .relaxed) }
}
