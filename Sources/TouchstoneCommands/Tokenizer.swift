import Foundation

/// Splits a command line into words: whitespace separates, `"..."` and `'...'` group, and a
/// backslash escapes the next character inside double quotes and outside quotes. The one
/// tokenizer of the REPL and of `TOUCHSTONE_SETUP`.
///
/// ```swift
/// _ = try Tokenizer.split(#"evaluate biometrics "Unlock notes" thumb"#)
/// // ["evaluate", "biometrics", "Unlock notes", "thumb"]
/// _ = try Tokenizer.words(#"evaluate biometrics 'Unlock notes' thumb"#).map(\.quoted)
/// // [false, false, true, false]
/// ```
public enum Tokenizer {
    /// One word of a line, and whether any of it was quoted (`evaluate` reads a quoted word
    /// after the policy as the reason, an unquoted one as an outcome).
    public struct Word: Sendable, Equatable {
        /// The word without its quotes and escapes.
        public var text: String
        /// Whether the word was written with quotes (`"..."` or `'...'`), in whole or in part.
        public var quoted: Bool

        /// Creates a word.
        public init(_ text: String, quoted: Bool = false) {
            self.text = text
            self.quoted = quoted
        }
    }

    /// The words of `line`. Throws ``CommandError/syntax(_:)`` for an unterminated quote.
    public static func split(_ line: String) throws(CommandError) -> [String] {
        try words(line).map(\.text)
    }

    /// The words of `line`, noting which were quoted. Throws ``CommandError/syntax(_:)`` for an
    /// unterminated quote.
    public static func words(_ line: String) throws(CommandError) -> [Word] {
        if line.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x0D }) { return try asciiWords(line) }
        return try characterWords(line)
    }

    /// ``words(_:)`` over the line's characters (any line).
    static func characterWords(_ line: String) throws(CommandError) -> [Word] {
        var words: [Word] = []
        var current = ""
        var inWord = false
        var quoted = false
        var quote: Character?
        var escaping = false
        for character in line {
            if escaping {
                current.append(character)
                escaping = false
                continue
            }
            if let open = quote {
                if character == open {
                    quote = nil
                } else if character == "\\" && open == "\"" {
                    escaping = true
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case "\"", "'":
                quote = character
                inWord = true
                quoted = true
            case "\\":
                escaping = true
                inWord = true
            case let space where isSeparator(space):
                if inWord {
                    words.append(Word(current, quoted: quoted))
                    current = ""
                    inWord = false
                    quoted = false
                }
            default:
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw .syntax("unterminated quote") }
        if escaping { current.append("\\") }
        if inWord { words.append(Word(current, quoted: quoted)) }
        return words
    }

    /// The commands of a script given as one text (`TOUCHSTONE_SETUP`): `;` and new lines
    /// separate commands, `#` starts a comment to the end of its line; inside quotes both are
    /// plain characters. Blank commands are dropped; the rest are trimmed.
    ///
    /// ```swift
    /// _ = Tokenizer.commands("passcode set 1234; enroll thumb  # ready\nevaluate owner \"Pay; now\" passcode:1234")
    /// // ["passcode set 1234", "enroll thumb", "evaluate owner \"Pay; now\" passcode:1234"]
    /// ```
    public static func commands(_ script: String) -> [String] {
        var commands: [String] = []
        var current = ""
        var quote: Character?
        var escaping = false
        var inComment = false
        func finish() {
            let trimmed = current.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { commands.append(trimmed) }
            current = ""
        }
        for character in script {
            if character.isNewline {
                // A new line ends a comment and a command; an open quote is left for the
                // tokenizer to report.
                inComment = false
                escaping = false
                quote = nil
                finish()
                continue
            }
            if inComment { continue }
            if escaping {
                escaping = false
                current.append(character)
                continue
            }
            if let open = quote {
                if character == open { quote = nil } else if character == "\\" && open == "\"" { escaping = true }
                current.append(character)
                continue
            }
            switch character {
            case "\"", "'":
                quote = character
                current.append(character)
            case "\\":
                escaping = true
                current.append(character)
            case ";":
                finish()
            case "#":
                inComment = true
            default:
                current.append(character)
            }
        }
        finish()
        return commands
    }

    /// Quotes `word` when it needs it to survive ``split(_:)``.
    public static func quote(_ word: String, always: Bool = false) -> String {
        if !always, !word.isEmpty, !word.contains(where: { isSeparator($0) || $0 == "\"" || $0 == "'" || $0 == "\\" }) {
            return word
        }
        var out = "\""
        for character in word {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }

    /// Whether `character` separates words: any whitespace. Spaces and tabs are answered
    /// without the Unicode property lookup, which cost more than the rest of a script line.
    @inline(__always)
    /// ``words(_:)`` for an all-ASCII line without a carriage return (nearly every script
    /// line), over its bytes: each byte is one character there, so the rules are the same
    /// without grapheme breaking (`TokenizerTests` compares both on random lines).
    static func asciiWords(_ line: String) throws(CommandError) -> [Word] {
        let doubleQuote = UInt8(ascii: "\""), singleQuote = UInt8(ascii: "'"), backslash = UInt8(ascii: "\\")
        var words: [Word] = []
        var current: [UInt8] = []
        var inWord = false
        var quoted = false
        var quote: UInt8?
        var escaping = false
        func word() -> Word { Word(String(decoding: current, as: UTF8.self), quoted: quoted) }
        for byte in line.utf8 {
            if escaping {
                current.append(byte)
                escaping = false
                continue
            }
            if let open = quote {
                if byte == open {
                    quote = nil
                } else if byte == backslash && open == doubleQuote {
                    escaping = true
                } else {
                    current.append(byte)
                }
                continue
            }
            switch byte {
            case doubleQuote, singleQuote:
                quote = byte
                inWord = true
                quoted = true
            case backslash:
                escaping = true
                inWord = true
            case 0x20, 0x09, 0x0A...0x0D:
                if inWord {
                    words.append(word())
                    current.removeAll(keepingCapacity: true)
                    inWord = false
                    quoted = false
                }
            default:
                current.append(byte)
                inWord = true
            }
        }
        if quote != nil { throw .syntax("unterminated quote") }
        if escaping { current.append(backslash) }
        if inWord { words.append(word()) }
        return words
    }

    static func isSeparator(_ character: Character) -> Bool {
        if character == " " || character == "\t" { return true }
        if let ascii = character.asciiValue { return ascii == 0x0A || ascii == 0x0B || ascii == 0x0C || ascii == 0x0D }
        return character.isWhitespace
    }
}
