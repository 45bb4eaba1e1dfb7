#if !canImport(Darwin)
import Foundation
import Testing

private let ready = "passcode set 1234; enroll thumb"
private let lockedOut = "evaluate biometrics nomatch nomatch nomatch; evaluate biometrics nomatch nomatch"

/// Seed 000, the Touch ID manager: per-identity domain state in the keychain, change detection
/// with the lockout exception, biometrics with fallback, lockout → passcode retry.
@Suite("Seed000TouchIDManager scenarios")
struct Seed000Tests {
    @Test("enrollment change: saved state, unchanged, then changed after enrolling a finger")
    func enrollmentChange() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        #expect(try seed.run("save-state", "alice", setup: ready) == ["identity: alice", "setCurrentIdentityTouchIdData: true"])
        #expect(try seed.run("check-change", "alice").last == "unchanged")
        #expect(try seed.run("check-change", "alice", setup: "enroll index").suffix(2) == ["touchIdInfoDidChange: true", "changed"])
    }

    @Test("add then remove a finger: unchanged; another identity: not-set")
    func addRemoveAndIdentity() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        try seed.run("save-state", "alice", setup: ready)
        #expect(try seed.run("check-change", "alice", setup: "enroll index; unenroll index").last == "unchanged")
        #expect(try seed.run("check-change", "bob").suffix(2) == ["touchIdInfoDidChange: false", "not-set"])
    }

    @Test("lockout is not a change (unknown); removing every finger is")
    func lockoutAndRemoval() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        try seed.run("save-state", "alice", setup: ready)
        #expect(try seed.run("check-change", "alice", setup: lockedOut) == [
            "identity: alice",
            "errorMsg:Authentication was not successful, because there were too many failed biometry attempts and biometry is now locked",
            "touchIdInfoDidChange: false", "unknown",
        ])
        #expect(try seed.run("is-lockout") == ["isErrorTouchIDLockout: true"])
        #expect(try seed.run("check-change", "alice", setup: "passcode enter 1234; unenroll thumb") == [
            "identity: alice",
            "errorMsg:Authentication could not start, because biometry has no enrolled identities",
            "touchIdInfoDidChange: true", "changed",
        ])
    }

    @Test("authenticate: success, three failures, fallback")
    func authenticate() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        #expect(try seed.run("authenticate", setup: ready, outcomes: "thumb").last == "resultBlock: useable=true success=true error=nil")
        #expect(try seed.run("authenticate", outcomes: "nomatch,nomatch,nomatch") == [
            "localizedFallbackTitle: nil",
            "errorMsg:Authentication was not successful, because user failed to provide valid credentials",
            "resultBlock: useable=true success=false error=authenticationFailed (-1)",
        ])
        #expect(try seed.run("authenticate", "--fallback-title", "输入密码", outcomes: "nomatch,fallback") == [
            "localizedFallbackTitle: \"输入密码\"",
            "errorMsg:Authentication was canceled, because the user tapped the fallback button",
            "fallbackBlock: show the app's own password screen",
        ])
    }

    @Test("lockout → passcode: the seed's retry with deviceOwnerAuthentication clears the lockout")
    func lockoutRetry() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        #expect(try seed.run("authenticate", setup: ready, outcomes: "nomatch,nomatch,nomatch").last
                == "resultBlock: useable=true success=false error=authenticationFailed (-1)")
        let retry = try seed.run("authenticate", outcomes: "nomatch,nomatch,passcode:1234")
        #expect(retry.contains("errorMsg:Authentication was not successful, because there were too many failed biometry attempts and biometry is now locked"))
        #expect(retry.last == "resultBlock: useable=true success=true error=nil")
        #expect(try seed.run("is-lockout") == ["isErrorTouchIDLockout: false"])
    }

    @Test("already locked: can-evaluate fails, the passcode prompt runs; cancel there is userCancel")
    func alreadyLocked() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        try seed.run("is-lockout", setup: ready + "; " + lockedOut)
        let cancelled = try seed.run("authenticate", outcomes: "cancel")
        #expect(cancelled.contains("resultBlock: useable=true success=false error=userCancel (-2)"))
        #expect(try seed.run("authenticate", outcomes: "passcode:1234").contains("resultBlock: useable=true success=true error=nil"))
    }

    @Test("no passcode: passcodeNotSet, useable=false")
    func noPasscode() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        #expect(try seed.run("authenticate", setup: "enroll thumb") == [
            "localizedFallbackTitle: nil",
            "errorMsg:Authentication could not start, because passcode is not set on the device",
            "resultBlock: useable=false success=false error=passcodeNotSet (-5)",
        ])
    }
}

