import Foundation
import GRDB
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// A repository whose every step gives up after a deadline: while the database is unreachable a
/// request is answered 503 `database_unavailable` within ``LoginServerConfiguration/databaseTimeout``
/// instead of hanging, and a failure that means "no database" (a lost, refused or busy
/// connection, a locked SQLite file) is ``RepositoryError/unavailable(_:)`` rather than an
/// internal error.
///
/// The step runs in a task of its own and the request waits for whichever comes first, the step
/// or the deadline (a timer on a NIO event loop). It cannot wait for the step to notice a
/// cancellation: a query already sent on a PostgreSQL connection ignores it. A step given up on
/// is cancelled and left to finish in the background, holding its connection until the database
/// answers (the pool's size bounds how many can). It may still commit: each step is atomic and
/// its result is never sent, so the client sees 503 and may try again (and may then find the
/// account or binding it asked for already made: 409).
///
/// With no `timeout` a step runs as it is and only its failure is classified: the SQLite
/// repository, whose steps are bounded by its busy timeout (5 s) already. The race costs a
/// task and a timer per step, about 150 µs of CPU per login when the timer was a `Task.sleep`
/// (measured with touchstone-server-bench on SQLite), which SQLite does not need.
struct DeadlineRepository: LoginRepository {
    let base: any LoginRepository
    let timeout: Duration?
    /// Where the deadline timers run (the next loop for each step).
    let eventLoops: any EventLoopGroup

    init(base: any LoginRepository, timeout: Duration?, eventLoops: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.base = base
        self.timeout = timeout
        self.eventLoops = eventLoops
    }

    /// Runs `step` against the deadline.
    func within<Value: Sendable>(_ step: @escaping @Sendable () async throws -> Value) async throws -> Value {
        guard let timeout else {
            do { return try await step() } catch { throw Self.classify(error) }
        }
        let gate = Gate<Value>()
        let work = Task {
            do {
                gate.resolve(.success(try await step()))
            } catch {
                gate.resolve(.failure(Self.classify(error)))
            }
        }
        // TimeAmount(_:) clamps a huge timeout instead of overflowing.
        let timer = eventLoops.next().scheduleTask(in: TimeAmount(timeout)) {
            gate.resolve(.failure(RepositoryError.unavailable("the database did not answer within \(timeout)")))
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        return try await withTaskCancellationHandler {
            try await gate.value()
        } onCancel: {
            gate.resolve(.failure(CancellationError()))
        }
    }

    /// The first of several results, handed to the one waiter whenever it comes.
    private final class Gate<Value: Sendable>: Sendable {
        private enum State {
            case open
            case waiting(CheckedContinuation<Value, any Error>)
            case resolved(Result<Value, any Error>)
            case done
        }

        private let state = Mutex(State.open)

        /// Records `result` unless one came first.
        func resolve(_ result: Result<Value, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<Value, any Error>? in
                switch state {
                case .open:
                    state = .resolved(result)
                    return nil
                case let .waiting(continuation):
                    state = .done
                    return continuation
                case .resolved, .done:
                    return nil
                }
            }
            waiter?.resume(with: result)
        }

        /// The first result, when it comes.
        func value() async throws -> Value {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if case let .resolved(result) = state {
                        state = .done
                        return result
                    }
                    state = .waiting(continuation)
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }

    /// `error` as the API should see it: a lost, refused, shut-down or overloaded PostgreSQL
    /// connection and a busy, locked, full or unreadable SQLite file are
    /// ``RepositoryError/unavailable(_:)``; anything else as it is.
    static func classify(_ error: any Error) -> any Error {
        // A transaction's failure wraps the statement's (or BEGIN's, COMMIT's) error; unwrapped
        // here, for every step, so the error middleware logs the cause (the wrapper's
        // description would print the query and its values).
        if let error = error as? PostgresTransactionError, let cause = error.cause {
            return classify(cause)
        }
        if let error = error as? PSQLError {
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
                return RepositoryError.unavailable("PostgreSQL connection failed (\(error.code))")
            case .server:
                // Class 08 (connection exception), 57P01-57P03 (admin or crash shutdown, cannot
                // connect now), 53300 (too many connections), 25006 (a read-only server: a
                // failover in progress), 57014 (cancelled by a statement timeout), 40001 and
                // 40P01 (serialization failure, deadlock): try again later.
                let state = error.serverInfo?[.sqlState] ?? ""
                if state.hasPrefix("08")
                    || ["57P01", "57P02", "57P03", "53300", "25006", "57014", "40001", "40P01"].contains(state) {
                    return RepositoryError.unavailable("PostgreSQL refused the query (SQLSTATE \(state))")
                }
                return error
            default:
                return error
            }
        }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED, .SQLITE_IOERR, .SQLITE_CANTOPEN, .SQLITE_FULL, .SQLITE_READONLY:
                return RepositoryError.unavailable("SQLite: \(error.resultCode) (\(error.message ?? "no message"))")
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

    func createPasswordSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, passwordHash: String) async throws -> Bool {
        try await within {
            try await base.createPasswordSession(tokenHash: tokenHash, profileID: profileID, expiresAt: expiresAt, now: now,
                                                 passwordHash: passwordHash)
        }
    }

