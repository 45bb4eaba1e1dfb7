#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// The SecItem.h keys of what Touchstone does not simulate (certificates, item lists, host
/// matching...): declared with Apple's values, and answered so a password query is never
/// silently wider than asked for.
@Suite("SecItem keys of unsimulated features: Apple's values, and what a password query does with them")
struct UnsimulatedKeychainKeyTests {
    static func item() -> [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
         kSecAttrAccount as String: "acct", kSecValueData as String: Data("v".utf8)]
    }

    @Test("the certificate, search and token keys carry Apple's string values")
    func applesValues() {
        let expected: [(CFString, String)] = [
            (kSecAttrSubject, "subj"), (kSecAttrIssuer, "issr"), (kSecAttrSerialNumber, "slnr"), (kSecAttrSubjectKeyID, "skid"),
            (kSecAttrPublicKeyHash, "pkhh"), (kSecAttrCertificateType, "ctyp"), (kSecAttrCertificateEncoding, "cenc"),
            (kSecAttrCanWrap, "wrap"), (kSecAttrCanUnwrap, "unwp"), (kSecAttrSyncViewHint, "vwht"),
            (kSecAttrPersistantReference, "persistref"), (kSecAttrPersistentReference, "persistref"),
            (kSecAttrAccessGroupToken, "com.apple.token"), (kSecMatchPolicy, "m_Policy"), (kSecMatchItemList, "m_ItemList"),
            (kSecMatchSearchList, "m_SearchList"), (kSecMatchIssuers, "m_Issuers"),
            (kSecMatchEmailAddressIfPresent, "m_EmailAddressIfPresent"), (kSecMatchSubjectContains, "m_SubjectContains"),
            (kSecMatchHostOrSubdomainOfHost, "m_HostOrSubdomainOfHost"), (kSecMatchCaseInsensitive, "m_CaseInsensitive"),
            (kSecMatchTrustedOnly, "m_TrustedOnly"), (kSecMatchValidOnDate, "m_ValidOnDate"),
        ]
        for (key, value) in expected { #expect(key as String == value) }
    }

    @Test("a password add, query or update naming a certificate or key-wrapping attribute is errSecNoSuchAttr (-25303)")
    func attributeOutsideTheClassIsNoSuchAttr() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            var withSubject = Self.item()
            withSubject[kSecAttrSubject as String] = Data([0x30, 0x00])
            let add = SecItemAdd(withSubject as CFDictionary, nil)
            let added = SecItemAdd(Self.item() as CFDictionary, nil)
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct",
                                        kSecAttrCanWrap as String: true]
            let copy = SecItemCopyMatching(query as CFDictionary, nil)
            let plain: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct"]
            let update = SecItemUpdate(plain as CFDictionary, [kSecAttrSerialNumber as String: Data([1])] as CFDictionary)
            return [add, added, copy, update]
        }
        #expect(statuses == [errSecNoSuchAttr, errSecSuccess, errSecNoSuchAttr, errSecNoSuchAttr])
        #expect(errSecNoSuchAttr == -25303)
    }

    @Test("kSecMatchItemList and kSecMatchHostOrSubdomainOfHost are errSecUnimplemented in a password query, never a wider search")
    func narrowingSearchesAreUnimplemented() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            _ = SecItemAdd(Self.item() as CFDictionary, nil)
            let list: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecMatchItemList as String: [Data([1, 2])]]
            let host: [String: Any] = [kSecClass as String: kSecClassInternetPassword,
                                       kSecMatchHostOrSubdomainOfHost as String: "example.com"]
            return [SecItemCopyMatching(list as CFDictionary, nil), SecItemCopyMatching(host as CFDictionary, nil)]
        }
        #expect(statuses == [errSecUnimplemented, errSecUnimplemented])
    }

    @Test("certificate searches, kSecMatchCaseInsensitive, kSecMatchSearchList and kSecAttrSyncViewHint are accepted and ignored: matching stays exact")
    func ignoredKeysLeaveMatchingExact() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            _ = SecItemAdd(Self.item() as CFDictionary, nil)
            var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct",
                                        kSecMatchPolicy as String: "policy", kSecMatchTrustedOnly as String: true,
                                        kSecMatchValidOnDate as String: Date(), kSecMatchSearchList as String: [String](),
                                        kSecAttrSyncViewHint as String: "Passwords",
                                        kSecMatchCaseInsensitive as String: true]
            let found = SecItemCopyMatching(query as CFDictionary, nil)
            query[kSecAttrAccount as String] = "ACCT"
            let otherCase = SecItemCopyMatching(query as CFDictionary, nil)
            let token: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                        kSecAttrAccessGroup as String: kSecAttrAccessGroupToken]
            return [found, otherCase, SecItemCopyMatching(token as CFDictionary, nil)]
        }
        #expect(statuses == [errSecSuccess, errSecItemNotFound, errSecItemNotFound])
    }
}
#endif
