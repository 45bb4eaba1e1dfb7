// Seed002DomainStateLogin — port of seed `002_e3c0e062945423bb.txt`,
// 《LocalAuthentication开发实践》 (Objective-C): basic usage; the "best practice" switch /
// verify flow with evaluatedPolicyDomainState; the Face ID reason via biometryType; keychain
// items protected by an application password (setCredential); reuse of the device unlock
// (touchIDAuthenticationAllowableReuseDuration); evaluateAccessControl with four flag sets;
// and the rewrite of the switch / verify flow on a biometryCurrentSet keychain item.
//
// Changes from the iOS original, one line each:
// - Objective-C → Swift of the same shape; method and variable names kept (`switchChangedHandler`, `validationButtonClickedHandler`, `doAppAuthentication`, `saveDictionary`, `loadDictionary`, ...).
// - `#import`s → `import Foundation` + `import LocalAuthentication` (which also provides SecItem*/kSec* on Linux).
// - UIKit removed: the UISwitch becomes a Bool and `policyDomainState` a property, both kept in the keychain, because each run is a new process (the article: "原则上要将该值进行本地保存").
// - The article writes the two switch/verify versions as one view controller; here they are two classes so both can be run.
// - `NSLog` → `print`; `(__bridge id)kSecX` → `kSecX as String`; `(CFDictionaryRef)dict` → `dict as CFDictionary`; `@(YES)` → `true`; `noErr` → `errSecSuccess` (Swift's `noErr` is an Int).
// - `CFRelease(acl)` / `CFRelease(data)` dropped (ARC manages CF objects in Swift); the CFStringCreateWithBytes round trip (which read an undeclared `passwordData`) → `String(data:encoding:)`.
// - `SecAccessControlCreateWithFlags` returns an optional in Swift, so `if (acl)` → `if let acl` / `guard let acl`.
// - `kSecAccessControlTouchIDAny` / `kSecAccessControlTouchIDCurrentSet` → `.biometryAny` / `.biometryCurrentSet` (the article itself says the TouchID names are deprecated); `LAAccessControlOperationUserItem` (typo) → `.useItem`.
// - The rewritten validation handler uses `acl` from switchChangedHandler, out of scope there: both handlers build it with `makeAccessControl()`.
// - Swift 6: the view controllers are `final class ...: Sendable` (no stored mutable state) because the reply closures capture `self`.
// - Lines marked `[driver]` print the raw outcome (LAError / OSStatus by name and value); `Replies.pending` lets the driver wait for replies. Nothing else added.

import Foundation
import LocalAuthentication
import TouchstoneCommands  // [driver] Linux only: SQLite stores and TOUCHSTONE_SETUP

// MARK: - Keychain helper (the app's own small wrapper for its settings)

enum KeychainHelper {
    @discardableResult
    static func setPasswordData(_ data: Data, forService service: String, account: String) -> Bool {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        let attributes: [String: Any] = [kSecValueData as String: data]
        var status = SecItemUpdate(query as CFDictionary, attributes as CFDictionary)
        if status == errSecItemNotFound {
            var item = query
            item[kSecValueData as String] = data
            status = SecItemAdd(item as CFDictionary, nil)
        }
        return status == errSecSuccess
    }

    static func passwordData(forService service: String, account: String) -> Data? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecReturnData as String: kCFBooleanTrue!,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        guard status == errSecSuccess else { return nil }
        return result as? Data
    }

    @discardableResult
    static func deletePassword(forService service: String, account: String) -> Bool {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        let status = SecItemDelete(query as CFDictionary)
        return status == errSecSuccess || status == errSecItemNotFound
    }
}

/// [driver] Every evaluation enters this group and its reply leaves it, so the command-line
/// driver can wait for the replies before the process exits.
enum Replies {
    static let pending = DispatchGroup()
}

// MARK: - 基础用法 / Face ID / 复用设备解锁授权 / 更加灵活的访问控制

final class LocalAuthenticationPractice: Sendable {

