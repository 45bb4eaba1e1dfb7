#if !canImport(Darwin)
import Dispatch
import Synchronization

/// Runs `body` on the global concurrent executor and blocks the calling thread until it ends:
/// how the synchronous Apple-shaped calls (`SecItemCopyMatching`, the setup script) drive the
/// asynchronous engine.
///
/// The work never needs the calling thread or the main actor, so blocking the main thread (as
/// a synchronous `SecItemCopyMatching` does on iOS) is safe.
package func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = BlockingBox<T>()
    Task.detached {
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
#endif
