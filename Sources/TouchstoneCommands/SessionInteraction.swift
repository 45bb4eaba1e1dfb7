import Touchstone
import TouchstoneSimulation

/// The person in front of a session's device: outcomes queued by `evaluate` first; when the
/// queue is empty, the terminal asks (interactive REPL sessions, through an ``Asker`` the
/// terminal host installs) or the prompt fails with
/// ``SimulationError/noScriptedOutcome(prompt:allowed:)`` (scripts never hang).
public final class SessionInteraction: Interaction {
    /// Asks the person at the terminal for the action on a prompt; nil cancels.
    public typealias Asker = @Sendable (Prompt) -> UserAction?

    /// The queue `evaluate` fills.
    public let script: ScriptedInteraction
    private let asker = Locked<Asker?>(nil)

    /// Creates an interaction over `script` (a new empty queue by default), with no terminal.
    public init(script: ScriptedInteraction = ScriptedInteraction()) {
        self.script = script
    }

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
