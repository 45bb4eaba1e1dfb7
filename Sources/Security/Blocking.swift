#if !canImport(Darwin)
import Dispatch
import Foundation
import Synchronization

/// Runs `body` on a thread of its own and blocks the calling thread until it ends: how the
/// synchronous Apple-shaped calls (`SecItemCopyMatching`, the setup script) drive the
/// asynchronous engine.
///
/// The work never needs the calling thread, the main actor or a thread of Swift's concurrency
/// pool, as `securityd` answers iOS's `SecItemCopyMatching` from another process. So blocking
/// the main thread is safe, and so is calling from tasks: however many pool threads block in
/// these calls at once (parallel tests, an app calling the keychain from many tasks), none of
/// them is waiting for another to be free. (The work used to run on the pool itself: with every
/// pool thread blocked in a call, the calls waited for each other forever.)
package func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = BlockingBox<T>()
    Task.detached(executorPreference: DedicatedThreadExecutor()) {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        box.result.withLock { $0 = result }
        box.done.signal()
    }
    box.done.wait()
    guard let result = box.result.withLock({ $0 }) else {
        throw CancellationError()
    }
    return try result.get()
}

/// Where ``runBlocking(_:)`` hands the result back.
private final class BlockingBox<T: Sendable>: Sendable {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
}

/// A task executor with one thread of its own, which ends when the executor is released (the
/// task preferring it, and every child task, holds it until it ends).
private final class DedicatedThreadExecutor: TaskExecutor {
    private let queue = JobQueue()

    init() {
        // Unowned: the thread must not keep the executor alive, or it would never end.
        let (queue, executor) = (self.queue, asUnownedTaskExecutor())
        Thread { queue.run(on: executor) }.start()
    }

    deinit { queue.close() }

    func enqueue(_ job: consuming ExecutorJob) {
        queue.append(UnownedJob(job))
    }
}

/// The jobs waiting for a ``DedicatedThreadExecutor``'s thread.
private final class JobQueue: @unchecked Sendable {
    // @unchecked: `jobs` and `closed` are only touched with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var closed = false

    func append(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    func close() {
        condition.lock()
        closed = true
        condition.signal()
        condition.unlock()
    }

    /// Runs the jobs as they come on `executor`, until the queue is closed and empty.
    func run(on executor: UnownedTaskExecutor) {
        while true {
            condition.lock()
            while jobs.isEmpty, !closed { condition.wait() }
            if jobs.isEmpty {
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