    func account(profileID: String) async throws -> AccountRecord? { try await within { try await base.account(profileID: profileID) } }

    func changePassword(profileID: String, from expected: String, to passwordHash: String, keeping: [UInt8]) async throws -> Bool {
        try await within { try await base.changePassword(profileID: profileID, from: expected, to: passwordHash, keeping: keeping) }
    }

    func deleteSessions(profileID: String) async throws -> Int { try await within { try await base.deleteSessions(profileID: profileID) } }

    func createDevice(_ device: DeviceRecord) async throws { try await within { try await base.createDevice(device) } }

    func devices(profileID: String) async throws -> [DeviceRecord] { try await within { try await base.devices(profileID: profileID) } }

    func device(id: String) async throws -> DeviceRecord? { try await within { try await base.device(id: id) } }

    func device(credentialHash: [UInt8]) async throws -> DeviceRecord? {
        try await within { try await base.device(credentialHash: credentialHash) }
    }

    func deleteDevice(id: String, profileID: String) async throws -> Bool {
        try await within { try await base.deleteDevice(id: id, profileID: profileID) }
    }

    func createChallenge(hash: [UInt8], deviceID: String, expiresAt: Date, now: Date, requestedBy requester: String) async throws -> Bool {
        try await within {
            try await base.createChallenge(hash: hash, deviceID: deviceID, expiresAt: expiresAt, now: now, requestedBy: requester)
        }
    }

    func consumeChallenge(hash: [UInt8], deviceID: String, now: Date) async throws -> DeviceRecord? {
        try await within { try await base.consumeChallenge(hash: hash, deviceID: deviceID, now: now) }
    }

    func loginCheck(deviceID: String, failureKey: String, since: Date) async throws
        -> (device: DeviceRecord?, failures: Int, oldestFailure: Date?) {
        try await within { try await base.loginCheck(deviceID: deviceID, failureKey: failureKey, since: since) }
    }

    func redeemChallenge(hash: [UInt8], deviceID: String, now: Date, sessionTokenHash: [UInt8], sessionExpiresAt: Date,
                         signCount: UInt32?) async throws -> String? {
        try await within {
            try await base.redeemChallenge(hash: hash, deviceID: deviceID, now: now, sessionTokenHash: sessionTokenHash,
                                           sessionExpiresAt: sessionExpiresAt, signCount: signCount)
        }
    }

    func createAttestChallenge(hash: [UInt8], profileID: String, expiresAt: Date, now: Date) async throws {
        try await within { try await base.createAttestChallenge(hash: hash, profileID: profileID, expiresAt: expiresAt, now: now) }
    }

    func consumeAttestChallenge(hash: [UInt8], profileID: String, now: Date) async throws -> Bool {
        try await within { try await base.consumeAttestChallenge(hash: hash, profileID: profileID, now: now) }
    }

    func recordAttempt(keys: [String], at: Date, since: Date, window: Duration) async throws -> RecordedAttempt {
        try await within { try await base.recordAttempt(keys: keys, at: at, since: since, window: window) }
    }

    func releaseAttempt(_ attempt: RecordedAttempt) async throws {
        try await within { try await base.releaseAttempt(attempt) }
    }

    func failures(key: String, since: Date) async throws -> (count: Int, oldest: Date?) {
        try await within { try await base.failures(key: key, since: since) }
    }
}
