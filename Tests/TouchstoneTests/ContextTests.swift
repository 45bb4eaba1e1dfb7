import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// REFERENCE §8: context lifecycle and options.
@Suite("§8 Context lifecycle and options")
struct ContextTests {
    @Test("a context records each grant once: evaluations repeat theirs, an operation's grant is its own")
    func grantsAreRecordedOnce() async throws {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        for _ in 0..<3 {
            rig.enqueue(.present("thumb"))
            _ = try await context.evaluate(.biometrics, reason: "Unlock")
        }
        #expect(context.state.withLock { $0.accessGrants } == [AccessGrant(methods: [.biometry])])
        context.state.withLock {
            $0.grant(methods: [.biometry], operation: .useItem)
            $0.grant(methods: [.biometry], operation: .useItem)
            $0.grant(methods: [.biometry], operation: nil)
        }
        #expect(context.state.withLock { $0.accessGrants }
            == [AccessGrant(methods: [.biometry]), AccessGrant(methods: [.biometry], operation: .useItem)])
    }

    @Test("an empty localizedReason is a clear programmer error (Apple crashes)")
    func emptyReason() async throws {
        let rig = try TestDevice()
        await #expect(throws: UsageError.emptyLocalizedReason) {
            try await rig.evaluate("biometrics", [], reason: "")
        }
        #expect(UsageError.emptyLocalizedReason.description.contains("localizedReason"))
    }

    @Test("invalidate() during an evaluation ends it with appCancel")
    func invalidateDuringEvaluation() async throws {
        let rig = try TestDevice()
        rig.user.waitsForActions = true
        let context = rig.authenticator.makeContext()
        let evaluation = Task { try await rig.outcome("biometrics", [], on: context) }
        await rig.untilEvaluationIsOnScreen()
        context.invalidate()
        #expect(try await evaluation.value == .appCancel)
    }

    @Test("the app invalidating during a prompt (scripted) ends it with appCancel")
    func invalidateOutcome() async throws {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        #expect(try await rig.outcome("biometrics", [.invalidate], on: context) == .appCancel)
        #expect(context.isInvalidated)
    }

    @Test("after invalidate() every call fails with invalidContext; calling it twice is harmless")
    func invalidContextAfterwards() async throws {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        context.invalidate()
        context.invalidate()
        #expect(try rig.canEvaluate("biometrics", on: context) == .invalidContext)
        #expect(try await rig.outcome("biometrics", [.present("thumb")], on: context) == .invalidContext)
        #expect(context.setCredential(Data("x".utf8), type: .applicationPassword) == false)
    }

    @Test("a second evaluation ends the first with systemCancel")
    func secondEvaluationCancelsFirst() async throws {
        let rig = try TestDevice()
        rig.user.waitsForActions = true
        let first = Task { try await rig.outcome("biometrics", []) }
        await rig.untilEvaluationIsOnScreen()
        let second = Task { try await rig.outcome("biometrics", []) }
        #expect(try await first.value == .systemCancel)
        rig.user.enqueue(.present("thumb"))
        #expect(try await second.value == nil)
    }

    @Test("interactionNotAllowed: an evaluation that needs the user fails with notInteractive")
    func notInteractive() async throws {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        context.interactionNotAllowed = true
        #expect(try await rig.outcome("biometrics", [], on: context) == .notInteractive)
        #expect(try await rig.outcome("owner", [], on: context) == .notInteractive)
    }

    @Test("the reuse duration defaults to 0 and is clamped to 300 s")
    func reuseDurationClamp() throws {
        let context = try TestDevice().authenticator.makeContext()
        #expect(context.touchIDAuthenticationAllowableReuseDuration == .zero)
        context.touchIDAuthenticationAllowableReuseDuration = .seconds(1000)
        #expect(context.touchIDAuthenticationAllowableReuseDuration == .seconds(300))
        #expect(AuthenticationContext.maximumAllowableReuseDuration == .seconds(300))
        context.touchIDAuthenticationAllowableReuseDuration = .seconds(-5)
        #expect(context.touchIDAuthenticationAllowableReuseDuration == .zero)
    }

    @Test("within the reuse window after a biometric device unlock no new scan is needed")
    func reuseWindow() async throws {
        let rig = try TestDevice()
        try rig.device.unlock(with: "thumb")
        rig.clock.advance(by: .seconds(30))
        let context = rig.authenticator.makeContext()
        context.touchIDAuthenticationAllowableReuseDuration = .seconds(60)
        let result = try await rig.evaluate("biometrics", [], on: context)
        #expect(result.methods == [.reuse])
        #expect(context.evaluatedPolicyDomainState != nil)
        // Even without interaction.
        let quiet = rig.authenticator.makeContext()
        quiet.touchIDAuthenticationAllowableReuseDuration = .seconds(60)
        quiet.interactionNotAllowed = true
        #expect(try await rig.evaluate("biometrics", [], on: quiet).methods == [.reuse])
        // Outside the window a scan is needed again.
        rig.clock.advance(by: .seconds(31))
        await #expect(throws: SimulationError.self) { try await rig.evaluate("biometrics", [], on: context) }
        // Zero (the default) never reuses.
        try rig.device.unlock(with: "thumb")
        rig.user.clear()
        await #expect(throws: SimulationError.self) { try await rig.evaluate("biometrics", []) }
    }

    @Test("application-password credentials: set, query, remove with nil")
    func credentials() throws {
        let context = try TestDevice().authenticator.makeContext()
        #expect(!context.isCredentialSet(.applicationPassword))
        #expect(context.setCredential(Data("secret".utf8), type: .applicationPassword))
        #expect(context.isCredentialSet(.applicationPassword))
        #expect(context.setCredential(nil, type: .applicationPassword))
        #expect(!context.isCredentialSet(.applicationPassword))
        #expect(CredentialType.applicationPassword.rawValue == 0)
    }

    @Test("the completion-handler form delivers the same result as the async form")
    func completionHandler() async throws {
        let rig = try TestDevice()
        rig.user.enqueue([.noMatch, .cancel])
        let context = rig.authenticator.makeContext()
        let policy = try rig.policy("biometrics")
        let code: AuthenticationError.Code? = await withCheckedContinuation { continuation in
            context.evaluate(policy, reason: "Unlock") { result in
                switch result {
                case .success: continuation.resume(returning: nil)
                case let .failure(error): continuation.resume(returning: (error as? AuthenticationError)?.code)
                }
            }
        }
        #expect(code == .userCancel)
    }

    @Test("an exhausted script is a clear error, never a hang")
    func emptyQueueIsAnError() async throws {
        let rig = try TestDevice()
        await #expect {
            try await rig.evaluate("biometrics", [.noMatch])
        } throws: { error in
            guard let error = error as? SimulationError, case .noScriptedOutcome = error else { return false }
            return error.description.contains("queue is empty")
        }
    }
}
