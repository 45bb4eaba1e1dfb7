import Foundation
import Hummingbird
import Logging
import LoginServer
import LoopbackHTTP
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO
import ServiceLifecycle
import Testing

/// The databases the contract runs against: both, always. PostgreSQL is the cluster
/// `scripts/postgres-testenv.sh` exported as `TOUCHSTONE_TEST_POSTGRES_URL` (as
/// `scripts/server-test.sh` and so CI do); a missing or unreachable one fails the PostgreSQL
/// cases instead of leaving them out.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var postgresURL: String? { ProcessInfo.processInfo.environment["TOUCHSTONE_TEST_POSTGRES_URL"] }

    /// Both, always: a PostgreSQL case without a configured cluster fails saying how to get
    /// one (scripts/server-test.sh starts a private cluster), never passes by running nothing.
    static var available: [Backend] { allCases }
}

/// A fresh, empty database of one backend. A SQLite database's folder is deleted when the last
/// reference goes (PostgreSQL databases live in the script's temporary cluster).
final class TestDatabase: Sendable {
    let location: DatabaseLocation
    private let folder: URL?

    init(location: DatabaseLocation, folder: URL? = nil) {
        self.location = location
        self.folder = folder
    }

    deinit {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    static func make(_ backend: Backend) async throws -> TestDatabase {
        switch backend {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-server-tests-\(UUID().uuidString)")
            return TestDatabase(location: .sqlite(path: folder.appendingPathComponent("login.sqlite").path), folder: folder)
        case .postgres:
            guard let url = Backend.postgresURL else {
                Issue.record("PostgreSQL is not configured: TOUCHSTONE_TEST_POSTGRES_URL is not set. Run the server's tests with scripts/server-test.sh (make test), which starts a private cluster and sets it")
                throw CancellationError()
            }
            guard case .postgres(let admin) = try DatabaseLocation(parsing: url) else {
                Issue.record("TOUCHSTONE_TEST_POSTGRES_URL is not a postgres:// URL")
                throw CancellationError()
            }
            let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let connection = try await PostgresConnection.connect(
                on: PostgresClient.defaultEventLoopGroup.next(),
                configuration: .init(
                    host: admin.host, port: admin.port, username: admin.username,
                    password: admin.password, database: admin.database, tls: .disable
                ),
                id: 1,
                logger: Logger(label: "test.postgres.admin", factory: { _ in SwiftLogNoOpLogHandler() })
            ).get()
            do {
                try await connection.query("CREATE DATABASE \(unescaped: name)", logger: Logger(label: "test.postgres.admin"))
            } catch {
                try? await connection.close()
                throw error
            }
            try await connection.close()
            var location = admin
            location.database = name
            return TestDatabase(location: .postgres(location))
        }
    }

    /// A new repository over this database (a new pool each time, as after a restart).
    func repository() throws -> any LoginRepository {
        try LoginServer.makeRepository(for: location, logger: Logger(label: "test.repository"))
    }

    /// Runs `body` with a migrated repository of its own, outside any server (a PostgreSQL
    /// pool runs for as long as `body` does).
    func withRepository(_ body: @Sendable (any LoginRepository) async throws -> Void) async throws {
        let repository = try self.repository()
        try await withThrowingTaskGroup(of: Void.self) { group in
            if let postgres = repository as? PostgresLoginRepository {
                group.addTask { await postgres.client.run() }
            }
            defer { group.cancelAll() }
            try await repository.migrate()
            try await body(repository)
        }
    }
}

/// Every log line the server wrote, to assert that no secret reached a log.
final class LogCapture: Sendable {
    private let lines = NIOLockedValueBox<[String]>([])

    var text: String { lines.withLockedValue { $0.joined(separator: "\n") } }

    func append(_ line: String) { lines.withLockedValue { $0.append(line) } }

    func logger() -> Logger {
        var logger = Logger(label: "touchstone.server.test", factory: { label in CapturingHandler(label: label, capture: self) })
        logger.logLevel = .trace
        return logger
    }

    struct CapturingHandler: LogHandler {
        let label: String
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var all = metadata
            if let extra = event.metadata { all.merge(extra) { $1 } }
            capture.append("\(event.level) \(label) \(event.message) \(all)")
        }
    }
}

/// A test's server: the application over a fresh database, a manual clock and captured logs.
struct TestServer: Sendable {
    let clock: ManualLoginClock
    let logs: LogCapture
    let database: TestDatabase
    let configuration: LoginServerConfiguration

