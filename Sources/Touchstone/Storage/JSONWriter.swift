import Foundation

extension JSONText {
    /// JSON text written into bytes: the one JSON writer of the package. Stored records
    /// (device state and counters, keychain items, record attributes) and the command layer's
    /// `--json` output are all written through it; reading is ``JSONText/parse(_:)``.
    ///
    /// Members are separated by the writer itself: inside an object, call ``key(_:)`` before
    /// each value; inside an array, write the values one after another.
    ///
    /// ```swift
    /// var json = JSONText.Writer()
    /// json.beginObject()
    /// json.key("ok"); json.bool(true)
    /// json.key("ids"); json.beginArray(); json.integer(1); json.integer(2); json.endArray()
    /// json.endObject()
    /// // {"ok":true,"ids":[1,2]}
    /// ```
    ///
    /// Strings are escaped as `JSONEncoder` escapes them: `"` and `\`, the short forms `\b`,
    /// `\f`, `\n`, `\r`, `\t`, other control characters as `\u00XX`, everything else as is.
    /// `JSONEncoder` also escapes `/`; a writer made with `escapingSlash: true` does too, for
    /// records whose bytes are compared with `JSONEncoder`'s (`DeviceCountersCodingTests`).
    package struct Writer {
        /// The text written so far.
        package private(set) var bytes: [UInt8] = []
        private let escapesSlash: Bool
        /// For each open object or array, innermost last: whether it has a member yet.
        private var hasMember: [Bool] = []
        /// A key was written and its value has not been.
        private var afterKey = false

        /// An empty writer; `capacity` reserves room for that many bytes.
        package init(escapingSlash: Bool = false, capacity: Int = 0) {
            escapesSlash = escapingSlash
            bytes.reserveCapacity(capacity)
        }

        /// Opens an object.
        package mutating func beginObject() {
            separate()
            bytes.append(UInt8(ascii: "{"))
            hasMember.append(false)
        }

        /// Closes the innermost object.
        package mutating func endObject() {
            hasMember.removeLast()
            bytes.append(UInt8(ascii: "}"))
        }

        /// Opens an array.
        package mutating func beginArray() {
            separate()
            bytes.append(UInt8(ascii: "["))
            hasMember.append(false)
        }

        /// Closes the innermost array.
        package mutating func endArray() {
            hasMember.removeLast()
            bytes.append(UInt8(ascii: "]"))
        }

        /// A member's key, in the innermost object; its value comes next.
        package mutating func key(_ name: String) {
            separate()
            append(escaping: name)
            bytes.append(UInt8(ascii: ":"))
            afterKey = true
        }

        /// A string value.
        package mutating func string(_ value: String) {
            separate()
            append(escaping: value)
        }

        /// `Data` as `JSONEncoder` writes it: base64 in a string.
        package mutating func data(_ value: Data) {
            string(value.base64EncodedString())
        }

        /// A whole number.
        package mutating func integer<T: BinaryInteger>(_ value: T) {
            raw(String(value))
        }

        /// `true` or `false`.
        package mutating func bool(_ value: Bool) {
            raw(value ? "true" : "false")
        }

        /// `null`.
        package mutating func null() {
            raw("null")
        }

        /// A value whose JSON text the caller has formed (a number's text).
        package mutating func raw(_ text: String) {
            separate()
            bytes.append(contentsOf: text.utf8)
        }

        /// The comma before a member that is not its container's first; nothing after a key.
        private mutating func separate() {
            if afterKey {
                afterKey = false
                return
            }
            guard let last = hasMember.indices.last else { return }
            if hasMember[last] { bytes.append(UInt8(ascii: ",")) }
            hasMember[last] = true
        }

        private mutating func append(escaping string: String) {
            bytes.append(UInt8(ascii: "\""))
            for byte in string.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
                case UInt8(ascii: "/") where escapesSlash: bytes += [UInt8(ascii: "\\"), byte]
                case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
                case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
                case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0..<0x20:
                    bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                              Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0x0F)]]
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        private static let hexDigits = Array("0123456789abcdef".utf8)
    }
}
