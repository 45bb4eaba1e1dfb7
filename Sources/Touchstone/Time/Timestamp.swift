/// A point in device time: the span since the Unix epoch (1970-01-01T00:00:00Z).
///
/// Touchstone needs instants it can *store*: a lockout deadline written before a crash must
/// mean the same moment after the restart. `ContinuousClock.Instant` cannot be persisted, so
/// every ``DeviceClock`` (``WallClock`` and the simulation module's `VirtualClock`) uses this instant type.
/// It is a plain `InstantProtocol` value; all arithmetic is in `Swift.Duration`.
public struct Timestamp: InstantProtocol, Codable, Sendable, CustomStringConvertible {
    /// The span since the Unix epoch, always within ±``Timestamp/limit``.
    public private(set) var sinceEpoch: Duration

    /// How far from the epoch device time may go either way: 200 years (73,000 days), so the
    /// stored form (whole nanoseconds in an `Int64`, good for ±292 years) can never wrap and
    /// no deadline arithmetic can overflow.
    /// (Computed rather than stored: clamping reads it often — the wall clock's every reading —
    /// and a stored static is a lazy global checked on each access.)
    public static var limit: Duration {
        Duration(secondsComponent: Duration.maximumCompactSeconds * 2, attosecondsComponent: 0)
    }

    /// Creates the instant `sinceEpoch` after the Unix epoch, clamped to ±``limit``.
    public init(sinceEpoch: Duration) {
        self.sinceEpoch = min(max(sinceEpoch, .zero - Self.limit), Self.limit)
    }

    /// An instant already known to be within ±``limit`` (a clock's own reading of a value it
    /// clamped when it was set): no clamping on the hot path of reading the time.
    package init(withinLimit sinceEpoch: Duration) {
        self.sinceEpoch = sinceEpoch
    }

    /// The Unix epoch itself: the start of every manual clock unless told otherwise.
    public static let epoch = Timestamp(sinceEpoch: .zero)

    /// The latest instant a timestamp can hold (``limit`` after the epoch).
    public static let latest = Timestamp(sinceEpoch: limit)

    /// The latest time a simulated device clock reads: a day before ``latest``. A deadline the
    /// rules set from the clock's time (a passcode delay, an hour at most) is then still later
    /// than the clock and representable, so a delay that starts at the end of the range is
    /// enforced instead of ending at once (our rule).
    public static let latestReading = Timestamp(sinceEpoch: limit - .seconds(86_400))

    /// How far a clock that reads this time can still advance (zero at ``latestReading``).
    var untilLatestReading: Duration { max(duration(to: .latestReading), .zero) }

    /// Saturates at ±``limit``: never traps, never wraps.
    public func advanced(by duration: Duration) -> Timestamp {
        let bounded = min(max(duration, .zero - Self.limit * 2), Self.limit * 2)
        return Timestamp(sinceEpoch: sinceEpoch + bounded)
    }

    public func duration(to other: Timestamp) -> Duration {
        other.sinceEpoch - sinceEpoch
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.sinceEpoch < rhs.sinceEpoch
    }

    /// Whole nanoseconds since the epoch, the stored form (never wraps: see ``limit``).
    public var nanosecondsSinceEpoch: Int64 {
        let (seconds, attoseconds) = sinceEpoch.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Creates the instant from whole nanoseconds since the epoch, clamped to ±``limit``.
    public init(nanosecondsSinceEpoch: Int64) {
        self.init(sinceEpoch: .nanoseconds(nanosecondsSinceEpoch))
    }

    /// The largest stored value, in nanoseconds either side of the epoch (``limit``).
    public static let storedBound = Duration.maximumCompactSeconds * 2 * 1_000_000_000

    /// Decodes the stored form; a value beyond ±``limit`` is corrupt, not clamped.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let nanoseconds = try container.decode(Int64.self)
        let bound = Self.storedBound
        guard (-bound...bound).contains(nanoseconds) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a stored time \(nanoseconds)ns is beyond 200 years from the epoch")
        }
        self.init(nanosecondsSinceEpoch: nanoseconds)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(nanosecondsSinceEpoch)
    }

    /// `t+<duration>` relative to the epoch, e.g. `t+1m30s`: compact and stable for transcripts.
    public var description: String {
        "t+" + sinceEpoch.compactDescription
    }
}

extension Duration {
    /// A short human form such as `90s` → `1m30s`, `3600s` → `1h`, `0.25s` → `250ms`.
    public var compactDescription: String {
        let (seconds, attoseconds) = components
        if seconds == 0 && attoseconds == 0 { return "0s" }
        if seconds < 0 || (seconds == 0 && attoseconds < 0) {
            return "-" + (Duration.zero - self).compactDescription
        }
        if seconds == 0 {
            let milliseconds = attoseconds / 1_000_000_000_000_000
            return "\(milliseconds)ms"
        }
        var rest = seconds
        var parts = ""
        let days = rest / 86_400; rest %= 86_400
        let hours = rest / 3_600; rest %= 3_600
        let minutes = rest / 60; rest %= 60
        if days > 0 { parts += "\(days)d" }
        if hours > 0 { parts += "\(hours)h" }
        if minutes > 0 { parts += "\(minutes)m" }
        if rest > 0 || attoseconds > 0 {
            let milliseconds = attoseconds / 1_000_000_000_000_000
            parts += milliseconds > 0 ? "\(rest).\(String(format3(milliseconds)))s" : "\(rest)s"
        }
        return parts
    }

    /// The longest duration ``init(compact:)`` accepts, in seconds: 100 years (36,500 days).
    public static let maximumCompactSeconds: Int64 = 36_500 * 86_400

    /// The range a compact duration must lie in, for error messages: `0s to 36500d`.
    public static let compactRangeDescription = "0s to 36500d"

    /// Parses `90s`, `5m`, `1h`, `2d`, `250ms`, `1h30m` or a plain number of seconds, from 0 to
    /// ``maximumCompactSeconds``. Returns nil for anything else: negative, malformed, or too
    /// long (no input traps or wraps).
    public init?(compact text: String) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        let limit = Self.maximumCompactSeconds * 1_000
        var milliseconds: Int64 = 0
        var number = ""
        var unit = ""
        var sawPart = false
        func flush() -> Bool {
            guard let value = Int64(number), value >= 0 else { return false }
            let scale: Int64
            switch unit {
            case "ms": scale = 1
            case "s", "": scale = 1_000
            case "m", "min": scale = 60_000
            case "h": scale = 3_600_000
            case "d": scale = 86_400_000
            default: return false
            }
            let (part, overflow) = value.multipliedReportingOverflow(by: scale)
            guard !overflow, part <= limit, milliseconds <= limit - part else { return false }
            milliseconds += part
            number = ""; unit = ""; sawPart = true
            return true
        }
        for character in trimmed {
            if character.isASCII, character.isNumber {
                if !unit.isEmpty { guard flush() else { return nil } }
                number.append(character)
            } else if character.isASCII, character.isLetter {
                guard !number.isEmpty else { return nil }
                unit.append(character)
            } else {
                return nil
            }
        }
        // A plain number is seconds; a unit-less number after a part ("1m30") is not allowed.
        guard !number.isEmpty, unit.isEmpty ? !sawPart : true, flush(), sawPart else { return nil }
        self = .milliseconds(milliseconds)
    }
}

private func format3(_ value: Int64) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
}

extension String {
    func trimmingWhitespace() -> String {
        var view = Substring(self)
        while let first = view.first, first.isWhitespace { view.removeFirst() }
        while let last = view.last, last.isWhitespace { view.removeLast() }
        return String(view)
    }
}