    // 基础用法
    func basicUsage() {
        let context = LAContext()
        var error: NSError? = nil
        if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) {
            Replies.pending.enter()
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "输入指纹进行验证") { success, error in
                defer { Replies.pending.leave() }
                print("[driver] reply: success=\(success) error=\(describe(error))")
                if success {
                    print("验证成功")
                } else {
                    print("验证失败")
                }
            }
        } else {
            print("[driver] canEvaluatePolicy: false error=\(describe(error))")
            print("识别功能不可用")
        }
    }

    // Face ID的验证过程实践
    func evaluateWithBiometryTypeReason() {
        let context = LAContext()
        var error: NSError? = nil
        guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) else {
            print("[driver] canEvaluatePolicy: false error=\(describe(error)) biometryType=\(name(of: context.biometryType))")
            print("识别功能不可用")
            return
        }
        print("[driver] biometryType: \(name(of: context.biometryType))")

        var reason = "使用指纹识别验证"
        if #available(iOS 11.0, *) {
            if context.biometryType == .faceID {
                reason = "使用人脸识别验证"
            }
        }
        print("[driver] localizedReason: \(reason)")

        Replies.pending.enter()
        context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: reason) { success, error in
            defer { Replies.pending.leave() }
            //Do something...
            print("[driver] reply: success=\(success) error=\(describe(error))")
        }
    }

    // 复用设备解锁授权
    func evaluateReusingDeviceUnlock(duration: TimeInterval) {
        let context = LAContext()
        context.touchIDAuthenticationAllowableReuseDuration = duration // the article uses 5
        print("[driver] touchIDAuthenticationAllowableReuseDuration: \(context.touchIDAuthenticationAllowableReuseDuration) (maximum \(LATouchIDAuthenticationMaximumAllowableReuseDuration))")

        var error: NSError? = nil
        if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) {
            Replies.pending.enter()
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "输入指纹进行验证") { success, error in
                defer { Replies.pending.leave() }
                print("[driver] reply: success=\(success) error=\(describe(error))")
                if success {
                    print("验证成功")
                } else {
                    print("验证失败")
                }
            }
        } else {
            print("[driver] canEvaluatePolicy: false error=\(describe(error))")
            print("识别功能不可用")
        }
    }

    // 更加灵活的访问控制: evaluateAccessControl
    func evaluateAccessControl(flags: SecAccessControlCreateFlags) {
        var error: Unmanaged<CFError>?
        guard let acl = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                                        kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
                                                        flags, &error) else {
            print("[driver] SecAccessControlCreateWithFlags: nil error=\(error.map { "\($0.takeRetainedValue())" } ?? "nil")")
            return
        }
        let context = LAContext()
        Replies.pending.enter()
        context.evaluateAccessControl(acl,
                                      operation: .useItem,
                                      localizedReason: "开启指纹验证") { success, error in
            defer { Replies.pending.leave() }
            print("[driver] evaluateAccessControl: success=\(success) error=\(describe(error))")
        }
    }

    // 控制Keychain访问权限: 写入
    func saveWithApplicationPassword(_ passwordString: String, data: String) {
        var status: OSStatus = errSecSuccess
        var error: Unmanaged<CFError>?

        let acl = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleAfterFirstUnlock, .applicationPassword, &error)

        if let acl {
            let context = LAContext()
            let password = passwordString.data(using: .utf8)
            context.setCredential(password, type: .applicationPassword)

            let saveDictionary: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "testService",
                kSecAttrAccount as String: "testAccount",
                kSecValueData as String: data.data(using: .utf8)!,
                kSecAttrAccessControl as String: acl,
                kSecUseAuthenticationContext as String: context,
            ]

            status = SecItemAdd(saveDictionary as CFDictionary, nil)
            print("[driver] SecItemAdd: \(describe(status: status))")
            if status == errSecSuccess {
                print("Item stored to keychain")
            }
        } else {
            print("[driver] SecAccessControlCreateWithFlags: nil")
        }
    }

    // 控制Keychain访问权限: 读取
    func loadWithApplicationPassword(_ passwordString: String) {
        var status: OSStatus = errSecSuccess
        var error: Unmanaged<CFError>?
        let acl = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
                                                  kSecAttrAccessibleAfterFirstUnlock,
                                                  .applicationPassword, &error)

        if let acl {
            let password = passwordString // @"访问密码"

            let context = LAContext()
            let appPassword = password.data(using: .utf8)
            context.setCredential(appPassword, type: .applicationPassword)
            print("[driver] isCredentialSet(.applicationPassword): \(context.isCredentialSet(.applicationPassword))")

            let loadDictionary: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword,
                kSecAttrService as String: "testService",
                kSecAttrAccount as String: "testAccount",
                kSecReturnData as String: true,
                kSecMatchLimit as String: kSecMatchLimitOne,
                kSecAttrAccessControl as String: acl,
                kSecUseAuthenticationContext as String: context,
            ]

            var data: CFTypeRef? = nil
            status = SecItemCopyMatching(loadDictionary as CFDictionary, &data)
            print("[driver] SecItemCopyMatching: \(describe(status: status))")

            if status == errSecSuccess {
                if let data = data as? Data, 0 < data.count {
                    print("data = \(String(data: data, encoding: .utf8) ?? "")")
                }
            } else {
                print("密码错误,无法访问")
            }
        } else {
            print("[driver] SecAccessControlCreateWithFlags: nil")
        }
    }
}

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

