#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// The SecItem.h keys of what Touchstone does not simulate (certificate items, key wrapping,
/// tokens) and the search keys iOS treats specially (item lists, host matching, case
/// insensitivity): declared with Apple's values, and answered as iOS's securityd answers.
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

    @Test("kSecMatchHostOrSubdomainOfHost (iOS 18) finds internet passwords whose server is the host or ends in \".\" and it, case-sensitively; not a string is errSecParam, another class errSecUnimplemented")
    func hostOrSubdomainOfHost() async throws {
        let device = try TestDevice()
        let (found, statuses) = await device.blocking { () -> ([String], [OSStatus]) in
            for server in ["example.com", "api.example.com", "a.b.example.com", "badexample.com", "Example.com", "example.org"] {
                let item: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
                                           kSecAttrAccount as String: "bob", kSecValueData as String: Data("pw".utf8)]
                _ = SecItemAdd(item as CFDictionary, nil)
            }
            let query: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost as String: "example.com",
                                        kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll]
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            let servers = ((result as? [[String: Any]]) ?? []).compactMap { $0[kSecAttrServer as String] as? String }
            let notString: [String: Any] = [kSecClass as String: kSecClassInternetPassword, kSecMatchHostOrSubdomainOfHost as String: 42]
            let generic: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecMatchHostOrSubdomainOfHost as String: "example.com"]
            return (servers, [status, SecItemCopyMatching(notString as CFDictionary, nil), SecItemCopyMatching(generic as CFDictionary, nil)])
        }
        #expect(found == ["example.com", "api.example.com", "a.b.example.com"])
        #expect(statuses == [errSecSuccess, errSecParam, errSecUnimplemented])
    }

    @Test("kSecMatchItemList is macOS-only, as on iOS: a list of persistent references is ignored (every match comes back), a list of SecKeys is errSecParam; SecItemDelete and SecItemUpdate with it or kSecMatchCaseInsensitive are errSecParam and change nothing")
    func itemListAndCaseInsensitiveAsOnIOS() async throws {
        let device = try TestDevice()
        let made = await device.blocking { () -> SecKey? in
            let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
            return SecKeyCreateRandomKey(parameters as CFDictionary, nil)
        }
        let key = try #require(made)
        let statuses = await device.blocking { () -> [OSStatus] in
            _ = SecItemAdd(Self.item() as CFDictionary, nil)
            let list: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecMatchItemList as String: [Data([1, 2])]]
            var refs = list
            refs[kSecMatchItemList as String] = [key]
            let caseInsensitive: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecMatchCaseInsensitive as String: true]
            return [SecItemCopyMatching(list as CFDictionary, nil), SecItemCopyMatching(refs as CFDictionary, nil),
                    SecItemDelete(list as CFDictionary), SecItemDelete(caseInsensitive as CFDictionary),
                    SecItemUpdate(caseInsensitive as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary),
                    SecItemCopyMatching(Self.item().filter { $0.key != kSecValueData as String } as CFDictionary, nil)]
        }
        #expect(statuses == [errSecSuccess, errSecParam, errSecParam, errSecParam, errSecParam, errSecSuccess])
        // Keys and certificates too: a delete with these keys is errSecParam and removes nothing.
        let keyStatuses = await device.blocking { () -> [OSStatus] in
            let stored: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("kept".utf8),
                                         kSecAttrKeyType as String: kSecAttrKeyTypeRSA]
            _ = SecItemAdd(stored as CFDictionary, nil)
            let keyList: [String: Any] = [kSecClass as String: kSecClassKey, kSecMatchItemList as String: [key]]
            let keyCase: [String: Any] = [kSecClass as String: kSecClassKey, kSecMatchCaseInsensitive as String: true]
            let certificateList: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecMatchItemList as String: [Data([1])]]
            let searchList: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecMatchSearchList as String: [String]()]
            return [SecItemDelete(keyList as CFDictionary), SecItemDelete(keyCase as CFDictionary), SecItemDelete(certificateList as CFDictionary),
                    SecItemDelete(searchList as CFDictionary),
                    SecItemCopyMatching(keyList as CFDictionary, nil), SecItemCopyMatching(stored as CFDictionary, nil)]
        }
        #expect(keyStatuses == [errSecParam, errSecParam, errSecParam, errSecParam, errSecParam, errSecSuccess])
    }

    @Test("as iOS's securityd: SecItemDelete and SecItemUpdate with kSecMatchLimit (One or All: a lookup's query reused) are errSecParam, and SecItemUpdate with a kSecReturn key is errSecParam; nothing changes")
    func limitAndReturnKeysInChanges() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            _ = SecItemAdd(Self.item() as CFDictionary, nil)
            var lookup = Self.item().filter { $0.key != kSecValueData as String }
            var all = lookup
            all[kSecMatchLimit as String] = kSecMatchLimitAll
            var one = lookup
            one[kSecMatchLimit as String] = kSecMatchLimitOne
            let change = [kSecValueData as String: Data("new".utf8)] as CFDictionary
            var statuses = [SecItemDelete(all as CFDictionary), SecItemDelete(one as CFDictionary),
                            SecItemUpdate(all as CFDictionary, change)]
            for key in [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef] {
                var asking = lookup
                asking[key as String] = true
                statuses.append(SecItemUpdate(asking as CFDictionary, change))
            }
            lookup[kSecReturnData as String] = true
            var value: CFTypeRef?
            statuses.append(SecItemCopyMatching(lookup as CFDictionary, &value))
            statuses.append((value as? Data) == Self.item()[kSecValueData as String] as? Data ? 0 : -1)
            return statuses
        }
        #expect(statuses == Array(repeating: errSecParam, count: 7) + [errSecSuccess, 0])
    }

    @Test("kSecAttrSyncViewHint is part of a password's primary key, as in Apple's schema: the same service and account with two hints are two items, returned with their hint; a query without one finds both, a query naming one finds it alone")
    func syncViewHint() async throws {
        let device = try TestDevice()
        let (statuses, hints, named) = await device.blocking { () -> ([OSStatus], [String], Int) in
            func add(_ hint: String?) -> OSStatus {
                var item = Self.item()
                item[kSecAttrSyncViewHint as String] = hint
                return SecItemAdd(item as CFDictionary, nil)
            }
            let statuses = [add(nil), add("Passwords"), add("Passwords")]
            var all: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct",
                                     kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary, &all)
            let hints = ((all as? [[String: Any]]) ?? []).map { $0[kSecAttrSyncViewHint as String] as? String ?? "-" }
            var one: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrSyncViewHint as String: "Passwords",
                                     kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll] as CFDictionary, &one)
            return (statuses, hints, (one as? [Any])?.count ?? 0)
        }
        #expect(statuses == [errSecSuccess, errSecSuccess, errSecDuplicateItem])
        #expect(hints == ["-", "Passwords"])
        #expect(named == 1)
    }

    @Test("kSecMatchPolicy as on iOS: a value that is not a SecPolicy is errSecParam in any call (SecItem.m); a policy in a password or key lookup is errSecUnimplemented (securityd's SecItemServerCopyMatching matches it against certificates and identities only); nothing is added or deleted")
    func matchPolicyIsForCertificates() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            _ = SecItemAdd(Self.item() as CFDictionary, nil)
            let policy = SecPolicyCreateBasicX509()
            let password: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct"]
            func with(_ value: Any, _ base: [String: Any] = password) -> CFDictionary {
                var query = base
                query[kSecMatchPolicy as String] = value
                return query as CFDictionary
            }
            var added = Self.item()
            added[kSecAttrAccount as String] = "other"
            let key: [String: Any] = [kSecClass as String: kSecClassKey]
            return [
                SecItemCopyMatching(with(policy), nil),
                SecItemCopyMatching(with(policy, key), nil),
                SecItemCopyMatching(with("policy"), nil),
                SecItemCopyMatching(with([policy]), nil),
                SecItemDelete(with("policy")),
                SecItemAdd(with("policy", added), nil),
                SecItemCopyMatching(password as CFDictionary, nil),
                SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "other"] as CFDictionary, nil),
            ]
        }
        #expect(statuses == [errSecUnimplemented, errSecUnimplemented, errSecParam, errSecParam, errSecParam, errSecParam,
                             errSecSuccess, errSecItemNotFound])
    }

    @Test("certificate searches, kSecMatchCaseInsensitive and kSecMatchSearchList (which iOS's securityd has no rule for) are accepted and ignored in a password query: matching stays exact")
    func ignoredKeysLeaveMatchingExact() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            _ = SecItemAdd(Self.item() as CFDictionary, nil)
            var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "acct",
                                        kSecMatchTrustedOnly as String: true,
                                        kSecMatchValidOnDate as String: Date(), kSecMatchSearchList as String: [String](),
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
