/// Splits a REPL line into words: whitespace separates, `"..."` and `'...'` group, and a
/// backslash escapes the next character inside double quotes and outside quotes.
///
/// ```swift
/// try Tokenizer.split(#"evaluate biometrics "Unlock notes" thumb"#)
/// // ["evaluate", "biometrics", "Unlock notes", "thumb"]
/// ```
public enum Tokenizer {
    /// The words of `line`. Throws ``REPLError/syntax(_:)`` for an unterminated quote.
    public static func split(_ line: String) throws(REPLError) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
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
            case "\\":
                escaping = true
                inWord = true
            case let space where space.isWhitespace:
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            default:
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw .syntax("unterminated quote") }
        if escaping { current.append("\\") }
        if inWord { words.append(current) }
        return words
    }

    /// Quotes `word` when it needs it to survive ``split(_:)``.
    public static func quote(_ word: String) -> String {
        if !word.isEmpty, !word.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" }) {
            return word
        }
        var out = "\""
        for character in word {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }
}
