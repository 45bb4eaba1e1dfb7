import Synchronization
import Touchstone

/// A clock whose time moves only when told to, for deterministic tests and scripts.
///
/// ```swift
/// let clock = VirtualClock()
/// clock.advance(by: .seconds(60))      // a one-minute passcode delay has now run out
/// ```
///
/// Tasks sleeping on it (`try await clock.sleep(for: .seconds(5))`) wake when an
/// ``advance(by:)`` passes their deadline; nothing ever waits on real time.
public final class VirtualClock: ManualClock {
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

    private let state: Locked<State>

    /// A copy of `state.now` that reading the time takes without the lock (every evaluation
    /// reads the clock): a sequence lock. ``advance(by:)``, under the lock, makes the sequence
    /// odd, writes the two components and makes it even again; a reader that finds the
    /// sequence odd or moved while it read takes the lock instead.
    private let sequence = Atomic<UInt64>(0)
    private let seconds: Atomic<Int64>
    private let attoseconds: Atomic<Int64>

    /// Creates a clock that reads `start` until advanced; a `start` past
    /// ``Timestamp/latestReading`` reads that latest time instead, as an advance would stop there.
    public init(start: Timestamp = .epoch) {
        let start = min(start, .latestReading)
        state = Locked(State(now: start))
        let (seconds, attoseconds) = start.sinceEpoch.components
        self.seconds = Atomic(seconds)
        self.attoseconds = Atomic(attoseconds)
    }

    public var now: Timestamp {
        let before = sequence.load(ordering: .acquiring)
        let seconds = seconds.load(ordering: .relaxed)
        let attoseconds = attoseconds.load(ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiring)
        if before & 1 == 0, sequence.load(ordering: .relaxed) == before {
            // Written from a `Timestamp`, so within its limit already.
            return Timestamp(withinLimit: Duration(secondsComponent: seconds, attosecondsComponent: attoseconds))
        }
        // An advance was under way: wait for it on the lock rather than spin.
        return state.withLock { $0.now }
    }

    /// Publishes `now` to lock-free readers; called with the lock held (one writer at a time).
    private func publish(_ now: Timestamp) {
        let (seconds, attoseconds) = now.sinceEpoch.components
        let odd = sequence.load(ordering: .relaxed) &+ 1
        sequence.store(odd, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        self.seconds.store(seconds, ordering: .relaxed)
        self.attoseconds.store(attoseconds, ordering: .relaxed)
        sequence.store(odd &+ 1, ordering: .releasing)
    }

    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves time forward by `duration` (negative durations are ignored), at most to
    /// ``Timestamp/latestReading``, and wakes every sleeper whose deadline has passed. Callers
    /// that must not stop short check ``remaining`` first.
    public func advance(by duration: Duration) {
        guard duration > .zero else { return }
        let due: [Sleeper] = state.withLock { state in
            guard state.now < .latestReading else { return [] }
            state.now = min(state.now.advanced(by: duration), .latestReading)
            let now = state.now
            publish(now)
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

extension SimulationSupport {
    /// A fresh ``VirtualClock`` and ``ScriptedInteraction`` for each composition.
    public static let standard = SimulationSupport(
        makeManualClock: { VirtualClock() },
        makeInteraction: { ScriptedInteraction() })
}
