/// What the person in front of the device does when a prompt is on screen.
public enum UserAction: Sendable, Equatable, CustomStringConvertible {
    /// Presents the finger, face or iris enrolled (or not) under this name.
    case present(String)
    /// Presents something that matches no enrolled identity.
    case noMatch
    /// Presses Cancel.
    case cancel
    /// Presses the fallback button (by default "Enter Password", or "Enter Passcode" when it leads to the device passcode).
    case fallback
    /// Types a passcode on the passcode prompt.
    case passcode(String)
    /// The system interrupts (a call comes in, the app moves away).
    case systemCancel
    /// The app calls `invalidate()` on the context while the prompt is up.
    case invalidate
    /// The user waits this long before the next action, the prompt on screen: the device's
    /// clock lets the time pass (``DeviceClock/elapse(_:unlessInterrupted:)``: a manual clock
    /// moves at once; the wall clock sleeps, and an interruption ends the wait at once).
    case wait(Duration)
    /// Approves the request on the paired companion device (watch / Mac).
    case approveOnCompanion

    /// This action with a passcode's entry removed (`.passcode("")`), as a trace keeps it.
    var withoutSecret: UserAction {
        if case .passcode = self { return .passcode("") }
        return self
    }

    /// The script spelling. A passcode is shown as `passcode:****`: secrets never reach
    /// traces or logs.
    public var description: String {
        switch self {
        case let .present(name): name
        case .noMatch: "nomatch"
        case .cancel: "cancel"
        case .fallback: "fallback"
        case .passcode: "passcode:****"
        case .systemCancel: "systemcancel"
        case .invalidate: "invalidate"
        case let .wait(duration): "wait:\(duration.compactDescription)"
        case .approveOnCompanion: "companion"
        }
    }
}

/// The prompt the user is looking at when asked for an action.
public struct Prompt: Sendable, Equatable, CustomStringConvertible {
    /// Which dialog is on screen.
    public enum Kind: String, Sendable, Equatable {
        /// Scanning for a finger, face or iris.
        case biometric
        /// Face ID / Optic ID after the first failure: "Try Again" scans once more.
        case biometricTryAgain = "biometric (try again)"
        /// Face ID after the second failure: scanning stopped, only Cancel and fallback.
        case biometricButtonsOnly = "biometric (scanning stopped)"
        /// The device passcode keypad.
        case passcode
        /// Waiting for approval on a companion device.
        case companion
    }

    /// Which dialog.
    public var kind: Kind
    /// The app's reason text.
    public var reason: String
    /// The fallback button's title, or nil when the button is not shown.
    public var fallbackButton: String?
    /// The cancel button's title.
    public var cancelButton: String
    /// The biometry being scanned (biometric prompts).
    public var biometryType: BiometryType
    /// Failed matches so far in this evaluation (biometric prompts); on the passcode keypad,
    /// the entries this prompt has turned down so far (wrong, repeated or refused during a delay).
    public var failuresSoFar: Int
    /// Whether the evaluation showing this prompt has been interrupted. An ``Interaction``
    /// that waits for the user checks it (under its own lock) before waiting, so an
    /// interruption that lands just before the wait is not missed.
    public var isInterrupted: @Sendable () -> Bool

    /// Creates a prompt description.
    public init(kind: Kind, reason: String, fallbackButton: String?, cancelButton: String,
                biometryType: BiometryType, failuresSoFar: Int,
                isInterrupted: @escaping @Sendable () -> Bool = { false }) {
        self.kind = kind
        self.reason = reason
        self.fallbackButton = fallbackButton
        self.cancelButton = cancelButton
        self.biometryType = biometryType
        self.failuresSoFar = failuresSoFar
        self.isInterrupted = isInterrupted
    }

    public static func == (lhs: Prompt, rhs: Prompt) -> Bool {
        lhs.kind == rhs.kind && lhs.reason == rhs.reason && lhs.fallbackButton == rhs.fallbackButton
            && lhs.cancelButton == rhs.cancelButton && lhs.biometryType == rhs.biometryType
            && lhs.failuresSoFar == rhs.failuresSoFar
    }

    /// The actions this dialog can produce, in script spelling (for error messages).
    public var allowedActions: [String] {
        var actions: [String]
        switch kind {
        case .biometric, .biometricTryAgain: actions = ["<enrolled name>", "nomatch"]
        case .biometricButtonsOnly: actions = []
        case .passcode: actions = ["passcode:<code>"]
        case .companion: actions = ["companion"]
        }
        actions.append("cancel")
        if fallbackButton != nil, kind != .passcode { actions.append("fallback") }
        actions += ["systemcancel", "invalidate", "wait:<duration>"]
        return actions
    }

    public var description: String { kind.rawValue }
}

/// The person in front of the device: answers each prompt with a ``UserAction``.
///
/// Simulations use the simulation module's `ScriptedInteraction`; an interactive REPL asks at
/// the terminal.
public protocol Interaction: Sendable {
    /// The user's next action on `prompt`.
    func nextAction(for prompt: Prompt) async throws -> UserAction

    /// Abandons a pending ``nextAction(for:)`` (the evaluation was cancelled); it must return
    /// or throw promptly.
    func interrupt()

    /// The error for an action of this person's that `prompt` does not offer (a finger on a
    /// dialog that stopped scanning, a fallback without the button). By default
    /// ``InteractionError/actionNotOffered(action:prompt:allowed:)``; a scripted person reports
    /// it as a mistake in the script.
    func misfit(_ action: UserAction, on prompt: Prompt) -> any Error
}

extension Interaction {
    public func misfit(_ action: UserAction, on prompt: Prompt) -> any Error {
        InteractionError.actionNotOffered(action: action.description, prompt: prompt.kind.rawValue, allowed: prompt.allowedActions)
    }
}

/// The person in front of the device did something the dialog on screen does not offer.
public enum InteractionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `action` is not possible on the `prompt` dialog, which offers `allowed`.
    case actionNotOffered(action: String, prompt: String, allowed: [String])

    public var description: String {
        switch self {
        case let .actionNotOffered(action, prompt, allowed):
            return "'\(action)' is not possible on the \(prompt) prompt; it offers: \(allowed.joined(separator: ", "))"
        }
    }
}
