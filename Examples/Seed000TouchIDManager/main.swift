// Seed000TouchIDManager — port of seed `000_63acfe40c614f271.txt`,
// 《iOS 指纹解锁 检测指纹信息变更》 (jianshu.com/p/1d497508f1cb): the article's `TouchIdManager`
// (per-identity domain state in the keychain, change detection with the lockout exception,
// showTouchId with fallback, lockout → deviceOwnerAuthentication retry, errorMessageForFails).
//
// Changes from the iOS original, one line each:
// - `import UIKit` → `import Foundation`; `import LocalAuthentication` also provides the SecItem*/kSec* keychain API on Linux.
// - SAMKeychain (a CocoaPod) → `KeychainHelper` below: plain SecItem* calls behind the same two method shapes, so each call site only changes the type name.
// - `static var IDENTIFY` → `nonisolated(unsafe) static var IDENTIFY`: Swift 6 rejects unannotated global mutable state (the app sets it before use, from one thread).
// - The two block typealiases are `@Sendable` and say `any Error`: they are called from the reply/main-queue closures (Swift 6 + ExistentialAny); same parameters.
// - `currentTouchIdDataIdentity()`, the typealiases and `errorMessageForFails(errorCode:)` are used but not printed in the article; written in the shape the calls imply, messages taken from the LAError header comments quoted in seed 001.
// - Alerts/UI → print(); the demo's buttons → the command-line driver at the end of this file (one step per run).
// Unchanged on purpose: method names and bodies, `error._code`, `(error?.code)!`, `LAError.biometryLockout.rawValue`,
// the DispatchQueue.main.async hops, and touchIdInfoDidChange returning false (not "changed") while biometry is locked out.

import Foundation
import LocalAuthentication
import TouchstoneCommands  // [driver] Linux only: SQLite stores and TOUCHSTONE_SETUP

// MARK: - Keychain helper (replaces SAMKeychain)

/// The two SAMKeychain calls the article makes, written directly against the keychain:
/// one generic-password item per (service, account), updated in place when it exists.
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
}

// MARK: - TouchIdManager (the article's code)

typealias TouchIdFallBackBlokc = @Sendable () -> Void
typealias TouchIdResultBlock = @Sendable (_ useable: Bool, _ success: Bool, _ error: (any Error)?) -> Void

class TouchIdManager: NSObject {

    nonisolated(unsafe) static var IDENTIFY: String? = nil
    static let SERVICE = "TOUCHID_SERVICE"
    static let ACCOUNT_PREFIX = "TOUCHID_PERFIX"

    open class func setCurrentTouchIdDataIdentity(identity: String)
    {
        //设定当前身份用于存储data
        TouchIdManager.IDENTIFY = identity
    }

    open class func currentTouchIdDataIdentity() -> String?
    {
        return TouchIdManager.IDENTIFY
    }

    //获取当前时刻的data
    class func currentOriTouchIdData() -> Data? {
        let context = LAContext()
        var error: NSError? = nil
        //先使用canEvaluatePolicy方法进行评估
        if context.canEvaluatePolicy(LAPolicy.deviceOwnerAuthenticationWithBiometrics, error: &error) {

            return context.evaluatedPolicyDomainState
        }
        print("errorMsg:" + self.errorMessageForFails(errorCode: (error?.code)!))
        return nil
    }

    //使用keychain保存当前身份的data
    open class func setCurrentIdentityTouchIdData() -> Bool
    {
        if self.currentTouchIdDataIdentity() == nil
        {
            return false
        }
        else
        {
            if self.currentOriTouchIdData() != nil
            {
                //storage by keychain
                KeychainHelper.setPasswordData(self.currentOriTouchIdData()!, forService: SERVICE, account: ACCOUNT_PREFIX + self.currentTouchIdDataIdentity()!)
                return true
            }
            else
            {
                return false
            }
        }
    }

    //获取当前身份的上一次存储的data，用于对比
    class func currentIdentityTouchIdData() -> Data?
    {
        guard (self.currentTouchIdDataIdentity() != nil) else {
            return nil
        }

        return KeychainHelper.passwordData(forService: TouchIdManager.SERVICE, account: TouchIdManager.ACCOUNT_PREFIX + self.currentTouchIdDataIdentity()!)
    }

    //检测以这个身份设置开始到当前时刻指纹信息是否变更
    open class func touchIdInfoDidChange() -> Bool
    {
        let data = self.currentOriTouchIdData()
        if data == nil && self.isErrorTouchIDLockout() {
            //lock after unlock failed many times,and the fingerprint is not changed.
            return false
        }
        else
        {
            let oldData = self.currentIdentityTouchIdData()

            if oldData == nil
            {
                //never set
                return false
            }
            else if oldData == data
            {
                //not change
                return false
            }
            else
            {
                return true
            }
        }
    }

