/// A point in device time: the span since the Unix epoch (1970-01-01T00:00:00Z).
///
/// Touchstone needs instants it can *store*: a lockout deadline written before a crash must
/// mean the same moment after the restart. `ContinuousClock.Instant` cannot be persisted, so
/// both of Touchstone's clocks (``VirtualClock`` and ``WallClock``) use this instant type.
/// It is a plain `InstantProtocol` value; all arithmetic is in `Swift.Duration`.
public struct Timestamp: InstantProtocol, Codable, Sendable, CustomStringConvertible {
    /// The span since the Unix epoch.
    public var sinceEpoch: Duration

    /// Creates the instant `sinceEpoch` after the Unix epoch.
    public init(sinceEpoch: Duration) {
        self.sinceEpoch = sinceEpoch
    }

    /// The Unix epoch itself: the start of every ``VirtualClock`` unless told otherwise.
    public static let epoch = Timestamp(sinceEpoch: .zero)

    public func advanced(by duration: Duration) -> Timestamp {
        Timestamp(sinceEpoch: sinceEpoch + duration)
    }

    public func duration(to other: Timestamp) -> Duration {
        other.sinceEpoch - sinceEpoch
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.sinceEpoch < rhs.sinceEpoch
    }

    /// Whole nanoseconds since the epoch, the stored form.
    public var nanosecondsSinceEpoch: Int64 {
        let (seconds, attoseconds) = sinceEpoch.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }

    /// Creates the instant from whole nanoseconds since the epoch.
    public init(nanosecondsSinceEpoch: Int64) {
        self.sinceEpoch = .nanoseconds(nanosecondsSinceEpoch)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(nanosecondsSinceEpoch: try container.decode(Int64.self))
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

    /// Parses `90s`, `5m`, `1h`, `2d`, `250ms`, `1h30m` or a plain number of seconds.
    /// Returns nil for anything else (including negative values).
    public init?(compact text: String) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        if let seconds = Int64(trimmed), seconds >= 0 {
            self = .seconds(seconds)
            return
        }
        var total = Duration.zero
        var number = ""
        var unit = ""
        var sawPart = false
        func flush() -> Bool {
            guard let value = Int64(number) else { return false }
            switch unit {
            case "ms": total += .milliseconds(value)
            case "s": total += .seconds(value)
            case "m", "min": total += .seconds(value * 60)
            case "h": total += .seconds(value * 3_600)
            case "d": total += .seconds(value * 86_400)
            default: return false
            }
            number = ""; unit = ""; sawPart = true
            return true
        }
        for character in trimmed {
            if character.isASCII, character.isNumber {
                if !unit.isEmpty { guard flush() else { return nil } }
                number.append(character)
            } else if character.isLetter {
                guard !number.isEmpty else { return nil }
                unit.append(character)
            } else {
                return nil
            }
        }
        guard !number.isEmpty, !unit.isEmpty, flush(), sawPart else { return nil }
        self = total
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
