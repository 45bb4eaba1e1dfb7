import Touchstone
import TouchstoneSimulation

extension REPLSession {
    /// Parses `words` as outcomes (`thumb`, `nomatch`, `passcode:1234`, ...), queues them for the
    /// prompts `body` shows, and drops whatever is left when it returns: one command's outcomes
    /// never leak into the next. `body` gets the queue, to report unused outcomes.
    func withScriptedOutcomes<T>(
        _ words: ArraySlice<String>, arguments: CommandArguments,
        _ body: (ScriptedInteraction) async throws -> T
    ) async throws -> T {
        var outcomes: [UserAction] = []
        for word in words {
            guard let action = UserAction(script: word) else {
                if word.lowercased().hasPrefix("wait:") {
                    throw arguments.usageError("'\(word)': wait takes a duration from \(Duration.compactRangeDescription), such as wait:5m")
                }
                throw arguments.usageError("'\(word)' is not an outcome (a name, nomatch, cancel, fallback, passcode:<code>, systemcancel, invalidate, wait:<duration>, companion)")
            }
            outcomes.append(action)
        }
        let script = interaction.script
        script.clear()
        script.enqueue(outcomes)
        defer { script.clear() }
        return try await body(script)
    }
}
