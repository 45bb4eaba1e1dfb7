/// A JSON value with ordered object keys, for the one-object-per-command `--json` output.
///
/// Objects keep their keys in the order written, so output reads like the human form and is
/// stable across runs.
///
/// ```swift
/// let value: JSONValue = .object([("command", "can"), ("ok", true)])
/// print(value.serialized)   // {"command":"can","ok":true}
/// ```
public indirect enum JSONValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// A whole number.
    case int(Int)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, keys in order.
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(nilLiteral: ()) { self = .null }

    /// A string, or `null` when nil.
    public static func optional(_ value: String?) -> JSONValue {
        value.map { .string($0) } ?? .null
    }

    /// An array of strings.
    public static func strings(_ values: [String]) -> JSONValue {
        .array(values.map { .string($0) })
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        lhs.serialized == rhs.serialized
    }

    /// Compact one-line JSON text.
    public var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// The value of `key` in an object.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    private func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case let .bool(value): out += value ? "true" : "false"
        case let .int(value): out += String(value)
        case let .string(value): Self.writeString(value, to: &out)
        case let .array(values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case let .object(pairs):
            out += "{"
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(pair.0, to: &out)
                out += ":"
                pair.1.write(to: &out)
            }
            out += "}"
        }
    }

    private static func writeString(_ value: String, to out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let scalar where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
