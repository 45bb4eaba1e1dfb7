import Foundation
import Testing
import TestSupport
@testable import Touchstone

/// ``FlatJSONObject`` reads what JSONDecoder reads, or declines: it never disagrees.
@Suite("Record attributes without Foundation's coders")
struct FlatJSONObjectTests {
    typealias Generator = SeededGenerator

    static let pieces = ["a", "app", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "👍🏽", "\u{2028}", " ", "{", "}", ":", ",", ""]

    /// One to three byte changes: one replaced by a byte of `alphabet`, removed, or inserted.
    static func mutate(_ bytes: inout [UInt8], from alphabet: [UInt8], _ generator: inout Generator) {
        for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: bytes[index] = alphabet.randomElement(using: &generator) ?? 0
            case 1: bytes.remove(at: index)
            default: bytes.insert(alphabet.randomElement(using: &generator) ?? 0, at: index)
            }
        }
    }

    @Test("2,000 random objects (quotes, backslashes, control characters, emoji, empty strings): encode then decode gives them back, and JSONDecoder reads the text the same")
    func roundTrips() throws {
        var generator = Generator(state: 11)
        for _ in 0..<2_000 {
            var object: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let key = (0..<Int.random(in: 0...4, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator) ?? "" }.joined()
                object[key] = (0..<Int.random(in: 0...6, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator) ?? "" }.joined()
            }
            let text = FlatJSONObject.encode(object)
            #expect(FlatJSONObject.decode(text) == object, "\(text)")
            #expect(try JSONDecoder().decode([String: String].self, from: Data(text.utf8)) == object, "\(text)")
        }
    }

    @Test("JSONEncoder's text (escaped slashes, \\u escapes, surrogate pairs, whitespace) decodes as JSONDecoder decodes it")
    func readsJSONEncoderText() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let object = ["path": "a/b", "quote": "\"x\"", "control": "\u{1}\u{8}\u{C}", "emoji": "👍🏽", "app": "com.example.app"]
        for text in [String(decoding: try encoder.encode(object), as: UTF8.self),
                     #"{ "a" : "\ud83d\udc4d" ,"b":"\u00e9\/\b\f" }"#, " {} ", #"{"k":"\u0000"}"#] {
            let expected = try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
            #expect(FlatJSONObject.decode(text) == expected, "\(text)")
        }
    }

    @Test("anything but an object of string values with distinct keys is declined, never misread", arguments: [
        "", "[]", "null", #"{"a":1}"#, #"{"a":"b"} x"#, #"{"a":"b",}"#, #"{"a":"b""c":"d"}"#, #"{"a":"b","a":"c"}"#,
        #"{"a":"\x"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00"}"#, #"{"a":"\u12"}"#, "{\"a\":\"\u{1}\"}", #"{"a":"b"#, #"{"a""#, #"{a:"b"}"#,
        #"{"a":{"b":"c"}}"#, #"{"a":["b"]}"#,
    ])
    func declines(_ text: String) {
        #expect(FlatJSONObject.decode(text) == nil)
    }

    @Test("30,000 mutated texts: whatever FlatJSONObject accepts, JSONDecoder reads the same")
    func neverDisagrees() {
        var generator = Generator(state: 5)
        let seed = Array(#"{"access":"0","accessible":"whenUnlocked","account":"a\/b\"c","app":"com.example.app","x":"\u00e9\ud83d\udc4d"}"#.utf8)
        let alphabet = Array(#"{}[]:,"\/ubfnrt0123456789abcdefABCDEF xé"#.utf8)
        var accepted = 0
        for _ in 0..<30_000 {
            var bytes = seed
            Self.mutate(&bytes, from: alphabet, &generator)
            let text = String(decoding: bytes, as: UTF8.self)
            guard let fast = FlatJSONObject.decode(text) else { continue }
            accepted += 1
            let full = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
            #expect(fast == full, "\(text)")
        }
        #expect(accepted > 1_000)
    }

    /// A random item: every field, optional ones present or not, odd strings and bytes.
    static func randomItem(_ generator: inout Generator) -> StoredItem {
        func text() -> String {
            (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator) ?? "" }.joined()
        }
        func bytes() -> Data { Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        func maybe<T>(_ make: () -> T) -> T? { Bool.random(using: &generator) ? make() : nil }
        var attributes: [String: KeychainAttributeValue]? = maybe { [:] }
        for _ in 0..<(attributes == nil ? 0 : Int.random(in: 0...4, using: &generator)) {
            let value: KeychainAttributeValue = switch Int.random(in: 0..<4, using: &generator) {
            case 0: .string(text())
            case 1: .data(bytes())
            case 2: .integer(Int64.random(in: .min ... .max, using: &generator))
            default: .bool(Bool.random(using: &generator))
            }
            attributes?[text()] = value
        }
        let bound = Timestamp.storedBound
        return StoredItem(
            itemClass: KeychainItemClass.allCases.randomElement(using: &generator) ?? .genericPassword,
            service: text(), account: text(),
            accessibility: Accessibility.allCases.randomElement(using: &generator) ?? .whenUnlocked,
            flags: AccessControlFlags(rawValue: UInt.random(in: 0...UInt.max, using: &generator)),
            enrolledSetHash: maybe { bytes() }, enrollmentSequence: maybe { Int.random(in: .min ... .max, using: &generator) },
            value: bytes(), salt: maybe { bytes() }, attributes: attributes,
            created: maybe { Timestamp(nanosecondsSinceEpoch: Int64.random(in: -bound...bound, using: &generator)) },
            modified: maybe { Timestamp(nanosecondsSinceEpoch: Int64.random(in: -bound...bound, using: &generator)) },
            order: maybe { UInt64.random(in: 0...UInt64.max, using: &generator) }, valueless: maybe { true })
    }

    @Test("stored items: 2,000 random ones written by the fast writer read back equal through both readers, and JSONEncoder's text reads the same through the fast reader")
    func storedItemsRoundTrip() throws {
        var generator = Generator(state: 23)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for _ in 0..<2_000 {
            let item = Self.randomItem(&generator)
            let fast = item.json()
            #expect(StoredItem(fastJSON: fast) == item)
            #expect(try JSONDecoder().decode(StoredItem.self, from: fast) == item)
            let foundation = try encoder.encode(item)
            #expect(StoredItem(fastJSON: foundation) == item, "\(String(decoding: foundation, as: UTF8.self))")
        }
    }

    @Test("stored items: 30,000 mutated records: whatever the fast reader accepts, JSONDecoder reads the same")
    func storedItemsNeverDisagree() throws {
        var generator = Generator(state: 29)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let alphabet = Array(#"{}[]:,"\/u_0123456789abcdefABCDEF+=-.eEnulltrufas xé"#.utf8)
        var accepted = 0
        for round in 0..<30_000 {
            if round % 1_000 == 0 { generator.state &+= 1 }
            var bytes = Array(try encoder.encode(Self.randomItem(&generator)))
            Self.mutate(&bytes, from: alphabet, &generator)
            let data = Data(bytes)
            guard let fast = StoredItem(fastJSON: data) else { continue }
            accepted += 1
            let full = try? JSONDecoder().decode(StoredItem.self, from: data)
            #expect(fast == full, "\(String(decoding: data, as: UTF8.self))")
        }
        #expect(accepted > 1_000)
    }
}
