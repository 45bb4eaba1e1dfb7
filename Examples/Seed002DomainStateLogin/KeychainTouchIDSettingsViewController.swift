// Seed002DomainStateLogin — the article's rewrite of the switch and verify flow on a
// biometryCurrentSet keychain item: a changed enrolment makes the item unreadable.

import Foundation
import LocalAuthentication

// MARK: - 最佳实践改写: kSecAccessControlBiometryCurrentSet + evaluateAccessControl

final class KeychainTouchIDSettingsViewController: Sendable {
    static let settingsService = "TouchIDSettings"

    let appAuthenticationSucceeds: Bool
    /// [driver] Use kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly instead of the article's
    /// kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly.
    let whenPasscodeSet: Bool

    init(appAuthenticationSucceeds: Bool = true, whenPasscodeSet: Bool = false) {
        self.appAuthenticationSucceeds = appAuthenticationSucceeds
        self.whenPasscodeSet = whenPasscodeSet
    }

    /// `self.touchIdSwitch.on` of this screen, kept in the keychain between runs.
    var touchIdSwitchIsOn: Bool {
        get { KeychainHelper.passwordData(forService: Self.settingsService, account: "keychainTouchIdSwitch") != nil }
        set {
            if newValue {
                KeychainHelper.setPasswordData(Data("on".utf8), forService: Self.settingsService, account: "keychainTouchIdSwitch")
            } else {
                KeychainHelper.deletePassword(forService: Self.settingsService, account: "keychainTouchIdSwitch")
            }
        }
    }

    /// The article's `acl`: Touch ID/Face ID with the currently enrolled set only.
    func makeAccessControl() -> SecAccessControl? {
        var error: Unmanaged<CFError>?
        let acl = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                                  whenPasscodeSet ? kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
                                                                  : kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                                                  .biometryCurrentSet, &error)
        if acl == nil {
            print("[driver] SecAccessControlCreateWithFlags: nil error=\(error.map { "\($0.takeRetainedValue())" } ?? "nil")")
        }
        return acl
    }

    func switchChangedHandler() {
        if self.touchIdSwitchIsOn {
            //开启指纹
            if let acl = makeAccessControl() {
                let saveDictionary: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrService as String: "passService",
                    kSecAttrAccount as String: "vim",
                    kSecValueData as String: "123456".data(using: .utf8)!,
                    kSecAttrAccessControl as String: acl,
                ]

                let status = SecItemAdd(saveDictionary as CFDictionary, nil)
                print("[driver] SecItemAdd: \(describe(status: status))")
                if status == errSecSuccess {
                    print("开启指纹验证成功")
                } else {
                    self.touchIdSwitchIsOn = false
                    print("开启指纹验证失败")
                }
            } else {
                self.touchIdSwitchIsOn = false
                print("开启指纹验证时发生错误")
            }
        }
    }

    func validationButtonClickedHandler() {
        if self.touchIdSwitchIsOn {
            guard let acl = makeAccessControl() else { return }
            let validationContext = LAContext()
            Replies.pending.enter()
            validationContext.evaluateAccessControl(acl, operation: .useItem, localizedReason: "解锁指纹验证") { success, error in
                defer { Replies.pending.leave() }
                print("[driver] evaluateAccessControl: success=\(success) error=\(describe(error))")

                if success {
                    let loadDictionary: [String: Any] = [
                        kSecClass as String: kSecClassGenericPassword,
                        kSecAttrService as String: "passService",
                        kSecAttrAccount as String: "vim",
                        kSecReturnData as String: true,
                        kSecMatchLimit as String: kSecMatchLimitOne,
                        kSecUseAuthenticationContext as String: validationContext,
                    ]

                    var passwordData: CFTypeRef? = nil
                    let status = SecItemCopyMatching(loadDictionary as CFDictionary, &passwordData)
                    print("[driver] SecItemCopyMatching: \(describe(status: status))")
                    if status == errSecSuccess {
                        print("[driver] keychainItem: unchanged")
                        print("验证通过")
                    } else {
                        if status == errSecItemNotFound {
                            print("[driver] keychainItem: changed")
                            print("Touch ID/Face ID发生变化,请进行后续验证步骤")
                            self.doAppAuthentication { success in
                                print("[driver] doAppAuthentication: \(success)")
                                if success {
                                    //使用现有指纹状态进行保存
                                    guard let acl = self.makeAccessControl() else { return }
                                    let saveDictionary: [String: Any] = [
                                        kSecClass as String: kSecClassGenericPassword,
                                        kSecAttrService as String: "passService",
                                        kSecAttrAccount as String: "vim",
                                        kSecValueData as String: "123456".data(using: .utf8)!,
                                        kSecAttrAccessControl as String: acl,
                                    ]
                                    let addStatus = SecItemAdd(saveDictionary as CFDictionary, nil)
                                    print("[driver] SecItemAdd: \(describe(status: addStatus))")
                                    print("验证通过")
                                } else {
                                    print("验证失败")
                                }
                            }
                        } else {
                            print("验证失败")
                        }
                    }
                }
            }
        }
    }

    func doAppAuthentication(_ handler: (Bool) -> Void) {
        //执行应用自身验证体系,并将验证结果回调
        handler(appAuthenticationSucceeds)
    }
}
