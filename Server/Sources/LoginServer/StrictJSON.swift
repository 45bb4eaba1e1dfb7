import Foundation

/// The check every request body passes before `JSONDecoder` reads it: JSON exactly as RFC 8259
/// writes it, with each object's member names distinct.
///
/// Foundation's decoder is more forgiving than the RFC: it takes trailing commas, numbers with
/// leading zeros, raw control characters and unknown escapes in strings, and of two members of
/// one name it keeps the first, where most other parsers (JavaScript, Python, Go) keep the last.
/// A proxy or firewall that reads a body one way while the server reads it another is how
/// filters get bypassed, so a body that is not plainly one JSON value is refused (400
/// `malformed_request`) before anything reads its fields.
enum StrictJSON {
    /// Why a body was refused, for the client.
    struct Problem: Error, Equatable, CustomStringConvertible {
        /// What is wrong, and where (a byte offset into the body).
        let description: String
    }

    /// Nesting deeper than this is refused (the API's bodies are one flat object).
    static let maximumDepth = 32

    /// Throws ``Problem`` unless `data` is one RFC 8259 JSON text whose objects have distinct
    /// member names in Unicode NFC. Names are compared after escapes are decoded (`"a"` and
    /// `"\u0061"` are one name); a name not in NFC ("e" + U+0301, KELVIN SIGN for "K") is
    /// refused, as Swift's decoder compares names canonically and a code-point parser does not.
    static func check(_ data: Data) throws(Problem) {
        guard String(validating: data, as: UTF8.self) != nil else {
            throw Problem(description: "bytes that are not UTF-8")
        }
        var reader = Reader(bytes: [UInt8](data))
        try reader.text()
    }

    private struct Reader {
        let bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        mutating func text() throws(Problem) {
            skipWhitespace()
            try value(depth: 0)
            skipWhitespace()
            guard position == bytes.count else { throw problem("content after the JSON value") }
        }

        private func problem(_ what: String) -> Problem {
            Problem(description: "\(what) at byte \(position)")
        }

        private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        private mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        private mutating func expect(_ byte: UInt8, _ what: String) throws(Problem) {
            guard current == byte else { throw problem(what) }
            position += 1
        }

        private mutating func value(depth: Int) throws(Problem) {
            guard depth < StrictJSON.maximumDepth else { throw problem("nesting deeper than \(StrictJSON.maximumDepth)") }
            switch current {
            case UInt8(ascii: "{"): try object(depth: depth)
            case UInt8(ascii: "["): try array(depth: depth)
            case UInt8(ascii: "\""): _ = try string(keeping: false)
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case nil: throw problem("a value expected, the body ended")
            case let byte? where byte == UInt8(ascii: "-") || isDigit(byte): try number()
            default: throw problem("a value expected")
            }
        }

        private mutating func object(depth: Int) throws(Problem) {
            if opensEmpty(closing: UInt8(ascii: "}")) { return }
            var names = Set<String>()
            while true {
                guard current == UInt8(ascii: "\"") else { throw problem("a member name expected (a trailing comma?)") }
                let start = position
                let name = try string(keeping: true)
                // A name in another normalization form (KELVIN SIGN for "K") is one member to
                // a parser that compares code points and another to Swift's decoder, which
                // compares canonically: refused, as a duplicate would be. (ASCII is in NFC.)
                guard name.utf8.allSatisfy({ $0 < 0x80 })
                        || name.unicodeScalars.elementsEqual(name.precomposedStringWithCanonicalMapping.unicodeScalars) else {
                    position = start
                    throw problem("a member name not in Unicode NFC")
                }
                guard names.insert(name).inserted else {
                    position = start
                    throw problem("the member name \"\(name.count > 40 ? String(name.prefix(40)) + "…" : name)\" given twice")
                }
                skipWhitespace()
                try expect(UInt8(ascii: ":"), "':' expected after a member name")
                skipWhitespace()
                try value(depth: depth + 1)
                if try closes(UInt8(ascii: "}"), "',' or '}' expected in an object") { return }
            }
        }

        private mutating func array(depth: Int) throws(Problem) {
            if opensEmpty(closing: UInt8(ascii: "]")) { return }
            while true {
                if current == UInt8(ascii: "]") { throw problem("a value expected (a trailing comma?)") }
                try value(depth: depth + 1)
                if try closes(UInt8(ascii: "]"), "',' or ']' expected in an array") { return }
            }
        }

