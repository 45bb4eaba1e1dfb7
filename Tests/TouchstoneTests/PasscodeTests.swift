import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// REFERENCE §6: the device passcode and its escalating delays.
@Suite("§6 Device passcode")
struct PasscodeTests {
    /// Enters `count` distinct wrong passcodes, advancing the clock past any delay first.
    private func wrong(_ rig: TestDevice, _ count: Int, from start: Int = 0) throws {
        for index in start..<(start + count) {
            if let remaining = try rig.device.passcodeStatus().delayRemaining {
                rig.clock.advance(by: remaining)
            }
            _ = try rig.device.enterPasscode("wrong\(index)")
        }
    }

    @Test("wrong passcodes 1 to 4 impose no delay")
    func noDelayForFirstFour() throws {
        let rig = try TestDevice()
        for index in 1...4 {
            #expect(try rig.device.enterPasscode("bad\(index)") == .rejected(failures: index, delay: .zero))
            #expect(try rig.device.passcodeStatus().delayRemaining == nil)
        }
    }

    @Test("the delay ladder: 5th 1 min, 6th 5 min, 7th and 8th 15 min, 9th 1 hour, 10th disables",
          arguments: [(5, Duration.seconds(60)), (6, .seconds(300)), (7, .seconds(900)), (8, .seconds(900)), (9, .seconds(3600))])
    func delayLadder(failure: Int, delay: Duration) throws {
        let rig = try TestDevice()
        try wrong(rig, failure - 1)
        if let remaining = try rig.device.passcodeStatus().delayRemaining { rig.clock.advance(by: remaining) }
        #expect(try rig.device.passcodeStatus().nextDelay == delay)
        #expect(try rig.device.enterPasscode("wrong-final") == .rejected(failures: failure, delay: delay))
        let status = try rig.device.passcodeStatus()
        #expect(status.delayRemaining == delay)
        rig.clock.advance(by: delay - .seconds(1))
        #expect(try rig.device.passcodeStatus().delayRemaining == .seconds(1))
        rig.clock.advance(by: .seconds(1))
        #expect(try rig.device.passcodeStatus().delayRemaining == nil)
    }

    @Test("the 10th wrong passcode disables the device")
    func tenthDisables() throws {
        let rig = try TestDevice()
        try wrong(rig, 9)
        rig.clock.advance(by: .seconds(3600))
        #expect(try rig.device.passcodeStatus().nextDelay == nil)
        #expect(try rig.device.enterPasscode("tenth") == .disabledNow(erased: false))
        let status = try rig.device.passcodeStatus()
        #expect(status.isDisabled)
        #expect(status.attemptsBeforeDisabled == 0)
        #expect(try rig.device.enterPasscode("1234") == .deviceDisabled)
    }

    @Test("a disabled device fails every evaluation at once with authenticationFailed")
    func disabledFailsEverything() async throws {
        let rig = try TestDevice()
        try wrong(rig, 9)
        rig.clock.advance(by: .seconds(3600))
        _ = try rig.device.enterPasscode("tenth")
        for policy: PolicyName in [.biometrics, .deviceOwner, .biometricsOrCompanion] {
            #expect(try await rig.outcome(policy, []) == .authenticationFailed)
            #expect(try rig.canEvaluate(policy) == .authenticationFailed)
        }
    }

    @Test("with erase data on, the 10th wrong passcode wipes the device: enrollments, passcode, counters, and every app's keychain items and keys")
    func eraseData() throws {
        let rig = try TestDevice(eraseDataAfterTenFailedPasscodes: true)
        try rig.keychain.add("secret", service: "s", account: "a")
        try rig.keychain.add("bound", service: "s", account: "b", accessControl: AccessControl(.whenPasscodeSetThisDeviceOnly))
        _ = try rig.keys.create(accessControl: AccessControl(.whenUnlocked, flags: .privateKeyUsage), tag: Data("k".utf8),
                                label: nil, permanent: true, software: false)
        try wrong(rig, 9)
        #expect(try rig.keychain.items().count == 2, "nine wrong passcodes wipe nothing")
        rig.clock.advance(by: .seconds(3600))
        #expect(try rig.device.enterPasscode("tenth") == .disabledNow(erased: true))
        #expect(try rig.device.enrolledNames().isEmpty)
        #expect(try rig.device.isPasscodeSet == false)
        #expect(try rig.keychain.items().isEmpty)
        #expect(try rig.keys.keys(includingInvalidated: true).isEmpty)
        let left = try rig.device.storage.namespaces().filter { try !rig.device.storage.list(namespace: $0).isEmpty }
        #expect(left.allSatisfy { [.device, .clock, .sensor].contains($0) }, "left: \(left)")
    }

