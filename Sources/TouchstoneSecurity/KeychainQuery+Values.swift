#if !canImport(Darwin)
import Foundation
import Touchstone

/// Reading a query's CF values: the dictionary, protection, names, attributes and their types.
extension KeychainQuery {
    // MARK: Reading values

    /// A CF dictionary's entries under `String` keys (`NSString`, `String`, `String?`).
    ///
    /// Read with `enumerateKeysAndObjects`, which hands over each entry already bridged (a
    /// `Data` value comes as `Data`): iterating the dictionary instead bridged every value again
    /// on the way, and `Data` byte by byte — twice the time for a small query.
    static func normalize(_ dictionary: CFDictionary) throws -> [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(dictionary.count)
        var notString: Any?
        dictionary.enumerateKeysAndObjects { key, value, stop in
            if key is NSNull || value is NSNull { return }
            guard let name = key as? String else {
                notString = key
                stop.pointee = true
                return
            }
            result[name] = value
        }
        if let notString { throw Invalid(reason: "a key is not a string: \(notString)") }
        return result
    }

    /// The access control (`kSecAttrAccessControl`) and accessibility (`kSecAttrAccessible`
    /// alone) a dictionary names.
    static func protection(_ dictionary: [String: Any]) throws -> (AccessControl?, Accessibility?) {
        if let raw = dictionary[kSecAttrAccessControl as String] {
            guard let access = raw as? SecAccessControl else { throw Invalid(reason: "kSecAttrAccessControl must be a SecAccessControl") }
            return (access.accessControl, nil)
        }
        if let raw = dictionary[kSecAttrAccessible as String] {
            let name = try string(raw, kSecAttrAccessible as String)
            guard let accessibility = accessibilityClass(named: name) else { throw Invalid(reason: "unknown kSecAttrAccessible '\(name)'") }
            return (try AccessControl(accessibility), accessibility)
        }
        return (nil, nil)
    }

    /// A service or account as the key string it is stored under; a `Data` one is also kept
    /// in `attributes` so that it is returned as `Data`.
    static func keyPart(_ value: Any, _ key: String, into attributes: inout [String: KeychainAttributeValue]) throws -> String {
        if let text = value as? String {
            // An empty string is kept as given, to come back as one (a missing part comes
            // back as empty data, as on iOS).
            if text.isEmpty { attributes[key] = .string("") }
            return text
        }
        if let bytes = data(value) {
            attributes[key] = .data(bytes)
            if let text = String(data: bytes, encoding: .utf8), Data(text.utf8) == bytes { return text }
            return binaryPrefix + bytes.hexString
        }
        if let number = value as? NSNumber { return number.stringValue }
        throw Invalid(reason: "\(key) must be a string or data")
    }

    /// `kSecUseAuthenticationContext`: an `LAContext` (errSecParam for anything else), or nil.
    static func context(_ dictionary: [String: Any]) throws -> (any KeychainAuthenticationContext)? {
        guard let raw = dictionary[kSecUseAuthenticationContext as String] else { return nil }
        guard let context = raw as? any KeychainAuthenticationContext else {
            throw Invalid(reason: "kSecUseAuthenticationContext must be an LAContext")
        }
        return context
    }

    static func attribute(_ value: Any, _ key: String, _ type: AttributeType) throws -> KeychainAttributeValue {
        switch type {
        case .bool:
            return .bool(try bool(value, key))
        case .integer:
            if let number = integer(value) { return .integer(Int64(number)) }
            // A string that is a whole number is that number (iOS's copyNumber); any other
            // (a four-character protocol such as "htps") is kept as given.
            if let text = value as? String, let number = Int64(text), String(number) == text { return .integer(number) }
            if let text = value as? String { return .string(text) }
            throw Invalid(reason: "\(key) must be a number")
        case .text:
            if let text = value as? String { return .string(text) }
            if let bytes = data(value) { return .data(bytes) }
            throw Invalid(reason: "\(key) must be a string or data")
        }
    }

    /// Whether a stored attribute matches a query's: equal, or the same bytes as `String` and
    /// `Data` (a label or generic attribute may be given either way, as on iOS).
    static func sameBytes(_ have: KeychainAttributeValue?, _ wanted: KeychainAttributeValue) -> Bool {
        guard let have else { return false }
        switch (have, wanted) {
        case let (.string(text), .data(bytes)), let (.data(bytes), .string(text)): return Data(text.utf8) == bytes
        default: return have == wanted
        }
    }

    static func stored(_ part: String?) -> String {
        guard let part, !part.isEmpty else { return placeholder }
        return part
    }

    static func string(_ value: Any, _ key: String) throws -> String {
        if let text = value as? String { return text }
        if let number = value as? NSNumber { return number.stringValue }
        throw Invalid(reason: "\(key) must be a string")
    }

    static func bool(_ value: Any, _ key: String) throws -> Bool {
        if let flag = value as? Bool { return flag }
        if let number = value as? NSNumber { return number.boolValue }
        throw Invalid(reason: "\(key) must be a boolean")
    }

    static func integer(_ value: Any) -> Int? {
        if let number = value as? Int { return number }
        if value is String { return nil }
        if let number = value as? NSNumber { return number.intValue }
        return nil
    }

    /// A caller's value as an error message shows it: text and numbers as they are, anything
    /// else by its type. The description of any object could be long, and for a `Date` of NaN
    /// seconds Foundation's `Date.description` stops the process.
    static func shown(_ value: Any) -> String {
        switch value {
        case let text as String: text
        case let number as NSNumber: number.stringValue
        default: "a \(type(of: value))"
        }
    }

    static func data(_ value: Any) -> Data? {
        if let data = value as? Data { return data }
        if let data = value as? NSData { return Data(referencing: data) }
        return nil
    }
}
extension KeychainAttributeValue {
    /// The value as a keychain call returns it: `String`, `Data`, `Int` or `Bool`.
    var objectValue: Any {
        switch self {
        case let .string(text): text
        case let .data(bytes): bytes
        case let .integer(number): Int(truncatingIfNeeded: number)
        case let .bool(flag): flag
        }
    }
}
#endif