    //检测当前是否为biometryLockout状态
    class func isErrorTouchIDLockout() -> Bool
    {
        let context = LAContext()
        var error: NSError?
        context.canEvaluatePolicy(LAPolicy.deviceOwnerAuthenticationWithBiometrics, error: &error)

        guard error != nil else {
            return false
        }

        if error!.code == LAError.biometryLockout.rawValue {
            return true
        }
        else
        {
            return false
        }
    }

    open class func showTouchId(title: String, fallbackTitle: String?, fallbackBlock: TouchIdFallBackBlokc?, resultBlock: TouchIdResultBlock?)
    {
        let context = LAContext()
        context.localizedFallbackTitle = fallbackTitle
        var useableError: NSError?
        if context.canEvaluatePolicy(LAPolicy.deviceOwnerAuthenticationWithBiometrics, error: &useableError) {
            context.evaluatePolicy(LAPolicy.deviceOwnerAuthenticationWithBiometrics, localizedReason: title) { (success, error) in
                DispatchQueue.main.async {
                    if success
                    {
                        if resultBlock != nil
                        {
                            resultBlock!(true, success, error)
                        }
                    }
                    else
                    {
                        guard let error = error else
                        {
                            return
                        }

                        print("errorMsg:" + self.errorMessageForFails(errorCode: error._code))

                        if error._code == LAError.userFallback.rawValue
                        {
                            if fallbackBlock != nil
                            {
                                fallbackBlock!()
                            }
                        }
                        else if error._code == LAError.biometryLockout.rawValue
                        {
                            //try to show password interface
                            self.tryShowTouchIdOrPwdInterface(title: title, resultBlock: resultBlock)
                        }
                        else
                        {
                            if resultBlock != nil
                            {
                                resultBlock!(true, success, error)
                            }
                        }
                    }
                }
            }
        }
        else
        {
            print("errorMsg:" + self.errorMessageForFails(errorCode: (useableError?.code)!))

            if useableError?.code == LAError.biometryLockout.rawValue
            {
                //try to show password interface
                self.tryShowTouchIdOrPwdInterface(title: title, resultBlock: resultBlock)
            }
            else
            {
                if resultBlock != nil
                {
                    resultBlock!(false, false, useableError)
                }
            }
        }
    }

    class func tryShowTouchIdOrPwdInterface(title: String, resultBlock: TouchIdResultBlock?)
    {
        let context = LAContext()
        context.localizedFallbackTitle = ""
        var useableError: NSError?
        if context.canEvaluatePolicy(LAPolicy.deviceOwnerAuthentication, error: &useableError) {
            context.evaluatePolicy(LAPolicy.deviceOwnerAuthentication, localizedReason: title) { (success, error) in

                DispatchQueue.main.async {
                    if resultBlock != nil
                    {
                        resultBlock!(true, success, error)
                    }
                }

                guard let error = error else
                {
                    return
                }
                print("errorMsg:" + self.errorMessageForFails(errorCode: error._code))
            }
        }
        else
        {
            print("errorMsg:" + self.errorMessageForFails(errorCode: (useableError?.code)!))

            if resultBlock != nil
            {
                resultBlock!(false, false, useableError)
            }
        }
    }

    //MARK: error msg
    class func errorMessageForFails(errorCode: Int) -> String {

        var message = ""

        switch errorCode {
        case LAError.authenticationFailed.rawValue:
            message = "Authentication was not successful, because user failed to provide valid credentials"

        case LAError.userCancel.rawValue:
            message = "Authentication was canceled by user"

        case LAError.userFallback.rawValue:
            message = "Authentication was canceled, because the user tapped the fallback button"

        case LAError.systemCancel.rawValue:
            message = "Authentication was canceled by system"

        case LAError.passcodeNotSet.rawValue:
            message = "Authentication could not start, because passcode is not set on the device"

        case LAError.biometryNotAvailable.rawValue:
            message = "Authentication could not start, because biometry is not available on the device"

        case LAError.biometryNotEnrolled.rawValue:
            message = "Authentication could not start, because biometry has no enrolled identities"

        case LAError.biometryLockout.rawValue:
            message = "Authentication was not successful, because there were too many failed biometry attempts and biometry is now locked"

        case LAError.appCancel.rawValue:
            message = "Authentication was canceled by application"

        case LAError.invalidContext.rawValue:
            message = "LAContext passed to this call has been previously invalidated"

        case LAError.notInteractive.rawValue:
            message = "Authentication failed, because it would require showing UI which has been forbidden by using interactionNotAllowed property"

        default:
            message = "unknown error"
        }

        return message
    }
}