// MARK: - Command-line driver (not part of the article)

/// "userCancel (-2)", or "nil".
func describe(_ error: (any Error)?) -> String {
    guard let error else { return "nil" }
    let nsError = error as NSError
    guard nsError.domain == LAErrorDomain, let code = LAError.Code(rawValue: nsError.code) else {
        return "\(nsError.domain) (\(nsError.code))"
    }
    return "\(name(of: code)) (\(code.rawValue))"
}

func name(of code: LAError.Code) -> String {
    switch code {
    case .authenticationFailed: return "authenticationFailed"
    case .userCancel: return "userCancel"
    case .userFallback: return "userFallback"
    case .systemCancel: return "systemCancel"
    case .passcodeNotSet: return "passcodeNotSet"
    case .biometryNotAvailable: return "biometryNotAvailable"
    case .biometryNotEnrolled: return "biometryNotEnrolled"
    case .biometryLockout: return "biometryLockout"
    case .appCancel: return "appCancel"
    case .invalidContext: return "invalidContext"
    case .notInteractive: return "notInteractive"
    default: return "LAError.Code(rawValue: \(code.rawValue))"
    }
}

func name(of type: LABiometryType) -> String {
    switch type {
    case .none: return "none"
    case .touchID: return "touchID"
    case .faceID: return "faceID"
    default: return "LABiometryType(rawValue: \(type.rawValue))"
    }
}

/// "errSecItemNotFound (-25300)".
func describe(status: OSStatus) -> String {
    let name: String
    switch status {
    case errSecSuccess: name = "errSecSuccess"
    case errSecParam: name = "errSecParam"
    case errSecUserCanceled: name = "errSecUserCanceled"
    case errSecNotAvailable: name = "errSecNotAvailable"
    case errSecAuthFailed: name = "errSecAuthFailed"
    case errSecDuplicateItem: name = "errSecDuplicateItem"
    case errSecItemNotFound: name = "errSecItemNotFound"
    case errSecInteractionNotAllowed: name = "errSecInteractionNotAllowed"
    default: name = "OSStatus"
    }
    return "\(name) (\(status))"
}

/// Lower-case hex of an opaque domain-state blob, or "nil".
func hex(_ data: Data?) -> String {
    guard let data else { return "nil" }
    return data.map { String(format: "%02x", $0) }.joined()
}

enum Driver {
    static let usage = """
        usage: Seed002DomainStateLogin <step> [arguments]
          basic                              基础用法: can-evaluate + evaluate (biometrics)
          biometry-type                      Face ID 实践: reason chosen from biometryType, then evaluate
          switch-on                          最佳实践: turn the switch on (evaluate, store evaluatedPolicyDomainState)
          switch-off                         最佳实践: turn the switch off (forget the stored state)
          verify [--app-auth-fails]          最佳实践: evaluate, compare domain state; on change run doAppAuthentication
          app-password-write [password] [data]   Keychain + applicationPassword: SecItemAdd (defaults 123456, 要写入的数据)
          app-password-read [password]       Keychain + applicationPassword: SecItemCopyMatching (default 123456)
          reuse [seconds|max]                touchIDAuthenticationAllowableReuseDuration (default 5), then evaluate
          access-control <biometryAny|userPresence|biometryAny-or-passcode|biometryAny-and-passcode|or-and>
                                             evaluateAccessControl(.useItem) with that SecAccessControl
          keychain-switch-on [--when-passcode-set]
                                             改写: store the biometryCurrentSet item passService/vim
          keychain-verify [--app-auth-fails] [--when-passcode-set]
                                             改写: evaluateAccessControl + read; errSecItemNotFound = changed
          state                              print both switches and the stored domain state
        """

    static func fail(_ message: String) -> Never {
        print(message)
        print(usage)
        exit(64)
    }

