#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// REFERENCE §5 (attempts, fallback, lockout), §6 (device passcode) and §8 (context lifecycle
/// and options), row by row, through the LocalAuthentication API.
@Suite("Conformance §5, §6, §8: attempts, passcode, context lifecycle")
struct ConformanceEvaluationTests {
    // MARK: §5 Touch ID

    @Test("§5 the fallback button appears after the first failed match")
    func fallbackAfterFirstFailure() async throws {
        let sim = try TestDevice()
        // Fallback before any failure is not offered: a scripting mistake, not an app error.
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.fallback]) == .systemCancel)
        #expect(sim.scriptingMistakes.count == 1)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .fallback]) == .userFallback)
    }

    @Test("§5 the empty fallback title hides the button; nil shows the default")
    func fallbackTitle() async throws {
        let sim = try TestDevice()
        let hidden = sim.makeLAContext()
        hidden.localizedFallbackTitle = ""
        #expect(hidden.localizedFallbackTitle == "")
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .fallback], on: hidden) == .systemCancel,
                "the hidden fallback button cannot be pressed")
        #expect(sim.scriptingMistakes.count == 1)
        sim.user.clear()
        let shown = sim.makeLAContext()
        #expect(shown.localizedFallbackTitle == nil)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .fallback], on: shown) == .userFallback)
        shown.localizedCancelTitle = "Not now"
        #expect(shown.localizedCancelTitle == "Not now")
    }

    @Test("§5 Touch ID: 3 failures end policy 1 with authenticationFailed; policy 2 switches to the passcode")
    func threeFailures() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        let owner = try TestDevice()
        #expect(try await owner.evaluatePolicy(.deviceOwnerAuthentication, .failures(3) + [.passcode("1234")]) == nil)
    }

    @Test("§5 five consecutive failures across contexts and apps lock biometry device-wide")
    func lockoutAcrossApps() async throws {
        let sim = try TestDevice()
        let other = sim.authenticator.forApp("com.example.other")
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        sim.user.enqueue(.failures(2))
        do {
            _ = try await LAContext(authenticator: other).evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "x")
            Issue.record("expected lockout")
        } catch let error as LAError {
            #expect(error.code == .biometryLockout)
        }
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -8)
        // Policy 2 goes straight to the passcode, which clears the lockout.
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, [.passcode("1234")]) == nil)
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == nil)
    }

    @Test("§5 the fifth failure under policy 2 switches to the passcode")
    func lockoutUnderDeviceOwner() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, .failures(2) + [.passcode("1234")]) == nil)
    }

    @Test("§5 a successful match resets the consecutive-failure count")
    func matchResets() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2) + [.present("thumb")]) == nil)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == nil)
    }

    @Test("§5 Face ID: after two failures only Cancel and fallback remain; policy 2 goes to the passcode")
    func faceID() async throws {
        let sim = try TestDevice(sensor: "sim.faceid", enrolled: ["alice"])
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2) + [.cancel]) == .userCancel)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .present("alice")]) == nil)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2) + [.fallback]) == .userFallback)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, .failures(2) + [.passcode("1234")]) == nil)
    }

    @Test("§5 Optic ID behaves like Face ID")
    func opticID() async throws {
        let sim = try TestDevice(sensor: "sim.opticid", enrolled: ["eye"])
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2) + [.cancel]) == .userCancel)
    }

    // MARK: §6 Device passcode

    @Test("§6 wrong passcodes escalate delays; during a delay entries are refused without counting")
    func passcodeLadder() async throws {
        let sim = try TestDevice(enrolled: [])
        let wrong = (1...5).map { UserAction.passcode("000\($0)") }
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, wrong + [.cancel]) == .userCancel)
        var status = try sim.device.passcodeStatus()
        #expect(status.failures == 5)
        #expect(status.delayRemaining == .seconds(60))
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, [.passcode("1234"), .cancel]) == .userCancel)
        #expect(try sim.device.passcodeStatus().failures == 5)
        sim.clock.advance(by: .seconds(60))
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, [.passcode("0006"), .cancel]) == .userCancel)
        status = try sim.device.passcodeStatus()
        #expect(status.delayRemaining == .seconds(300))
        sim.clock.advance(by: .seconds(300))
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, [.passcode("1234")]) == nil)
        #expect(try sim.device.passcodeStatus().failures == 0)
    }

    @Test("§6 the same wrong passcode twice in a row counts once")
    func repeatNotCounted() async throws {
        let sim = try TestDevice(enrolled: [])
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, [.passcode("1111"), .passcode("1111"), .cancel]) == .userCancel)
        #expect(try sim.device.passcodeStatus().failures == 1)
    }

    @Test("§6 after ten wrong passcodes every evaluation fails at once with authenticationFailed")
    func disabled() async throws {
        let sim = try TestDevice(enrolled: [])
        for attempt in 1...10 {
            _ = try await sim.evaluatePolicy(.deviceOwnerAuthentication, [.passcode(String(format: "%04d", attempt)), .cancel])
            sim.user.clear()
            sim.clock.advance(by: .seconds(3_600))
        }
        #expect(try sim.device.passcodeStatus().isDisabled)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, []) == .authenticationFailed)
    }

    // MARK: §8 Context lifecycle and options

    @Test("§8 invalidate twice is harmless")
    func invalidateTwice() async throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        context.invalidate()
        context.invalidate()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [], on: context) == .invalidContext)
        #expect(!context.setCredential(Data("x".utf8), type: .applicationPassword))
    }

    @Test("§8 invalidate() from the app during an evaluation ends it with appCancel")
    func invalidateDuringEvaluation() async throws {
        let sim = try TestDevice()
        sim.user.waitsForActions = true
        let context = sim.makeLAContext()
        let evaluation = Task { try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [], on: context) }
        await sim.untilEvaluationIsOnScreen()
        context.invalidate()
        #expect(try await evaluation.value == .appCancel)
    }

    @Test("§8 a second evaluation ends the first with systemCancel")
    func secondEvaluation() async throws {
        let sim = try TestDevice()
        sim.user.waitsForActions = true
        let first = Task { try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, []) }
        await sim.untilEvaluationIsOnScreen()
        let second = Task { try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, []) }
        #expect(try await first.value == .systemCancel)
        sim.user.enqueue(.present("thumb"))
        #expect(try await second.value == nil)
    }

    @Test("§8 interactionNotAllowed: notInteractive for evaluations, errSecInteractionNotAllowed for keychain reads")
    func interactionNotAllowed() async throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        context.interactionNotAllowed = true
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, [], on: context) == .notInteractive)
        let status = await sim.blocking { () -> OSStatus in
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil)
            SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                        kSecAttrAccount as String: "a", kSecValueData as String: Data("v".utf8),
                        kSecAttrAccessControl as String: access as Any] as CFDictionary, nil)
            var result: CFTypeRef?
            return SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                        kSecAttrAccount as String: "a", kSecReturnData as String: true,
                                        kSecUseAuthenticationContext as String: context] as CFDictionary, &result)
        }
        #expect(status == errSecInteractionNotAllowed)
    }

    @Test("§8 reuse duration: default 0, clamped to LATouchIDAuthenticationMaximumAllowableReuseDuration")
    func reuseDurationClamp() throws {
        let context = try TestDevice().makeLAContext()
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 0)
        #expect(LATouchIDAuthenticationMaximumAllowableReuseDuration == 300)
        context.touchIDAuthenticationAllowableReuseDuration = 1000
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 300)
        context.touchIDAuthenticationAllowableReuseDuration = .infinity
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 300)
        context.touchIDAuthenticationAllowableReuseDuration = -1
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 0)
        context.touchIDAuthenticationAllowableReuseDuration = .nan
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 0)
        context.touchIDAuthenticationAllowableReuseDuration = 2.5
        #expect(context.touchIDAuthenticationAllowableReuseDuration == 2.5)
    }

    @Test("§8 within the reuse window after a biometric device unlock no new scan is needed")
    func reuseWindow() async throws {
        let sim = try TestDevice()
        try sim.device.unlock(with: "thumb")
        sim.clock.advance(by: .seconds(2))
        let context = sim.makeLAContext()
        context.touchIDAuthenticationAllowableReuseDuration = 5
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [], on: context) == nil)
        #expect(context.evaluatedPolicyDomainState != nil)
        sim.clock.advance(by: .seconds(10))
        let later = sim.makeLAContext()
        later.touchIDAuthenticationAllowableReuseDuration = 5
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.present("thumb")], on: later) == nil)
        let noReuse = sim.makeLAContext()
        try sim.device.unlock(with: "thumb")
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.present("thumb")], on: noReuse) == nil)
    }

    @Test("§8 setCredential / isCredentialSet; nil removes; smartCardPIN is not simulated")
    func credentials() throws {
        let context = try TestDevice().makeLAContext()
        #expect(!context.isCredentialSet(.applicationPassword))
        #expect(context.setCredential(Data("pw".utf8), type: .applicationPassword))
        #expect(context.isCredentialSet(.applicationPassword))
        #expect(context.setCredential(nil, type: .applicationPassword))
        #expect(!context.isCredentialSet(.applicationPassword))
        #expect(LACredentialType.applicationPassword.rawValue == 0)
        #expect(!context.setCredential(Data("1234".utf8), type: .smartCardPIN))
    }

    @Test("§8 LAAccessControlOperation raw values")
    func operationRawValues() {
        #expect(LAAccessControlOperation.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(LAAccessControlOperation.createItem.rawValue == 0)
        #expect(LAAccessControlOperation.useItem.rawValue == 1)
        #expect(LAAccessControlOperation.useKeyKeyExchange.rawValue == 5)
    }

    @Test("§8 evaluateAccessControl, then the keychain opens the item without asking again")
    func evaluateAccessControlGrants() async throws {
        let sim = try TestDevice()
        let (evaluated, status, value) = await sim.blocking { () -> (Bool, OSStatus, Data?) in
            guard let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                                                               .biometryCurrentSet, nil) else { return (false, errSecParam, nil) }
            SecItemAdd([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                        kSecAttrAccount as String: "a", kSecValueData as String: Data("v".utf8),
                        kSecAttrAccessControl as String: access] as CFDictionary, nil)
            let context = LAContext()
            sim.user.enqueue(.present("thumb"))
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var ok = false
            context.evaluateAccessControl(access, operation: .useItem, localizedReason: "Unlock") { success, _ in
                ok = success
                done.signal()
            }
            done.wait()
            // No outcome queued: a second prompt would fail the read.
            var result: CFTypeRef?
            let status = SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "s",
                                              kSecAttrAccount as String: "a", kSecReturnData as String: true,
                                              kSecUseAuthenticationContext as String: context] as CFDictionary, &result)
            return (ok, status, result as? Data)
        }
        #expect(evaluated)
        #expect(status == errSecSuccess)
        #expect(value == Data("v".utf8))
    }

    @Test("§8 evaluateAccessControl async form throws the LAError")
    func evaluateAccessControlAsync() async throws {
        let sim = try TestDevice(enrolled: [])
        let access = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .biometryAny, nil))
        do {
            _ = try await sim.makeLAContext().evaluateAccessControl(access, operation: .useItem, localizedReason: "Unlock")
            Issue.record("expected biometryNotEnrolled")
        } catch LAError.biometryNotEnrolled {
        }
        sim.user.enqueue(.passcode("1234"))
        let presence = try #require(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, .userPresence, nil))
        #expect(try await sim.makeLAContext().evaluateAccessControl(presence, operation: .useItem, localizedReason: "Unlock"))
    }
}
#endif