        /// Steps over an object's or array's opening bracket; true (and past it) when `closing`
        /// follows at once: an empty one.
        private mutating func opensEmpty(closing: UInt8) -> Bool {
            position += 1
            skipWhitespace()
            guard current == closing else { return false }
            position += 1
            return true
        }

        /// After a member or element: true past `closing`, false past a comma (and the space
        /// after it); else ``Problem`` saying `expected`.
        private mutating func closes(_ closing: UInt8, _ expected: String) throws(Problem) -> Bool {
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
                return false
            case closing:
                position += 1
                return true
            default:
                throw problem(expected)
            }
        }

        private mutating func literal(_ word: StaticString) throws(Problem) {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count,
                  word.withUTF8Buffer({ $0.elementsEqual(bytes[position..<position + count]) }) else {
                throw problem("a value expected")
            }
            position += count
        }

        /// `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`, whose value fits a double: one
        /// past its range (`1e400`) is refused, as Foundation's reader refuses it and RFC 8259 §6
        /// warns that parsers disagree on it.
        private mutating func number() throws(Problem) {
            let start = position
            try numberSyntax()
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw problem("a number outside the range of a double")
            }
        }

        private mutating func numberSyntax() throws(Problem) {
            if current == UInt8(ascii: "-") { position += 1 }
            switch current {
            case UInt8(ascii: "0"):
                position += 1
                if let next = current, isDigit(next) { throw problem("a number with a leading zero") }
            case let digit? where isDigit(digit):
                skipDigits()
            default:
                throw problem("a digit expected in a number")
            }
            if current == UInt8(ascii: ".") {
                position += 1
                guard let digit = current, isDigit(digit) else { throw problem("a digit expected after '.'") }
                skipDigits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let digit = current, isDigit(digit) else { throw problem("a digit expected in an exponent") }
                skipDigits()
            }
        }

        private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        private mutating func skipDigits() {
            while let byte = current, isDigit(byte) { position += 1 }
        }

        /// Reads a string (the opening quote is current) and returns its value, when `keeping`
        /// (member names); other strings are only checked (a value is read by the decoder).
        private mutating func string(keeping: Bool) throws(Problem) -> String {
            position += 1
            var scalars = String.UnicodeScalarView()
            var run = position  // the start of bytes copied as they are
            func flush(upTo end: Int) {
                guard keeping else { return }
                scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
            }
            while true {
                guard let byte = current else { throw problem("a string without its closing quote") }
                switch byte {
                case UInt8(ascii: "\""):
                    flush(upTo: position)
                    position += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush(upTo: position)
                    position += 1
                    let scalar = try escape()
                    if keeping { scalars.append(scalar) }
                    run = position
                case 0..<0x20:
                    throw problem("a control character inside a string (write it as an escape)")
                default:
                    position += 1
                }
            }
        }

        /// The character of the escape after a backslash.
        private mutating func escape() throws(Problem) -> Unicode.Scalar {
            guard let byte = current else { throw problem("an escape cut off") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""): return "\""
            case UInt8(ascii: "\\"): return "\\"
            case UInt8(ascii: "/"): return "/"
            case UInt8(ascii: "b"): return "\u{8}"
            case UInt8(ascii: "f"): return "\u{C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                let unit = try hexUnit()
                switch unit {
                case 0xD800...0xDBFF:
                    guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                        throw problem("a high surrogate escape without its low half")
                    }
                    position += 2
                    let low = try hexUnit()
                    guard (0xDC00...0xDFFF).contains(low),
                          let scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)) else {
                        throw problem("a high surrogate escape without its low half")
                    }
                    return scalar
                case 0xDC00...0xDFFF:
                    throw problem("a low surrogate escape without its high half")
                default:
                    return Unicode.Scalar(unit) ?? "\u{FFFD}"
                }
            default:
                position -= 1
                throw problem("an unknown escape '\\\(Character(Unicode.Scalar(byte)))'")
            }
        }

        private mutating func hexUnit() throws(Problem) -> UInt16 {
            guard position + 4 <= bytes.count else { throw problem("a \\u escape needs four hex digits") }
            var unit: UInt16 = 0
            for byte in bytes[position..<position + 4] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw problem("a \\u escape needs four hex digits")
                }
                unit = unit << 4 | UInt16(digit)
            }
            position += 4
            return unit
        }
    }
}
