import Foundation
import Hummingbird
import Logging
import PostgresNIO
@testable import LoginServer
import Synchronization
import Testing

/// What bounds the work an unauthenticated client can start: accounts per address, and the
/// password hashes waiting for a thread.
@Suite("Admission: account creations per address, pending password hashes", .timeLimit(.minutes(2)))
struct AdmissionTests {
    @Test("an address creates accountCreationLimit accounts per window, then 429 with Retry-After; refused names count too",
          arguments: Backend.available)
    func accountCreationLimit(_ backend: Backend) async throws {
        let server = try await TestServer.make(backend) { $0.accountCreationLimit = 3 }
        try await server.run { client in
            let password = "correct horse battery"
            #expect(try await client.send(.post, "/v1/accounts", json: ["username": "ada", "password": password]).status == .created)
            #expect(try await client.send(.post, "/v1/accounts", json: ["username": "ada", "password": password]).status == .conflict)
            #expect(try await client.send(.post, "/v1/accounts", json: ["username": "bob", "password": password]).status == .created)
            let refused = try await client.send(.post, "/v1/accounts", json: ["username": "cy", "password": password])
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorCode == "rate_limited")
            #expect(refused.string("message")?.contains("accounts") == true)
            #expect(Int(refused.header("Retry-After") ?? "") == 600)
            // Password logins are not held back by it.
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": password]).status == .ok)
            server.clock.advance(by: .seconds(601))
            #expect(try await client.send(.post, "/v1/accounts", json: ["username": "cy", "password": password]).status == .created)
        }
    }

    @Test("of account creations sent at once from one address, no more than accountCreationLimit get through")
    func accountCreationBurst() async throws {
        let server = try await TestServer.make(.sqlite) { $0.accountCreationLimit = 3 }
        let (statuses, afterWindow) = try await server.run { client in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await client.send(.post, "/v1/accounts",
                                              json: ["username": "burst\(index)", "password": "correct horse battery"]).status.code
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // Each attempt is recorded, then judged against those recorded before it: exactly
            // the first three (in the database's order) get through.
            server.clock.advance(by: .seconds(601))
            let later = try await client.send(.post, "/v1/accounts", json: ["username": "later", "password": "correct horse battery"])
            return (statuses, later.status.code)
        }
        #expect(statuses.filter { $0 == 201 }.count == 3, "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 201 || $0 == 429 }, "\(statuses)")
        #expect(afterWindow == 201)
    }

    @Test("password hashes beyond maxPendingPasswordHashes are 503 server_busy at once, with Retry-After")
    func busyHashing() async throws {
        // Slow hashes, one admitted at a time: of requests sent together, the first hashes while
        // the others arrive.
        let server = try await TestServer.make(.sqlite) {
            $0.maxPendingPasswordHashes = 1
            $0.passwordRounds = 1_500_000
        }
        let replies = try await server.run { client in
            try await withThrowingTaskGroup(of: Client.Reply.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        try await client.send(.post, "/v1/accounts", json: ["username": "user\(index)", "password": "correct horse battery"])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        let created = replies.filter { $0.status == .created }.count
        let busy = replies.filter { $0.status == .serviceUnavailable }
        #expect(created >= 1)
        #expect(!busy.isEmpty, "statuses: \(replies.map(\.status.code))")
        #expect(created + busy.count == replies.count)
        for reply in busy {
            #expect(reply.errorCode == "server_busy")
            #expect(reply.header("Retry-After") == "1")
        }
    }

    @Test("PostgreSQL cancels a statement running past the statement timeout itself (57014); migrations are exempt",
          arguments: Backend.available.filter { $0 == .postgres })
    func postgresStatementTimeout(_ backend: Backend) async throws {
        let database = try await TestDatabase.make(backend)
        guard case let .postgres(location) = database.location else {
            Issue.record("a PostgreSQL test database was asked for, and \(database.location) was given")
            return
        }
        let repository = PostgresLoginRepository(location: location, logger: Logger(label: "test"), statementTimeout: .milliseconds(300))
        let quiet = Logger(label: "test.quiet", factory: { _ in SwiftLogNoOpLogHandler() })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await repository.client.run() }
            defer { group.cancelAll() }
            try await repository.migrate()
            do {
                // (The failure arrives with the rows: read them.)
                for try await _ in try await repository.client.query("SELECT pg_sleep(3)", logger: quiet) {}
                Issue.record("a 3 s statement ran past a 300 ms statement timeout")
            } catch let error as PSQLError {
                #expect(error.serverInfo?[.sqlState] == "57014")
            }
            // The pool's connection is usable again at once.
            try await repository.ping()
        }
    }

    @Test("the gate admits up to its limit across threads and never more")
    func gateBound() async throws {
        let gate = AdmissionGate(limit: 3)
        #expect(gate.enter() && gate.enter() && gate.enter())
        #expect(!gate.enter())
        gate.leave()
        #expect(gate.enter())
        for _ in 0..<3 { gate.leave() }
        #expect(gate.count == 0)
        #expect(AdmissionGate(limit: 0).limit == 1)

        let most = HighWater()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<20_000 where gate.enter() {
                        most.record(gate.count)
                        gate.leave()
                    }
                }
            }
        }
        #expect(most.value <= 3)
        #expect(gate.count == 0)
    }
}

/// The highest value recorded, from any thread.
private final class HighWater: Sendable {
    private let highest = Atomic<Int>(0)

    func record(_ value: Int) {
        var seen = highest.load(ordering: .relaxed)
        while value > seen {
            let (exchanged, original) = highest.compareExchange(expected: seen, desired: value, ordering: .relaxed)
            if exchanged { return }
            seen = original
        }
    }

    var value: Int { highest.load(ordering: .relaxed) }
}
