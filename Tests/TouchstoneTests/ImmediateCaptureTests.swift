import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneSimulation

/// A capture already decided (a scripted answer queued before the prompt) is taken without
/// suspending (`immediateCapture`); it must be indistinguishable from the awaited capture.
@Suite struct ImmediateCaptureTests {
    /// Runs `answers` on a fresh device: queued before the evaluation (the immediate path), or
    /// handed over one by one while the prompt waits (the awaited path). Returns the trace.
    func trace(_ answers: [UserAction], queued: Bool) async throws -> Trace {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        if queued {
            rig.enqueue(contentsOf: answers)
            _ = try? await rig.outcome("biometrics", [], on: context)
        } else {
            rig.user.waitsForActions = true
            let evaluation = Task { try? await rig.outcome("biometrics", [], on: context) }
            for answer in answers {
                await rig.untilEvaluationIsOnScreen()
                rig.user.enqueue(answer)
            }
            _ = await evaluation.value
        }
        return try #require(context.lastTrace)
    }

    @Test("queued and awaited answers give the same trace: steps, rules and counters", arguments: [
        [UserAction.present("thumb")],
        [.noMatch, .present("thumb")],
        [.noMatch, .noMatch, .noMatch],
        [.noMatch, .cancel],
        [.noMatch, .fallback],
        [.present("stranger"), .present("thumb")],
    ])
    func sameTraceBothWays(answers: [UserAction]) async throws {
        let immediate = try await trace(answers, queued: true)
        let awaited = try await trace(answers, queued: false)
        #expect(immediate.steps == awaited.steps)
        #expect(immediate.result == awaited.result)
    }

    @Test("an empty queue answers nil at once and consumes nothing; a queued answer is taken and the prompt recorded")
    func scriptedImmediateAction() {
        let user = ScriptedInteraction()
        let prompt = Prompt(kind: .biometric, reason: "Unlock", fallbackButton: nil, cancelButton: "Cancel",
                            biometryType: .touchID, failuresSoFar: 0)
        #expect(user.immediateAction(for: prompt) == nil)
        #expect(user.lastPrompt == nil)
        user.enqueue([.noMatch, .present("thumb")])
        #expect(user.immediateAction(for: prompt) == .noMatch)
        #expect(user.lastPrompt?.reason == "Unlock")
        #expect(user.pending == [.present("thumb")])
        #expect(user.immediateAction(for: prompt) == .present("thumb"))
        #expect(user.pending.isEmpty)
    }
}
