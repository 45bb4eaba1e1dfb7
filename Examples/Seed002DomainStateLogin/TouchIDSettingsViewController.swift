// Seed002DomainStateLogin — the article's best practice: the Touch ID switch and verify flow
// that compares evaluatedPolicyDomainState with the state stored when the switch was turned on.

import Foundation
import LocalAuthentication

// MARK: - 最佳实践: evaluatedPolicyDomainState

final class TouchIDSettingsViewController: Sendable {
    static let settingsService = "TouchIDSettings"

    /// What the app's own sign-in returns in doAppAuthentication (the article: always YES).
    let appAuthenticationSucceeds: Bool

    init(appAuthenticationSucceeds: Bool = true) {
        self.appAuthenticationSucceeds = appAuthenticationSucceeds
    }

    /// `self.touchIdSwitch.on`, kept in the keychain between runs.
    var touchIdSwitchIsOn: Bool {
        get { KeychainHelper.passwordData(forService: Self.settingsService, account: "touchIdSwitch") != nil }
        set {
            if newValue {
                KeychainHelper.setPasswordData(Data("on".utf8), forService: Self.settingsService, account: "touchIdSwitch")
            } else {
                KeychainHelper.deletePassword(forService: Self.settingsService, account: "touchIdSwitch")
            }
        }
    }

    /// `self.policyDomainState`, kept in the keychain between runs.
    var policyDomainState: Data? {
        get { KeychainHelper.passwordData(forService: Self.settingsService, account: "policyDomainState") }
        set {
            if let newValue {
                KeychainHelper.setPasswordData(newValue, forService: Self.settingsService, account: "policyDomainState")
            } else {
                KeychainHelper.deletePassword(forService: Self.settingsService, account: "policyDomainState")
            }
        }
    }

    func switchChangedHandler() {
        if self.touchIdSwitchIsOn {
            //开启指纹
            let context = LAContext()
            if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil) {
                //进行第一次的验证,成功后记录验证状态
                Replies.pending.enter()
                context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "输入指纹开启验证") { success, error in
                    defer { Replies.pending.leave() }
                    print("[driver] reply: success=\(success) error=\(describe(error))")

                    if success {
                        self.policyDomainState = context.evaluatedPolicyDomainState
                    } else {
                        print("验证失败")
                        self.touchIdSwitchIsOn = false
                    }
                }
            } else {
                print("Touch ID/Face ID不可用")
                self.touchIdSwitchIsOn = false
            }
        } else {
            self.policyDomainState = nil
        }
    }

    func validationButtonClickedHandler() {
        if self.touchIdSwitchIsOn {
            let context = LAContext()
            if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil) {
                //进行第一次的验证,成功后记录验证状态
                Replies.pending.enter()
                context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "使用指纹识别验证") { success, error in
                    defer { Replies.pending.leave() }
                    print("[driver] reply: success=\(success) error=\(describe(error))")

                    if success {
                        if context.evaluatedPolicyDomainState == self.policyDomainState {
                            print("[driver] domainState: unchanged")
                            print("验证通过!")
                        } else {
                            print("[driver] domainState: changed")
                            print("指纹发生变化,请进行后续验证步骤")
                            //这里可以弹出App的登录界面让用户重新登录
                            //等待登录完成后再将evaluatedPolicyDomainState保存起用于后续的操作
                            self.doAppAuthentication { success in
                                print("[driver] doAppAuthentication: \(success)")
                                if success {
                                    self.policyDomainState = context.evaluatedPolicyDomainState
                                    print("验证通过!")
                                }
                            }
                        }
                    } else {
                        print("验证失败")
                    }
                }
            } else {
                print("Touch ID/Face ID不可用")
            }
        }
    }

    func doAppAuthentication(_ handler: (Bool) -> Void) {
        //执行应用自身验证体系,并将验证结果回调
        handler(appAuthenticationSucceeds)
    }
}
