import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// REFERENCE §5 (when the passcode is required to unlock) and §9 (data-protection classes
/// against the device's lock state).
@Suite("Device lock state and data protection (REFERENCE §5, §9)")
struct LockStateTests {
    func access(_ accessibility: Accessibility) throws -> AccessControl { try AccessControl(accessibility) }

    func status(_ body: () async throws -> Void) async -> Int32 {
        do {
            try await body()
            return 0
        } catch let error as KeychainError {
            return error.status.rawValue
        } catch {
            return 1
        }
    }

    @Test("§9 whenUnlocked items read only while unlocked; afterFirstUnlock items after the first unlock since restart (errSecInteractionNotAllowed)")
    func dataProtectionClasses() async throws {
        let rig = try TestDevice()
        let keychain = rig.authenticator.keychain
        try keychain.add("u", service: "s", account: "unlocked", accessControl: access(.whenUnlocked))
        try keychain.add("p", service: "s", account: "passcode", accessControl: access(.whenPasscodeSetThisDeviceOnly))
        try keychain.add("f", service: "s", account: "first", accessControl: access(.afterFirstUnlockThisDeviceOnly))
        func read(_ account: String) async -> Int32 { await status { _ = try await keychain.read(service: "s", account: account) } }

        try rig.device.lock()
        #expect(try rig.device.lockState().isLocked)
        #expect(await read("unlocked") == -25308)
        #expect(await read("passcode") == -25308)
        #expect(await read("first") == 0)
        #expect(await status { try keychain.add("x", service: "s", account: "new", accessControl: access(.whenUnlocked)) } == -25308)

        try rig.device.restart()
        #expect(!(try rig.device.lockState().unlockedSinceRestart))
        #expect(await read("first") == -25308)
        #expect(try rig.device.enterPasscode("1234") == .accepted)
        #expect(try rig.device.lockState() == LockState(isLocked: false, unlockedSinceRestart: true, passcodeRequiredReason: nil))
        #expect(await read("unlocked") == 0)
        #expect(await read("first") == 0)
    }

    @Test("§9 a device with no passcode counts as unlocked")
    func noPasscodeCountsAsUnlocked() async throws {
        let rig = try TestDevice(passcode: nil)
        try rig.authenticator.keychain.add("u", service: "s", account: "a", accessControl: access(.whenUnlocked))
        try rig.device.lock()
        try rig.device.restart()
        #expect(try rig.device.lockState().isLocked == false)
        #expect(try await rig.authenticator.keychain.readString(service: "s", account: "a") == "u")
    }

    @Test("§5 after a restart or a remote lock a lock-screen biometric unlock needs the passcode first, so no reuse window opens")
    func restartAndRemoteLockNeedThePasscode() throws {
        for lock in [{ (device: Device) in try device.restart() }, { (device: Device) in try device.remoteLock() }] {
            let rig = try TestDevice()
            try lock(rig.device)
            #expect(throws: UsageError.self) { try rig.device.unlock(with: "thumb") }
            #expect(try rig.device.snapshot().counters.lastBiometricUnlock == nil)
            #expect(try rig.device.enterPasscode("1234") == .accepted)
            try rig.device.lock()
            try rig.device.unlock(with: "thumb")
            #expect(try rig.device.lockState().isLocked == false)
        }
    }

    @Test("§5 more than 48 hours without an unlock: the passcode is required")
    func fortyEightHours() throws {
        let rig = try TestDevice()
        try rig.device.unlock(with: "thumb")
        rig.clock.advance(by: .seconds(48 * 3600))
        try rig.device.unlock(with: "thumb")
        rig.clock.advance(by: .seconds(48 * 3600 + 1))
        #expect(throws: UsageError.self) { try rig.device.unlock(with: "thumb") }
        #expect(try rig.device.lockState().passcodeRequiredReason == "more than 48 hours since the last unlock")
    }

    @Test("§5 156 hours without a passcode unlock and 4 hours without a biometric one: the passcode is required")
    func oneHundredFiftySixAndFourHours() throws {
        let rig = try TestDevice()
        #expect(try rig.device.enterPasscode("1234") == .accepted)
        for _ in 0..<52 {            // 52 × 3 h = 156 h of daily use with biometry
            rig.clock.advance(by: .seconds(3 * 3600))
            try rig.device.unlock(with: "thumb")
        }
        rig.clock.advance(by: .seconds(3 * 3600))
        try rig.device.unlock(with: "thumb")  // 159 h since the passcode, 3 h since biometry: allowed
        rig.clock.advance(by: .seconds(4 * 3600 + 1))
        #expect(throws: UsageError.self) { try rig.device.unlock(with: "thumb") }
        #expect(try rig.device.enterPasscode("1234") == .accepted)
        try rig.device.unlock(with: "thumb")
    }

    @Test("§5 in-app biometric evaluations are not blocked by a restart (our rule)")
    func inAppEvaluationsAfterRestart() async throws {
        let rig = try TestDevice()
        try rig.device.restart()
        #expect(try await rig.outcome("biometrics", [.present("thumb")]) == nil)
    }
}
