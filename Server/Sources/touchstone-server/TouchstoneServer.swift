import ArgumentParser
import Foundation
import Logging
import LoginServer
import NIOCore
import ServiceLifecycle
import TouchstoneAppAttestFormat

/// `touchstone-server`: the fingerprint-login server of seed 003.
@main
struct TouchstoneServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touchstone-server",
        abstract: "The fingerprint-login server of seed 003: password accounts, device binding, challenge-response logins.",
        discussion: """
            HTTP API: JSON bodies, binary fields in standard base64, errors as
            {"error": code, "message": text}. A session is {token, profileID,
            expiresAt}; its token is sent back as "Authorization: Bearer TOKEN".
              POST   /v1/accounts     {username, password}      -> 201 {profileID}
              POST   /v1/sessions     {username, password}      -> 200 session
              DELETE /v1/sessions     (bearer)                  -> 204 (signs out)
              PUT    /v1/accounts/password (bearer) {currentPassword, newPassword}
                                      -> 204 (ends the account's other sessions)
              DELETE /v1/accounts/sessions (bearer)             -> 204 (signs out
                                      everywhere)
              POST   /v1/devices      (bearer) {kind: "key", publicKey, name} or
                                      {kind: "token", deviceToken, name} or
                                      {kind: "appattest", keyID, attestation, challenge,
                                      name} -> 201 {deviceID}
              GET    /v1/devices      (bearer)                  -> 200 {devices: [...]}
              DELETE /v1/devices/ID   (bearer)                  -> 204 (ends the sessions
                                      the device logged in)
              POST   /v1/challenges   {deviceID}        -> 200 {challenge, expiresAt}
              POST   /v1/logins       {deviceID, challenge, signature} -> 200 session
                                      (an appattest device: assertion, not signature)
              POST   /v1/devices/attest-challenges (Bearer)    -> 200 {challenge, expiresAt}
              POST   /v1/logins/token {deviceToken}             -> 200 session
              GET    /health                                    -> 200 while serving
              GET    /health/ready                              -> 200 when the database
                                      answers, else 503 database_unavailable
              GET    /metrics (--metrics-client only)           -> 200 Prometheus text
            Tables are created (migrated) on start. SIGTERM or SIGINT drains
            in-flight requests and exits 0. See docs/SERVER.md.
            """
    )

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "TCP port to listen on (0 picks a free one).")
    var port = 8080

    @Option(help: ArgumentHelp(
        "Database URL: sqlite:///path/to/login.sqlite or postgres://user[:password]@host:port/db.",
        discussion: "Default: sqlite://$XDG_DATA_HOME/touchstone/login.sqlite (~/.local/share when XDG_DATA_HOME is unset). A postgres URL without a password takes PGPASSWORD from the environment (kept out of the process list). No TLS: sslmode other than disable is refused.",
        valueName: "url"
    ))
    var database: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
        "A proxy or load balancer (address or CIDR range, repeatable) whose X-Forwarded-For names the client.",
        discussion: "Without one, the client is the connection's peer, and behind a proxy every client shares the proxy's per-address limits.",
        valueName: "cidr"
    ))
    var trustedProxy: [String] = []

    @Option(name: .customLong("metrics-client"), help: ArgumentHelp(
        "An address or CIDR range (repeatable) that may read GET /metrics (Prometheus text).",
        discussion: "Default: loopback only (127.0.0.0/8 and ::1). Others get 404 there. Giving one replaces the default.",
        valueName: "cidr"
    ))
    var metricsClient: [String] = []

    @Option(help: ArgumentHelp(
        "Connections one client address may hold open at once (default 256); one more is answered 429 and closed.",
        discussion: "Trusted proxies are not capped. The whole server serves 4,096 connections at once.",
        valueName: "n"
    ))
    var maxConnectionsPerAddress = LoginServerConfiguration().maxConnectionsPerAddress

    @Option(name: .customLong("app-attest-root"), help: ArgumentHelp(
        "A PEM file of App Attest roots to trust (repeatable): Apple's App Attest root in production, a Touchstone device's test root (`attest root`) in tests.",
        discussion: "With --app-id, devices of kind appattest can be bound (POST /v1/devices/attest-challenges, then POST /v1/devices) and log in with assertions.",
        valueName: "pem-file"
    ))
    var appAttestRoot: [String] = []

    @Option(name: .customLong("app-id"), help: ArgumentHelp(
        "The App ID attestations must be for: <team id>.<bundle id> (with --app-attest-root).", valueName: "team.bundle"
    ))
    var appID: String?

    @Option(name: .customLong("app-attest-environment"), help: ArgumentHelp(
        "development or production: the aaguid attestations must carry (default production; a Touchstone device is development unless its composition says otherwise).",
        valueName: "environment"
    ))
    var appAttestEnvironment = "production"

    @Flag(name: .customLong("require-app-attest"), help: ArgumentHelp(
        "Bind only App Attest keys (kind appattest); key and token bindings are refused (with --app-attest-root)."
    ))
    var requireAppAttest = false

    func validate() throws {
        if try appAttestVerifier() == nil, requireAppAttest {
            throw ValidationError("--require-app-attest needs --app-attest-root and --app-id.")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        // Checked before anything is created: a mistyped host must not leave a new database behind.
        guard Self.resolves(host) else { throw ValidationError("--host '\(host)' is not an address or a name this machine resolves.") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level '\(logLevel)'.") }
        if let database {
            do { _ = try DatabaseLocation(parsing: database) } catch { throw ValidationError("--database: \(error)") }
        }
        do { _ = try TrustedProxies(parsing: trustedProxy) } catch { throw ValidationError("--trusted-proxy: \(error)") }
        do { _ = try AddressRanges(parsing: metricsClient) } catch { throw ValidationError("--metrics-client: \(error)") }
        guard (1...1_000_000).contains(maxConnectionsPerAddress) else {
            throw ValidationError("--max-connections-per-address must be between 1 and 1000000.")
        }
    }

    /// The App Attest verifier the options describe, or nil without them; a validation error
    /// names the option that is wrong.
    func appAttestVerifier() throws -> AppAttestVerifier? {
        guard !appAttestRoot.isEmpty || appID != nil else { return nil }
        guard let appID, !appAttestRoot.isEmpty else {
            throw ValidationError("--app-attest-root and --app-id go together: give both, or neither.")
        }
        let parts = appID.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].utf8.count == 10, parts[0].utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), !parts[1].isEmpty,
              appID.utf8.count <= 255
        else {
            throw ValidationError("--app-id '\(appID)' is not <team id>.<bundle id> (a ten-character team id of A-Z and 0-9, a dot, the bundle id).")
        }
        guard let environment = AppAttestEnvironment(rawValue: appAttestEnvironment) else {
            throw ValidationError("--app-attest-environment must be development or production, not '\(appAttestEnvironment)'.")
        }
        var roots: [Certificate] = []
        for path in appAttestRoot {
            guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20, let text = String(data: data, encoding: .utf8) else {
                throw ValidationError("--app-attest-root '\(path)': not a readable PEM file of at most 1 MiB.")
            }
            do {
                roots += try Certificate.certificates(pem: text)
            } catch {
                throw ValidationError("--app-attest-root '\(path)': \(error)")
            }
        }
        return AppAttestVerifier(appID: appID, environment: environment, trustedRoots: roots)
    }

    /// Whether `host` is an address or a name this machine resolves (NIO's `getaddrinfo`).
    static func resolves(_ host: String) -> Bool {
        (try? SocketAddress.makeAddressResolvingHost(host, port: 0)) != nil
    }

    func run() async throws {
        var logger = Logger(label: "touchstone.server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var configuration = LoginServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.trustedProxies = try TrustedProxies(parsing: trustedProxy)
        configuration.maxConnectionsPerAddress = maxConnectionsPerAddress
        if !metricsClient.isEmpty { configuration.metricsClients = try AddressRanges(parsing: metricsClient) }
        configuration.appAttest = try appAttestVerifier()
        configuration.requireAppAttest = requireAppAttest
        configuration.database = try database.map { try DatabaseLocation(parsing: $0) } ?? .defaultLocation()
        let repository = try LoginServer.makeRepository(for: configuration, logger: logger)
        let app = LoginServer.makeApplication(configuration: configuration, repository: repository, logger: logger)
        // SIGTERM or SIGINT: stop accepting, let in-flight requests finish — for at most 30 s
        // (a request waiting on a held lock must not hold the shutdown for ever); then they are
        // cancelled and answer 503. (No cancellation limit: service-lifecycle ends a group that
        // outlives it with fatalError, a crash where an orderly exit is wanted.)
        var group = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(30)
        try await ServiceGroup(configuration: group).run()
        logger.info("stopped")
    }
}
