import Touchstone

/// A simulation script did not fit what the prompt on screen offers: the outcome queue ran
/// dry, or an outcome was given that the current dialog cannot produce.
public enum SimulationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A capture or passcode prompt found the scripted queue empty.
    case noScriptedOutcome(prompt: String, allowed: [String])
    /// The scripted outcome is not possible on the current prompt.
    case unexpectedOutcome(outcome: String, prompt: String, allowed: [String])

    public var description: String {
        switch self {
        case let .noScriptedOutcome(prompt, allowed):
            return "the \(prompt) prompt needs an outcome, but the scripted queue is empty; it accepts: \(allowed.joined(separator: ", "))"
        case let .unexpectedOutcome(outcome, prompt, allowed):
            return "outcome '\(outcome)' is not possible on the \(prompt) prompt; it offers: \(allowed.joined(separator: ", "))"
        }
    }
}