    /// An iOS app returns to its run loop and the reply arrives later; a command-line program
    /// would exit first, so wait for every reply that was started.
    static func waitForReplies() {
        if Replies.pending.wait(timeout: .now() + 60) == .timedOut {
            print("timeout: no reply within 60 s")
            exit(2)
        }
    }

    static func run(_ arguments: [String]) {
        guard let step = arguments.first else { fail("missing step") }
        let rest = Array(arguments.dropFirst())
        let appAuthenticationSucceeds = !rest.contains("--app-auth-fails")
        let whenPasscodeSet = rest.contains("--when-passcode-set")
        let positional = rest.filter { !$0.hasPrefix("--") }

        let practice = LocalAuthenticationPractice()
        let settings = TouchIDSettingsViewController(appAuthenticationSucceeds: appAuthenticationSucceeds)
        let keychainSettings = KeychainTouchIDSettingsViewController(appAuthenticationSucceeds: appAuthenticationSucceeds,
                                                                     whenPasscodeSet: whenPasscodeSet)

        switch step {
        case "basic":
            practice.basicUsage()
            waitForReplies()

        case "biometry-type":
            practice.evaluateWithBiometryTypeReason()
            waitForReplies()

        case "switch-on":
            settings.touchIdSwitchIsOn = true // the user flips the UISwitch on
            settings.switchChangedHandler()
            waitForReplies()
            print("touchIdSwitch: \(settings.touchIdSwitchIsOn ? "on" : "off")")
            print("policyDomainState: \(hex(settings.policyDomainState))")

        case "switch-off":
            settings.touchIdSwitchIsOn = false // the user flips the UISwitch off
            settings.switchChangedHandler()
            waitForReplies()
            print("touchIdSwitch: off")
            print("policyDomainState: \(hex(settings.policyDomainState))")

        case "verify":
            print("touchIdSwitch: \(settings.touchIdSwitchIsOn ? "on" : "off")")
            settings.validationButtonClickedHandler()
            waitForReplies()

        case "app-password-write":
            practice.saveWithApplicationPassword(positional.first ?? "123456",
                                                 data: positional.dropFirst().first ?? "要写入的数据")

        case "app-password-read":
            practice.loadWithApplicationPassword(positional.first ?? "123456")

        case "reuse":
            let duration: TimeInterval
            switch positional.first {
            case nil: duration = 5
            case "max": duration = LATouchIDAuthenticationMaximumAllowableReuseDuration
            case let value?:
                guard let seconds = TimeInterval(value) else { fail("reuse needs seconds or max") }
                duration = seconds
            }
            practice.evaluateReusingDeviceUnlock(duration: duration)
            waitForReplies()

        case "access-control":
            let flags: SecAccessControlCreateFlags
            switch positional.first {
            case "biometryAny": flags = .biometryAny
            case "userPresence": flags = .userPresence
            case "biometryAny-or-passcode": flags = [.biometryAny, .or, .devicePasscode]
            case "biometryAny-and-passcode": flags = [.biometryAny, .and, .devicePasscode]
            case "or-and": flags = [.biometryAny, .or, .and, .devicePasscode] // the article: 不能同时使用
            default: fail("access-control needs one of the listed flag sets")
            }
            practice.evaluateAccessControl(flags: flags)
            waitForReplies()

        case "keychain-switch-on":
            keychainSettings.touchIdSwitchIsOn = true // the user flips the UISwitch on
            keychainSettings.switchChangedHandler()
            print("keychainTouchIdSwitch: \(keychainSettings.touchIdSwitchIsOn ? "on" : "off")")

        case "keychain-verify":
            print("keychainTouchIdSwitch: \(keychainSettings.touchIdSwitchIsOn ? "on" : "off")")
            keychainSettings.validationButtonClickedHandler()
            waitForReplies()

        case "state":
            print("touchIdSwitch: \(settings.touchIdSwitchIsOn ? "on" : "off")")
            print("policyDomainState: \(hex(settings.policyDomainState))")
            print("keychainTouchIdSwitch: \(keychainSettings.touchIdSwitchIsOn ? "on" : "off")")

        case "help", "--help", "-h":
            print(usage)

        default:
            fail("unknown step \(step)")
        }
    }
}

// [driver] The test harness keeps the device in SQLite and changes it with TOUCHSTONE_SETUP:
// both come with every built-in plugin, which this program opts in to (docs/ADOPTING.md).
LocalAuthenticationSystem.bootstrap(.builtIn)
Driver.run(Array(CommandLine.arguments.dropFirst()))
