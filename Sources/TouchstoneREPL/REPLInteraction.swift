import Synchronization
import Touchstone
import TouchstoneSimulation

/// The person in front of the REPL's device: outcomes queued by `evaluate` first; when the
/// queue is empty, the terminal asks (interactive sessions) or the prompt fails with
/// ``SimulationError/noScriptedOutcome(prompt:allowed:)`` (scripts never hang).
public final class REPLInteraction: Interaction {
    /// Asks the person at the terminal for the action on a prompt; nil cancels.
    public typealias Asker = @Sendable (Prompt) -> UserAction?

    /// The queue `evaluate` fills.
    public let script = ScriptedInteraction()
    private let asker = Mutex<Asker?>(nil)

    /// Creates an interaction with an empty queue and no terminal.
    public init() {}

    /// Installs (or with nil removes) the terminal asker.
    public func setAsker(_ ask: Asker?) {
        asker.withLock { $0 = ask }
    }

    public func nextAction(for prompt: Prompt) async throws -> UserAction {
        if script.pending.isEmpty, let ask = asker.withLock({ $0 }) {
            return ask(prompt) ?? .cancel
        }
        return try await script.nextAction(for: prompt)
    }

    public func interrupt() {
        script.interrupt()
    }

    public func misfit(_ action: UserAction, on prompt: Prompt) -> any Error {
        script.misfit(action, on: prompt)
    }
}
