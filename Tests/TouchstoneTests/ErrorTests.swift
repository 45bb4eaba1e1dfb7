import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneSimulation
import TouchstoneBuiltins

/// REFERENCE §3: every LAError code the engine can produce, and the precedence rule.
@Suite("§3 Errors")
struct ErrorTests {
    @Test("codes carry Apple's raw values and names", arguments: [
        (AuthenticationError.Code.authenticationFailed, -1), (.userCancel, -2), (.userFallback, -3),
        (.systemCancel, -4), (.passcodeNotSet, -5), (.biometryNotAvailable, -6), (.biometryNotEnrolled, -7),
        (.biometryLockout, -8), (.appCancel, -9), (.invalidContext, -10), (.companionNotAvailable, -11),
        (.biometryNotPaired, -12), (.biometryDisconnected, -13), (.invalidDimensions, -14), (.notInteractive, -1004),
    ])
    func rawValues(code: AuthenticationError.Code, raw: Int) {
        #expect(code.rawValue == raw)
        #expect(AuthenticationError.Code(name: code.name) == code)
        #expect(AuthenticationError.Code(name: String(raw)) == code)
    }

    @Test("the deprecated touchID names are aliases")
    func touchIDAliases() {
        #expect(AuthenticationError.Code(name: "touchIDLockout") == .biometryLockout)
        #expect(AuthenticationError.Code(name: "touchIDNotEnrolled") == .biometryNotEnrolled)
        #expect(AuthenticationError.Code(name: "touchIDNotAvailable") == .biometryNotAvailable)
    }

    @Test("errors fall into seed 004's categories")
    func categories() {
        #expect(AuthenticationError.Code.userCancel.category == .cancel)
        #expect(AuthenticationError.Code.systemCancel.category == .cancel)
        #expect(AuthenticationError.Code.appCancel.category == .cancel)
        #expect(AuthenticationError.Code.passcodeNotSet.category == .permission)
        #expect(AuthenticationError.Code.biometryNotAvailable.category == .permission)
        #expect(AuthenticationError.Code.biometryNotEnrolled.category == .permission)
        #expect(AuthenticationError.Code.biometryLockout.category == .lockout)
        #expect(AuthenticationError.Code.authenticationFailed.category == .failure)
        #expect(AuthenticationError.Code.userFallback.category == .fallback)
    }

    @Test("the description names the case and raw code")
    func description() {
        #expect(AuthenticationError(.biometryLockout).description.hasPrefix("biometryLockout (-8):"))
    }

    @Test("userCancel: Cancel ends the evaluation")
    func userCancel() async throws {
        #expect(try await TestDevice().outcome("biometrics", [.cancel]) == .userCancel)
    }

    @Test("systemCancel: a system interruption ends the evaluation")
    func systemCancel() async throws {
        #expect(try await TestDevice().outcome("biometrics", [.systemCancel]) == .systemCancel)
    }

    @Test("passcodeNotSet: biometric and device-owner policies need a passcode")
    func passcodeNotSet() async throws {
        let rig = try TestDevice(passcode: nil)
        #expect(try rig.canEvaluate("biometrics") == .passcodeNotSet)
        #expect(try rig.canEvaluate("owner") == .passcodeNotSet)
        #expect(try await rig.outcome("biometrics", []) == .passcodeNotSet)
        #expect(try await rig.outcome("owner", []) == .passcodeNotSet)
    }

    @Test("biometryNotAvailable: no hardware, disconnected, or the app is not permitted",
          arguments: ["absent", "disconnected", "denied", "not-paired"])
    func notAvailable(hardware: String) async throws {
        let rig = try TestDevice(sensorOptions: ["hardware": hardware])
        #expect(try rig.canEvaluate("biometrics") == .biometryNotAvailable)
        #expect(try await rig.outcome("biometrics", []) == .biometryNotAvailable)
    }

    @Test("a device without a sensor reports biometryNotAvailable and biometry type none")
    func noSensor() throws {
        let rig = try TestDevice(sensor: nil, enrolled: [])
        let context = rig.authenticator.makeContext()
        #expect(try rig.canEvaluate("biometrics", on: context) == .biometryNotAvailable)
        #expect(context.biometryType == .none)
    }

    @Test("removable sensors report biometryDisconnected and biometryNotPaired")
    func removableSensor() throws {
        let disconnected = try TestDevice(sensorOptions: ["hardware": "disconnected", "removable": "true"])
        #expect(try disconnected.canEvaluate("biometrics") == .biometryDisconnected)
        let unpaired = try TestDevice(sensorOptions: ["hardware": "not-paired", "removable": "true"])
        #expect(try unpaired.canEvaluate("biometrics") == .biometryNotPaired)
    }

    @Test("biometryNotEnrolled: hardware present, nothing enrolled")
    func notEnrolled() async throws {
        let rig = try TestDevice(enrolled: [])
        #expect(try rig.canEvaluate("biometrics") == .biometryNotEnrolled)
        #expect(try await rig.outcome("biometrics", []) == .biometryNotEnrolled)
    }

    @Test("precedence follows LAContext.h: invalidContext, not available, not enrolled, locked out, passcodeNotSet last; device-owner: passcodeNotSet first")
    func precedence() async throws {
        let all = try TestDevice(sensorOptions: ["hardware": "absent"], passcode: nil, enrolled: [])
        let invalidated = all.authenticator.makeContext()
        invalidated.invalidate()
        #expect(try all.canEvaluate("biometrics", on: invalidated) == .invalidContext)
        #expect(try all.canEvaluate("biometrics") == .biometryNotAvailable)
        (all.device.sensor as? any SimulatedHardwareControl)?.setHardwareState(.present)
        #expect(try all.canEvaluate("biometrics") == .biometryNotEnrolled)
        #expect(try all.canEvaluate("owner") == .passcodeNotSet)
        try all.device.enroll("thumb")
        #expect(try all.canEvaluate("biometrics") == .passcodeNotSet)
        try all.device.setPasscode("1234")
        #expect(try await all.outcome("biometrics", [.noMatch, .noMatch, .noMatch]) == .authenticationFailed)
        #expect(try await all.outcome("biometrics", [.noMatch, .noMatch]) == .biometryLockout)
        try all.device.clearPasscode()
        #expect(try all.canEvaluate("biometrics") == .biometryLockout, "locked out comes before passcodeNotSet")
        #expect(try all.canEvaluate("owner") == .passcodeNotSet)
    }

    @Test("companionNotAvailable: no companion paired")
    func companionNotAvailable() async throws {
        #expect(try await TestDevice().outcome("companion", []) == .companionNotAvailable)
    }

    @Test("invalidDimensions is never produced on Linux")
    func invalidDimensionsNeverProduced() {
        // Nothing in the engine constructs it: the rule list has no step that ends with it.
        #expect(!Rule.allCases.map(\.summary).joined().contains("invalidDimensions"))
    }
}
