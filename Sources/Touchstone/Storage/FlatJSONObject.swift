/// JSON objects whose values are all strings — `{"app":"com.example.app","class":"genericPassword"}`,
/// the form a record's attributes are stored in — written and read through ``JSONText``, without
/// Foundation's coders.
///
/// ``decode(_:)`` accepts exactly such an object and returns nil for anything else — another
/// JSON value, a duplicate key, a malformed escape — so that a caller can hand that text to
/// `JSONDecoder` and keep its verdict.
package enum FlatJSONObject {
    /// The object's JSON text: keys in the order of their UTF-8 bytes.
    package static func encode(_ object: [String: String]) -> String {
        var json = JSONText.Writer(capacity: object.reduce(2) { $0 + $1.key.utf8.count + $1.value.utf8.count + 6 })
        json.beginObject()
        for key in object.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            json.key(key)
            json.string(object[key] ?? "")
        }
        json.endObject()
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The object `text` holds, or nil when it is not exactly one JSON object of string values
    /// with distinct keys.
    package static func decode(_ text: String) -> [String: String]? {
        guard case let .object(pairs)? = JSONText.parse(text) else { return nil }
        var object: [String: String] = [:]
        object.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            guard case let .string(text) = value, object.updateValue(text, forKey: key) == nil else { return nil }
        }
        return object
    }
}
