import Foundation
import GRDB

/// Group commit for SQLite: the writes that arrive while one transaction is committing run
/// together in the next one, each in its own savepoint.
///
/// SQLite has one writer; a login's write costs more in the transaction around it (begin,
/// WAL append, commit, the hop to GRDB's writer queue) than in its few statements. Under load
/// the batcher turns N such transactions into one, without weakening anything a caller sees:
/// - each write is atomic: its savepoint is rolled back if it throws, and only its caller gets
///   the error (a duplicate username does not fail the other writes in the batch);
/// - writes run one after another on one connection, so a `DELETE` whose changed-row count
///   decides (a challenge's single use) decides exactly as in a transaction of its own;
/// - a caller hears back only after the transaction holding its write committed, with the
///   durability of the database's settings; if the commit fails, every write in it fails.
/// With one write at a time (no load) a batch is that one write: nothing waits for company.
final class SQLiteGroupCommit: @unchecked Sendable {
    private struct Job: Sendable {
        /// Runs the write inside the batch's transaction and keeps its outcome.
        let run: @Sendable (Database) -> Void
        /// Answers the caller: `nil` when the batch committed, else the commit's error.
        let finish: @Sendable ((any Error)?) -> Void
    }

    /// One write's outcome, set on the writer's queue and read after the commit.
    private final class Outcome<T: Sendable>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }

    private let writer: any DatabaseWriter
    private let lock = NSLock()
    private var pending: [Job] = []
    private var flushing = false

    init(writer: any DatabaseWriter) {
        self.writer = writer
    }

    /// Runs `body` in a savepoint of the next group transaction and returns its result once
    /// that transaction committed.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let outcome = Outcome<T>()
            let job = Job(
                run: { db in
                    do {
                        var value: T?
                        try db.inSavepoint {
                            value = try body(db)
                            return .commit
                        }
                        if let value { outcome.result = .success(value) }
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
                }
            )
            let start = lock.withLock { () -> Bool in
                pending.append(job)
                guard !flushing else { return false }
                flushing = true
                return true
            }
            if start {
                Task { await self.flush() }
            }
        }
    }

    /// Commits batches until none is waiting.
    private func flush() async {
        while true {
            let jobs = lock.withLock { () -> [Job] in
                let taken = pending
                pending = []
                if taken.isEmpty { flushing = false }
                return taken
            }
            guard !jobs.isEmpty else { return }
            do {
                try await writer.write { db in
                    for job in jobs { job.run(db) }
                }
                for job in jobs { job.finish(nil) }
            } catch {
                for job in jobs { job.finish(error) }
            }
        }
    }
}
