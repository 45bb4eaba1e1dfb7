/// JSON text read and written without Foundation's coders, for the records read on every
/// keychain call: Foundation's generic Codable machinery cost more than the rest of a keychain
/// read (`TOUCHSTONE_BENCH_PROFILE=keychain-sqlite touchstone-bench storage`).
///
/// ``parse(_:)`` reads RFC 8259 JSON — every escape, any whitespace — into a ``Value`` and
/// returns nil for anything else. Its callers map a value onto their types only where the
/// mapping is certain, and hand any other text to `JSONDecoder`, whose verdict stands: the
/// fast path may decline, never disagree. ``Writer`` writes JSON text.
package enum JSONText {
    /// A parsed JSON value. Numbers keep their text: each caller reads the forms it is sure of.
    package indirect enum Value: Sendable {
        case object([(key: String, value: Value)])
        case array([Value])
        case string(String)
        case number(String)
        case bool(Bool)
        case null

        /// The text of a string; nil for anything else.
        package var string: String? {
            if case let .string(text) = self { return text }
            return nil
        }

        /// The integer a number spells in plain digits (`-?[0-9]+`, as JSONEncoder writes
        /// integers: the parser has checked the grammar, so `T`'s own reading is exact), if it
        /// fits `T`; nil for anything else, which callers leave to JSONDecoder.
        package func integer<T: FixedWidthInteger>(as type: T.Type = T.self) -> T? {
            guard case let .number(text) = self else { return nil }
            return T(text)
        }

        /// The members of an object whose keys are distinct, by key; nil for anything else.
        package var members: [String: Value]? {
            guard case let .object(pairs) = self else { return nil }
            var members: [String: Value] = [:]
            for (key, value) in pairs {
                guard members.updateValue(value, forKey: key) == nil else { return nil }
            }
            return members
        }
    }

    /// Objects and arrays nested deeper than this are declined (no record nests more than three).
    static let maximumDepth = 32

    /// The value `text` holds, or nil when it is not exactly one JSON value.
    package static func parse(_ text: String) -> Value? {
        var text = text
        return text.withUTF8 { bytes in
            var parser = Parser(bytes: bytes)
            parser.skipWhitespace()
            guard let value = parser.value(depth: 0) else { return nil }
            parser.skipWhitespace()
            return parser.isAtEnd ? value : nil
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        var isAtEnd: Bool { index == bytes.count }

        mutating func value(depth: Int) -> Value? {
            guard index < bytes.count, depth <= JSONText.maximumDepth else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var pairs: [(key: String, value: Value)] = []
                skipWhitespace()
                if take(UInt8(ascii: "}")) { return .object(pairs) }
                while true {
                    skipWhitespace()
                    guard let key = string() else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    guard let member = value(depth: depth + 1) else { return nil }
                    pairs.append((key, member))
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) { continue }
                    return take(UInt8(ascii: "}")) ? .object(pairs) : nil
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [Value] = []
                skipWhitespace()
                if take(UInt8(ascii: "]")) { return .array(elements) }
                while true {
                    skipWhitespace()
                    guard let element = value(depth: depth + 1) else { return nil }
                    elements.append(element)
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) { continue }
                    return take(UInt8(ascii: "]")) ? .array(elements) : nil
                }
            case UInt8(ascii: "\""):
                return string().map(Value.string)
            case UInt8(ascii: "t"):
                return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"):
                return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"):
                return literal("null") ? .null : nil
            default:
                return number()
            }
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                  UnsafeBufferPointer(start: word.utf8Start, count: count).elementsEqual(bytes[index..<(index + count)]) else { return false }
            index += count
            return true
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as text.
        private mutating func number() -> Value? {
            let start = index
            _ = take(UInt8(ascii: "-"))
            if take(UInt8(ascii: "0")) {
                // no further integer digits after a leading zero
            } else {
                guard digits() > 0 else { return nil }
            }
            if take(UInt8(ascii: ".")) {
                guard digits() > 0 else { return nil }
            }
            if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
                if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
                guard digits() > 0 else { return nil }
            }
            return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }

        private mutating func digits() -> Int {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - start
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// A string; its bytes are valid UTF-8 (they come from a `String`), so only escapes
        /// and control characters need checking.
        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            // The usual string has no escape: one copy of its bytes.
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                guard bytes[index] >= 0x20 else { return nil }
                index += 1
            }
            guard index < bytes.count else { return nil }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
            }
            var out = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800...0xDBFF).contains(scalar) {
                            // A high surrogate must be followed by an escaped low one.
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                                  (0xDC00...0xDFFF).contains(low) else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00...0xDFFF).contains(scalar) {
                            return nil
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        out += Array(String(Character(unicode)).utf8)
                    default:
                        return nil
                    }
                default:
                    guard byte >= 0x20 else { return nil }
                    out.append(byte)
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                index += 1
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
    }
}
