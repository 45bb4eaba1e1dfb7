import Foundation
import Synchronization

/// The clock a Touchstone device runs on: a standard `Clock` whose instants are storable
/// ``Timestamp``s.
///
/// Lockout deadlines, passcode delays and the reuse window are all measured on it. Use
/// ``VirtualClock`` in simulations and tests (time moves only when you advance it) and
/// ``WallClock`` for real authenticators.
public protocol DeviceClock: Clock, Sendable where Instant == Timestamp, Duration == Swift.Duration {}

/// A clock whose time moves only when told to, for deterministic tests and scripts.
///
/// ```swift
/// let clock = VirtualClock()
/// clock.advance(by: .seconds(60))      // a one-minute passcode delay has now run out
/// ```
///
/// Tasks sleeping on it (`try await clock.sleep(for: .seconds(5))`) wake when an
/// ``advance(by:)`` passes their deadline; nothing ever waits on real time.
public final class VirtualClock: DeviceClock {
    private struct Sleeper {
        let deadline: Timestamp
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Timestamp
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    /// Creates a clock that reads `start` until advanced.
    public init(start: Timestamp = .epoch) {
        state = Mutex(State(now: start))
    }

    public var now: Timestamp { state.withLock { $0.now } }

    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves time forward by `duration` (negative durations are ignored) and wakes every
    /// sleeper whose deadline has passed.
    public func advance(by duration: Duration) {
        guard duration > .zero else { return }
        let due: [Sleeper] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Sets the time to `instant` if it is later than now.
    public func advance(to instant: Timestamp) {
        advance(by: now.duration(to: instant))
    }

    public func sleep(until deadline: Timestamp, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(deadline: deadline, id: id, continuation: continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }
}

/// The real time of day, as a ``DeviceClock``, for authenticators that guard real things.
public struct WallClock: DeviceClock {
    public init() {}

    public var now: Timestamp {
        // Clamped: a system clock set absurdly far off must not trap the conversion.
        let seconds = Date().timeIntervalSince1970
        let bound = Double(Duration.maximumCompactSeconds * 2)
        return Timestamp(sinceEpoch: .microseconds(Int64(min(max(seconds, -bound), bound) * 1_000_000)))
    }

    public var minimumResolution: Duration { .microseconds(1) }

    public func sleep(until deadline: Timestamp, tolerance: Duration? = nil) async throws {
        let remaining = now.duration(to: deadline)
        if remaining > .zero {
            try await Task.sleep(for: remaining)
        }
    }
}
