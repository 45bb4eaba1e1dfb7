import Foundation

/// The clock a Touchstone device runs on: a standard `Clock` whose instants are storable
/// ``Timestamp``s.
///
/// Lockout deadlines, passcode delays and the reuse window are all measured on it. Real
/// authenticators use ``WallClock``; simulations and tests use a ``ManualClock`` (the
/// simulation module's `VirtualClock`), whose time moves only when advanced.
public protocol DeviceClock: Clock, Sendable where Instant == Timestamp, Duration == Swift.Duration {
    /// This clock as a ``ManualClock``, or nil when time moves by itself. ``ManualClock``
    /// implements it; it answers what `clock as? any ManualClock` would, without the dynamic
    /// cast, whose first use looks the conformance up in every loaded library (~40 µs).
    var manual: (any ManualClock)? { get }

    /// Lets up to `duration` of this clock's time pass while the person waits on a prompt
    /// (`wait:<duration>`), and returns how much passed. A clock that moves by itself sleeps
    /// (by default in steps of at most `elapseStep`, 50 ms, stopping early once `isInterrupted`
    /// says the evaluation was interrupted, as a prompt is dismissed at once); a
    /// ``ManualClock`` moves forward at once.
    func elapse(_ duration: Duration, unlessInterrupted isInterrupted: @Sendable () -> Bool) async throws -> Duration
}

extension DeviceClock {
    /// The longest a clock that moves by itself sleeps in ``elapse(_:unlessInterrupted:)``
    /// before it looks for an interruption again: 50 ms.
    public static var elapseStep: Duration { .milliseconds(50) }

    /// Nil: a clock that moves by itself.
    public var manual: (any ManualClock)? { nil }

    /// Sleeps until `duration` has passed or `isInterrupted` says so, looking every
    /// ``elapseStep``: real time passes.
    public func elapse(_ duration: Duration, unlessInterrupted isInterrupted: @Sendable () -> Bool) async throws -> Duration {
        let start = now
        let deadline = start.advanced(by: duration)
        while now < deadline, !isInterrupted() {
            try await sleep(until: min(deadline, now.advanced(by: Self.elapseStep)), tolerance: nil)
        }
        return min(start.duration(to: now), duration)
    }
}

/// A device clock whose time moves only when told to: by ``advance(by:)``, or by
/// ``DeviceClock/elapse(_:unlessInterrupted:)`` when the person waits on a prompt. Nothing on
/// it ever waits on real time.
public protocol ManualClock: DeviceClock {
    /// Moves time forward by `duration` (negative durations are ignored), never past
    /// ``Timestamp/latestReading``, and wakes every sleeper whose deadline has passed.
    func advance(by duration: Duration)
}

extension ManualClock {
    /// This clock.
    public var manual: (any ManualClock)? { self }

    /// How far the clock can still advance: up to ``Timestamp/latestReading``. A person's
    /// `wait:` and the REPL's `clock advance` refuse a longer step rather than stop short.
    public var remaining: Duration { now.untilLatestReading }

    /// Moves the clock forward by `duration` at once (nothing can interrupt a wait that takes
    /// no time), or throws ``UsageError/clockLimit(requested:now:)`` when that would pass
    /// ``Timestamp/latestReading`` (a wait is never cut short).
    public func elapse(_ duration: Duration, unlessInterrupted isInterrupted: @Sendable () -> Bool) async throws -> Duration {
        guard remaining >= duration else { throw UsageError.clockLimit(requested: duration, now: now) }
        advance(by: duration)
        return duration
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
