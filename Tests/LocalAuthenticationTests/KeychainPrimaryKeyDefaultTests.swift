#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// iOS keeps every attribute of an item's primary key, and fills the ones an add leaves out
/// with their schema default (Apple's published keychain schema, `SecItemSchema.c` and
/// `SecDbItem.c`: a blob attribute defaults to empty — read back as the empty string — and a
/// number to zero); a query for the item's attributes returns them.
@Suite("Keychain: primary-key attributes come back with their defaults")
struct KeychainPrimaryKeyDefaultTests {
    /// The attributes `SecItemCopyMatching` returns for the one item `query` names.
    static func attributes(_ query: [String: Any]) -> [String: Any]? {
        var request = query
        request[kSecReturnAttributes as String] = true
        var result: CFTypeRef?
        guard SecItemCopyMatching(request as CFDictionary, &result) == errSecSuccess else { return nil }
        return result as? [String: Any]
    }

    @Test("an internet password added with only a server and an account returns its security domain, authentication type and path as the empty string, its protocol and port as 0")
    func internetPasswordDefaults() async throws {
        let sim = try TestDevice()
        let types = await sim.blocking { () -> [String] in
            let item: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.org",
                                       kSecAttrAccount as String: "ann", kSecValueData as String: Data("pw".utf8)]
            guard SecItemAdd(item as CFDictionary, nil) == errSecSuccess,
                  let found = Self.attributes([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.org"])
            else { return [] }
            // As KeychainAccess's iOS tests read them: `as? String`.
            return [kSecAttrSecurityDomain, kSecAttrAuthenticationType, kSecAttrPath].map { (found[$0 as String] as? String) ?? "not a string" }
        }
        #expect(types == ["", "", ""])
        let attributes = await sim.blocking { () -> [String: String]? in
            let item: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                                       kSecAttrAccount as String: "ann", kSecValueData as String: Data("pw".utf8)]
            guard SecItemAdd(item as CFDictionary, nil) == errSecSuccess,
                  let found = Self.attributes([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com"])
            else { return nil }
            return found.mapValues { "\($0)" }
        }
        let found = try #require(attributes)
        #expect(found[kSecAttrServer as String] == "example.com")
        #expect(found[kSecAttrAccount as String] == "ann")
        for key in [kSecAttrSecurityDomain, kSecAttrAuthenticationType, kSecAttrPath] as [CFString] {
            #expect(found[key as String] == "", "\(key)")
        }
        for key in [kSecAttrProtocol, kSecAttrPort] as [CFString] {
            #expect(found[key as String] == "0", "\(key)")
        }
        // The defaults find the item, as the values iOS stored for it.
        let byDefaults = await sim.blocking { () -> Bool in
            Self.attributes([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                             kSecAttrPort as String: 0, kSecAttrProtocol as String: 0, kSecAttrPath as String: Data(),
                             kSecAttrSecurityDomain as String: "", kSecAttrAuthenticationType as String: Data()]) != nil
        }
        #expect(byDefaults)
    }

    @Test("an internet password's own protocol, port, path and security domain come back as given, not as defaults")
    func internetPasswordGivenValues() async throws {
        let sim = try TestDevice()
        let found = await sim.blocking { () -> [String]? in
            let item: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                kSecAttrAccount as String: "ann", kSecAttrProtocol as String: kSecAttrProtocolHTTPS, kSecAttrPort as String: 8443,
                kSecAttrPath as String: "/login", kSecAttrSecurityDomain as String: "realm", kSecValueData as String: Data("pw".utf8),
            ]
            guard SecItemAdd(item as CFDictionary, nil) == errSecSuccess,
                  let found = Self.attributes([kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com"])
            else { return nil }
            return [found[kSecAttrProtocol as String] as? String ?? "-", "\(found[kSecAttrPort as String] as? Int ?? -1)",
                    found[kSecAttrPath as String] as? String ?? "-", found[kSecAttrSecurityDomain as String] as? String ?? "-",
                    "\(found[kSecAttrAuthenticationType as String] as? String == "")"]
        }
        #expect(found == [kSecAttrProtocolHTTPS as String, "8443", "/login", "realm", "true"])
    }

    @Test("a generic password added without a service returns kSecAttrService as empty data; one added with an empty string returns the empty string")
    func missingAndEmptyServiceAndAccount() async throws {
        let sim = try TestDevice()
        let found = await sim.blocking { () -> [String]? in
            let missing: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "ann",
                                          kSecValueData as String: Data("pw".utf8)]
            let empty: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "",
                                        kSecAttrAccount as String: "", kSecValueData as String: Data("pw".utf8)]
            guard SecItemAdd(missing as CFDictionary, nil) == errSecSuccess,
                  SecItemAdd(empty as CFDictionary, nil) == errSecSuccess,
                  let withoutService = Self.attributes([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "ann"]),
                  let withEmpty = Self.attributes([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: ""])
            else { return nil }
            return ["\(withoutService[kSecAttrService as String] as? Data == Data())",
                    "\(withEmpty[kSecAttrService as String] as? String == "")",
                    "\(withEmpty[kSecAttrAccount as String] as? String == "")"]
        }
        #expect(found == ["true", "true", "true"])
    }
}
#endif
