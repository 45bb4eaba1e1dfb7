import Foundation

/// The part of CBOR (RFC 8949) that App Attest's formats use: unsigned and negative integers,
/// byte strings, text strings, arrays and maps, all of definite length.
///
/// ``encoded`` writes the deterministic form (RFC 8949 §4.2.1: shortest heads; map keys in the
/// order given, which the format types give sorted). ``init(decoding:)`` reads untrusted bytes
/// with limits: no indefinite lengths, tags, floats or simple values, at most
/// ``maximumDepth`` levels and ``maximumItems`` items per container, no length past the
/// input's end, no map key twice, nothing left over.
public indirect enum CBOR: Sendable, Equatable {
    /// Major type 0.
    case unsigned(UInt64)
    /// Major type 1: the value is `-1 - n`.
    case negative(UInt64)
    /// Major type 2.
    case bytes(Data)
    /// Major type 3.
    case text(String)
    /// Major type 4.
    case array([CBOR])
    /// Major type 5, as its pairs in order.
    case map([(key: CBOR, value: CBOR)])

    /// A signed integer: ``unsigned(_:)`` or ``negative(_:)``.
    public static func int(_ value: Int64) -> CBOR {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-(value + 1)))
    }

    /// Equal when of the same kind with equal contents (maps: the same pairs in the same order).
    public static func == (lhs: CBOR, rhs: CBOR) -> Bool {
        switch (lhs, rhs) {
        case let (.unsigned(a), .unsigned(b)), let (.negative(a), .negative(b)): a == b
        case let (.bytes(a), .bytes(b)): a == b
        case let (.text(a), .text(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.map(a), .map(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The value of `key` in a map (the first pair with that key), or nil.
    public subscript(key: CBOR) -> CBOR? {
        guard case let .map(pairs) = self else { return nil }
        return pairs.first { $0.key == key }?.value
    }

    /// The contents of a byte string, or nil.
    public var bytesValue: Data? {
        if case let .bytes(value) = self { return value }
        return nil
    }

    /// The contents of a text string, or nil.
    public var textValue: String? {
        if case let .text(value) = self { return value }
        return nil
    }

    /// The integer value when it fits an `Int64`, or nil.
    public var intValue: Int64? {
        switch self {
        case let .unsigned(value): value <= UInt64(Int64.max) ? Int64(value) : nil
        case let .negative(value): value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: nil
        }
    }

    // MARK: Writing

    /// The deterministic encoding.
    public var encoded: Data {
        var output = Data()
        write(into: &output)
        return output
    }

    private func write(into output: inout Data) {
        switch self {
        case let .unsigned(value): Self.head(0, value, into: &output)
        case let .negative(value): Self.head(1, value, into: &output)
        case let .bytes(value):
            Self.head(2, UInt64(value.count), into: &output)
            output.append(value)
        case let .text(value):
            let utf8 = Data(value.utf8)
            Self.head(3, UInt64(utf8.count), into: &output)
            output.append(utf8)
        case let .array(items):
            Self.head(4, UInt64(items.count), into: &output)
            for item in items { item.write(into: &output) }
        case let .map(pairs):
            Self.head(5, UInt64(pairs.count), into: &output)
            for pair in pairs {
                pair.key.write(into: &output)
                pair.value.write(into: &output)
            }
        }
    }

    /// A head in its shortest form: the argument in the initial byte below 24, else in 1, 2, 4
    /// or 8 bytes after it.
    private static func head(_ major: UInt8, _ argument: UInt64, into output: inout Data) {
        let type = major << 5
        switch argument {
        case 0 ..< 24: output.append(type | UInt8(argument))
        case 24 ... 0xFF: output.append(contentsOf: [type | 24, UInt8(argument)])
        case 0x100 ... 0xFFFF: output.append(type | 25); appendBigEndian(argument, bytes: 2, into: &output)
        case 0x1_0000 ... 0xFFFF_FFFF: output.append(type | 26); appendBigEndian(argument, bytes: 4, into: &output)
        default: output.append(type | 27); appendBigEndian(argument, bytes: 8, into: &output)
        }
    }

    private static func appendBigEndian(_ value: UInt64, bytes: Int, into output: inout Data) {
        for index in stride(from: bytes - 1, through: 0, by: -1) {
            output.append(UInt8(truncatingIfNeeded: value >> (UInt64(index) * 8)))
        }
    }

    // MARK: Reading

    /// The deepest nesting ``init(decoding:)`` accepts (App Attest's formats nest 3 levels).
    public static let maximumDepth = 16
    /// The most items an array, or pairs a map, may hold (App Attest's have at most 5), so that
    /// no input makes the reader's duplicate-key check long.
    public static let maximumItems = 64

    /// Why bytes are not a CBOR value this reader accepts.
    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        /// What is wrong, and at which byte offset.
        public let description: String
    }

    /// Reads one value that spans all of `data`.
    public init(decoding data: Data) throws(DecodingError) {
        var reader = Reader(bytes: [UInt8](data))
        self = try reader.value(depth: 0)
        guard reader.offset == reader.bytes.count else {
            throw DecodingError(description: "\(reader.bytes.count - reader.offset) bytes follow the value at offset \(reader.offset)")
        }
    }

    /// Reads the one value `data` starts with; returns it and the number of bytes it spans
    /// (what follows is the caller's: authenticator data puts a COSE key before an extension map).
    public static func decodingPrefix(of data: Data) throws(DecodingError) -> (value: CBOR, length: Int) {
        var reader = Reader(bytes: [UInt8](data))
        let value = try reader.value(depth: 0)
        return (value, reader.offset)
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func value(depth: Int) throws(DecodingError) -> CBOR {
            guard depth <= CBOR.maximumDepth else { throw failure("nesting deeper than \(CBOR.maximumDepth) levels") }
            let start = offset
            let initial = try byte()
            let major = initial >> 5
            let argument = try self.argument(initial & 0x1F, at: start)
            switch major {
            case 0: return .unsigned(argument)
            case 1: return .negative(argument)
            case 2: return .bytes(Data(try take(argument)))
            case 3:
                guard let text = String(validating: try take(argument), as: UTF8.self) else {
                    throw failure("a text string at offset \(start) is not UTF-8")
                }
                return .text(text)
            case 4:
                let count = try self.count(argument, minimumBytesEach: 1)
                var items: [CBOR] = []
                items.reserveCapacity(count)
                for _ in 0 ..< count { items.append(try value(depth: depth + 1)) }
                return .array(items)
            case 5:
                let count = try self.count(argument, minimumBytesEach: 2)
                var pairs: [(key: CBOR, value: CBOR)] = []
                pairs.reserveCapacity(count)
                for _ in 0 ..< count {
                    let key = try value(depth: depth + 1)
                    if pairs.contains(where: { $0.key == key }) { throw failure("a map at offset \(start) holds a key twice") }
                    pairs.append((key, try value(depth: depth + 1)))
                }
                return .map(pairs)
            case 6: throw failure("a tag at offset \(start) (tags are not used by App Attest)")
            default: throw failure("a float or simple value at offset \(start) (not used by App Attest)")
            }
        }

        mutating func byte() throws(DecodingError) -> UInt8 {
            guard offset < bytes.count else { throw failure("the input ends at offset \(offset) inside a value") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func argument(_ info: UInt8, at start: Int) throws(DecodingError) -> UInt64 {
            let length: Int
            switch info {
            case 0 ..< 24: return UInt64(info)
            case 24: length = 1
            case 25: length = 2
            case 26: length = 4
            case 27: length = 8
            case 31: throw failure("an indefinite length at offset \(start) (App Attest uses definite lengths)")
            default: throw failure("a reserved additional-information value \(info) at offset \(start)")
            }
            var value: UInt64 = 0
            for byte in try take(UInt64(length)) { value = value << 8 | UInt64(byte) }
            return value
        }

        /// The next `count` bytes; fails when fewer remain.
        mutating func take(_ count: UInt64) throws(DecodingError) -> ArraySlice<UInt8> {
            guard count <= UInt64(bytes.count - offset) else {
                throw failure("a length of \(count) at offset \(offset) runs past the input's end")
            }
            let end = offset + Int(count)
            defer { offset = end }
            return bytes[offset ..< end]
        }

        /// An item count that the remaining bytes can hold (each item needs at least one byte),
        /// so a forged count cannot make the reader reserve memory for it.
        func count(_ argument: UInt64, minimumBytesEach: UInt64) throws(DecodingError) -> Int {
            guard argument <= UInt64(CBOR.maximumItems) else {
                throw failure("\(argument) items at offset \(offset): a container holds at most \(CBOR.maximumItems)")
            }
            guard argument <= UInt64(bytes.count - offset) / minimumBytesEach else {
                throw failure("\(argument) items at offset \(offset) cannot fit in the input")
            }
            return Int(argument)
        }

        func failure(_ text: String) -> DecodingError { DecodingError(description: text) }
    }
}