/// Seed 001, the availability check and the two error switches.
@Suite("Seed001Availability scenarios")
struct Seed001Tests {
    @Test("success, cancel, three failures, fallback, system cancel")
    func evaluation() throws {
        let seed = try SeedHarness("Seed001Availability")
        defer { seed.remove() }
        #expect(try seed.run("auth", setup: ready, outcomes: "thumb") == [
            "[driver] canEvaluatePolicy: true error=nil biometryType=touchID",
            "[driver] reply: success=true error=nil",
            "Authentication success",
        ])
        #expect(try seed.run("auth", outcomes: "cancel").last == "Authentication was cancelled by the user")
        #expect(try seed.run("auth", outcomes: "nomatch,nomatch,nomatch").last
                == "Authentication was not successful, because user failed to provide valid credentials")
        #expect(try seed.run("auth", outcomes: "nomatch,fallback").last == "User selected to enter custom password")
        let system = try seed.run("auth", outcomes: "systemcancel")
        #expect(system.contains("[driver] reply: success=false error=systemCancel (-4)"))
        #expect(system.last == "Authentication was cancelled by the system")
    }

    @Test("can-evaluate errors: not enrolled, no passcode, locked, not available")
    func availability() throws {
        let seed = try SeedHarness("Seed001Availability")
        defer { seed.remove() }
        #expect(try seed.run("auth", setup: "passcode set 1234").contains("TouchID is not  "))
        #expect(try seed.run("availability", setup: "passcode clear; enroll thumb").contains("error: passcodeNotSet (-5)"))
        #expect(try seed.run("auth").contains("A passcode has not been set"))
        #expect(try seed.run("auth", setup: "passcode set 1234; " + lockedOut).contains("LAErrorTouchIDLockout"))
        #expect(try seed.run("availability", "device-owner").contains("canEvaluatePolicy: true"))
        #expect(try seed.run("auth", setup: "sensor denied").contains("TouchID not available"))
        #expect(try seed.run("availability", setup: "sensor absent").suffix(2) == ["error: biometryNotAvailable (-6)", "biometryType: none"])
    }

    @Test("Face ID device: biometryType faceID")
    func faceID() throws {
        let seed = try SeedHarness("Seed001Availability", sensor: "sim.faceid")
        defer { seed.remove() }
        #expect(try seed.run("availability", setup: "passcode set 1234; enroll alice").last == "biometryType: faceID")
    }
}

