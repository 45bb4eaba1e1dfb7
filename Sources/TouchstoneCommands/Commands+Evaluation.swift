import Dispatch
import Foundation
import Touchstone
import TouchstoneSimulation

/// While an evaluation waits for a real reader (a sensor that is not simulated, such as
/// `linux.fprintd`) on a terminal: says "touch the sensor" and turns Ctrl-C into the person
/// cancelling at the reader (the sensor's ``BiometricSensor/interrupt()``: userCancel). In
/// scripts nothing changes: the sensor waits up to its own scan timeout.
final class RealReaderPrompt {
    private var source: (any DispatchSourceSignal)?
    /// After a Ctrl-C: interrupts the sensor again every 50 ms until the prompt ends, so a
    /// Ctrl-C that comes before the capture has started (the reader is still being claimed)
    /// is not lost.
    private let repeater = Repeater()

    private final class Repeater: Sendable {
        let timer = Locked<(any DispatchSourceTimer)?>(nil)
    }

    init(session: CommandSession) {
        guard session.isInteractive, let sensor = session.device.sensor, !(sensor is any SimulatedHardwareControl) else { return }
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [repeater] in
            sensor.interrupt()
            repeater.timer.withLock { timer in
                guard timer == nil else { return }
                let repeating = DispatchSource.makeTimerSource(queue: .global())
                repeating.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
                repeating.setEventHandler { sensor.interrupt() }
                repeating.resume()
                timer = repeating
            }
        }
        source.resume()
        self.source = source
        // Said once Ctrl-C is handled, never before.
        FileHandle.standardError.write(Data("touch the sensor (Ctrl-C cancels)\n".utf8))
    }

    /// Restores Ctrl-C's default action.
    func end() {
        guard let source else { return }
        source.cancel()
        repeater.timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        signal(SIGINT, SIG_DFL)
        self.source = nil
    }
}

