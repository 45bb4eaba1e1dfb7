import Foundation
import NIOConcurrencyHelpers

/// Where the server reads the time: session, challenge and rate-limit windows all ask it.
///
/// Expiry instants are stored in the database and must survive a restart and be shared by
/// several servers, so they are wall-clock dates, not `ContinuousClock` instants. Tests inject a
/// ``ManualLoginClock`` and advance it instead of sleeping:
///
/// ```swift
/// let clock = ManualLoginClock()
/// // ... ask for a challenge ...
/// clock.advance(by: .seconds(61))
/// // ... the challenge has expired ...
/// ```
public protocol LoginClock: Sendable {
    /// The current wall-clock time.
    func now() -> Date
}

/// The system's wall clock.
public struct SystemLoginClock: LoginClock {
    /// Creates the system clock.
    public init() {}

    /// The current wall-clock time.
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to: the deterministic twin of ``SystemLoginClock``.
public final class ManualLoginClock: LoginClock {
    private let current: NIOLockedValueBox<Date>

    /// Creates a clock standing at `start` (by default a fixed date, so runs are repeatable).
    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        self.current = NIOLockedValueBox(start)
    }

    /// The time the clock stands at.
    public func now() -> Date { current.withLockedValue { $0 } }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let interval = Double(seconds) + Double(attoseconds) / 1e18
        current.withLockedValue { $0 = $0.addingTimeInterval(interval) }
    }
}

extension Date {
    /// Milliseconds since 1970, the form every table stores times in. Saturating: a date out of
    /// `Int64`'s range (a session lifetime configured absurdly long) is the nearest end, never a trap.
    var millisecondsSince1970: Int64 {
        let milliseconds = (timeIntervalSince1970 * 1000).rounded(.down)
        guard milliseconds.isFinite else { return milliseconds < 0 ? .min : .max }
        if milliseconds >= 9.2e18 { return .max }
        if milliseconds <= -9.2e18 { return .min }
        return Int64(milliseconds)
    }

    /// The date `milliseconds` after 1970.
    init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
