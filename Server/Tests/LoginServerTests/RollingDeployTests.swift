import Crypto
import Foundation
import Hummingbird
import Logging
@testable import LoginServer
import PostgresNIO
import Synchronization
import Testing

/// Servers starting while others serve logins (a rolling deploy), and logins racing on one
/// device: no failed start, no 5xx, and no login waiting on a start.
@Suite("Rolling deploys and same-device races", .timeLimit(.minutes(2)))
struct RollingDeployTests {
    static let quiet = Logger(label: "test.quiet", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A connection of the test's own to `database` (PostgreSQL), outside any server's pool.
    static func connect(_ database: TestDatabase) async throws -> PostgresConnection {
        guard case let .postgres(location) = database.location else {
            Issue.record("a PostgreSQL test database was asked for, and \(database.location) was given")
            throw CancellationError()
        }
        return try await PostgresConnection.connect(
            on: PostgresClient.defaultEventLoopGroup.next(),
            configuration: .init(host: location.host, port: location.port, username: location.username,
                                 password: location.password, database: location.database, tls: .disable),
            id: 2, logger: quiet
        ).get()
    }

    /// Every table the requests write, as a request's write transaction holds it.
    static let writeLocks = "LOCK TABLE accounts, sessions, devices, challenges, login_failures, attest_challenges IN ROW EXCLUSIVE MODE"

    @Test("with its schema current, a starting server takes no table lock: it starts while write transactions hold every table",
          arguments: Backend.available.filter { $0 == .postgres })
    func startDuringWrites(_ backend: Backend) async throws {
        let database = try await TestDatabase.make(backend)
        try await database.withRepository { _ in }
        let writer = try await Self.connect(database)
        try await writer.query("BEGIN", logger: Self.quiet)
        try await writer.query(PostgresQuery(unsafeSQL: Self.writeLocks), logger: Self.quiet)
        // Before: CREATE INDEX IF NOT EXISTS waited here for the writer (and every login for it).
        try await database.withRepository { repository in
            let version = try await (repository as? PostgresLoginRepository)?.storedSchemaVersion()
            #expect(version == PostgresLoginRepository.schemaVersion)
        }
        try await writer.query("ROLLBACK", logger: Self.quiet)
        try await writer.close()
    }

    @Test("a migration that needs a table lock waits at most its lock timeout per try, gives way to the requests, and finishes once they let go",
          arguments: Backend.available.filter { $0 == .postgres })
    func migrationGivesWay(_ backend: Backend) async throws {
        let database = try await TestDatabase.make(backend)
        try await database.withRepository { _ in }
        guard case let .postgres(location) = database.location else { return }
        // An older server's database: an index missing, no version recorded.
        let writer = try await Self.connect(database)
        try await writer.query("DROP INDEX login_failures_at", logger: Self.quiet)
        try await writer.query("DELETE FROM touchstone_schema", logger: Self.quiet)
        try await writer.query("BEGIN", logger: Self.quiet)
        try await writer.query(PostgresQuery(unsafeSQL: Self.writeLocks), logger: Self.quiet)

        let logs = LogCapture()
        var logger = logs.logger()
        logger.logLevel = .notice  // (not postgres-nio's trace lines)
        let repository = PostgresLoginRepository(location: location, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await repository.client.run() }
            defer { group.cancelAll() }
            async let migrated: Void = repository.migrate()
            // Two tries gave way (each after 500 ms of lock wait) while the writer held on.
            for _ in 0..<500 where logs.text.components(separatedBy: "the migration gave way").count < 3 {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(logs.text.components(separatedBy: "the migration gave way").count >= 3, "the migration never gave way: \(logs.text)")
            // Meanwhile another request's write goes through between the tries.
            _ = try await repository.recordAttempt(keys: ["address:192.0.2.1"], at: Date(), since: Date(timeIntervalSinceNow: -600),
                                                   window: .seconds(600))
            try await writer.query("ROLLBACK", logger: Self.quiet)
            try await migrated
            #expect(try await repository.storedSchemaVersion() == PostgresLoginRepository.schemaVersion)
            let index = try await repository.client.query("SELECT to_regclass('login_failures_at') IS NOT NULL", logger: Self.quiet).collect()
            #expect(try index.first?.decode(Bool.self) == true)
        }
        try await writer.close()
    }

    @Test("servers starting while eight clients log in on one device: every start succeeds, every login is 200", arguments: Backend.available)
    func startsDuringSameDeviceLogins(_ backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            let device = try await EnrolledDevice.make(client)
            @Sendable func logins() async throws -> [Int] {
                var statuses: [Int] = []
                for _ in 0..<10 {
                    let challenge = try await client.send(.post, "/v1/challenges", json: ["deviceID": device.deviceID])
                    guard challenge.status == .ok, let text = challenge.string("challenge") else {
                        statuses.append(challenge.status.code)
                        continue
                    }
                    statuses.append(try await client.login(device.deviceID, challenge: text, signature: try device.key.sign(text)).status.code)
                }
                return statuses
            }
            async let loginStatuses = withThrowingTaskGroup(of: [Int].self) { group in
                for _ in 0..<8 { group.addTask { try await logins() } }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            async let startStatuses = withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await server.run { try await $0.send(.get, "/health/ready").status.code } }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let (statuses, starts) = try await (loginStatuses, startStatuses)
            #expect(statuses.count == 80)
            #expect(statuses.filter { $0 != 200 }.isEmpty, "logins not 200: \(statuses.filter { $0 != 200 })")
            #expect(starts == [200, 200, 200, 200])
        }
    }
}
