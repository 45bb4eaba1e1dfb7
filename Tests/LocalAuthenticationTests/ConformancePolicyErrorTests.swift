#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting
import Touchstone

/// REFERENCE §2 (policies), §3 (errors) and §4 (biometry types), row by row, through the
/// LocalAuthentication API.
@Suite("Conformance §2–§4: policies, errors, biometry types")
struct ConformancePolicyErrorTests {
    // MARK: §2 Policies

    @Test("§2 LAPolicy raw values 1...5")
    func policyRawValues() {
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometrics.rawValue == 1)
        #expect(LAPolicy.deviceOwnerAuthentication.rawValue == 2)
        #expect(LAPolicy.deviceOwnerAuthenticationWithCompanion.rawValue == 3)
        #expect(LAPolicy.deviceOwnerAuthenticationWithBiometricsOrCompanion.rawValue == 4)
        #expect(LAPolicy.deviceOwnerAuthenticationWithWristDetection.rawValue == 5)
    }

    @Test("§2 policy 1: biometrics only; the fallback button ends with userFallback")
    func biometricsOnly() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.present("thumb")]) == nil)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .fallback]) == .userFallback)
    }

    @Test("§2 policy 2: biometrics, then the passcode as fallback")
    func deviceOwner() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, [.present("thumb")]) == nil)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthentication, [.noMatch, .fallback, .passcode("1234")]) == nil)
    }

    @Test("§2 policy 2: the passcode alone when biometry is missing, not enrolled or locked out")
    func deviceOwnerPasscodeAlone() async throws {
        let missing = try TestDevice(sensor: nil, enrolled: [])
        #expect(missing.canEvaluatePolicy(.deviceOwnerAuthentication) == nil)
        #expect(try await missing.evaluatePolicy(.deviceOwnerAuthentication, [.passcode("1234")]) == nil)
        let notEnrolled = try TestDevice(enrolled: [])
        #expect(try await notEnrolled.evaluatePolicy(.deviceOwnerAuthentication, [.passcode("1234")]) == nil)
        let locked = try TestDevice()
        _ = try await locked.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3))
        _ = try await locked.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2))
        #expect(try await locked.evaluatePolicy(.deviceOwnerAuthentication, [.passcode("1234")]) == nil)
    }

    @Test("§2 policy 3: a paired companion; none paired is companionNotAvailable")
    func companion() async throws {
        let paired = try TestDevice(companion: [:])
        #expect(paired.canEvaluatePolicy(.deviceOwnerAuthenticationWithCompanion) == nil)
        #expect(try await paired.evaluatePolicy(.deviceOwnerAuthenticationWithCompanion, [.approveOnCompanion]) == nil)
        let none = try TestDevice()
        #expect(none.canEvaluatePolicy(.deviceOwnerAuthenticationWithCompanion) == LAError.companionNotAvailable.rawValue)
        #expect(try await none.evaluatePolicy(.deviceOwnerAuthenticationWithCompanion, []) == .companionNotAvailable)
    }

    @Test("§2 policy 4: biometrics or the companion")
    func biometricsOrCompanion() async throws {
        let sim = try TestDevice(companion: [:])
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometricsOrCompanion, [.present("thumb")]) == nil)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometricsOrCompanion, [.approveOnCompanion]) == nil)
    }

    @Test("§2 policy 5: wrist detection is biometryNotAvailable on Linux")
    func wristDetection() async throws {
        let sim = try TestDevice()
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithWristDetection) == LAError.biometryNotAvailable.rawValue)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithWristDetection, []) == .biometryNotAvailable)
    }

    // MARK: §3 Errors

    @Test("§3 LAError raw values and domain")
    func errorRawValues() {
        let expected: [(LAError.Code, Int)] = [
            (.authenticationFailed, -1), (.userCancel, -2), (.userFallback, -3), (.systemCancel, -4),
            (.passcodeNotSet, -5), (.biometryNotAvailable, -6), (.biometryNotEnrolled, -7),
            (.biometryLockout, -8), (.appCancel, -9), (.invalidContext, -10), (.companionNotAvailable, -11),
            (.biometryNotPaired, -12), (.biometryDisconnected, -13), (.invalidDimensions, -14),
            (.notInteractive, -1004),
        ]
        for (code, raw) in expected {
            #expect(code.rawValue == raw)
            #expect(LAError.Code(rawValue: raw) == code)
            #expect((LAError(code) as NSError).code == raw)
            #expect((LAError(code) as NSError).domain == "com.apple.LocalAuthentication")
        }
        #expect(LAError.Code.allCases.count == expected.count)
        #expect(LAError.touchIDNotAvailable.rawValue == -6)
        #expect(LAError.touchIDNotEnrolled.rawValue == -7)
        #expect(LAError.touchIDLockout.rawValue == -8)
    }

    @Test("§3 a code no case names keeps its number, as Apple's imported enum does: Code(rawValue:) is never nil, NSError casts to LAError, errorCode and the NSError code stay; only default matches it")
    func unknownCodesKeepTheirNumber() throws {
        for raw in [0, -1000, 7, -15] {
            let ns = NSError(domain: LAErrorDomain, code: raw, userInfo: [NSLocalizedDescriptionKey: "custom \(raw)"])
            let error = try #require(ns as? LAError, "an NSError in LAErrorDomain casts to LAError")
            #expect(error.errorCode == raw)
            #expect((error as NSError).code == raw)
            #expect(LAError(_nsError: ns).errorCode == raw)
            #expect(error.localizedDescription == "custom \(raw)")
            #expect(LAError.Code(rawValue: raw)?.rawValue == raw)
            #expect(error.code == LAError.Code(rawValue: raw))
            let branch: String
            switch error.code {
            case .authenticationFailed, .userCancel, .userFallback, .systemCancel, .passcodeNotSet, .biometryNotAvailable,
                 .biometryNotEnrolled, .biometryLockout, .appCancel, .invalidContext, .companionNotAvailable,
                 .biometryNotPaired, .biometryDisconnected, .invalidDimensions, .notInteractive:
                branch = "named"
            default:
                branch = "unknown"
            }
            #expect(branch == "unknown")
        }
        #expect(NSError(domain: "other", code: -2) as? LAError == nil)
        // An NSError cast to LAError and back is that NSError, user info and all (nothing added).
        let bare = NSError(domain: LAErrorDomain, code: 0)
        let bridged = try #require(bare as? LAError)
        #expect((bridged as NSError).userInfo.isEmpty)
        #expect((bridged as NSError) == bare)
        let asAnyError: any Error = bridged
        #expect((asAnyError as NSError) == bare, "through an existential too (CustomNSError's path)")
    }

    /// A test double written as for Apple's SDK: its initializer never calls `super.init()`,
    /// which Swift inserts only when `init()` is the superclass's one designated initializer.
    final class StubContext: LAContext, @unchecked Sendable {
        private let allowed: Bool
        init(allowed: Bool) { self.allowed = allowed }
        override func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool { allowed }
    }

    @Test("an LAContext subclass whose initializer leaves super.init() implicit compiles and works; init(authenticator:) still picks its device")
    func subclassWithImplicitSuperInit() throws {
        #expect(StubContext(allowed: true).canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
        #expect(!StubContext(allowed: false).canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
        let sim = try TestDevice(enrolled: [])
        let context = LAContext(authenticator: sim.authenticator)
        var error: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error))
        #expect(error?.code == LAError.Code.biometryNotEnrolled.rawValue)
        #expect(context.touchstoneContext?.authenticator === sim.authenticator)
        // A context made inside a subclass's initializer does not take the device given to the outer one.
        let wrapping = WrappingContext(authenticator: sim.authenticator)
        #expect(wrapping.touchstoneContext?.authenticator === sim.authenticator)
        #expect(wrapping.inner.touchstoneContext?.authenticator !== sim.authenticator)
    }

    /// A mock that makes another context while it is being made.
    final class WrappingContext: LAContext, @unchecked Sendable {
        let inner = LAContext()
    }

    @Test("§3 authenticationFailed: three failed Touch ID matches in one evaluation")
    func authenticationFailed() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
    }

    @Test("§3 userCancel, userFallback, systemCancel from the user's and system's actions")
    func userActions() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.cancel]) == .userCancel)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .fallback]) == .userFallback)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.systemCancel]) == .systemCancel)
    }

    @Test("§3 passcodeNotSet: no passcode, for biometric policies too")
    func passcodeNotSet() throws {
        let sim = try TestDevice(passcode: nil)
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -5)
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthentication) == -5)
    }

    @Test("§3 biometryNotAvailable: no hardware, hardware absent, disconnected or not permitted")
    func biometryNotAvailable() throws {
        #expect(try TestDevice(sensor: nil, enrolled: []).canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -6)
        for state in ["absent", "disconnected", "denied"] {
            #expect(try TestDevice(sensorOptions: ["hardware": state]).canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -6)
        }
    }

    @Test("§3 biometryNotEnrolled: hardware present, nothing enrolled")
    func biometryNotEnrolled() throws {
        #expect(try TestDevice(enrolled: []).canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -7)
    }

    @Test("§3 biometryLockout: after five consecutive failures, in canEvaluatePolicy too")
    func biometryLockout() async throws {
        let sim = try TestDevice()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(3)) == .authenticationFailed)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, .failures(2)) == .biometryLockout)
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -8)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, []) == .biometryLockout)
    }

    @Test("§3 appCancel: invalidate() during an evaluation; invalidContext afterwards")
    func appCancelAndInvalidContext() async throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.invalidate], on: context) == .appCancel)
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, on: context) == -10)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [], on: context) == .invalidContext)
    }

    @Test("§3 biometryNotPaired / biometryDisconnected: removable sensors (macOS)")
    func removableSensor() throws {
        #expect(try TestDevice(sensorOptions: ["removable": "true", "hardware": "not-paired"]).canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -12)
        #expect(try TestDevice(sensorOptions: ["removable": "true", "hardware": "disconnected"]).canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -13)
    }

    @Test("§3 notInteractive: interactionNotAllowed")
    func notInteractive() async throws {
        let sim = try TestDevice()
        let context = sim.makeLAContext()
        context.interactionNotAllowed = true
        #expect(context.interactionNotAllowed)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [], on: context) == .notInteractive)
    }

    @Test("§3 precedence (LAContext.h): biometric policies not available → not enrolled → locked out → passcodeNotSet; device-owner: passcodeNotSet first")
    func precedence() throws {
        let nothing = try TestDevice(sensorOptions: ["hardware": "absent"], passcode: nil, enrolled: [])
        let context = nothing.makeLAContext()
        context.invalidate()
        #expect(nothing.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, on: context) == -10)
        #expect(nothing.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -6)
        #expect(nothing.canEvaluatePolicy(.deviceOwnerAuthentication) == -5)
        let unenrolled = try TestDevice(passcode: nil, enrolled: [])
        #expect(unenrolled.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -7)
        #expect(unenrolled.canEvaluatePolicy(.deviceOwnerAuthentication) == -5)
        #expect(try TestDevice(passcode: nil).canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics) == -5)
    }

    @Test("§3 the error categories apps act on (seed 004)")
    func categories() {
        func category(_ error: any Error) -> String {
            guard let error = error as? LAError else { return "other" }
            switch error.code {
            case .userCancel, .systemCancel, .appCancel: return "cancel"
            case .passcodeNotSet, .touchIDNotAvailable, .touchIDNotEnrolled: return "permission"
            case .touchIDLockout: return "lockout"
            case .authenticationFailed: return "failure"
            case .userFallback: return "fallback"
            default: return "other"
            }
        }
        #expect([LAError.Code.userCancel, .systemCancel, .appCancel].map { category(LAError($0)) } == ["cancel", "cancel", "cancel"])
        #expect([LAError.Code.passcodeNotSet, .biometryNotAvailable, .biometryNotEnrolled].map { category(LAError($0)) }
                == ["permission", "permission", "permission"])
        #expect(category(LAError(.biometryLockout)) == "lockout")
        #expect(category(LAError(.authenticationFailed)) == "failure")
        #expect(category(LAError(.userFallback)) == "fallback")
    }

    // MARK: §4 Biometry types

    @Test("§4 LABiometryType raw values")
    func biometryRawValues() {
        #expect(LABiometryType.none.rawValue == 0)
        #expect(LABiometryType.touchID.rawValue == 1)
        #expect(LABiometryType.faceID.rawValue == 2)
        #expect(LABiometryType.opticID.rawValue == 4)
    }

    @Test("§4 biometryType is .none before canEvaluatePolicy, filled by it whatever it returns")
    func biometryTypeFilled() throws {
        for (sensor, type) in [("sim.touchid", LABiometryType.touchID), ("sim.faceid", .faceID), ("sim.opticid", .opticID)] {
            let sim = try TestDevice(sensor: sensor, enrolled: [])
            let context = sim.makeLAContext()
            #expect(context.biometryType == .none)
            #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, on: context) == -7)
            #expect(context.biometryType == type)
        }
        let absent = try TestDevice(sensorOptions: ["hardware": "absent"])
        let context = absent.makeLAContext()
        _ = absent.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, on: context)
        #expect(context.biometryType == .none)
    }
}
#endif
