import Synchronization
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneSimulation

/// An answer queued before the prompt and one handed over while the prompt waits are the same
/// event to the evaluation machine: the traces must be indistinguishable.
@Suite struct QueuedAndAwaitedAnswerTests {
    /// Runs `answers` under `biometrics` on a fresh device: queued before the evaluation (the
    /// queued path), or handed over one by one while the prompt waits (the awaited path).
    /// Returns the trace.
    func trace(_ answers: [UserAction], queued: Bool) async throws -> Trace {
        try await run(.biometrics, queued: queued ? answers : [], awaited: queued ? [] : answers).trace
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
        let queued = try await trace(answers, queued: true)
        let awaited = try await trace(answers, queued: false)
        #expect(queued.steps == awaited.steps)
        #expect(queued.result == awaited.result)
    }

    /// Runs `policy` with `queued` answered at once and then `awaited` handed over one by one
    /// while the prompt waits: the evaluation starts without suspending and goes on awaited
    /// from wherever the queue ran dry. Returns its outcome and trace; answers left when the
    /// evaluation ended early are not handed over.
    func run(_ policy: PolicyName, queued: [UserAction], awaited: [UserAction]) async throws
        -> (outcome: AuthenticationError.Code?, trace: Trace) {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        rig.user.waitsForActions = true
        rig.enqueue(contentsOf: queued)
        let ended = Flag()
        let evaluation = Task {
            defer { ended.set() }
            return try await rig.outcome(policy, [], on: context)
        }
        for answer in awaited {
            while !rig.user.isWaitingForAction, !ended.isSet { await Task.yield() }
            if ended.isSet { break }
            rig.user.enqueue(answer)
        }
        let outcome = try await evaluation.value
        return (outcome, try #require(context.lastTrace))
    }

    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }

    @Test("an evaluation that starts without waiting and goes on awaited ends as expected, with the trace of one answered at once", arguments: [
        (PolicyName.biometrics, [UserAction.noMatch], [UserAction.present("thumb")], AuthenticationError.Code?.none),
        (.biometrics, [.noMatch, .noMatch], [.noMatch], .authenticationFailed),
        (.biometrics, [.noMatch, .wait(.seconds(5))], [.cancel], .userCancel),
        (.deviceOwner, [.noMatch, .fallback], [.passcode("1234")], nil),
        (.deviceOwner, [.noMatch, .noMatch, .noMatch], [.passcode("0000"), .passcode("1234")], nil),
        (.deviceOwner, [], [.present("thumb")], nil),
        (.biometricsOrCompanion, [.noMatch], [.present("thumb")], nil),
        (.biometricsAndPasscode, [.present("thumb")], [.passcode("1234")], nil),
    ])
    func resumedEvaluation(policy: PolicyName, queued: [UserAction], awaited: [UserAction],
                           expected: AuthenticationError.Code?) async throws {
        let mixed = try await run(policy, queued: queued, awaited: awaited)
        let allQueued = try await run(policy, queued: queued + awaited, awaited: [])
        #expect(mixed.outcome == expected)
        #expect(allQueued.outcome == expected)
        #expect(mixed.trace.steps == allQueued.trace.steps)
        #expect(mixed.trace.result == allQueued.trace.result)
    }
}
