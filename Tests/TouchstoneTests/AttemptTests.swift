import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// REFERENCE §4 and §5: biometry types, attempts, fallback and lockout.
@Suite("§4–§5 Biometry types, attempts, fallback, lockout")
struct AttemptTests {
    @Test("biometry type is none before can-evaluate and filled whatever it returns")
    func biometryTypeFilledByCanEvaluate() throws {
        let rig = try TestDevice(sensor: "sim.faceid", enrolled: [])
        let context = rig.authenticator.makeContext()
        #expect(context.biometryType == .none)
        #expect(try rig.canEvaluate("biometrics", on: context) == .biometryNotEnrolled)
        #expect(context.biometryType == .faceID)
    }

    @Test("biometry types have LABiometryType's raw values")
    func biometryTypeRawValues() throws {
        #expect(BiometryType.none.rawValue == 0)
        #expect(BiometryType.touchID.rawValue == 1)
        #expect(BiometryType.faceID.rawValue == 2)
        #expect(BiometryType.opticID.rawValue == 4)
        let iris = try TestDevice(sensor: "sim.opticid")
        let context = iris.authenticator.makeContext()
        _ = try iris.canEvaluate("biometrics", on: context)
        #expect(context.biometryType == .opticID)
    }

    @Test("a match that comes after another process locked biometry out is refused with biometryLockout and traced as the match it was, counting nothing more")
    func matchAfterLockoutMeanwhile() async throws {
        for (policy, expected) in [(PolicyName.biometrics, AuthenticationError.Code?.some(.biometryLockout)), (.deviceOwner, nil)] {
            let rig = try TestDevice()
            rig.user.waitsForActions = true
            let context = rig.authenticator.makeContext()
            let evaluation = Task { try await rig.outcome(policy, [], on: context) }
            await rig.untilEvaluationIsOnScreen()
            // Another process counts five failures while the prompt is up.
            try rig.device.update { _, counters in counters.consecutiveBiometricFailures = 5 }
            rig.user.enqueue(.present("thumb"))
            if policy == .deviceOwner { rig.user.enqueue(.passcode("1234")) }
            #expect(try await evaluation.value == expected, "\(policy)")
            let trace = try #require(rig.device.lastTrace)
            let match = try #require(trace.steps.first { $0.event == .matched("thumb") }, "\(trace)")
            #expect(match.rule == .fiveFailuresLockOut)
            #expect(match.after.biometricFailures == 5 && match.after.evaluationFailures == 0)
            #expect(!trace.steps.contains { $0.event == .notMatched }, "\(trace)")
            if policy == .deviceOwner {
                #expect(trace.rules.contains(.passcodeAfterBiometricLimit))
            }
        }
    }

