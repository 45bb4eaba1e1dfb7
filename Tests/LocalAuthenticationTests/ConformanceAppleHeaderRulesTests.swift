#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneCommands
import TouchstoneTesting
import Touchstone

/// The REFERENCE rules updated from Apple's headers (§3, §5, §7, §8, §9), each tested through
/// the Apple-named API and named after the rule.
@Suite("Conformance: rules from Apple's headers (§3, §5, §7, §8, §9)")
struct ConformanceAppleHeaderRulesTests {
    // MARK: §3

    @Test("§3 an LAError thrown by evaluatePolicy is caught as NSError, as LAError, by LAError.userCancel, and bridges back from NSError")
    func laErrorIsAnNSError() async throws {
        let sim = try TestDevice()
        sim.user.enqueue([.cancel])
        do {
            try await sim.makeLAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
            Issue.record("expected userCancel")
        } catch let error as NSError {
            #expect(error.domain == LAErrorDomain)
            #expect(error.code == LAError.Code.userCancel.rawValue)
            let bridged: Any = error
            #expect((bridged as? LAError)?.code == .userCancel, "an NSError in the LAError domain casts as? LAError")
        }
        sim.user.enqueue([.cancel])
        do {
            try await sim.makeLAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
        } catch {
            let thrown: Any = error
            #expect((thrown as? NSError)?.code == -2, "error as? NSError")
            #expect((thrown as? LAError)?.code == .userCancel)
            #expect((error as NSError).code == -2 && error._code == -2)
            #expect(LAError.userCancel ~= error)
        }
        var canError: NSError?
        _ = try TestDevice(enrolled: []).makeLAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &canError)
        let fromPointer: Any? = canError
        #expect((fromPointer as? LAError)?.code == .biometryNotEnrolled)
        #expect(LAError(_nsError: NSError(domain: LAErrorDomain, code: -8)).code == .biometryLockout)
    }

    @Test("§3 a scripting mistake under TOUCHSTONE_OUTCOMES stops the program with a message for the script author (exit 70)")
    func scriptingMistakeStopsTheProgram() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        let (status, _, errors) = try seed.execute(["authenticate"], setup: "passcode set 1234; enroll thumb", outcomes: "fallback")
        #expect(status == LocalAuthenticationSystem.scriptingMistakeExitStatus)
        #expect(errors.contains("Touchstone: scripting mistake in TOUCHSTONE_OUTCOMES: outcome 'fallback' is not possible"))
    }

    @Test("§3 without TOUCHSTONE_OUTCOMES (an XCTest run, say), a prompt nothing answers does not stop the program: a line for the author, and the app sees a system cancel")
    func scriptingMistakeWithoutOutcomesGoesOn() throws {
        let seed = try SeedHarness("Seed000TouchIDManager")
        defer { seed.remove() }
        let (status, _, errors) = try seed.execute(["authenticate"], setup: "passcode set 1234; enroll thumb", outcomes: nil)
        #expect(status != LocalAuthenticationSystem.scriptingMistakeExitStatus)
        #expect(errors.contains("Touchstone: scripting mistake: ") && errors.contains("the app sees a system cancel"), "\(errors)")
    }

    // MARK: §5

    @Test("§5 Face ID: no fallback button after the first failure, only after the second")
    func faceIDFallbackAfterSecondFailure() async throws {
        let sim = try TestDevice(sensor: "sim.faceid", enrolled: ["face"])
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .fallback]) == .systemCancel)
        #expect(sim.scriptingMistakes.count == 1)
        #expect(sim.scriptingMistakes.first?.contains("outcome 'fallback' is not possible on the biometric (try again) prompt") == true)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.present("face")]) == nil)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .noMatch, .fallback]) == .userFallback)
        #expect(sim.user.lastPrompt?.fallbackButton == "Enter Password")
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .noMatch, .cancel]) == .userCancel)
    }

    @Test("§5 Optic ID behaves like Face ID: fallback only after the second failure")
    func opticIDLikeFaceID() async throws {
        let sim = try TestDevice(sensor: "sim.opticid", enrolled: ["iris"])
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .fallback]) == .systemCancel)
        #expect(sim.scriptingMistakes.count == 1)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.present("iris")]) == nil)
        #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.noMatch, .noMatch, .fallback]) == .userFallback)
    }

    @Test("§5 localizedCancelTitle nil or empty shows the default Cancel")
    func emptyCancelTitleShowsCancel() async throws {
        let sim = try TestDevice()
        for title in [nil, "", "Not now"] as [String?] {
            let context = sim.makeLAContext()
            context.localizedCancelTitle = title
            #expect(try await sim.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, [.cancel], on: context) == .userCancel)
            #expect(sim.user.lastPrompt?.cancelButton == (title == "Not now" ? "Not now" : "Cancel"))
        }
    }

    // MARK: §7

    @Test("§7 domainState.biometry.stateHash is history-based: add a finger and remove it again gives a new hash; evaluatedPolicyDomainState is result-based")
    func stateHashByHistory() throws {
        let sim = try TestDevice()
        let before = sim.makeLAContext()
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, on: before) == nil)
        try sim.device.enroll("index")
        try sim.device.unenroll("index")
        let after = sim.makeLAContext()
        #expect(sim.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, on: after) == nil)
        #expect(after.evaluatedPolicyDomainState == before.evaluatedPolicyDomainState)
        #expect(after.domainState.biometry.stateHash != before.domainState.biometry.stateHash)
        #expect(after.domainState.stateHash != before.domainState.stateHash)
    }

    @Test("§7 domainState is not readable when evaluatedPolicyDomainState is not")
    func domainStateOnlyWithEvaluatedPolicyDomainState() throws {
        let locked = try TestDevice(enrolled: [])
        let context = locked.makeLAContext()
        #expect(locked.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, on: context) == -7)
        #expect(context.evaluatedPolicyDomainState == nil)
        #expect(context.domainState.biometry.stateHash == nil)
        #expect(context.domainState.stateHash == nil)
        let passcodeOnly = try TestDevice()
        let owner = passcodeOnly.makeLAContext()
        #expect(passcodeOnly.canEvaluatePolicy(.deviceOwnerAuthentication, on: owner) == nil)
        #expect(owner.evaluatedPolicyDomainState == nil)
        #expect(owner.domainState.biometry.stateHash == nil, "a device-owner check reveals no biometric state")
    }

    // MARK: §8

    @Test("§8 releasing the last reference to a context invalidates it")
    func releasingTheLastReferenceInvalidates() async throws {
        let sim = try TestDevice()
        var context: LAContext? = sim.makeLAContext()
        let engine = try #require(context?.touchstoneContext)
        #expect(!engine.isInvalidated)
        context = nil
        #expect(context == nil)
        #expect(engine.isInvalidated)
        sim.user.enqueue([.present("thumb")])
        await #expect(throws: AuthenticationError.self) {
            try await engine.evaluate(sim.authenticator.policy(rawValue: 1), reason: "Sign in")
        }
    }
}
#endif
