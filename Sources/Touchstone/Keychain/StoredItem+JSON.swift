import Foundation

/// A stored item's JSON, read and written through ``JSONText`` rather than Foundation's coders
/// (a keychain read decodes one item, an add or update encodes one: the coders were the
/// largest part of either). The form is the one `JSONEncoder` gives the `Codable` conformance —
/// `Data` in base64, times as whole nanoseconds, an attribute as `{"string":{"_0":"…"}}` — so
/// records written either way read either way. Text the fast reader is not certain of
/// (another number form, a missing or duplicated field) goes to `JSONDecoder`.
extension StoredItem {
    /// The record value for this item.
    func json() -> Data {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(160 + value.count * 4 / 3 + service.utf8.count + account.utf8.count)
        var first = true
        func key(_ name: String) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONText.appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
        }
        func number<T: BinaryInteger>(_ name: String, _ value: T?) {
            guard let value else { return }
            key(name)
            out += Array(String(value).utf8)
        }
        func data(_ name: String, _ value: Data?) {
            guard let value else { return }
            key(name)
            JSONText.appendString(value.base64EncodedString(), to: &out)
        }
        key("accessibility")
        JSONText.appendString(accessibility.rawValue, to: &out)
        key("account")
        JSONText.appendString(account, to: &out)
        if let attributes {
            key("attributes")
            out.append(UInt8(ascii: "{"))
            for (index, name) in attributes.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONText.appendString(name, to: &out)
                out.append(UInt8(ascii: ":"))
                let (kind, text): (String, String) = switch attributes[name] {
                case let .string(value)?: ("string", Self.quoted(value))
                case let .data(value)?: ("data", Self.quoted(value.base64EncodedString()))
                case let .integer(value)?: ("integer", String(value))
                case let .bool(value)?: ("bool", value ? "true" : "false")
                case nil: ("string", "\"\"")
                }
                out += Array("{\"\(kind)\":{\"_0\":".utf8) + Array(text.utf8) + [UInt8(ascii: "}"), UInt8(ascii: "}")]
            }
            out.append(UInt8(ascii: "}"))
        }
        number("created", created?.nanosecondsSinceEpoch)
        data("enrolledSetHash", enrolledSetHash)
        number("enrollmentSequence", enrollmentSequence)
        number("flags", flags.rawValue)
        key("itemClass")
        JSONText.appendString(itemClass.rawValue, to: &out)
        number("modified", modified?.nanosecondsSinceEpoch)
        number("order", order)
        data("salt", salt)
        key("service")
        JSONText.appendString(service, to: &out)
        data("value", value)
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }

    private static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONText.appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The item in `json` when the fast reader is certain of it; nil sends the text to
    /// `JSONDecoder`.
    init?(fastJSON json: Data) {
        // Bytes that are not UTF-8 are JSONDecoder's to refuse (decoding would repair them).
        guard let text = String(validating: json, as: UTF8.self), let members = JSONText.parse(text)?.members,
              members.keys.allSatisfy(Self.knownKeys.contains) else { return nil }
        func string(_ name: String) -> String? {
            if case let .string(text)? = members[name] { return text }
            return nil
        }
        /// nil for a field that is absent or null; `.some(nil)` for one the fast reader cannot read.
        func optional<T>(_ name: String, _ read: (JSONText.Value) -> T?) -> T?? {
            guard let value = members[name], value != .null else { return .some(nil) }
            guard let read = read(value) else { return nil }
            return .some(read)
        }
        func data(_ value: JSONText.Value) -> Data? {
            guard case let .string(text) = value else { return nil }
            return Data(base64Encoded: text)
        }
        func timestamp(_ value: JSONText.Value) -> Timestamp? {
            guard let nanoseconds = JSONText.integer(value, as: Int64.self),
                  (-Timestamp.storedBound...Timestamp.storedBound).contains(nanoseconds) else { return nil }
            return Timestamp(nanosecondsSinceEpoch: nanoseconds)
        }
        guard let itemClass = string("itemClass").flatMap(KeychainItemClass.init(rawValue:)),
              let service = string("service"), let account = string("account"),
              let accessibility = string("accessibility").flatMap(Accessibility.init(rawValue:)),
              let flags = JSONText.integer(members["flags"], as: UInt.self),
              let value = members["value"].flatMap(data),
              case let .some(enrolledSetHash) = optional("enrolledSetHash", data),
              case let .some(enrollmentSequence) = optional("enrollmentSequence", { JSONText.integer($0, as: Int.self) }),
              case let .some(salt) = optional("salt", data),
              case let .some(created) = optional("created", timestamp),
              case let .some(modified) = optional("modified", timestamp),
              case let .some(order) = optional("order", { JSONText.integer($0, as: UInt64.self) }),
              case let .some(attributes) = optional("attributes", Self.attributes)
        else { return nil }
        self.init(itemClass: itemClass, service: service, account: account, accessibility: accessibility,
                  flags: AccessControlFlags(rawValue: flags), enrolledSetHash: enrolledSetHash,
                  enrollmentSequence: enrollmentSequence, value: value, salt: salt, attributes: attributes,
                  created: created, modified: modified, order: order)
    }

    private static let knownKeys: Set<String> = [
        "itemClass", "service", "account", "accessibility", "flags", "enrolledSetHash", "enrollmentSequence",
        "value", "salt", "attributes", "created", "modified", "order",
    ]

    /// `{"name": {"string": {"_0": "…"}}, …}`, the synthesized form of the attribute enum.
    private static func attributes(_ value: JSONText.Value) -> [String: KeychainAttributeValue]? {
        guard let members = value.members else { return nil }
        var attributes: [String: KeychainAttributeValue] = [:]
        for (name, member) in members {
            guard let cases = member.members, cases.count == 1, let (kind, payload) = cases.first,
                  let fields = payload.members, fields.count == 1, let field = fields["_0"] else { return nil }
            switch (kind, field) {
            case let ("string", .string(text)): attributes[name] = .string(text)
            case let ("data", .string(text)):
                guard let data = Data(base64Encoded: text) else { return nil }
                attributes[name] = .data(data)
            case ("integer", _):
                guard let number = JSONText.integer(field, as: Int64.self) else { return nil }
                attributes[name] = .integer(number)
            case let ("bool", .bool(flag)): attributes[name] = .bool(flag)
            default: return nil
            }
        }
        return attributes
    }
}
