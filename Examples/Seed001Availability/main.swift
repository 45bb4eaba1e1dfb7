// Seed001Availability — port of seed `001_3d0d8497adc22190.txt`,
// 《iOS指纹解锁Touch ID使用说明文档》 (2016, demo project "DemoTouchID", Objective-C++):
// section 四 `-(void)AuthByTouchID` — the availability check, the evaluation, and the two
// error switches (evaluation errors; can-evaluate errors with the iOS 9 touchID* names).
//
// Changes from the iOS original, one line each:
// - Objective-C → Swift of the same shape: `-(void)AuthByTouchID` → `func authByTouchID()` (Swift lower-camel case) on a plain class instead of a view controller.
// - `#import <LocalAuthentication/LocalAuthentication.h>` → `import Foundation` + `import LocalAuthentication`.
// - `NSLog` → `print` (NSLog adds a timestamp and process id, which would make the output non-deterministic).
// - `switch (error.code)` over NSInteger → `switch LAError.Code(rawValue: (error as NSError).code)` in the reply (the reply hands Swift an `any Error`), and `switch error.code` with `LAError.xxx.rawValue` cases on the can-evaluate NSError, keeping the article's deprecated touchID* names there.
// - `dispatch_async(dispatch_get_main_queue(), ^{...})` → `DispatchQueue.main.async {}`; `[[NSOperationQueue mainQueue] addOperationWithBlock:]` → `OperationQueue.main.addOperation {}`.
// - Two marked `[driver]` lines print the raw outcome by LAError case name, and a DispatchGroup lets the command-line driver know when the reply has run; no other additions.
// The article's log texts are kept verbatim, including the truncated "TouchID is not  ".

import Foundation
import LocalAuthentication
import TouchstoneCommands  // [driver] Linux only: SQLite stores and TOUCHSTONE_SETUP

final class DemoTouchIDViewController {

    /// [driver] Entered before each evaluation and left when its reply returns.
    let pendingReplies = DispatchGroup()

    func authByTouchID() {
        //通过指纹验证
        let context = LAContext()
        context.localizedFallbackTitle = "手势解锁" //不设置默认显示"输入密码"
        var error: NSError? = nil
        let isTouchIdAvailable = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
        print("[driver] canEvaluatePolicy: \(isTouchIdAvailable) error=\(describe(error)) biometryType=\(name(of: context.biometryType))")

        if isTouchIdAvailable {
            pendingReplies.enter()
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics,
                                   localizedReason: "通过Home键验证已有手机指纹") { [pendingReplies] success, error in
                defer { pendingReplies.leave() }
                print("[driver] reply: success=\(success) error=\(describe(error))")

                if success {
                    //验证成功，主线程处理UI
                    DispatchQueue.main.async {
                        //在主线程更新 UI,不然会卡主
                        print("Authentication success")
                    }
                } else {
                    guard let error = error else { return }
                    print("\(error.localizedDescription) \((error as NSError).code)")
                    switch LAError.Code(rawValue: (error as NSError).code) {
                    case .authenticationFailed:
                        print("Authentication was not successful, because user failed to provide valid credentials")
                        //超过尝试次数,认证失败
                    case .systemCancel:
                        print("Authentication was cancelled by the system")
                        //切换到其他APP，系统取消验证Touch ID
                    case .userCancel:
                        print("Authentication was cancelled by the user")
                        //用户取消验证Touch ID
                    case .userFallback:
                        print("User selected to enter custom password")
                        OperationQueue.main.addOperation {
                            //用户选择输入密码，切换主线程处理
                        }
                    default:
                        OperationQueue.main.addOperation {
                            //其他情况，切换主线程处理
                            print(error.localizedDescription)
                        }
                    }
                }
            }
        } else {
            //不支持指纹识别，LOG出错误详情
            switch error!.code {
            case LAError.touchIDNotEnrolled.rawValue:
                print("TouchID is not  ")
            case LAError.passcodeNotSet.rawValue:
                print("A passcode has not been set")
            case LAError.touchIDLockout.rawValue: //touchid已被锁定
                print("LAErrorTouchIDLockout")
            default:
                print("TouchID not available")
            }
            print(error!.localizedDescription)
        }
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

enum Driver {
    static let usage = """
        usage: Seed001Availability <step>
          auth                                 authByTouchID(): can-evaluate, then evaluate (biometrics only)
          availability [biometrics|device-owner]
                                               canEvaluatePolicy only: prints the result, the error and biometryType
        """

    static func fail(_ message: String) -> Never {
        print(message)
        print(usage)
        exit(64)
    }

    static func run(_ arguments: [String]) {
        guard let step = arguments.first else { fail("missing step") }

        switch step {
        case "auth":
            let viewController = DemoTouchIDViewController()
            viewController.authByTouchID()
            // An iOS app goes back to its run loop here; the reply and the blocks it queues on the
            // main queue / main OperationQueue run later. A command-line program must keep the
            // main queue serviced itself: dispatchMain() does that, and once the reply has
            // returned we queue exit behind everything the reply queued.
            viewController.pendingReplies.notify(queue: .main) {
                OperationQueue.main.addOperation { exit(0) }
            }
            // Watchdog so a reply that never comes fails the step instead of hanging a test.
            DispatchQueue.main.asyncAfter(deadline: .now() + 60) {
                print("timeout: no reply within 60 s")
                exit(2)
            }
            dispatchMain()

        case "availability":
            let policy: LAPolicy
            switch arguments.dropFirst().first ?? "biometrics" {
            case "biometrics": policy = .deviceOwnerAuthenticationWithBiometrics
            case "device-owner": policy = .deviceOwnerAuthentication
            case let other: fail("unknown policy \(other)")
            }
            let context = LAContext()
            var error: NSError?
            let available = context.canEvaluatePolicy(policy, error: &error)
            print("policy: \(policy == .deviceOwnerAuthentication ? "deviceOwnerAuthentication" : "deviceOwnerAuthenticationWithBiometrics") (\(policy.rawValue))")
            print("canEvaluatePolicy: \(available)")
            print("error: \(describe(error))")
            print("biometryType: \(name(of: context.biometryType))")

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
