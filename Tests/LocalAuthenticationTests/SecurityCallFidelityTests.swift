#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// Answers of `Security` calls that real code met and iOS gives exactly (issue 34's gaps).
@Suite("Security calls answer as on iOS: SecRandom, invalid protections, a key without a type")
struct SecurityCallFidelityTests {
    @Test("SecRandomCopyBytes(kSecRandomDefault, n, &bytes) fills the buffer with system random bytes and returns errSecSuccess; a negative count is errSecParam")
    func secRandomCopyBytesFillsFromTheSystem() {
        var first = [UInt8](repeating: 0, count: 37)
        var second = [UInt8](repeating: 0, count: 37)
        #expect(SecRandomCopyBytes(kSecRandomDefault, first.count, &first) == errSecSuccess)
        #expect(SecRandomCopyBytes(kSecRandomDefault, second.count, &second) == errSecSuccess)
        #expect(first != second, "two draws of 296 bits are equal")
        #expect(first.suffix(5) != [0, 0, 0, 0, 0], "the tail past the last whole word is filled too")
        var untouched: [UInt8] = [7]
        #expect(SecRandomCopyBytes(kSecRandomDefault, 0, &untouched) == errSecSuccess)
        #expect(untouched == [7])
        #expect(SecRandomCopyBytes(nil, -1, &untouched) == errSecParam)
    }

    @Test("SecAccessControlCreateWithFlags with an invalid protection: nil and a CFError -50 whose description says 'SecAccessControl: invalid protection'")
    func invalidProtectionIsNamed() {
        var error: Unmanaged<CFError>?
        #expect(SecAccessControlCreateWithFlags(nil, "bogus" as CFString, .userPresence, &error) == nil)
        guard let cfError = error?.takeRetainedValue() else {
            Issue.record("expected an error")
            return
        }
        #expect(CFErrorGetCode(cfError) == CFIndex(errSecParam))
        #expect(CFErrorGetDomain(cfError) as String == NSOSStatusErrorDomain)
        #expect((CFErrorCopyDescription(cfError) as String).contains("SecAccessControl: invalid protection: bogus"))
    }

    @Test("SecAccessControlCreateWithFlags refuses what Apple's SecAccessControl.m refuses (userPresence with any other bit, both biometry flags) and otherwise ignores bits no flag has")
    func accessControlFlagRules() {
        func code(_ flags: SecAccessControlCreateFlags) -> CFIndex? {
            var error: Unmanaged<CFError>?
            guard SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, &error) == nil else { return nil }
            return error.map { CFErrorGetCode($0.takeRetainedValue()) }
        }
        #expect(code([.userPresence, .or, .devicePasscode]) == CFIndex(errSecParam))
        #expect(code([.biometryAny, .biometryCurrentSet]) == CFIndex(errSecParam))
        #expect(code([.or, .and, .biometryAny]) == CFIndex(errSecParam))
        #expect(code([.userPresence, .privateKeyUsage]) == nil)
        #expect(code([.biometryCurrentSet, .or, .devicePasscode]) == nil)
        // Bit 2 and bit 20 name no flag: ignored.
        let unknownBits = SecAccessControlCreateFlags(rawValue: 1 << 2 | 1 << 20)
        #expect(code([.biometryAny, unknownBits]) == nil)
        // Except with userPresence, whose rule counts every other bit.
        #expect(code([.userPresence, SecAccessControlCreateFlags(rawValue: 1 << 20)]) == CFIndex(errSecParam))
        let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, [.biometryAny, unknownBits], nil)
        #expect(access?.touchstoneAccessControl.flags == .biometryAny)
    }

    @Test("kSecReturnAttributes gives every item its kSecAttrAccessControl, one without flags too (iOS 11.3 and later)")
    func everyItemReturnsItsAccessControl() async throws {
        let device = try TestDevice()
        let (hasAccessControl, accessible, keys) = await device.blocking { () -> (Bool, String?, [String]) in
            let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "svc",
                                       kSecAttrAccount as String: "plain", kSecValueData as String: Data("v".utf8),
                                       kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock]
            guard SecItemAdd(item as CFDictionary, nil) == errSecSuccess else { return (false, nil, []) }
            var result: CFTypeRef?
            let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrAccount as String: "plain",
                                        kSecReturnAttributes as String: true]
            guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
                  let attributes = result as? [String: Any] else { return (false, nil, []) }
            return (attributes[kSecAttrAccessControl as String] is SecAccessControl,
                    attributes[kSecAttrAccessible as String] as? String, attributes.keys.sorted())
        }
        #expect(hasAccessControl, "\(keys)")
        #expect(accessible == kSecAttrAccessibleAfterFirstUnlock as String)
    }

    @Test("SecKeyCreateRandomKey([:]) (no key type) is nil with errSecUnimplemented (-4), as on iOS")
    func keyWithoutTypeIsUnimplemented() async throws {
        let device = try TestDevice()
        let code = await device.blocking { () -> Int in
            var error: Unmanaged<CFError>?
            let key = SecKeyCreateRandomKey([:] as CFDictionary, &error)
            return key == nil ? (error?.takeRetainedValue() as? NSError)?.code ?? 0 : 1
        }
        #expect(code == Int(errSecUnimplemented))
        #expect(errSecUnimplemented == -4)
    }

    @Test("a value of the wrong type where a keychain call names it in its error (kSecMatchLimit, kSecClass) is errSecParam, whatever it is: a Date of NaN seconds, whose description stops the process in Foundation, included (found by scripts/fuzz.sh); kSecUseAuthenticationUI of another value allows the UI, as iOS's SecItemAuthCopyParams (SecItem.m) honours only Skip and Fail")
    func wrongValuesAreParamErrorsWhateverTheyAre() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            let odd: [Any] = [Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: .infinity), [1, 2]]
            return odd.flatMap { value -> [OSStatus] in
                [SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecMatchLimit as String: value] as CFDictionary, nil),
                 SecItemCopyMatching([kSecClass as String: value] as CFDictionary, nil),
                 SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecUseAuthenticationUI as String: value] as CFDictionary, nil)]
            }
        }
        #expect(statuses == Array(repeating: [errSecParam, errSecParam, errSecItemNotFound], count: 3).flatMap { $0 })
    }
}

#endif