    @Test("the fallback button appears after the first failed match")
    func fallbackAfterFirstFailure() async throws {
        let rig = try TestDevice()
        await #expect(throws: SimulationError.self) {
            try await rig.evaluate("biometrics", [.fallback])
        }
        rig.user.clear()
        #expect(try await rig.outcome("biometrics", [.noMatch, .fallback]) == .userFallback)
        let trace = try #require(rig.device.lastTrace)
        #expect(trace.steps.contains { $0.event == .prompt(.biometric, fallbackButton: "Enter Password") })
    }

    @Test("a nil fallback title shows \"Enter Passcode\" under deviceOwnerAuthentication, \"Enter Password\" under biometrics only")
    func defaultFallbackTitleDependsOnPolicy() async throws {
        let rig = try TestDevice()
        let owner = rig.authenticator.makeContext()
        let result = try await rig.evaluate("owner", [.noMatch, .fallback, .passcode("1234")], on: owner)
        #expect(result.methods == [.passcode])
        let steps = try #require(owner.lastTrace?.steps)
        #expect(steps.contains { $0.event == .prompt(.biometric, fallbackButton: "Enter Passcode") })
        #expect(!steps.contains { $0.event == .prompt(.biometric, fallbackButton: "Enter Password") })
        rig.user.clear()
        let custom = rig.authenticator.makeContext()
        custom.localizedFallbackTitle = "Use Device PIN"
        _ = try await rig.evaluate("owner", [.noMatch, .fallback, .passcode("1234")], on: custom)
        #expect(custom.lastTrace?.steps.contains { $0.event == .prompt(.biometric, fallbackButton: "Use Device PIN") } == true)
    }

    @Test("an empty fallback title hides the button; nil shows the default")
    func emptyFallbackTitleHidesButton() async throws {
        let rig = try TestDevice()
        let hidden = rig.authenticator.makeContext()
        hidden.localizedFallbackTitle = ""
        await #expect(throws: SimulationError.self) {
            try await rig.evaluate("biometrics", [.noMatch, .fallback], on: hidden)
        }
        rig.user.clear()
        let custom = rig.authenticator.makeContext()
        custom.localizedFallbackTitle = "Use Password"
        #expect(try await rig.outcome("biometrics", [.noMatch, .fallback], on: custom) == .userFallback)
        #expect(custom.lastTrace?.steps.contains { $0.event == .prompt(.biometric, fallbackButton: "Use Password") } == true)
    }

    @Test("Touch ID: three failed matches end a biometrics-only evaluation with authenticationFailed")
    func threeFailuresEnd() async throws {
        let rig = try TestDevice()
        #expect(try await rig.outcome("biometrics", .failures(3)) == .authenticationFailed)
        #expect(rig.device.lastTrace?.rules.last == .touchIDThreeFailuresEnd)
        #expect(try rig.device.biometryStatus().consecutiveFailures == 3)
    }

    @Test("Touch ID: under device-owner the third failure switches to the passcode")
    func threeFailuresSwitchToPasscode() async throws {
        let rig = try TestDevice()
        let result = try await rig.evaluate("owner", .failures(3) + [.passcode("1234")])
        #expect(result.methods == [.passcode])
        #expect(result.trace.rules.contains(.passcodeAfterBiometricLimit))
    }

    @Test("five consecutive failures lock biometry device-wide (seed 000: three, then two)")
    func fiveFailuresLockOut() async throws {
        let rig = try TestDevice()
        #expect(try await rig.outcome("biometrics", .failures(3)) == .authenticationFailed)
        #expect(try await rig.outcome("biometrics", .failures(2)) == .biometryLockout)
        #expect(try rig.canEvaluate("biometrics") == .biometryLockout)
        // Device-wide: another app and another context see it too.
        let other = rig.authenticator.forApp("com.example.other")
        #expect(try other.makeContext().canEvaluate(other.policy(named: "biometrics"))?.code == .biometryLockout)
        #expect(try rig.device.biometryStatus().isLockedOut)
        // Device-owner goes straight to the passcode.
        #expect(try rig.canEvaluate("owner") == nil)
    }

    @Test("the fifth failure under device-owner switches to the passcode, which clears the lockout")
    func fifthFailureUnderOwner() async throws {
        let rig = try TestDevice()
        _ = try await rig.outcome("biometrics", .failures(3))
        let result = try await rig.evaluate("owner", .failures(2) + [.passcode("1234")])
        #expect(result.methods == [.passcode])
        #expect(result.trace.rules.contains(.fiveFailuresLockOut))
        #expect(try rig.device.biometryStatus().consecutiveFailures == 0)
        #expect(try rig.canEvaluate("biometrics") == nil)
    }

    @Test("lockout recovery (seed 000): biometrics-only hits lockout, device-owner's passcode unlocks biometry")
    func lockoutRecoveryFlow() async throws {
        let rig = try TestDevice()
        _ = try await rig.outcome("biometrics", .failures(3))
        #expect(try await rig.outcome("biometrics", .failures(2)) == .biometryLockout)
        #expect(try await rig.outcome("biometrics", []) == .biometryLockout)
        #expect(try await rig.evaluate("owner", [.passcode("1234")]).methods == [.passcode])
        #expect(try await rig.evaluate("biometrics", [.present("thumb")]).methods == [.biometry])
    }

    @Test("a successful match resets the consecutive-failure count")
    func matchResetsCount() async throws {
        let rig = try TestDevice()
        _ = try await rig.evaluate("biometrics", .failures(2) + [.present("thumb")])
        #expect(try rig.device.biometryStatus().consecutiveFailures == 0)
        #expect(try await rig.outcome("biometrics", .failures(3)) == .authenticationFailed)
        #expect(try await rig.evaluate("biometrics", .failures(1) + [.present("thumb")]).methods == [.biometry])
    }

    @Test("an identity that is not enrolled does not match")
    func unenrolledIdentityDoesNotMatch() async throws {
        let rig = try TestDevice()
        #expect(try await rig.outcome("biometrics", [.present("index"), .present("index"), .present("index")]) == .authenticationFailed)
    }

    @Test("Face ID: after two failures scanning stops; only Cancel and fallback remain")
    func faceIDTwoFailures() async throws {
        let rig = try TestDevice(sensor: "sim.faceid", enrolled: ["alice"])
        #expect(try await rig.outcome("biometrics", .failures(2) + [.cancel]) == .userCancel)
        #expect(try await rig.outcome("biometrics", .failures(2) + [.fallback]) == .userFallback)
        // Four consecutive failures so far; a fresh device shows the stopped scan.
        let fresh = try TestDevice(sensor: "sim.faceid", enrolled: ["alice"])
        await #expect {
            try await fresh.evaluate("biometrics", .failures(2) + [.present("alice")])
        } throws: { error in
            guard case let SimulationError.unexpectedOutcome(outcome, prompt, allowed) = error else { return false }
            return outcome == "alice" && prompt == "biometric (scanning stopped)"
                && allowed.starts(with: ["cancel", "fallback"])
        }
    }

    @Test("Face ID: after the first failure the user is offered Try Again")
    func faceIDTryAgain() async throws {
        let rig = try TestDevice(sensor: "sim.faceid", enrolled: ["alice"])
        let result = try await rig.evaluate("biometrics", [.noMatch, .present("alice")])
        #expect(result.methods == [.biometry])
        let kinds = result.trace.steps.compactMap { step -> Prompt.Kind? in
            if case let .prompt(kind, _) = step.event { return kind } else { return nil }
        }
        #expect(kinds == [.biometric, .biometricTryAgain])
        // Touch ID has no such step: the dialog simply scans again.
        let touch = try TestDevice()
        let touchResult = try await touch.evaluate("biometrics", [.noMatch, .present("thumb")])
        #expect(!touchResult.trace.steps.contains { if case .prompt(.biometricTryAgain, _) = $0.event { true } else { false } })
    }

    @Test("Face ID never ends with authenticationFailed; under device-owner two failures switch to the passcode")
    func faceIDUnderOwner() async throws {
        let rig = try TestDevice(sensor: "sim.faceid", enrolled: ["alice"])
        let result = try await rig.evaluate("owner", .failures(2) + [.passcode("1234")])
        #expect(result.methods == [.passcode])
        #expect(!result.trace.steps.contains { $0.event == .finished(.authenticationFailed) })
    }

    @Test("Face ID: five consecutive failures lock out as for Touch ID")
    func faceIDLockout() async throws {
        let rig = try TestDevice(sensor: "sim.faceid", enrolled: ["alice"])
        #expect(try await rig.outcome("biometrics", .failures(2) + [.cancel]) == .userCancel)
        #expect(try await rig.outcome("biometrics", .failures(2) + [.cancel]) == .userCancel)
        #expect(try await rig.outcome("biometrics", .failures(1)) == .biometryLockout)
    }

    @Test("Optic ID behaves like Face ID (our rule)")
    func opticIDLikeFaceID() async throws {
        let rig = try TestDevice(sensor: "sim.opticid", enrolled: ["eye"])
        #expect(try await rig.outcome("biometrics", .failures(2) + [.cancel]) == .userCancel)
    }
}
