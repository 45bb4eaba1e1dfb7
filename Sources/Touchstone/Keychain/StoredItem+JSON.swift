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
        var json = JSONText.Writer(capacity: 160 + value.count * 4 / 3 + service.utf8.count + account.utf8.count)
        func number<T: BinaryInteger>(_ name: String, _ value: T?) {
            guard let value else { return }
            json.key(name)
            json.integer(value)
        }
        func data(_ name: String, _ value: Data?) {
            guard let value else { return }
            json.key(name)
            json.data(value)
        }
        json.beginObject()
        json.key("accessibility")
        json.string(accessibility.rawValue)
        json.key("account")
        json.string(account)
        if let attributes {
            json.key("attributes")
            json.beginObject()
            for (name, attribute) in attributes.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                json.key(name)
                // The synthesized form of the enum: `{"<case>":{"_0":<value>}}`.
                json.beginObject()
                switch attribute {
                case .string: json.key("string")
                case .data: json.key("data")
                case .integer: json.key("integer")
                case .bool: json.key("bool")
                }
                json.beginObject()
                json.key("_0")
                switch attribute {
                case let .string(text): json.string(text)
                case let .data(bytes): json.data(bytes)
                case let .integer(number): json.integer(number)
                case let .bool(flag): json.bool(flag)
                }
                json.endObject()
                json.endObject()
            }
            json.endObject()
        }
        number("created", created?.nanosecondsSinceEpoch)
        data("enrolledSetHash", enrolledSetHash)
        number("enrollmentSequence", enrollmentSequence)
        number("flags", flags.rawValue)
        json.key("itemClass")
        json.string(itemClass.rawValue)
        number("modified", modified?.nanosecondsSinceEpoch)
        number("order", order)
        data("salt", salt)
        json.key("service")
        json.string(service)
        data("value", value)
        if valueless == true {
            json.key("valueless")
            json.bool(true)
        }
        json.endObject()
        return Data(json.bytes)
    }

    /// The item in `json` when the fast reader is certain of it; nil sends the text to
    /// `JSONDecoder`.
    init?(fastJSON json: Data) {
        // Bytes that are not UTF-8 are JSONDecoder's to refuse (decoding would repair them).
        guard let text = String(validating: json, as: UTF8.self), case let .object(pairs)? = JSONText.parse(text) else { return nil }
        var itemClass: KeychainItemClass?, service: String?, account: String?, accessibility: Accessibility?
        var flags: UInt?, value: Data?
        var enrolledSetHash: Data?, enrollmentSequence: Int?, salt: Data?, attributes: [String: KeychainAttributeValue]?
        var created: Timestamp?, modified: Timestamp?, order: UInt64?, valueless: Bool?
        // Fields by name without hashing them; each at most once (JSONDecoder would keep one
        // of two); an unknown one, or a value that does not read, is declined.
        var seen: UInt16 = 0
        for (key, member) in pairs {
            guard let field = Field(rawValue: key) else { return nil }
            let bit = UInt16(1) << field.bit
            guard seen & bit == 0 else { return nil }
            seen |= bit
            if case .null = member {
                // An optional field's null is its absence, as decodeIfPresent reads it.
                guard field.isOptional else { return nil }
                continue
            }
            // Each value must read (else the decoder judges the text): stored and checked at once.
            func take<T>(_ value: T?, into slot: inout T?) -> Bool {
                slot = value
                return value != nil
            }
            let read = switch field {
            case .itemClass: take(member.string.flatMap(KeychainItemClass.init(rawValue:)), into: &itemClass)
            case .service: take(member.string, into: &service)
            case .account: take(member.string, into: &account)
            case .accessibility: take(member.string.flatMap(Accessibility.init(rawValue:)), into: &accessibility)
            case .flags: take(member.integer(as: UInt.self), into: &flags)
            case .value: take(Self.data(member), into: &value)
            case .enrolledSetHash: take(Self.data(member), into: &enrolledSetHash)
            case .enrollmentSequence: take(member.integer(as: Int.self), into: &enrollmentSequence)
            case .salt: take(Self.data(member), into: &salt)
            case .attributes: take(Self.attributes(member), into: &attributes)
            case .created: take(Self.timestamp(member), into: &created)
            case .modified: take(Self.timestamp(member), into: &modified)
            case .order: take(member.integer(as: UInt64.self), into: &order)
            case .valueless: take(Self.flag(member), into: &valueless)
            }
            guard read else { return nil }
        }
        guard let itemClass, let service, let account, let accessibility, let flags, let value else { return nil }
        self.init(itemClass: itemClass, service: service, account: account, accessibility: accessibility,
                  flags: AccessControlFlags(rawValue: flags), enrolledSetHash: enrolledSetHash,
                  enrollmentSequence: enrollmentSequence, value: value, salt: salt, attributes: attributes,
                  created: created, modified: modified, order: order, valueless: valueless)
    }

    /// The fields of the stored form, as the `Codable` conformance names them.
    private enum Field: String {
        case itemClass, service, account, accessibility, flags, value
        case enrolledSetHash, enrollmentSequence, salt, attributes, created, modified, order, valueless

        var bit: UInt16 {
            switch self {
            case .itemClass: 0
            case .service: 1
            case .account: 2
            case .accessibility: 3
            case .flags: 4
            case .value: 5
            case .enrolledSetHash: 6
            case .enrollmentSequence: 7
            case .salt: 8
            case .attributes: 9
            case .created: 10
            case .modified: 11
            case .order: 12
            case .valueless: 13
            }
        }

        var isOptional: Bool { bit >= 6 }
    }

    private static func data(_ value: JSONText.Value) -> Data? {
        guard case let .string(text) = value else { return nil }
        return Data(base64Encoded: text)
    }

    private static func flag(_ value: JSONText.Value) -> Bool? {
        guard case let .bool(flag) = value else { return nil }
        return flag
    }

    private static func timestamp(_ value: JSONText.Value) -> Timestamp? {
        guard let nanoseconds = value.integer(as: Int64.self),
              (-Timestamp.storedBound...Timestamp.storedBound).contains(nanoseconds) else { return nil }
        return Timestamp(nanosecondsSinceEpoch: nanoseconds)
    }

    /// `{"name": {"string": {"_0": "…"}}, …}`, the synthesized form of the attribute enum.
    private static func attributes(_ value: JSONText.Value) -> [String: KeychainAttributeValue]? {
        guard let members = value.members else { return nil }
        var attributes: [String: KeychainAttributeValue] = [:]
        for (name, member) in members {
            guard case let .object(cases) = member, cases.count == 1, case let .object(fields) = cases[0].value,
                  fields.count == 1, fields[0].key == "_0" else { return nil }
            let (kind, field) = (cases[0].key, fields[0].value)
            switch (kind, field) {
            case let ("string", .string(text)): attributes[name] = .string(text)
            case let ("data", .string(text)):
                guard let data = Data(base64Encoded: text) else { return nil }
                attributes[name] = .data(data)
            case ("integer", _):
                guard let number = field.integer(as: Int64.self) else { return nil }
                attributes[name] = .integer(number)
            case let ("bool", .bool(flag)): attributes[name] = .bool(flag)
            default: return nil
            }
        }
        return attributes
    }
}
