// Seed004CachedState — port of seed `004_f18b284647fec9be.txt`, 《生物识别文档》: permission check
// (方法1 canEvaluatePolicy / 方法2 evaluatePolicy directly), the error-code table, the
// cacheState check (5.1: nil = off, equal = usable, different = changed → clear and re-enable),
// the direct evaluation (5.2) and the handling of failures (5.3: cancel / permission / lockout
// categories; 5.4: the authenticationFailed and userFallback callbacks).
//
// The article is a design note with API signatures but no code; this is the Swift an iOS
// developer writes from it. Changes / choices, one line each:
// - `import Foundation` + `import LocalAuthentication` (which also provides SecItem*/kSec* on Linux); no UIKit.
// - `cacheState` lives in the keychain through a small SecItem* helper (a real app keeps it across launches; here each run is a new process).
// - The current domain state for 5.1 is read through a fresh context's canEvaluatePolicy; while biometry is locked out (or not available to the app) it cannot be read, so the check answers `unknown` and keeps the cache instead of calling that a change.
// - "引导用户到设置开启" (open Settings) and "APP写弹窗提示" (alert) → print(); "解锁流程" (unlock flow) → evaluatePolicy(.deviceOwnerAuthentication), which asks for the passcode and so clears the lockout.
// - The error switch uses the article's names, including the deprecated kLAErrorTouchID* ones (`.touchIDNotAvailable`, `.touchIDNotEnrolled`, `.touchIDLockout`) next to `.biometryLockout`.
// - Swift 6: `BiometricLogin` is a `final class ...: Sendable` (no stored mutable state) and its completions are `@Sendable`.
// - The driver waits for replies with `async`/`await` (withCheckedContinuation); lines marked `[driver]` print raw outcomes.

import Foundation
import LocalAuthentication
import TouchstoneCommands  // [driver] Linux only: SQLite stores and TOUCHSTONE_SETUP

// MARK: - Keychain helper

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

// MARK: - The article's flow

final class BiometricLogin: Sendable {

    /// 5.1 三种情况 (+ unknown while the current value cannot be read).
    enum CacheCheck: Sendable {
        case notEnabled   // case1: cacheState == nil 未开启
        case enabled      // case2: cacheState == evaluatedPolicyDomainState 开启可用
        case changed      // case3: cacheState != evaluatedPolicyDomainState 开启有变更
        case unknown      // locked out / not available: the current value cannot be read
    }

    /// 5.3 / 5.4: what the app does with the result of an evaluation.
    enum Outcome: Sendable {
        case success      // 5.3.1 执行成功业务
        case cancel       // cancel类：不处理
        case permission   // 权限类：引导用户到设置开启
        case lockout      // 被锁：执行解锁流程
        case failed       // 5.4.1 验证失败：APP弹窗提示
        case fallback     // 5.4.2 点击fallback按钮：自定义fallback业务
        case other
    }

    static let service = "BiometricLogin"
    static let cacheAccount = "cacheState"

    /// 缓存 cacheState (the evaluatedPolicyDomainState saved when the user turned biometrics on).
    var cacheState: Data? {
        get { KeychainHelper.passwordData(forService: Self.service, account: Self.cacheAccount) }
        set {
            if let newValue {
                KeychainHelper.setPasswordData(newValue, forService: Self.service, account: Self.cacheAccount)
            } else {
                KeychainHelper.deletePassword(forService: Self.service, account: Self.cacheAccount)
            }
        }
    }

    // 1. 权限获取 — 方法1: canEvaluatePolicy
    func canUseBiometrics() -> (available: Bool, error: NSError?, biometryType: LABiometryType) {
        let context = LAContext()
        var error: NSError?
        let available = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
        // 有权限：error为nil 或者 返回值为true; 无权限：error非空 或者 返回值为false
        return (available && error == nil, error, context.biometryType)
    }