/// Seed 002: the domain-state switch / verify flow, the application-password item, the reuse
/// duration, evaluateAccessControl and the biometryCurrentSet keychain variant.
@Suite("Seed002DomainStateLogin scenarios")
struct Seed002Tests {
    @Test("domain-state login: on, unchanged, changed → app sign-in → stored again")
    func domainStateLogin() throws {
        let seed = try SeedHarness("Seed002DomainStateLogin")
        defer { seed.remove() }
        let on = try seed.run("switch-on", setup: ready, outcomes: "thumb")
        #expect(on.contains("touchIdSwitch: on"))
        #expect(on.last?.hasPrefix("policyDomainState: ") == true && on.last != "policyDomainState: nil")
        #expect(try seed.run("verify", outcomes: "thumb").suffix(2) == ["[driver] domainState: unchanged", "验证通过!"])
        #expect(try seed.run("verify", "--app-auth-fails", setup: "enroll index", outcomes: "index").suffix(2)
                == ["指纹发生变化,请进行后续验证步骤", "[driver] doAppAuthentication: false"])
        #expect(try seed.run("verify", outcomes: "index").suffix(3)
                == ["指纹发生变化,请进行后续验证步骤", "[driver] doAppAuthentication: true", "验证通过!"])
        #expect(try seed.run("verify", outcomes: "thumb").suffix(2) == ["[driver] domainState: unchanged", "验证通过!"])
        #expect(try seed.run("switch-off") == ["touchIdSwitch: off", "policyDomainState: nil"])
    }

    @Test("cannot turn on without enrolled fingers")
    func cannotTurnOn() throws {
        let seed = try SeedHarness("Seed002DomainStateLogin")
        defer { seed.remove() }
        #expect(try seed.run("switch-on", setup: "passcode set 1234") == ["Touch ID/Face ID不可用", "touchIdSwitch: off", "policyDomainState: nil"])
        #expect(try seed.run("verify") == ["touchIdSwitch: off"])
    }

    @Test("application password: write, read, wrong password, duplicate")
    func applicationPassword() throws {
        let seed = try SeedHarness("Seed002DomainStateLogin")
        defer { seed.remove() }
        #expect(try seed.run("app-password-write", "123456", setup: ready) == ["[driver] SecItemAdd: errSecSuccess (0)", "Item stored to keychain"])
        #expect(try seed.run("app-password-read", "123456").last == "data = 要写入的数据")
        #expect(try seed.run("app-password-read", "000000").suffix(2) == ["[driver] SecItemCopyMatching: errSecAuthFailed (-25293)", "密码错误,无法访问"])
        #expect(try seed.run("app-password-write") == ["[driver] SecItemAdd: errSecDuplicateItem (-25299)"])
    }

    @Test("reuse window: no scan within it, a scan after it, clamped to 300 s")
    func reuse() throws {
        let seed = try SeedHarness("Seed002DomainStateLogin")
        defer { seed.remove() }
        // t=0 unlock, t=2: no capture scripted, still succeeds.
        #expect(try seed.run("reuse", "5", setup: ready + "; unlock thumb; clock advance 2s").suffix(2)
                == ["[driver] reply: success=true error=nil", "验证成功"])
        // reuse 0 needs a capture.
        #expect(try seed.run("reuse", "0", outcomes: "thumb").last == "验证成功")
        // t=10: outside the 5 s window, a capture is needed.
        #expect(try seed.run("reuse", "5", setup: "clock advance 8s", outcomes: "thumb").last == "验证成功")
        #expect(try seed.run("reuse", "1000").first == "[driver] touchIDAuthenticationAllowableReuseDuration: 300.0 (maximum 300.0)")
        #expect(try seed.run("reuse", "max").first == "[driver] touchIDAuthenticationAllowableReuseDuration: 300.0 (maximum 300.0)")
    }

    @Test("evaluateAccessControl: biometryAny, userPresence with the passcode, or with and rejected")
    func accessControl() throws {
        let seed = try SeedHarness("Seed002DomainStateLogin")
        defer { seed.remove() }
        #expect(try seed.run("access-control", "biometryAny", setup: ready, outcomes: "thumb") == ["[driver] evaluateAccessControl: success=true error=nil"])
        #expect(try seed.run("access-control", "userPresence", setup: "unenroll thumb", outcomes: "passcode:1234")
                == ["[driver] evaluateAccessControl: success=true error=nil"])
        #expect(try seed.run("access-control", "biometryAny") == ["[driver] evaluateAccessControl: success=false error=biometryNotEnrolled (-7)"])
        #expect(try seed.run("access-control", "or-and").first?.hasPrefix("[driver] SecAccessControlCreateWithFlags: nil error=") == true)
    }

    @Test("keychain change detection: biometryCurrentSet item, unchanged, changed; the seed's re-add is errSecDuplicateItem as on iOS (the invalidated item lingers)")
    func keychainChangeDetection() throws {
        let seed = try SeedHarness("Seed002DomainStateLogin")
        defer { seed.remove() }
        #expect(try seed.run("keychain-switch-on", setup: ready)
                == ["[driver] SecItemAdd: errSecSuccess (0)", "开启指纹验证成功", "keychainTouchIdSwitch: on"])
        #expect(try seed.run("keychain-verify", outcomes: "thumb").suffix(3)
                == ["[driver] SecItemCopyMatching: errSecSuccess (0)", "[driver] keychainItem: unchanged", "验证通过"])
        #expect(try seed.run("keychain-verify", setup: "enroll index", outcomes: "thumb").suffix(6) == [
            "[driver] SecItemCopyMatching: errSecItemNotFound (-25300)", "[driver] keychainItem: changed",
            "Touch ID/Face ID发生变化,请进行后续验证步骤", "[driver] doAppAuthentication: true",
            "[driver] SecItemAdd: errSecDuplicateItem (-25299)", "验证通过",
        ])
        #expect(try seed.run("keychain-switch-on")
                == ["[driver] SecItemAdd: errSecDuplicateItem (-25299)", "开启指纹验证失败", "keychainTouchIdSwitch: off"])
    }

    @Test("passcode removal: whenPasscodeSetThisDeviceOnly item; no passcode, no item")
    func passcodeRemoval() throws {
        let seed = try SeedHarness("Seed002DomainStateLogin")
        defer { seed.remove() }
        #expect(try seed.run("keychain-switch-on", "--when-passcode-set", setup: ready).first == "[driver] SecItemAdd: errSecSuccess (0)")
        #expect(try seed.run("keychain-verify", "--when-passcode-set", setup: "passcode clear")
                == ["keychainTouchIdSwitch: on", "[driver] evaluateAccessControl: success=false error=passcodeNotSet (-5)"])
        // Its kSecAttrAccessControl cannot be bound without a passcode: errSecAuthFailed, as on iOS.
        #expect(try seed.run("keychain-switch-on", "--when-passcode-set").first == "[driver] SecItemAdd: errSecAuthFailed (-25293)")
    }
}

