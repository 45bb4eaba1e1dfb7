import Foundation
import PostgresNIO

/// A repository whose every step gives up after a deadline: while the database is unreachable a
/// request is answered 503 `database_unavailable` within ``LoginServerConfiguration/databaseTimeout``
/// instead of hanging, and a failure that means "no database" (a lost or refused connection)
/// is ``RepositoryError/unavailable(_:)`` rather than an internal error.
///
/// A step cut off by the deadline is cancelled (postgres-nio gives up the connection request or
/// the query); one that already reached the database may still commit. That is safe because each
/// step is atomic and its result was never sent: the client sees 503 and tries again.
struct DeadlineRepository: LoginRepository {
    let base: any LoginRepository
    let timeout: Duration

    private enum Outcome<Value: Sendable>: Sendable {
        case finished(Value)
        case timedOut
    }

    /// Runs `step` against the deadline.
    func within<Value: Sendable>(_ step: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let timeout = self.timeout
        let outcome = try await withThrowingTaskGroup(of: Outcome<Value>.self) { group in
            group.addTask { .finished(try await step()) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return .timedOut
            }
            defer { group.cancelAll() }
            do {
                return try await group.next() ?? .timedOut
            } catch {
                throw Self.classify(error)
            }
        }
        switch outcome {
        case let .finished(value): return value
        case .timedOut: throw RepositoryError.unavailable("the database did not answer within \(timeout)")
        }
    }

    /// `error` as the API should see it: a lost, refused or shut-down connection is
    /// ``RepositoryError/unavailable(_:)``; anything else as it is.
    static func classify(_ error: any Error) -> any Error {
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return RepositoryError.unavailable("PostgreSQL connection failed: \(String(reflecting: error))")
            default:
                return error
            }
        }
        // postgres-nio's pool reports "no connection can be made" (its circuit breaker, after
        // about a minute of failed attempts) as a `ConnectionPoolError`, a type of its
        // underscored `_ConnectionPoolModule` product, which this package does not link: it is
        // recognised by name.
        if String(describing: type(of: error)) == "ConnectionPoolError" {
            return RepositoryError.unavailable("PostgreSQL connection pool: \(error)")
        }
        return error
    }

    func migrate() async throws {
        // No deadline: the first start may wait for a lock another server's migration holds.
        do { try await base.migrate() } catch { throw Self.classify(error) }
    }

    func ping() async throws { try await within { try await base.ping() } }

    func createAccount(_ account: AccountRecord) async throws { try await within { try await base.createAccount(account) } }

    func account(username: String) async throws -> AccountRecord? { try await within { try await base.account(username: username) } }

    func createSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, usedDeviceID: String?) async throws -> Bool {
        try await within {
            try await base.createSession(tokenHash: tokenHash, profileID: profileID, expiresAt: expiresAt, now: now, usedDeviceID: usedDeviceID)
        }
    }

    func sessionProfile(tokenHash: [UInt8], now: Date) async throws -> String? {
        try await within { try await base.sessionProfile(tokenHash: tokenHash, now: now) }
    }

    func deleteSession(tokenHash: [UInt8]) async throws -> Bool { try await within { try await base.deleteSession(tokenHash: tokenHash) } }

    func createDevice(_ device: DeviceRecord) async throws { try await within { try await base.createDevice(device) } }

    func devices(profileID: String) async throws -> [DeviceRecord] { try await within { try await base.devices(profileID: profileID) } }

    func device(id: String) async throws -> DeviceRecord? { try await within { try await base.device(id: id) } }

    func device(credentialHash: [UInt8]) async throws -> DeviceRecord? {
        try await within { try await base.device(credentialHash: credentialHash) }
    }

    func deleteDevice(id: String, profileID: String) async throws -> Bool {
        try await within { try await base.deleteDevice(id: id, profileID: profileID) }
    }

    func createChallenge(hash: [UInt8], deviceID: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await within { try await base.createChallenge(hash: hash, deviceID: deviceID, expiresAt: expiresAt, now: now) }
    }

    func consumeChallenge(hash: [UInt8], deviceID: String, now: Date) async throws -> DeviceRecord? {
        try await within { try await base.consumeChallenge(hash: hash, deviceID: deviceID, now: now) }
    }

    func loginCheck(deviceID: String, failureKey: String, since: Date) async throws
        -> (device: DeviceRecord?, failures: Int, oldestFailure: Date?) {
        let result = try await within { () async throws -> LoginCheck in
            let (device, failures, oldest) = try await base.loginCheck(deviceID: deviceID, failureKey: failureKey, since: since)
            return LoginCheck(device: device, failures: failures, oldestFailure: oldest)
        }
        return (result.device, result.failures, result.oldestFailure)
    }

    /// ``loginCheck(deviceID:failureKey:since:)``'s result as a `Sendable` value (a tuple is not one
    /// a task group can return).
    private struct LoginCheck: Sendable {
        var device: DeviceRecord?
        var failures: Int
        var oldestFailure: Date?
    }

    func redeemChallenge(hash: [UInt8], deviceID: String, now: Date, sessionTokenHash: [UInt8], sessionExpiresAt: Date) async throws -> String? {
        try await within {
            try await base.redeemChallenge(hash: hash, deviceID: deviceID, now: now, sessionTokenHash: sessionTokenHash,
                                           sessionExpiresAt: sessionExpiresAt)
        }
    }

    func recordFailure(key: String, at: Date, window: Duration) async throws {
        try await within { try await base.recordFailure(key: key, at: at, window: window) }
    }

    func failures(key: String, since: Date) async throws -> (count: Int, oldest: Date?) {
        let result = try await within { () async throws -> FailureCount in
            let (count, oldest) = try await base.failures(key: key, since: since)
            return FailureCount(count: count, oldest: oldest)
        }
        return (result.count, result.oldest)
    }

    private struct FailureCount: Sendable {
        var count: Int
        var oldest: Date?
    }
}
