import Touchstone
import TouchstoneSimulation

extension Outcomes {
    /// The outcome words a mistyped name is checked against.
    static let words = ["nomatch", "cancel", "fallback", "systemcancel", "invalidate", "companion"]

    /// For a name presented to the sensor that is not among `enrolled`, the enrolled name or
    /// outcome word it is one slip away from (`thum` for `thumb`, `cancle` for `cancel`): such a
    /// word is a typing mistake, and taking it as an unknown finger would count a failed match
    /// toward lockout. Nil for an enrolled name or one that resembles nothing.
    public static func likelySlip(_ name: String, enrolled: [String]) -> String? {
        guard !enrolled.contains(name) else { return nil }
        let lowered = name.lowercased()
        var best: (word: String, distance: Int)?
        for candidate in enrolled + words {
            let distance = editDistance(lowered, candidate.lowercased())
            if distance <= (candidate.count >= 5 ? 2 : 1), best.map({ distance < $0.distance }) ?? true {
                best = (candidate, distance)
            }
        }
        return best?.word
    }

    /// What to say about a slip `likelySlip` found.
    public static func slipMessage(_ name: String, nearest: String) -> String {
        "'\(name)' is not an enrolled name: did you mean \(nearest)? (write nomatch for a finger or face that is not enrolled)"
    }
}

extension CommandSession {
    /// Parses `words` as outcomes (`thumb`, `nomatch`, `passcode:1234`, ...), queues them for the
    /// prompts `body` shows, and drops whatever is left when it returns: one command's outcomes
    /// never leak into the next. Outcomes left over are an error when ``rejectsUnusedOutcomes``
    /// is set, and otherwise a note the command's output ends with (``execute(_:)`` adds it).
    nonisolated(nonsending) package func withScriptedOutcomes<T>(
        _ words: ArraySlice<String>, arguments: CommandArguments,
        _ body: nonisolated(nonsending) (ScriptedInteraction) async throws -> T
    ) async throws -> T {
        let outcomes: [UserAction]
        do {
            outcomes = try Outcomes.parse(words)
        } catch {
            throw arguments.usageError(error.description)
        }
        guard outcomes.isEmpty || drivesDevice else {
            throw CommandError.unavailable("outcomes cannot be queued: this device's user is not a scripted one")
        }
        if outcomes.contains(where: { if case .present = $0 { true } else { false } }) {
            let enrolled = (try? device.enrolledNames()) ?? []
            for case let .present(name) in outcomes {
                if let nearest = Outcomes.likelySlip(name, enrolled: enrolled) {
                    throw arguments.usageError(Outcomes.slipMessage(name, nearest: nearest))
                }
            }
        }
        let script = interaction.script
        script.clear()
        script.enqueue(outcomes)
        defer { script.clear() }
        guard rejectsUnusedOutcomes else {
            defer { unusedOutcomes = script.pending }
            return try await body(script)
        }
        let value: T
        do {
            value = try await body(script)
        } catch {
            try rejectUnused(script, arguments: arguments)
            throw error
        }
        try rejectUnused(script, arguments: arguments)
        return value
    }

    /// Adds the note on outcomes the last command queued and its prompts never used: a line
    /// and an `unusedOutcomes` result on success, a note after the error on failure.
    func noteUnusedOutcomes(_ outcome: CommandRecord.Outcome) -> CommandRecord.Outcome {
        let unused = unusedOutcomes.map(\.description)
        guard !unused.isEmpty else { return outcome }
        switch outcome {
        case var .success(output):
            output.lines.append("note: unused outcomes: \(unused.joined(separator: " "))")
            if !output.result.contains(where: { $0.0 == "unusedOutcomes" }) {
                output.result.append(("unusedOutcomes", .strings(unused)))
            }
            return .success(output)
        case var .failure(report):
            report.message += " (unused outcomes: \(unused.joined(separator: " ")))"
            return .failure(report)
        }
    }

    /// Throws a usage error when outcomes are left in `script`.
    private func rejectUnused(_ script: ScriptedInteraction, arguments: CommandArguments) throws(CommandError) {
        let unused = script.pending
        guard !unused.isEmpty else { return }
        throw arguments.usageError("\(unused.count) outcome(s) left over after the prompts ended: \(unused.map(\.description).joined(separator: " "))")
    }
}