/// Seed 004: the cached-state check and the error categories.
@Suite("Seed004CachedState scenarios")
struct Seed004Tests {
    @Test("cached state: enable, unchanged, changed (cleared), not-enabled")
    func cachedState() throws {
        let seed = try SeedHarness("Seed004CachedState")
        defer { seed.remove() }
        let enable = try seed.run("enable", setup: ready, outcomes: "thumb")
        #expect(enable.contains("outcome: success"))
        #expect(try seed.run("check") == ["unchanged"])
        #expect(try seed.run("login", outcomes: "thumb").suffix(2) == ["outcome: success", "action: login succeeded"])
        #expect(try seed.run("check", setup: "enroll index") == ["changed"])
        #expect(try seed.run("check") == ["not-enabled"])
    }

    @Test("categories: cancel, failed, fallback, system cancel")
    func categories() throws {
        let seed = try SeedHarness("Seed004CachedState")
        defer { seed.remove() }
        try seed.run("enable", setup: ready, outcomes: "thumb")
        #expect(try seed.run("login", outcomes: "cancel").suffix(2) == ["outcome: cancel", "action: none (cancelled)"])
        #expect(try seed.run("login", outcomes: "nomatch,nomatch,nomatch").suffix(2) == ["outcome: failed", "action: alert \"验证失败\""])
        #expect(try seed.run("login", outcomes: "thumb").last == "action: login succeeded")
        #expect(try seed.run("login", outcomes: "nomatch,fallback").suffix(2) == ["outcome: fallback", "action: show the app's own password login"])
        #expect(try seed.run("login", outcomes: "systemcancel").suffix(3)
                == ["[driver] error: systemCancel (-4)", "outcome: cancel", "action: none (cancelled)"])
    }

    @Test("lockout and unlock: the fifth failure locks, the unlock flow's passcode clears it")
    func lockoutAndUnlock() throws {
        let seed = try SeedHarness("Seed004CachedState")
        defer { seed.remove() }
        try seed.run("enable", setup: ready, outcomes: "thumb")
        #expect(try seed.run("login", outcomes: "nomatch,nomatch,nomatch").contains("outcome: failed"))
        #expect(try seed.run("login", outcomes: "nomatch,nomatch,passcode:1234") == [
            "check: unchanged", "[driver] error: biometryLockout (-8)", "outcome: lockout",
            "action: unlock flow (device passcode)", "[driver] unlock: success=true error=nil",
            "unlock: biometrics available again",
        ])
        #expect(try seed.run("check") == ["unchanged"])
    }

    @Test("locked before login: unknown keeps the cache; permission when the app is not allowed")
    func lockedAndPermission() throws {
        let seed = try SeedHarness("Seed004CachedState")
        defer { seed.remove() }
        try seed.run("enable", setup: ready, outcomes: "thumb")
        #expect(try seed.run("check", setup: lockedOut) == ["unknown"])
        #expect(try seed.run("login", outcomes: "passcode:1234").suffix(3)
                == ["action: unlock flow (device passcode)", "[driver] unlock: success=true error=nil", "unlock: biometrics available again"])
        #expect(try seed.run("login", setup: "sensor denied").suffix(4) == [
            "check: unknown", "[driver] error: biometryNotAvailable (-6)", "outcome: permission",
            "action: ask the user to enable biometrics in Settings",
        ])
        #expect(try seed.run("check", setup: "unenroll thumb") == ["changed"])
    }
}
#endif