extension CommandTable {
    /// `can`, `evaluate`, `trace`, `status`.
    static func evaluationCommands() -> [Command] {
        [
            Command(
                name: "can", aliases: ["canevaluate"], summary: "the can-evaluate result: ok or the error, and the biometry type",
                usage: "can <policy>", example: "can biometrics",
                details: ["policies: biometrics (1), owner (2), companion (3), biometrics-or-companion (4), wrist (5),",
                          "Apple's full names (deviceOwnerAuthenticationWithBiometrics ...) or raw numbers."],
                completer: { session, previous in previous.isEmpty ? session.policyNames + session.allPolicyNames : [] }
            ) { session, arguments in
                try arguments.expectAtMost(1)
                let policy = try session.authenticator.policy(named: try arguments.required(0, "the policy"))
                let problem = try session.context.canEvaluate(policy)
                let type = session.context.biometryType
                if let problem {
                    throw AnnotatedError(problem, note: "(biometryType: \(type))")
                }
                return CommandOutput("ok: \(policy.name) can be evaluated (biometryType: \(type))", result: [
                    ("policy", .string(policy.name)), ("rawValue", policy.rawValue.map { .int($0) } ?? .null),
                    ("biometryType", .string(type.description)),
                ])
            },
            Command(
                name: "evaluate", aliases: ["eval"], summary: "evaluate a policy; outcomes are consumed in order",
                usage: "evaluate <policy> [\"<reason>\"] [outcome ...]",
                example: "evaluate biometrics \"Unlock your notes\" nomatch thumb",
                moreExamples: ["evaluate owner \"Pay 10 EUR\" nomatch nomatch nomatch passcode:1234",
                               "evaluate biometrics \"Sign in\" cancel"],
                details: ["outcomes: <enrolled name> (that identity matches), nomatch, cancel, fallback, passcode:<code>,",
                          "systemcancel, invalidate, wait:<duration>, companion.",
                          "wait: lets the time pass on the device clock: the virtual clock moves at once; a wall clock sleeps (an interruption ends it).",
                          "The reason is the quoted word after the policy; without one the prompt says \"\(CommandSession.defaultReason)\".",
                          "On a terminal with no outcomes left the REPL asks for each one; in a script it is an error."],
                completer: { session, previous in
                    switch previous.count {
                    case 0: return session.policyNames + session.allPolicyNames
                    default: return session.outcomeWords  // after the policy: a quoted reason or outcomes
                    }
                },
                redactor: { words in
                    guard words.contains(where: { $0.lowercased().hasPrefix("passcode:") }) else { return nil }
                    return words.map { $0.lowercased().hasPrefix("passcode:") ? "passcode:****" : $0 }
                }
            ) { session, arguments in
                let policy = try session.authenticator.policy(named: try arguments.required(0, "the policy"))
                // A quoted word after the policy is the reason; without one, every word is an
                // outcome and the prompt shows the default reason (so TOUCHSTONE_SETUP's
                // `evaluate biometrics nomatch nomatch nomatch` reads the same here).
                let hasReason = arguments.isQuoted(1)
                let reason = hasReason ? arguments.words[1] : CommandSession.defaultReason
                let outcomeWords = arguments.words.dropFirst(hasReason ? 2 : 1)
                // Outcomes left unused are noted after the output (CommandSession.execute).
                return try await session.withScriptedOutcomes(outcomeWords, arguments: arguments) { script in
                    let reader = RealReaderPrompt(session: session)
                    defer { reader.end() }
                    let result = try await session.context.evaluate(policy, reason: reason)
                    let matched = result.trace.steps.compactMap { step -> String? in
                        if case let .matched(name) = step.event { return name }
                        return nil
                    }
                    let methods = result.methods.map(\.rawValue)
                    var line = "ok: \(policy.name) succeeded by \(methods.joined(separator: " + "))"
                    if !matched.isEmpty { line += " (\(matched.joined(separator: ", ")))" }
                    return CommandOutput(line, result: [
                        ("policy", .string(policy.name)), ("methods", .strings(methods)), ("matched", .strings(matched)),
                        ("unusedOutcomes", .strings(script.pending.map(\.description))),
                        ("evaluatedPolicyDomainState", Format.hexJSON(session.context.evaluatedPolicyDomainState)),
                    ])
                }
            },
            Command(
                name: "trace", summary: "the last evaluation's trace: every step, the counters and the rule that decided",
                usage: "trace", example: "trace"
            ) { session, arguments in
                try arguments.expectAtMost(0)
                guard let trace = session.device.lastTrace else {
                    throw CommandError.unavailable("no evaluation yet; run evaluate first")
                }
                var lines = trace.description.components(separatedBy: "\n")
                if let result = trace.result {
                    lines.append("  result: \(result.name) (\(result.rawValue))")
                } else if trace.failure == nil {
                    lines.append("  result: success")
                }
                return CommandOutput(lines, result: [("trace", Format.trace(trace))])
            },
            Command(
                name: "status", summary: "biometry lockout and passcode counters, next delay, time remaining",
                usage: "status", example: "status"
            ) { session, arguments in
                try arguments.expectAtMost(0)
                let biometry = try session.device.biometryStatus()
                let passcode = try session.device.passcodeStatus()
                // A real reader (one that describes itself) is named with its enrolled identities.
                let reader = (session.device.sensor as? any CustomStringConvertible)?.description
                let enrolled = reader == nil ? [] : try session.device.enrolledNames()
                let readerLines = reader.map { ["reader: \($0); enrolled: \(Format.list(enrolled))"] } ?? []
                return CommandOutput(readerLines + [Format.biometry(biometry), Format.passcode(passcode)], result: [
                    ("biometry", Format.biometryJSON(biometry)), ("passcode", Format.passcodeJSON(passcode)),
                ] + (reader.map { [("reader", JSONValue.string($0)), ("enrolled", JSONValue.strings(enrolled))] } ?? []))
            },
        ]
    }
}
