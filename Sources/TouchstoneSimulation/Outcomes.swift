import Touchstone

/// The simulated user's outcomes as scripts spell them (`thumb`, `nomatch`, `passcode:1234`,
/// `wait:5m`...): the words after `evaluate`'s reason, `right authorize`'s words and
/// `TOUCHSTONE_OUTCOMES`, parsed in this one place (the simulation's, so the Apple-named
/// modules read `TOUCHSTONE_OUTCOMES` without the command layer).
///
/// ```swift
/// _ = try Outcomes.parse(["nomatch", "thumb"])          // [.noMatch, .present("thumb")]
/// _ = try Outcomes.parse(list: "nomatch,passcode:1234")  // [.noMatch, .passcode("1234")]
/// ```
public enum Outcomes {
    /// The spellings, as error messages list them.
    public static let spellings = "a name, nomatch, cancel, fallback, passcode:<code>, systemcancel, invalidate, wait:<duration>, companion"

    /// Parses each word as one outcome; throws an ``OutcomeError`` naming the first word that
    /// is not one.
    public static func parse<Words: Sequence<String>>(_ words: Words) throws(OutcomeError) -> [UserAction] {
        var outcomes: [UserAction] = []
        for word in words {
            guard let action = UserAction(script: word) else { throw OutcomeError(word: word) }
            outcomes.append(action)
        }
        return outcomes
    }

    /// Parses a list separated by commas, semicolons or whitespace (`TOUCHSTONE_OUTCOMES`).
    public static func parse(list text: String) throws(OutcomeError) -> [UserAction] {
        try parse(text.split(whereSeparator: { $0 == "," || $0 == ";" || $0.isWhitespace }).map(String.init))
    }
}

/// A word that is not an outcome, and what would have been accepted.
public struct OutcomeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The word as written.
    public var word: String

    /// Creates the error for `word`.
    public init(word: String) {
        self.word = word
    }

    public var description: String {
        if word.lowercased().hasPrefix("wait:") {
            return "'\(word)': wait takes a duration from \(Duration.compactRangeDescription), such as wait:5m"
        }
        return "'\(word)' is not an outcome (\(Outcomes.spellings))"
    }
}

extension UserAction {
    /// Parses the script spelling (`evaluate`'s outcomes, the REPL's `outcome>` prompt,
    /// `TOUCHSTONE_OUTCOMES`): a name, `nomatch`, `cancel`, `fallback`, `passcode:<code>`,
    /// `systemcancel`, `invalidate`, `wait:<duration>`, `companion`. ``UserAction/description``
    /// writes it back (a passcode as `passcode:****`).
    public init?(script text: String) {
        switch text.lowercased() {
        case "nomatch", "no-match", "mismatch": self = .noMatch
        case "cancel": self = .cancel
        case "fallback": self = .fallback
        case "systemcancel", "system-cancel": self = .systemCancel
        case "invalidate": self = .invalidate
        case "companion", "approve": self = .approveOnCompanion
        default:
            if text.lowercased().hasPrefix("passcode:") {
                // An empty entry is no entry (the keypad submits at least one character).
                guard text.count > "passcode:".count else { return nil }
                self = .passcode(String(text.dropFirst("passcode:".count)))
            } else if text.lowercased().hasPrefix("wait:") {
                guard let duration = Duration(compact: String(text.dropFirst("wait:".count))) else { return nil }
                self = .wait(duration)
            } else if !text.isEmpty, !text.contains(where: { $0.isWhitespace || $0 == ":" }) {
                self = .present(text)
            } else {
                return nil
            }
        }
    }
}
