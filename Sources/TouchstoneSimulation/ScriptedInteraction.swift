import Touchstone

/// A scripted user: actions are queued ahead of time and consumed in order.
///
/// By default an empty queue is an error (``SimulationError/noScriptedOutcome(prompt:allowed:)``), so a
/// script never hangs. ``whenNothingIsQueued`` may answer such a prompt instead. With
/// `waitsForActions` the prompt waits until ``enqueue(_:)`` supplies an action or the
/// evaluation is interrupted, which lets tests keep an evaluation "on screen" while they start
/// another one. An action counts as queued when it was queued before the prompt appeared.
///
/// ```swift
/// let user = ScriptedInteraction()
/// user.enqueue([.noMatch, .present("thumb")])
/// ```
public final class ScriptedInteraction: Interaction {
    private struct State {
        var queue: [UserAction] = []
        var head = 0
        var waiter: CheckedContinuation<UserAction?, Never>?
        var waitsForActions = false
        var whenNothingIsQueued: (@Sendable (Prompt) -> UserAction?)?
        var lastPrompt: Prompt?

        /// Takes the first queued action (there is one); the queue's storage is reused once
        /// it has been consumed.
        mutating func takeQueued() -> UserAction {
            let action = queue[head]
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            return action
        }
    }

    private let state = Locked(State())

    /// Creates an empty script.
    public init() {}

    /// When true, a prompt with an empty queue waits for ``enqueue(_:)`` instead of failing.
    public var waitsForActions: Bool {
        get { state.withLock { $0.waitsForActions } }
        set { state.withLock { $0.waitsForActions = newValue } }
    }

    /// What the person does at a prompt when nothing is queued: the closure's action, or, when
    /// it gives nil or there is none (the default), the queue's rule — fail, or wait with
    /// ``waitsForActions``. Queued actions always come first. For tests of code whose prompts
    /// come in an order the test does not script, such as a library's own suite.
    ///
    /// ```swift
    /// user.whenNothingIsQueued = { prompt in prompt.kind == .passcode ? .passcode("1234") : nil }
    /// ```
    public var whenNothingIsQueued: (@Sendable (Prompt) -> UserAction?)? {
        get { state.withLock { $0.whenNothingIsQueued } }
        set { state.withLock { $0.whenNothingIsQueued = newValue } }
    }

    /// Appends actions to the queue (and hands the first to a waiting prompt).
    public func enqueue(_ actions: [UserAction]) {
        var remaining = actions[...]
        let handoff: (CheckedContinuation<UserAction?, Never>, UserAction)? = state.withLock { state in
            if let waiter = state.waiter, let first = remaining.first {
                state.waiter = nil
                remaining = remaining.dropFirst()
                state.queue.append(contentsOf: remaining)
                return (waiter, first)
            }
            state.queue.append(contentsOf: remaining)
            return nil
        }
        if let (waiter, action) = handoff { waiter.resume(returning: action) }
    }

    /// Appends one action.
    public func enqueue(_ action: UserAction) {
        let waiter: CheckedContinuation<UserAction?, Never>? = state.withLock { state in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.queue.append(action)
            return nil
        }
        waiter?.resume(returning: action)
    }

    /// The actions not yet consumed.
    public var pending: [UserAction] {
        state.withLock { Array($0.queue[$0.head...]) }
    }

    /// The last prompt shown to this user (its kind, buttons and reason), for tests that check
    /// what the dialog offered; nil before the first.
    public var lastPrompt: Prompt? {
        state.withLock { $0.lastPrompt }
    }

    /// Whether a prompt is waiting for ``enqueue(_:)`` right now (only with
    /// ``waitsForActions``): the evaluation is on screen and nothing has answered it yet.
    /// Tests poll this (yielding, never sleeping) before they act on the open prompt.
    public var isWaitingForAction: Bool {
        state.withLock { $0.waiter != nil }
    }

    /// Drops every queued action.
    public func clear() {
        state.withLock { state in
            state.queue.removeAll(keepingCapacity: true)
            state.head = 0
        }
    }

    public func nextAction(for prompt: Prompt) async throws -> UserAction {
        enum Next { case queued(UserAction), unanswered(respond: (@Sendable (Prompt) -> UserAction?)?, waits: Bool) }
        let next: Next = state.withLock { state in
            state.lastPrompt = prompt
            if state.head < state.queue.count {
                return .queued(state.takeQueued())
            }
            return .unanswered(respond: state.whenNothingIsQueued, waits: state.waitsForActions)
        }
        switch next {
        case let .queued(action):
            return action
        case let .unanswered(respond, waits):
            // The responder runs outside the lock: it is the test's code.
            if let action = respond?(prompt) { return action }
            if waits { return await waitForAction(prompt) }
            throw SimulationError.noScriptedOutcome(prompt: prompt.kind.rawValue, allowed: prompt.allowedActions)
        }
    }

    /// Waits for ``enqueue(_:)`` to answer `prompt` (``waitsForActions``), or for an interruption.
    private func waitForAction(_ prompt: Prompt) async -> UserAction {
        let action = await withCheckedContinuation { (continuation: CheckedContinuation<UserAction?, Never>) in
            let resumeNow: UserAction?? = state.withLock { state in
                if state.head < state.queue.count {
                    return .some(state.takeQueued())
                }
                if prompt.isInterrupted() { return .some(nil) }
                if let previous = state.waiter {
                    previous.resume(returning: nil)
                }
                state.waiter = continuation
                return .none
            }
            if case let .some(action) = resumeNow { continuation.resume(returning: action) }
        }
        // nil: the prompt was interrupted; the engine reads the interruption reason.
        return action ?? .systemCancel
    }

    /// A script that does not fit the dialog: ``SimulationError/unexpectedOutcome(outcome:prompt:allowed:)``.
    public func misfit(_ action: UserAction, on prompt: Prompt) -> any Error {
        SimulationError.unexpectedOutcome(outcome: action.description, prompt: prompt.kind.rawValue, allowed: prompt.allowedActions)
    }

    public func interrupt() {
        let waiter = state.withLock { state -> CheckedContinuation<UserAction?, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }
}