    /// Builds a server over a fresh database of `backend`. Password hashing uses fewer rounds
    /// than the production minimum so that the suite stays fast; `PasswordHasherTests` checks
    /// the real default.
    static func make(
        _ backend: Backend,
        configure: (inout LoginServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        var configuration = LoginServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.passwordRounds = 1_000
        configure(&configuration)
        let database = try await TestDatabase.make(backend)
        configuration.database = database.location
        return TestServer(clock: ManualLoginClock(), logs: LogCapture(), database: database, configuration: configuration)
    }

    /// Runs `body` against the application listening on a free loopback port (a new repository
    /// each call, as after a restart), then shuts it down gracefully.
    /// `wrap` may put a test double around the repository (a database that stops answering).
    func run<Value: Sendable>(
        wrap: (any LoginRepository) -> any LoginRepository = { $0 },
        _ body: @Sendable (Client) async throws -> Value
    ) async throws -> Value {
        let port = NIOLockedValueBox<Int?>(nil)
        let logger = logs.logger()
        let app = LoginServer.makeApplication(
            configuration: configuration, repository: wrap(try database.repository()), clock: clock, logger: logger
        ) { channel in
            port.withLockedValue { $0 = channel.localAddress?.port }
        }
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            do {
                var bound: Int?
                for _ in 0..<1_000 where bound == nil {
                    try await Task.sleep(for: .milliseconds(10))
                    bound = port.withLockedValue { $0 }
                }
                let listening = try #require(bound, "the server did not start listening")
                let value = try await body(Client(port: listening))
                await services.triggerGracefulShutdown()
                try await group.waitForAll()
                return value
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
        }
    }
}

/// A JSON client over real loopback connections, one per request (so concurrent requests are
/// concurrent connections).
struct Client: Sendable {
    let port: Int

    struct Reply: Sendable {
        let status: HTTPResponse.Status
        let headers: [String: String]
        let body: [UInt8]

        /// The body as a JSON object (empty when it is not one).
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
        }

        func string(_ key: String) -> String? { json[key] as? String }

        /// A header's value (names are case-insensitive).
        func header(_ name: String) -> String? { headers[name.lowercased()] }

        /// The `error` code of a JSON error body.
        var errorCode: String? { string("error") }
    }

    func send(_ method: HTTPRequest.Method, _ path: String, raw: String? = nil, token: String? = nil,
              scheme: String = "Bearer") async throws -> Reply {
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "\(scheme) \(token)")) }
        return try await send(method, path, headers: headers, body: raw.map { Array($0.utf8) })
    }

    /// Sends `bytes` as a JSON body as they are (another encoding, a stray byte).
    func send(_ method: HTTPRequest.Method, _ path: String, bytes: [UInt8]) async throws -> Reply {
        try await send(method, path, headers: [("Content-Type", "application/json")], body: bytes)
    }

    func send(_ method: HTTPRequest.Method, _ path: String, headers: [(String, String)], body: [UInt8]?) async throws -> Reply {
        let reply = try await LoopbackHTTP.send(port: port, method: .init(rawValue: method.rawValue), path: path, headers: headers, body: body)
        return Reply(status: HTTPResponse.Status(code: reply.status), headers: reply.headers, body: reply.body)
    }

    func send(_ method: HTTPRequest.Method, _ path: String, json object: [String: any Sendable], token: String? = nil) async throws -> Reply {
        let data = try JSONSerialization.data(withJSONObject: object)
        return try await send(method, path, raw: String(decoding: data, as: UTF8.self), token: token)
    }

    // MARK: The flow's steps

    @discardableResult
    func register(_ username: String, _ password: String = "correct horse battery") async throws -> String {
        let reply = try await send(.post, "/v1/accounts", json: ["username": username, "password": password])
        try #require(reply.status == .created, "register \(username): \(reply.status)")
        return try #require(reply.string("profileID"))
    }

    func signIn(_ username: String, _ password: String = "correct horse battery") async throws -> String {
        let reply = try await send(.post, "/v1/sessions", json: ["username": username, "password": password])
        try #require(reply.status == .ok, "sign in \(username): \(reply.status)")
        return try #require(reply.string("token"))
    }

    func bindKey(_ key: P256Key, token: String, name: String = "phone") async throws -> String {
        let reply = try await send(.post, "/v1/devices", json: ["kind": "key", "publicKey": key.publicKeyBase64, "name": name], token: token)
        try #require(reply.status == .created, "bind key: \(reply.status)")
        return try #require(reply.string("deviceID"))
    }

    func challenge(_ deviceID: String) async throws -> String {
        let reply = try await send(.post, "/v1/challenges", json: ["deviceID": deviceID])
        try #require(reply.status == .ok, "challenge: \(reply.status)")
        return try #require(reply.string("challenge"))
    }

    func login(_ deviceID: String, challenge: String, signature: String) async throws -> Reply {
        try await send(.post, "/v1/logins", json: ["deviceID": deviceID, "challenge": challenge, "signature": signature])
    }
}
