import Testing
import TouchstoneTesting
@testable import Touchstone

/// The evaluation machine driven by hand, as the context's loop drives it, with no sensor and
/// no person: each event in, the next action out, the counters and the trace as they go.
@Suite("Evaluation machine, driven by hand")
struct EvaluationMachineTests {
    func machine(on rig: TestDevice, _ policy: PolicyName) throws -> EvaluationMachine {
        EvaluationMachine(context: rig.authenticator.makeContext(), policy: try rig.authenticator.policy(policy),
                          reason: "Unlock", handle: EvaluationHandle(),
                          settings: EvaluationSettings(fallbackTitle: nil, cancelTitle: nil, reuseDuration: .zero,
                                                       interactionNotAllowed: false))
    }

    /// The prompt of a capture action.
    func capturePrompt(_ action: EvaluationMachine.Action) throws -> Prompt {
        guard case let .capture(prompt, _) = action else {
            throw Mismatch(expected: "a capture", got: "\(action)")
        }
        return prompt
    }

    /// The prompt of an ask action.
    func askPrompt(_ action: EvaluationMachine.Action) throws -> Prompt {
        guard case let .ask(prompt) = action else { throw Mismatch(expected: "a question to the person", got: "\(action)") }
        return prompt
    }

    /// The result of a finish action.
    func result(_ action: EvaluationMachine.Action) throws -> EvaluationResult {
        guard case let .finish(result) = action else { throw Mismatch(expected: "the end", got: "\(action)") }
        return result
    }

    struct Mismatch: Error, CustomStringConvertible {
        var expected: String
        var got: String
        var description: String { "expected \(expected), got \(got)" }
    }

    @Test("biometrics: a capture is asked for; a failed match is counted and asked for again with the fallback button; a match finishes")
    func biometricStepByStep() throws {
        let rig = try TestDevice()
        var machine = try machine(on: rig, .biometrics)
        let first = try capturePrompt(try machine.start())
        #expect(first.kind == .biometric)
        #expect(first.fallbackButton == nil)
        let second = try capturePrompt(try machine.step(.captured(.noMatch, on: first)))
        #expect(second.fallbackButton == "Enter Password")
        #expect(second.failuresSoFar == 1)
        #expect(try rig.device.counters.consecutiveBiometricFailures == 1)
        let done = try result(try machine.step(.captured(.matched("thumb"), on: second)))
        #expect(done.methods == [.biometry])
        #expect(done.trace.steps.compactMap(\.rule) == [.fallbackAfterFirstFailure, .matchResetsFailures])
        #expect(try rig.device.counters.consecutiveBiometricFailures == 0)
        #expect(machine.state == .over)
    }

    @Test("a wait is an action for the driver: the machine neither sleeps nor moves the clock; the same prompt comes back after it")
    func waitIsHandedToTheDriver() throws {
        let rig = try TestDevice()
        var machine = try machine(on: rig, .biometrics)
        let prompt = try capturePrompt(try machine.start())
        let before = rig.clock.now
        let waiting = try machine.step(.captured(.action(.wait(.seconds(30))), on: prompt))
        guard case let .wait(duration, on: shown) = waiting else {
            throw Mismatch(expected: "a wait", got: "\(waiting)")
        }
        #expect(duration == .seconds(30))
        #expect(shown == prompt)
        #expect(machine.state == .waiting(then: .scanning))
        #expect(rig.clock.now == before)
        rig.clock.advance(by: duration)  // what the driver's elapse does on a manual clock
        let again = try capturePrompt(try machine.step(.waited(duration, on: prompt)))
        #expect(again == prompt)
        let done = try result(try machine.step(.captured(.matched("thumb"), on: again)))
        #expect(done.trace.steps.map(\.event).contains(.waited(.seconds(30))))
        #expect(done.trace.steps.first { $0.event == .waited(.seconds(30)) }?.at == before.advanced(by: .seconds(30)))
    }

    @Test("deviceOwner: fallback opens the passcode keypad, a wrong entry asks again, the right one finishes")
    func passcodeStepByStep() throws {
        let rig = try TestDevice()
        var machine = try machine(on: rig, .deviceOwner)
        let first = try capturePrompt(try machine.start())
        let second = try capturePrompt(try machine.step(.captured(.noMatch, on: first)))
        let keypad = try askPrompt(try machine.step(.captured(.action(.fallback), on: second)))
        #expect(keypad.kind == .passcode)
        let again = try askPrompt(try machine.step(.acted(.passcode("0000"), on: keypad)))
        #expect(again.kind == .passcode)
        #expect(try rig.device.counters.passcodeFailures == 1)
        let done = try result(try machine.step(.acted(.passcode("1234"), on: again)))
        #expect(done.methods == [.passcode])
        #expect(try rig.device.counters.passcodeFailures == 0)
    }

    @Test("an event that ends the evaluation throws its error, and the trace ends with it")
    func cancelThrows() throws {
        let rig = try TestDevice()
        var machine = try machine(on: rig, .biometrics)
        let prompt = try capturePrompt(try machine.start())
        #expect(throws: AuthenticationError(.userCancel)) { try machine.step(.captured(.action(.cancel), on: prompt)) }
        let trace = machine.trace(endingWith: AuthenticationError(.userCancel))
        #expect(trace.result == .userCancel)
        #expect(trace.steps.last?.rule == .userCancel)
        #expect(machine.state == .over)
    }

    @Test("the third failed Touch ID match ends the evaluation with authenticationFailed without another capture")
    func thirdFailureEnds() throws {
        let rig = try TestDevice()
        var machine = try machine(on: rig, .biometrics)
        var prompt = try capturePrompt(try machine.start())
        prompt = try capturePrompt(try machine.step(.captured(.noMatch, on: prompt)))
        prompt = try capturePrompt(try machine.step(.captured(.noMatch, on: prompt)))
        #expect(throws: AuthenticationError(.authenticationFailed)) { try machine.step(.captured(.noMatch, on: prompt)) }
        #expect(try rig.device.counters.consecutiveBiometricFailures == 3)
    }

    @Test("biometrics and passcode: the second step's keypad follows the first step's match, and both methods are reported")
    func twoSteps() throws {
        let rig = try TestDevice()
        var machine = try machine(on: rig, .biometricsAndPasscode)
        let first = try capturePrompt(try machine.start())
        let keypad = try askPrompt(try machine.step(.captured(.matched("thumb"), on: first)))
        #expect(keypad.kind == .passcode)
        let done = try result(try machine.step(.acted(.passcode("1234"), on: keypad)))
        #expect(done.methods == [.biometry, .passcode])
    }
}

/// A policy a plugin may define with no steps at all.
struct EmptyPolicy: Policy {
    static let descriptor = PluginDescriptor(id: "test.empty", kind: .policy, summary: "no steps")
    var rawValue: Int? { nil }
    var names: [String] { ["empty"] }
    var rule: PolicyRule { PolicyRule(steps: [], requiresPasscodeSet: false) }

    init() {}
    init(options: PluginOptions, environment: PluginEnvironment) {}
}

extension EvaluationMachineTests {
    @Test("a policy of no steps (a plugin may define one) succeeds with no method and no prompt, as it always did")
    func policyOfNoSteps() async throws {
        let rig = try TestDevice()
        let context = rig.authenticator.makeContext()
        let result = try await context.evaluate(EmptyPolicy(), reason: "Nothing to do")
        #expect(result.methods.isEmpty)
        #expect(result.trace.steps.map(\.event) == [.checked(nil), .finished(nil)])
    }
}
