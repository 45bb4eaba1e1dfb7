// Seed002DomainStateLogin — the article's single techniques: basic usage, the Face ID reason,
// reuse of the device unlock, evaluateAccessControl, and keychain items protected by an
// application password.

import Foundation
import LocalAuthentication

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
