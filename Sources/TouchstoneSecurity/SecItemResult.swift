#if !canImport(Darwin)
import Foundation

/// What a key or certificate query asks back (`kSecReturnRef`, `…Data`, `…Attributes`,
/// `…PersistentRef`), and the result object iOS's `SecItem.m` makes of one item from them.
struct ReturnedParts {
    let ref: Bool
    let data: Bool
    let attributes: Bool
    let persistentRef: Bool

    /// The `kSecReturn*` flags of `dictionary` (a flag that is not a boolean is errSecParam).
    init(_ dictionary: [String: Any]) throws {
        func flag(_ key: CFString) throws -> Bool {
            try dictionary[key as String].map { try KeychainQuery.bool($0, key as String) } ?? false
        }
        ref = try flag(kSecReturnRef)
        data = try flag(kSecReturnData)
        attributes = try flag(kSecReturnAttributes)
        persistentRef = try flag(kSecReturnPersistentRef)
    }

    /// Whether anything is asked back.
    var any: Bool { ref || data || attributes || persistentRef }

    /// Whether the bytes alone are asked back.
    var onlyData: Bool { data && !ref && !attributes && !persistentRef }

    /// One item's result: one thing asked for comes alone (the reference object, the bytes,
    /// the persistent reference); attributes, or more than one thing, come as a dictionary,
    /// which holds the attributes whenever the reference object was asked for too (securityd
    /// sends them to make it). Nil for nothing asked, or a reference object or bytes asked
    /// alone of an item that has none.
    func shape(ref object: AnyObject?, data bytes: Data?, persistentRef reference: Data,
               attributes: () -> [String: Any]) -> AnyObject? {
        if self.attributes || [ref, data, persistentRef].filter({ $0 }).count > 1 {
            var dictionary = self.attributes || ref ? attributes() : [:]
            if ref, let object { dictionary[kSecValueRef as String] = object }
            if data, let bytes { dictionary[kSecValueData as String] = bytes }
            if persistentRef { dictionary[kSecValuePersistentRef as String] = reference }
            return dictionary as NSDictionary
        }
        if data { return bytes.map { $0 as NSData } }
        if persistentRef { return reference as NSData }
        return ref ? object : nil
    }
}
#endif
