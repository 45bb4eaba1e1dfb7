import Touchstone

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
        var json = JSONText.Writer()
        write(to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The value of `key` in an object.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    private func write(to json: inout JSONText.Writer) {
        switch self {
        case .null: json.null()
        case let .bool(value): json.bool(value)
        case let .int(value): json.integer(value)
        case let .string(value): json.string(value)
        case let .array(values):
            json.beginArray()
            for value in values { value.write(to: &json) }
            json.endArray()
        case let .object(pairs):
            json.beginObject()
            for (key, value) in pairs {
                json.key(key)
                value.write(to: &json)
            }
            json.endObject()
        }
    }
}
