// Seed002DomainStateLogin — the command-line driver (not part of the article): the replies it
// waits for, outcomes printed by name, and the steps it runs.

import Foundation
import LocalAuthentication

// MARK: - Command-line driver (not part of the article)

/// [driver] Every evaluation enters this group and its reply leaves it, so the command-line
/// driver can wait for the replies before the process exits.
enum Replies {
    static let pending = DispatchGroup()
}

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
