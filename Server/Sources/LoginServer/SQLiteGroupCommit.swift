import Foundation
import GRDB

/// Group commit for SQLite: the reads and writes that arrive while one transaction is running
/// go together into the next one, each write in its own savepoint.
///
/// SQLite has one writer; a login's write costs more in the transaction around it (begin,
/// WAL append, commit, a thread hop) than in its few statements, and a read costs more in its
/// hop to a reader queue than in its lookup. So every statement of the server runs on one
/// serial queue, in batches: a request's database step costs one hop there and one back, and
/// under load one wake-up and one commit serve many requests (measured: server CPU per login
/// 420 → 330 µs at 16 connections, see docs/SERVER.md). Nothing a caller sees is weakened:
/// - each write is atomic: its savepoint is rolled back if it throws, and only its caller gets
///   the error (a duplicate username does not fail the other writes in the batch);
/// - writes run one after another on one connection, so a `DELETE` whose changed-row count
///   decides (a challenge's single use) decides exactly as in a transaction of its own;
/// - a caller hears back only after the transaction holding its write committed, with the
///   durability of the database's settings; if the commit fails, every write in it fails.
/// - a read sees every write committed before it was asked, and the writes before it in its
///   batch (it runs in the batch's transaction; it needs no savepoint);
/// With one request at a time (no load) a batch is that one request: nothing waits for company.
final class SQLiteGroupCommit: @unchecked Sendable {
    private struct Job: Sendable {
        /// Runs the write inside the batch's transaction and keeps its outcome.
        let run: @Sendable (Database) -> Void
        /// Answers the caller: `nil` when the batch committed, else the commit's error.
        let finish: @Sendable ((any Error)?) -> Void
        /// When the caller asked.
        let asked: ContinuousClock.Instant
    }

    /// One write's outcome, set on the writer's queue and read after the commit.
    private final class Outcome<T: Sendable>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }

    private let writer: any DatabaseWriter
    /// Where batches run: one serial queue; `writer.write` runs on it without a further hop.
    private let queue = DispatchQueue(label: "touchstone.login.sqlite")
    private let lock = NSLock()
    private var pending: [Job] = []
    private var flushing = false
    /// The longest a step may wait for its batch to start: one that waited longer (behind a
    /// slow disk, or batches waiting on another process's lock) is answered unavailable
    /// without running, so requests do not queue without end. Nil: no limit.
    private let maximumWait: Duration?
    /// Where ``maximumWait`` is measured: the continuous clock, or a test's manual one.
    private let now: @Sendable () -> ContinuousClock.Instant

    init(writer: any DatabaseWriter, maximumWait: Duration? = nil,
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.writer = writer
        self.maximumWait = maximumWait
        self.now = now
    }

    /// Runs `body` in a savepoint of the next group transaction and returns its result once
    /// that transaction committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await enqueue { db in
            var value: T?
            try db.inSavepoint {
                value = try body(db)
                return .commit
            }
            guard let value else { throw DatabaseError(resultCode: .SQLITE_ERROR, message: "the write did not run") }
            return value
        }
    }

    /// Runs `body`, which only reads, in the next group transaction and returns its result
    /// once that transaction ended.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await enqueue(body)
    }

    private func enqueue<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = Outcome<T>()
            let job = Job(
                run: { db in
                    do {
                        outcome.result = .success(try body(db))
                    } catch {
                        outcome.result = .failure(error)
                    }
                },
                finish: { commitError in
                    if let commitError {
                        continuation.resume(throwing: commitError)
                    } else if let result = outcome.result {
                        continuation.resume(with: result)
                    } else {
                        continuation.resume(throwing: DatabaseError(resultCode: .SQLITE_ERROR, message: "the write did not run"))
                    }
                },
                asked: now()
            )
            let start = lock.withLock { () -> Bool in
                pending.append(job)
                guard !flushing else { return false }
                flushing = true
                return true
            }
            if start {
                queue.async { self.flush() }
            }
        }
    }

    /// The steps waiting for the next batch (tests).
    var waitingSteps: Int { lock.withLock { pending.count } }

    /// Runs batches, each in one transaction, until none is waiting (on `queue`).
    private func flush() {
        while true {
            let jobs = lock.withLock { () -> [Job] in
                let taken = pending
                pending = []
                if taken.isEmpty { flushing = false }
                return taken
            }
            guard !jobs.isEmpty else { return }
            // A step that waited past the limit never runs: its caller hears "unavailable"
            // (nothing was written, so a retry is safe).
            let started = now()
            var ready: [Job] = []
            for job in jobs {
                if let maximumWait, started - job.asked > maximumWait {
                    job.finish(RepositoryError.unavailable(
                        "a SQLite step waited more than \(maximumWait) for its turn (a slow disk or a lock held by another process)"))
                } else {
                    ready.append(job)
                }
            }
            guard !ready.isEmpty else { continue }
            do {
                try writer.write { db in
                    for job in ready { job.run(db) }
                }
                for job in ready { job.finish(nil) }
            } catch {
                for job in ready { job.finish(error) }
            }
        }
    }
}
