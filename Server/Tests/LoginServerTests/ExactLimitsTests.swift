import Foundation
@testable import LoginServer
import Testing

/// Failure limits hold exactly under any concurrency: each attempt is recorded before it is
/// judged, so of attempts sent at once no more than the limit's worth are checked.
// Serialized: each case is a burst of up to 150 requests at once; one at a time is load enough.
@Suite("Exact failure limits under concurrency", .serialized, .timeLimit(.minutes(3)))
struct ExactLimitsTests {
    /// Sends `count` requests at once; their statuses.
    private static func burst(_ count: Int, _ send: @escaping @Sendable (Int) async throws -> Client.Reply) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask { try await send(index).status.code }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    private static func json(_ object: [String: String]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    @Test("wrong passwords sent at once against one account from as many addresses: exactly accountFailureLimit (10) are checked, the rest 429",
          arguments: Backend.available, [50, 100])
    func passwordLockoutIsExact(_ backend: Backend, _ count: Int) async throws {
        // 127.0.0.1 is a trusted proxy, so each request's X-Forwarded-For is its own address.
        let server = try await TestServer.make(backend) {
            $0.trustedProxies = TrustedProxies(ranges: [.init(network: [127, 0, 0, 1], prefix: 32)])
        }
        let (statuses, right) = try await server.run { client in
            try await client.register("ada")
            let body = try Self.json(["username": "ada", "password": "wrong password"])
            let statuses = try await Self.burst(count) { index in
                try await client.send(.post, "/v1/sessions", headers: [("Content-Type", "application/json"),
                                                                      ("X-Forwarded-For", "10.1.\(index / 250).\(index % 250 + 1)")], body: body)
            }
            let right = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"])
            return (statuses, right.status.code)
        }
        #expect(statuses.filter { $0 == 401 }.count == 10, "\(statuses.sorted())")
        #expect(statuses.filter { $0 == 429 }.count == count - 10, "\(statuses.sorted())")
        #expect(right == 429, "the account is locked for the window, even for the right password")
    }

    /// Sends 150 failing logins at once from one address to `path`, each with the body
    /// `body()` makes; exactly addressFailureLimit (100) must be answered 401, the rest 429.
    private static func expectAddressLimitIsExact(_ backend: Backend, _ path: String,
                                                  _ body: @escaping @Sendable () -> [String: String]) async throws {
        let server = try await TestServer.make(backend)
        let statuses = try await server.run { client in
            try await Self.burst(150) { _ in
                try await client.send(.post, path, headers: [("Content-Type", "application/json")], body: try Self.json(body()))
            }
        }
        #expect(statuses.filter { $0 == 401 }.count == 100, "\(statuses.sorted())")
        #expect(statuses.filter { $0 == 429 }.count == 50, "\(statuses.sorted())")
    }

    private static func randomBase64(_ count: Int) -> String {
        Data((0..<count).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    @Test("failing token logins sent at once from one address: exactly addressFailureLimit (100) are answered 401, the rest 429",
          arguments: Backend.available)
    func tokenLoginAddressLimitIsExact(_ backend: Backend) async throws {
        try await Self.expectAddressLimitIsExact(backend, "/v1/logins/token") { ["deviceToken": Self.randomBase64(32)] }
    }

    @Test("failing signature logins sent at once from one address: exactly addressFailureLimit (100) are answered 401, the rest 429",
          arguments: Backend.available)
    func signatureLoginAddressLimitIsExact(_ backend: Backend) async throws {
        try await Self.expectAddressLimitIsExact(backend, "/v1/logins") {
            ["deviceID": UUID().uuidString.lowercased(), "challenge": Self.randomBase64(32), "signature": Self.randomBase64(70)]
        }
    }

    @Test("a right password is not a failure: nine wrong, one right, then the tenth wrong is still checked and the eleventh refused",
          arguments: Backend.available)
    func aRightPasswordIsUncounted(_ backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        try await server.run { client in
            try await client.register("ada")
            for _ in 0..<9 {
                #expect(try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "wrong password"]).status == .unauthorized)
            }
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"]).status == .ok)
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "wrong password"]).status == .unauthorized)
            #expect(try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "wrong password"]).status == .tooManyRequests)
        }
    }

    @Test("recordAttempt counts only the attempts before it, per key; releaseAttempt removes its rows", arguments: Backend.available)
    func recordAndRelease(_ backend: Backend) async throws {
        let database = try await TestDatabase.make(backend)
        try await database.withRepository { repository in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let since = now.addingTimeInterval(-600)
            let first = try await repository.recordAttempt(keys: ["a", "b"], at: now, since: since, window: .seconds(600))
            #expect(first.earlier.map(\.count) == [0, 0])
            let second = try await repository.recordAttempt(keys: ["a"], at: now.addingTimeInterval(1), since: since, window: .seconds(600))
            #expect(second.earlier.map(\.count) == [1])
            #expect(second.earlier.first?.oldest == now)
            try await repository.releaseAttempt(first)
            #expect(try await repository.failures(key: "a", since: since).count == 1)
            #expect(try await repository.failures(key: "b", since: since).count == 0)
        }
    }
}
