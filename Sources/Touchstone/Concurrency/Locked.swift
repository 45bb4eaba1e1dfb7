#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `pthread_mutex_t`: ``withLock(_:)`` gives one caller at a time `inout`
/// access to it. The shape of swift-nio's `NIOLockedValueBox`.
///
/// Every piece of shared mutable state in Touchstone's modules is held in one of these, not in
/// `Synchronization.Mutex`, for ThreadSanitizer's sake: on Linux a contended `Mutex` waits on
/// a priority-inheritance futex whose hand-over the kernel performs, which ThreadSanitizer
/// cannot see, so two threads that took turns inside one `Mutex` were reported as a data race
/// (38 such reports in `scripts/tsan.sh`). ThreadSanitizer intercepts `pthread_mutex_lock`,
/// so a report against a `Locked` value is a real race. The price is one allocation per lock
/// and an uncontended lock of some 20 ns instead of 10.
package final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Exclusive access is the mutex's job: no dynamic exclusivity check on top.
    @exclusivity(unchecked) private var value: Value

    /// A lock guarding `value`.
    package init(_ value: sending Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    /// Not reentrant: `body` must not take this lock again. The signature is `Mutex`'s: the
    /// value and the result are `sending`, so a value that is not `Sendable` can be guarded
    /// without escaping to two threads.
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// Every access to `value` happens inside `withLock`, under the mutex, and values pass in and
// out as `sending` (as with `Mutex`, which is `Sendable` for any value).
extension Locked: @unchecked Sendable {}
