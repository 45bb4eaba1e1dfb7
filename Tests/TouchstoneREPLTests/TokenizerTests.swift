import Testing
@testable import TouchstoneCommands

/// The tokenizer's two paths — bytes for an all-ASCII line, characters for any other — split
/// every line the same way.
@Suite struct TokenizerTests {
    /// Both paths on one line: the same words, or the same error.
    func split(_ line: String) -> (ascii: Result<[Tokenizer.Word], CommandError>, characters: Result<[Tokenizer.Word], CommandError>) {
        (Result { () throws(CommandError) in try Tokenizer.asciiWords(line) },
         Result { () throws(CommandError) in try Tokenizer.characterWords(line) })
    }

    @Test("the ASCII path splits 20,000 random lines of quotes, escapes and separators like the character path")
    func asciiPathMatchesCharacterPath() {
        let alphabet: [Character] = ["a", "b", "1", " ", "\t", "\u{0B}", "\u{0C}", "\"", "'", "\\", "#", ";", ":"]
        var generator = SystemRandomNumberGenerator()
        var differing: [String] = []
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let line = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            let (ascii, characters) = split(line)
            if "\(ascii)" != "\(characters)" { differing.append(line) }
        }
        #expect(differing.isEmpty, "lines split differently: \(differing.prefix(5))")
    }

    @Test("words() takes the ASCII path for script lines and the character path for others, with one result")
    func wordsOnBothPaths() throws {
        #expect(try Tokenizer.words(#"evaluate biometrics "Unlock notes" thumb"#).map(\.text) == ["evaluate", "biometrics", "Unlock notes", "thumb"])
        #expect(try Tokenizer.words(#"evaluate biometrics "Unlock notes" thumb"#).map(\.quoted) == [false, false, true, false])
        #expect(try Tokenizer.words("enroll café\u{00A0}'x y'").map(\.text) == ["enroll", "café", "x y"])
        #expect(try Tokenizer.words("a\r\nb").map(\.text) == ["a", "b"])
        #expect(throws: CommandError.self) { try Tokenizer.words(#"say "open"#) }
    }
}
