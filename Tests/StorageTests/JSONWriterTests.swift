import Foundation
import Testing
@testable import Touchstone

/// The one JSON writer: what it writes is JSON that Foundation reads back as written.
@Suite("JSON writer")
struct JSONWriterTests {
    @Test("every string, control characters and quotes included, reads back through JSONDecoder and the fast reader unchanged")
    func stringsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "\"", "\\", "/", "\u{08}", "\u{0C}", "\n", "\r", "\t", "\u{01}", "\u{1F}", "é", "😀", " "]
        for _ in 0..<500 {
            let text = String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
            for escapingSlash in [false, true] {
                var json = JSONText.Writer(escapingSlash: escapingSlash)
                json.beginArray()
                json.string(text)
                json.endArray()
                #expect(try JSONDecoder().decode([String].self, from: Data(json.bytes)) == [text])
                #expect(JSONText.parse(String(decoding: json.bytes, as: UTF8.self))
                    .flatMap { if case let .array(values) = $0 { values.first?.string } else { nil } } == text)
            }
        }
    }

    @Test("a slash is escaped only when asked, as JSONEncoder escapes it")
    func slashOnlyWhenAsked() throws {
        var plain = JSONText.Writer()
        plain.string("a/b")
        #expect(String(decoding: plain.bytes, as: UTF8.self) == #""a/b""#)
        var encoderStyle = JSONText.Writer(escapingSlash: true)
        encoderStyle.string("a/b")
        #expect(encoderStyle.bytes == Array(try JSONEncoder().encode("a/b")))
    }

    @Test("nested objects and arrays get their commas and colons where JSON puts them")
    func nestedContainers() {
        var json = JSONText.Writer()
        json.beginObject()
        json.key("a"); json.beginArray()
        json.beginObject(); json.endObject()
        json.beginArray(); json.null(); json.bool(false); json.endArray()
        json.integer(-3)
        json.endArray()
        json.key("b"); json.beginObject(); json.key("c"); json.data(Data([0xFF])); json.endObject()
        json.key("d"); json.raw("1.5")
        json.endObject()
        #expect(String(decoding: json.bytes, as: UTF8.self) == #"{"a":[{},[null,false],-3],"b":{"c":"/w=="},"d":1.5}"#)
    }
}