    @Test("without erase data, the 10th wrong passcode disables the device and keeps its data")
    func disableKeepsData() throws {
        let rig = try TestDevice()
        try rig.keychain.add("secret", service: "s", account: "a")
        try wrong(rig, 9)
        rig.clock.advance(by: .seconds(3600))
        #expect(try rig.device.enterPasscode("tenth") == .disabledNow(erased: false))
        #expect(try rig.keychain.items().count == 1)
    }

    @Test("a disabled device cannot be unlocked by biometry: authenticationFailed, and it stays locked")
    func disabledDeviceRefusesBiometricUnlock() throws {
        let rig = try TestDevice()
        try rig.device.lock()
        try wrong(rig, 9)
        rig.clock.advance(by: .seconds(3600))
        _ = try rig.device.enterPasscode("tenth")
        #expect(throws: AuthenticationError.self) { try rig.device.unlock(with: "thumb") }
        #expect(try rig.device.lockState().isLocked)
    }

    @Test("the same wrong passcode twice in a row counts once")
    func repeatNotCounted() throws {
        let rig = try TestDevice()
        #expect(try rig.device.enterPasscode("0000") == .rejected(failures: 1, delay: .zero))
        #expect(try rig.device.enterPasscode("0000") == .repeatedNotCounted(failures: 1))
        #expect(try rig.device.enterPasscode("1111") == .rejected(failures: 2, delay: .zero))
        #expect(try rig.device.enterPasscode("0000") == .rejected(failures: 3, delay: .zero))
    }

    @Test("while a delay runs, an entry is refused without counting")
    func refusedDuringDelay() throws {
        let rig = try TestDevice()
        try wrong(rig, 5)
        #expect(try rig.device.enterPasscode("1234") == .refused(remaining: .seconds(60)))
        rig.clock.advance(by: .seconds(20))
        #expect(try rig.device.enterPasscode("other") == .refused(remaining: .seconds(40)))
        #expect(try rig.device.passcodeStatus().failures == 5)
        rig.clock.advance(by: .seconds(40))
        #expect(try rig.device.enterPasscode("1234") == .accepted)
    }

    @Test("in an evaluation, a refused entry is traced with the time remaining and the user can cancel")
    func refusedInEvaluation() async throws {
        let rig = try TestDevice(enrolled: [])
        try wrong(rig, 5)
        #expect(try await rig.outcome("owner", [.passcode("1234"), .cancel]) == .userCancel)
        let trace = try #require(rig.device.lastTrace)
        #expect(trace.steps.contains { $0.event == .passcodeRefused(remaining: .seconds(60)) })
        #expect(try await rig.evaluate("owner", [.wait(.seconds(60)), .passcode("1234")]).methods == [.passcode])
    }

    @Test("a correct passcode resets the count")
    func correctResets() throws {
        let rig = try TestDevice()
        try wrong(rig, 3)
        #expect(try rig.device.enterPasscode("1234") == .accepted)
        #expect(try rig.device.passcodeStatus().failures == 0)
    }

    @Test("the lock screen and in-app passcode entry share the count")
    func sharedCount() async throws {
        let rig = try TestDevice(enrolled: [])
        try wrong(rig, 3)
        #expect(try await rig.outcome("owner", [.passcode("bad-a"), .passcode("bad-b"), .cancel]) == .userCancel)
        let status = try rig.device.passcodeStatus()
        #expect(status.failures == 5)
        #expect(status.delayRemaining == .seconds(60))
    }

    @Test("the passcode is stored as a salted slow hash, never in clear")
    func storedAsSaltedHash() throws {
        let first = try TestDevice(seed: 1)
        let second = try TestDevice(seed: 2)
        let firstRecord = try #require(try first.device.storage.read(RecordKey("device", "state")))
        let firstText = String(decoding: firstRecord.value, as: UTF8.self)
        #expect(!firstText.contains("1234"))
        #expect(!firstRecord.value.contains(Data("1234".utf8)))
        let firstVerifier = try #require(try first.device.snapshot().state.passcodeVerifier)
        let secondVerifier = try #require(try second.device.snapshot().state.passcodeVerifier)
        #expect(firstVerifier != secondVerifier)
        #expect(String(decoding: firstVerifier, as: UTF8.self).contains("\"rounds\":1000"))
    }

    @Test("removing the passcode makes biometric policies report passcodeNotSet")
    func clearPasscode() throws {
        let rig = try TestDevice()
        try rig.device.clearPasscode()
        #expect(try rig.canEvaluate("biometrics") == .passcodeNotSet)
    }

    @Test("passcodes never appear in traces")
    func passcodeNeverTraced() async throws {
        let rig = try TestDevice(enrolled: [])
        _ = try await rig.outcome("owner", [.passcode("9876"), .passcode("1234")])
        let text = try #require(rig.device.lastTrace).description
        #expect(!text.contains("9876"))
        #expect(!text.contains("1234"))
        #expect(text.contains("passcode:****"))
    }
}

extension Data {
    func contains(_ other: Data) -> Bool { range(of: other) != nil }
}