    // 5.1 校验生物识别更改
    func checkCacheState() -> CacheCheck {
        guard let cacheState else {
            return .notEnabled
        }
        let context = LAContext()
        var error: NSError?
        if !context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error),
           let code = error.flatMap({ LAError.Code(rawValue: $0.code) }),
           code == .biometryLockout || code == .biometryNotAvailable {
            return .unknown
        }
        if context.evaluatedPolicyDomainState == cacheState {
            return .enabled
        }
        // 开启有变更,将cacheState置空让用户重新开启
        self.cacheState = nil
        return .changed
    }

    // 开启: the first biometric evaluation stores the state (5.1 case1 → case2)
    func enable(completion: @escaping @Sendable (Outcome, (any Error)?) -> Void) {
        let context = LAContext()
        context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "开启生物识别登录") { success, error in
            if success {
                self.cacheState = context.evaluatedPolicyDomainState
                completion(.success, nil)
            } else {
                completion(self.outcome(for: error), error)
            }
        }
    }

    // 5.2 调用生物识别: 直接调用 evaluatePolicy (方法2 doubles as the permission check)
    func authenticate(completion: @escaping @Sendable (Outcome, (any Error)?) -> Void) {
        let context = LAContext()
        context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "使用生物识别登录") { success, error in
            if success {
                completion(.success, nil)  // 5.3.1
            } else {
                completion(self.outcome(for: error), error)  // 5.3.2
            }
        }
    }

    // 5.3.2 / 5.4: 处理error
    func outcome(for error: (any Error)?) -> Outcome {
        guard let error = error as? LAError else {
            return .other
        }
        switch error.code {
        case .userCancel, .systemCancel, .appCancel:
            return .cancel
        case .passcodeNotSet, .touchIDNotAvailable, .touchIDNotEnrolled:
            return .permission
        case .touchIDLockout, .biometryLockout:
            return .lockout
        case .authenticationFailed:
            return .failed
        case .userFallback:
            return .fallback
        default:
            return .other
        }
    }

    // 解锁流程: the device passcode clears the biometry lockout
    func unlock(completion: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        let context = LAContext()
        context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "输入密码以重新启用生物识别", reply: completion)
    }

    /// What the app does for each outcome (UI replaced by print).
    func handle(_ outcome: Outcome, completion: @escaping @Sendable () -> Void) {
        switch outcome {
        case .success:
            print("action: login succeeded")
            completion()
        case .cancel:
            print("action: none (cancelled)")
            completion()
        case .permission:
            print("action: ask the user to enable biometrics in Settings")
            completion()
        case .failed:
            print("action: alert \"验证失败\"")
            completion()
        case .fallback:
            print("action: show the app's own password login")
            completion()
        case .other:
            print("action: none")
            completion()
        case .lockout:
            print("action: unlock flow (device passcode)")
            unlock { success, error in
                print("[driver] unlock: success=\(success) error=\(describe(error))")
                print(success ? "unlock: biometrics available again" : "unlock: still locked")
                completion()
            }
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

func name(of outcome: BiometricLogin.Outcome) -> String {
    switch outcome {
    case .success: return "success"
    case .cancel: return "cancel"
    case .permission: return "permission"
    case .lockout: return "lockout"
    case .failed: return "failed"
    case .fallback: return "fallback"
    case .other: return "other"
    }
}

func name(of check: BiometricLogin.CacheCheck) -> String {
    switch check {
    case .notEnabled: return "not-enabled"
    case .enabled: return "unchanged"
    case .changed: return "changed"
    case .unknown: return "unknown"
    }
}

/// Lower-case hex of an opaque domain-state blob, or "nil".
func hex(_ data: Data?) -> String {
    guard let data else { return "nil" }
    return data.map { String(format: "%02x", $0) }.joined()
}

enum Driver {
    static let usage = """
        usage: Seed004CachedState <step>
          availability     方法1: canEvaluatePolicy (biometrics); prints available, error, biometryType
          enable           evaluate (biometrics) and cache evaluatedPolicyDomainState
          check            5.1: last line not-enabled | unchanged | changed | unknown (changed also clears the cache)
          login            5.1 then 5.2–5.4: evaluate, classify the error, act (lockout runs the unlock flow)
          unlock           the unlock flow alone (deviceOwnerAuthentication)
          disable          forget cacheState
          cached-state     print cacheState as hex
        """

    static func fail(_ message: String) -> Never {
        print(message)
        print(usage)
        exit(64)
    }

    static func run(_ arguments: [String]) async {
        guard let step = arguments.first else { fail("missing step") }
        let login = BiometricLogin()

        // An iOS app calls these from a button action and returns to its run loop; the
        // completion arrives later. A command-line step has to wait for it before exiting:
        // bridge each completion into async/await. Watchdog so a reply that never comes fails
        // the step instead of hanging a test.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) {
            print("timeout: no reply within 60 s")
            exit(2)
        }

        switch step {
        case "availability":
            let (available, error, biometryType) = login.canUseBiometrics()
            print("canEvaluatePolicy: \(available)")
            print("error: \(describe(error))")
            print("biometryType: \(name(of: biometryType))")
            print(available ? "permission: granted" : "permission: denied")

        case "enable":
            let (outcome, error) = await withCheckedContinuation { continuation in
                login.enable { outcome, error in continuation.resume(returning: (outcome, error)) }
            }
            print("[driver] error: \(describe(error))")
            print("outcome: \(name(of: outcome))")
            print("cacheState: \(hex(login.cacheState))")

        case "check":
            print(name(of: login.checkCacheState()))

        case "login":
            let check = login.checkCacheState()
            print("check: \(name(of: check))")
            switch check {
            case .notEnabled:
                print("action: biometric login is off; sign in with the password")
                return
            case .changed:
                print("action: biometrics changed; cacheState cleared; sign in with the password and enable again")
                return
            case .enabled, .unknown:
                break
            }
            let (outcome, error) = await withCheckedContinuation { continuation in
                login.authenticate { outcome, error in continuation.resume(returning: (outcome, error)) }
            }
            print("[driver] error: \(describe(error))")
            print("outcome: \(name(of: outcome))")
            await withCheckedContinuation { continuation in
                login.handle(outcome) { continuation.resume() }
            }

        case "unlock":
            let (success, error) = await withCheckedContinuation { continuation in
                login.unlock { success, error in continuation.resume(returning: (success, error)) }
            }
            print("[driver] unlock: success=\(success) error=\(describe(error))")

        case "disable":
            login.cacheState = nil
            print("cacheState: \(hex(login.cacheState))")

        case "cached-state":
            print("cacheState: \(hex(login.cacheState))")

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
await Driver.run(Array(CommandLine.arguments.dropFirst()))
