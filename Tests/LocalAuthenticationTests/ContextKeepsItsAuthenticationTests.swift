#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import Touchstone
import TouchstoneTesting

/// An `LAContext` keeps what it proved, as iOS's does: Apple's sample "Logging a User into Your
/// App with Face ID or Touch ID" makes a new context for each login because "a previously
/// successful authentication causes the next policy evaluation to succeed without testing
/// biometry again".
@Suite("An LAContext keeps its authentication")
struct ContextKeepsItsAuthenticationTests {
    @Test("a second evaluatePolicy on a context that succeeded asks nothing and succeeds (rule context.keeps-its-authentication); a new context asks again")
    func secondEvaluationOnTheSameContextAsksNothing() async throws {
        let device = try TestDevice()
        let context = LAContext(authenticator: device.authenticator)
        device.enqueue(.present("thumb"))
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in"))
        // Nothing queued: a prompt would be a scripting mistake and a system cancel.
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in again"))
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "And the owner policy"))
        let trace = try #require(device.lastTrace)
        #expect(trace.rules == [.contextKeepsItsAuthentication])
        #expect(trace.steps.map(\.event).contains(.proven(.biometry)))
        #expect(!trace.steps.map(\.event).contains { if case .prompt = $0 { true } else { false } })
        #expect(device.scriptingMistakes.isEmpty)

        device.enqueue(.cancel)
        await #expect(throws: LAError.self) {
            try await LAContext(authenticator: device.authenticator).evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "New context")
        }
    }

    @Test("what a context proved is what it keeps: a passcode does not stand for biometry, and the checks before any prompt still apply (an unenrolled finger, an invalidated context)")
    func onlyWhatWasProvenAndOnlyPastThePreflight() async throws {
        let device = try TestDevice()
        let context = LAContext(authenticator: device.authenticator)
        device.enqueue(.noMatch, .fallback, .passcode("1234"))
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Owner"))
        #expect(try await context.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Owner again"), "the passcode it proved")
        device.enqueue(.cancel)
        await #expect(throws: LAError.self) {
            try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Biometry asks")
        }
        #expect(device.lastTrace?.rules.contains(.contextKeepsItsAuthentication) == false)

        let proven = LAContext(authenticator: device.authenticator)
        device.enqueue(.present("thumb"))
        #expect(try await proven.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in"))
        try device.unenroll("thumb")
        do {
            _ = try await proven.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Nothing enrolled")
            Issue.record("succeeded with nothing enrolled")
        } catch let error as LAError {
            #expect(error.code == .biometryNotEnrolled)
        }
        proven.invalidate()
        do {
            _ = try await proven.evaluatePolicy(.deviceOwnerAuthentication, localizedReason: "Invalidated")
            Issue.record("an invalidated context succeeded")
        } catch let error as LAError {
            #expect(error.code == .invalidContext)
        }
    }

    @Test("Touchstone's own contexts (and the REPL's) ask at every evaluation unless told to keep their authentication")
    func engineContextsAskEachTime() async throws {
        let device = try TestDevice()
        let context = device.authenticator.makeContext()
        #expect(!context.keepsItsAuthentication)
        device.enqueue(.present("thumb"), .present("thumb"))
        _ = try await context.evaluate(.biometrics, reason: "One")
        _ = try await context.evaluate(.biometrics, reason: "Two")
        #expect(device.lastTrace?.rules == [.matchResetsFailures])
        context.keepsItsAuthentication = true
        _ = try await context.evaluate(.biometrics, reason: "Three")
        #expect(device.lastTrace?.rules == [.contextKeepsItsAuthentication])
    }
}
#endif