// MARK: - Command-line driver (not part of the article)
//
// One step per run; the simulated device (enrolled fingers, next captures, passcode, clock)
// and the keychain persist between runs, so a test chains runs, e.g.
//   Seed000TouchIDManager save-state alice   → (enroll another finger) →
//   Seed000TouchIDManager check-change alice → prints "changed".

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

/// Lower-case hex of an opaque domain-state blob, or "nil".
func hex(_ data: Data?) -> String {
    guard let data else { return "nil" }
    return data.map { String(format: "%02x", $0) }.joined()
}

/// Exits after the blocks already queued on the main queue have run.
func finish(_ status: Int32 = 0) {
    DispatchQueue.main.async { exit(status) }
}

enum Driver {
    static let usage = """
        usage: Seed000TouchIDManager <step> [arguments]
          save-state <identity>          setCurrentIdentityTouchIdData() for <identity>
          check-change <identity>        touchIdInfoDidChange(); last line: changed | unchanged | unknown | not-set
          authenticate [--title T] [--fallback-title T | --no-fallback-title]
                                         showTouchId(...); lockout retries with deviceOwnerAuthentication
          is-lockout                     isErrorTouchIDLockout()
          current-state                  currentOriTouchIdData() as hex
          stored-state <identity>        currentIdentityTouchIdData() as hex
        """

    static func fail(_ message: String) -> Never {
        print(message)
        print(usage)
        exit(64)
    }

    static func run(_ arguments: [String]) {
        guard let step = arguments.first else { fail("missing step") }
        let rest = Array(arguments.dropFirst())

        switch step {
        case "save-state":
            guard let identity = rest.first else { fail("save-state needs an identity") }
            print("identity: \(identity)")
            TouchIdManager.setCurrentTouchIdDataIdentity(identity: identity)
            let saved = TouchIdManager.setCurrentIdentityTouchIdData()
            print("setCurrentIdentityTouchIdData: \(saved)")

        case "check-change":
            guard let identity = rest.first else { fail("check-change needs an identity") }
            print("identity: \(identity)")
            TouchIdManager.setCurrentTouchIdDataIdentity(identity: identity)
            let changed = TouchIdManager.touchIdInfoDidChange()
            print("touchIdInfoDidChange: \(changed)")
            // The article answers only true/false. Split its "false" the way REFERENCE §10 asks:
            // never saved → not-set; locked out (current value unreadable) → unknown.
            if changed {
                print("changed")
            } else if TouchIdManager.currentIdentityTouchIdData() == nil {
                print("not-set")
            } else if TouchIdManager.isErrorTouchIDLockout() {
                print("unknown")
            } else {
                print("unchanged")
            }

        case "authenticate":
            var title = "验证指纹以登录"
            var fallbackTitle: String? = nil
            var index = 0
            while index < rest.count {
                switch rest[index] {
                case "--title" where index + 1 < rest.count:
                    title = rest[index + 1]; index += 2
                case "--fallback-title" where index + 1 < rest.count:
                    fallbackTitle = rest[index + 1]; index += 2
                case "--no-fallback-title":
                    fallbackTitle = nil; index += 1
                default:
                    fail("unknown option \(rest[index])")
                }
            }
            print("localizedFallbackTitle: \(fallbackTitle.map { "\"\($0)\"" } ?? "nil")")
            TouchIdManager.showTouchId(
                title: title,
                fallbackTitle: fallbackTitle,
                fallbackBlock: {
                    print("fallbackBlock: show the app's own password screen")
                    finish()
                },
                resultBlock: { useable, success, error in
                    print("resultBlock: useable=\(useable) success=\(success) error=\(describe(error))")
                    finish()
                }
            )
            // An iOS app returns to UIApplicationMain's run loop here and the reply arrives later.
            // A command-line program has no run loop, and TouchIdManager hops to
            // DispatchQueue.main inside its replies, so park the main thread in dispatchMain()
            // (it services the main queue) and exit from the result or fallback block.
            // Watchdog so a reply that never comes fails the step instead of hanging a test.
            DispatchQueue.main.asyncAfter(deadline: .now() + 60) {
                print("timeout: no reply within 60 s")
                exit(2)
            }
            dispatchMain()

        case "is-lockout":
            print("isErrorTouchIDLockout: \(TouchIdManager.isErrorTouchIDLockout())")

        case "current-state":
            print("currentOriTouchIdData: \(hex(TouchIdManager.currentOriTouchIdData()))")

        case "stored-state":
            guard let identity = rest.first else { fail("stored-state needs an identity") }
            TouchIdManager.setCurrentTouchIdDataIdentity(identity: identity)
            print("currentIdentityTouchIdData: \(hex(TouchIdManager.currentIdentityTouchIdData()))")

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
