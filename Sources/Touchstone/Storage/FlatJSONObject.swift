/// JSON objects whose values are all strings — `{"app":"com.example.app","class":"genericPassword"}`,
/// the form a record's attributes are stored in — written and read without Foundation's coders,
/// whose generic machinery cost more than the rest of a keychain read on SQLite
/// (`TOUCHSTONE_BENCH_PROFILE=keychain-sqlite touchstone-bench storage`).
///
/// ``decode(_:)`` accepts exactly such an object (RFC 8259: any whitespace, every escape) and
/// returns nil for anything else — another JSON value, a duplicate key, a malformed escape — so
/// that a caller can hand that text to a full JSON parser and keep its verdict.
package enum FlatJSONObject {
    /// The object's JSON text: keys in the order of their UTF-8 bytes, strings escaped as RFC
    /// 8259 requires (`"`, `\` and control characters; the rest as is).
    package static func encode(_ object: [String: String]) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(object.reduce(2) { $0 + $1.key.utf8.count + $1.value.utf8.count + 6 })
        for (index, key) in object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            append(key, to: &out)
            out.append(UInt8(ascii: ":"))
            append(object[key] ?? "", to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20:
                out += Array("\\u00".utf8)
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The object `text` holds, or nil when it is not exactly one JSON object of string values
    /// with distinct keys.
    package static func decode(_ text: String) -> [String: String]? {
        var text = text
        return text.withUTF8 { bytes in
            var parser = Parser(bytes: bytes)
            return parser.object()
        }
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func object() -> [String: String]? {
            skipWhitespace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var result: [String: String] = [:]
            skipWhitespace()
            if !take(UInt8(ascii: "}")) {
                while true {
                    skipWhitespace()
                    guard let key = string() else { return nil }
                    skipWhitespace()
                    guard take(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    guard let value = string(), result.updateValue(value, forKey: key) == nil else { return nil }
                    skipWhitespace()
                    if take(UInt8(ascii: ",")) { continue }
                    guard take(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipWhitespace()
            return index == bytes.count ? result : nil
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        /// A string; its bytes are valid UTF-8 (they come from a `String`), so only escapes
        /// need checking.
        private mutating func string() -> String? {
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
