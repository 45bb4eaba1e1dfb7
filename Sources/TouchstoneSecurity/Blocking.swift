#if !canImport(Darwin)
import Dispatch
import Foundation
import Touchstone

/// Runs `body` to its end and returns its result, blocking the calling thread meanwhile: how
/// the synchronous Apple-shaped calls (`SecItemCopyMatching`, the setup script) drive the
/// asynchronous engine.
///
/// The calling thread runs the work itself: `body` is a task whose executor is that thread,
/// which runs the task's jobs as they come until it ends. So the work never needs another
/// thread — not the main actor, not a thread of Swift's concurrency pool — as `securityd`
/// answers iOS's `SecItemCopyMatching` from another process. Blocking the main thread is
/// safe, and so is calling from tasks: however many pool threads block in these calls at once
/// (parallel tests, an app calling the keychain from many tasks), none of them waits for
/// another to be free. (The work once ran on the pool itself: with every pool thread blocked in
/// a call, the calls waited for each other forever. It then ran on a new thread per call,
/// which made each call wait about 40 µs for thread hand-offs: `touchstone-bench security`.)
///
/// A capture or prompt the work awaits is resumed by whoever answers it; the job that resumes
/// it comes back to this thread. One case cannot work: an `Interaction` isolated to the main
/// actor (a UI prompt), with the call made on the main thread. Its job goes to the main
/// actor's executor, not to this thread, and the main thread is the one blocked here, so the
/// call never returns. The built-in interactions are not actor-bound; a main-actor one must
/// be driven by calls made off the main thread.
package func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let executor = CallingThreadExecutor()
    let outcome = Locked<Result<T, any Error>?>(nil)
    Task.detached(executorPreference: executor) {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        outcome.withLock { $0 = result }
        executor.finish()
    }
    executor.runUntilFinished()
    guard let result = outcome.withLock({ $0 }) else {
        // Not reached: the task writes its outcome before it calls `finish()`, and the loop
        // returns only after `finish()`. Thrown rather than trapped, should that ever change.
        throw CancellationError()
    }
    return try result.get()
}

/// A task executor whose jobs the thread that created it runs, in
/// ``runUntilFinished()``. A job that arrives after that returned (nothing the engine does
/// leaves one behind) runs on a GCD global queue, so no job is ever lost.
private final class CallingThreadExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `finished` and `closed` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false
    private var closed = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if closed {
            condition.unlock()
            let executor = asUnownedTaskExecutor()
            DispatchQueue.global().async { job.runSynchronously(on: executor) }
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Marks the work done: ``runUntilFinished()`` returns once the jobs queued so far ran.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs the jobs as they come, on the calling thread, until ``finish()`` and an empty queue.
    func runUntilFinished() {
        let executor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty, !finished { condition.wait() }
            if jobs.isEmpty {
                closed = true
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
        }
    }
}
#endif
