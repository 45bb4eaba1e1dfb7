#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import Touchstone
import TouchstoneTesting

/// The status of a keychain call whose prompt ended without a match, as Apple's `SecItem.m`
/// maps the LAError (`osstatus_for_localauthentication_error`): `LAErrorUserCancel` →
/// errSecUserCanceled, `LAErrorNotInteractive` → errSecInteractionNotAllowed, every other
/// code → errSecAuthFailed. (Found with bitwarden/ios's biometric unlock: a prompt the system
/// ended, because the app moved away, read as the user's cancel.)
@Suite("Keychain prompts end with iOS's status")
struct KeychainPromptStatusTests {
    @Test("a keychain prompt ended by the user's Cancel is errSecUserCanceled; one ended by the system, by the app (invalidate) or by the fallback button is errSecAuthFailed (SecItem.m's osstatus_for_localauthentication_error)", arguments: [
        ("user cancel", [UserAction.cancel], errSecUserCanceled),
        ("system cancel", [UserAction.systemCancel], errSecAuthFailed),
        ("app cancel", [UserAction.invalidate], errSecAuthFailed),
        ("fallback", [UserAction.noMatch, .fallback], errSecAuthFailed),
    ])
    func onlyTheUsersCancelIsUserCanceled(name: String, actions: [UserAction], expected: OSStatus) async throws {
        let device = try TestDevice()
        let item: @Sendable () -> [String: Any] = {
            [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "vault", kSecAttrAccount as String: "key"]
        }
        let added = await device.blocking { () -> OSStatus in
            guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryCurrentSet, nil) else {
                return errSecParam
            }
            return SecItemAdd(item().merging([kSecAttrAccessControl as String: access, kSecValueData as String: Data("secret".utf8)]) { $1 } as CFDictionary, nil)
        }
        #expect(added == errSecSuccess)
        device.enqueue(contentsOf: actions)
        let read = await device.blocking {
            SecItemCopyMatching(item().merging([kSecReturnData as String: true]) { $1 } as CFDictionary, nil)
        }
        #expect(read == expected, "\(name)")
        #expect(device.user.pending.isEmpty)
        #expect(device.scriptingMistakes.isEmpty)
    }
}
#endif
