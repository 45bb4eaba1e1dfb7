import Foundation
import Synchronization

/// The kinds of credential an app can set on a context (LACredentialType).
public enum CredentialType: Int, Sendable, Codable {
    /// An application password: an extra encryption factor for keychain items protected with
    /// `applicationPassword`.
    case applicationPassword = 0
}

/// One app's request for authentication: the `LAContext` of Touchstone.
///
/// ```swift
/// let context = authenticator.makeContext()
/// context.localizedFallbackTitle = ""          // hide the fallback button
/// if let problem = try context.canEvaluate(.biometrics) {
///     print("unavailable:", problem)
/// } else {
///     let result = try await context.evaluate(.biometrics, reason: "Sign in to Notes")
///     print(result.methods, context.evaluatedPolicyDomainState ?? Data())
/// }
/// ```
public final class AuthenticationContext: Sendable {
    /// The longest reuse window (LATouchIDAuthenticationMaximumAllowableReuseDuration): 300 s.
    public static let maximumAllowableReuseDuration: Duration = .seconds(300)

    /// The default title of the fallback button when none is set, under a biometrics-only
    /// policy, where the button hands control back to the app.
    public static let defaultFallbackTitle = "Enter Password"
    /// The default title of the fallback button when none is set, under a policy whose
    /// fallback is the device passcode (deviceOwnerAuthentication).
    public static let defaultPasscodeFallbackTitle = "Enter Passcode"

    /// The fallback button's default title (REFERENCE §5): "Enter Passcode" when the button
    /// leads to the device passcode, otherwise "Enter Password".
    public static func defaultFallbackTitle(passcodeFallback: Bool) -> String {
        passcodeFallback ? defaultPasscodeFallbackTitle : defaultFallbackTitle
    }
    /// The default title of the cancel button when none is set.
    public static let defaultCancelTitle = "Cancel"

    struct State: Sendable {
        var fallbackTitle: String?
        var cancelTitle: String?
        var reuseDuration: Duration = .zero
        var interactionNotAllowed = false
        var keepsItsAuthentication = false
        var credentials: [CredentialType: Data] = [:]
        var biometryType: BiometryType = .none
        /// The device state `evaluatedPolicyDomainState` is derived from, only when asked for
        /// (the derivation is a pure function of the snapshot and app, memoized per state).
        var biometrySnapshot: Device.Snapshot?
        /// The device state captured for `domainState`, derived only when asked for.
        var domainSnapshot: Device.Snapshot?
        var isInvalidated = false
        var current: EvaluationHandle?
        var lastTrace: Trace?
        /// What successful evaluations on this context proved, each once (opens keychain
        /// items, §8).
        var accessGrants: [AccessGrant] = []
        /// The public keys of the keys opened through this context (``open(_:)``).
        var openedKeys: Set<Data> = []

        /// Records the grant of `methods` for `operation`, once. Checked before a grant is made
        /// (every evaluation after the first finds its grant already there).
        mutating func grant(methods: [AuthenticationMethod], operation: AccessControlOperation?) {
            guard let operation else { return grant(methods: methods) }
            if !accessGrants.contains(where: { $0.operation == operation && $0.methods == methods }) {
                accessGrants.append(AccessGrant(methods: methods, operation: operation))
            }
        }

        /// ``grant(methods:operation:)`` without an operation: what every evaluation records,
        /// written out so that the hot path compares no optional (about 6 ns an evaluation,
        /// measured over alternating runs).
        mutating func grant(methods: [AuthenticationMethod]) {
            if !accessGrants.contains(where: { $0.operation == nil && $0.methods == methods }) {
                accessGrants.append(AccessGrant(methods: methods))
            }
        }
    }

    /// The authenticator (device + app) this context belongs to.
    public let authenticator: Authenticator
    let state = Locked(State())

    /// Creates a context for `authenticator`; usually through ``Authenticator/makeContext()``.
    public init(authenticator: Authenticator) {
        self.authenticator = authenticator
    }

    /// The fallback button's title. Nil shows the default text; the empty string hides the button.
    public var localizedFallbackTitle: String? {
        get { state.withLock { $0.fallbackTitle } }
        set { state.withLock { $0.fallbackTitle = newValue } }
    }

    /// The cancel button's title; nil shows the default text.
    public var localizedCancelTitle: String? {
        get { state.withLock { $0.cancelTitle } }
        set { state.withLock { $0.cancelTitle = newValue } }
    }

    /// How long after a biometric device unlock a biometric evaluation succeeds without a new
    /// scan. Default zero; values above 300 s are clamped to 300 s, negative ones to zero.
    public var touchIDAuthenticationAllowableReuseDuration: Duration {
        get { state.withLock { $0.reuseDuration } }
        set {
            let clamped = min(max(newValue, .zero), Self.maximumAllowableReuseDuration)
            state.withLock { $0.reuseDuration = clamped }
        }
    }

    /// When true, evaluations that would need the user fail with `notInteractive`.
    public var interactionNotAllowed: Bool {
        get { state.withLock { $0.interactionNotAllowed } }
        set { state.withLock { $0.interactionNotAllowed = newValue } }
    }

    /// Whether this context keeps its authentication, as iOS's `LAContext` does: a step that an
    /// earlier success on it already proved (biometry, the passcode, the companion) is satisfied
    /// again without asking, after the checks that come before any prompt (traced with
    /// ``Rule/contextKeepsItsAuthentication``). Apple's sample code makes a new context for
    /// each login for that reason. Default false, so each evaluation of Touchstone's own API and
    /// the REPL asks; `LAContext` turns it on.
    public var keepsItsAuthentication: Bool {
        get { state.withLock { $0.keepsItsAuthentication } }
        set { state.withLock { $0.keepsItsAuthentication = newValue } }
    }

    /// The biometry type, filled by ``canEvaluate(_:)-(Policy)`` whatever it returns; `.none` before.
    public var biometryType: BiometryType { state.withLock { $0.biometryType } }

    /// The biometric domain state captured when ``canEvaluate(_:)-(Policy)`` last succeeded for a
    /// biometric policy or a biometric evaluation last succeeded; nil before. A later
    /// enrollment change shows only after the next such call (our rule).
    public var evaluatedPolicyDomainState: Data? {
        guard let snapshot = state.withLock({ $0.biometrySnapshot }) else { return nil }
        return authenticator.device.biometryDomainState(appID: authenticator.appID, snapshot: snapshot)
    }

    /// The newer domain-state shape, captured when ``canEvaluate(_:)-(Policy)`` or an evaluation
    /// succeeds; every hash is nil before. Its biometry part is readable exactly when
    /// ``evaluatedPolicyDomainState`` is, and its hash is history-based (REFERENCE §7).
    public var domainState: DomainState {
        let (snapshot, biometrySnapshot) = state.withLock { ($0.domainSnapshot, $0.biometrySnapshot) }
        guard let snapshot else { return .empty }
        let device = authenticator.device
        let biometry = biometrySnapshot.flatMap { device.biometryDomainState(appID: authenticator.appID, snapshot: $0) } != nil
        return device.domainState(appID: authenticator.appID, snapshot: snapshot, includeBiometry: biometry)
    }

    /// The trace of this context's last evaluation.
    public var lastTrace: Trace? { state.withLock { $0.lastTrace } }

    /// Whether ``invalidate()`` was called.
    public var isInvalidated: Bool { state.withLock { $0.isInvalidated } }

    /// Sets (or with nil removes) a credential.
    public func setCredential(_ credential: Data?, type: CredentialType) -> Bool {
        state.withLock { state in
            guard !state.isInvalidated else { return false }
            state.credentials[type] = credential
            return true
        }
    }

    /// Whether a credential of `type` is set.
    public func isCredentialSet(_ type: CredentialType) -> Bool {
        state.withLock { $0.credentials[type] != nil }
    }

    /// The credential of `type` (used by the keychain to open applicationPassword items).
    public func credential(_ type: CredentialType) -> Data? {
        state.withLock { $0.credentials[type] }
    }

    /// Invalidates the context: an evaluation in progress ends with `appCancel`; every later
    /// call fails with `invalidContext`. Calling it again does nothing.
    public func invalidate() {
        let current = state.withLock { state -> EvaluationHandle? in
            state.isInvalidated = true
            return state.current
        }
        if let current, current.interrupt(with: .appCancel) {
            authenticator.device.interruptPrompts()
        }
    }

    func markInvalidated() {
        state.withLock { $0.isInvalidated = true }
    }

    /// Whether `policy` could be evaluated now. Returns nil when it could, else the error an
    /// evaluation would fail with. Fills ``biometryType``; on success for a biometric policy
    /// captures ``evaluatedPolicyDomainState``. Throws only for storage problems.
    public func canEvaluate(_ policy: any Policy) throws -> AuthenticationError? {
        let device = authenticator.device
        let appID = authenticator.appID
        let snapshot = try device.snapshot()
        let type = device.sensor.map { $0.hardwareState(for: appID) == .absent ? .none : $0.biometryType } ?? .none
        let invalidated = state.withLock { state -> Bool in
            state.biometryType = type
            return state.isInvalidated
        }
        if invalidated { return AuthenticationError(.invalidContext) }
        let problem = device.preflight(policy.rule, appID: appID, snapshot: snapshot)
        // Captured only when biometry itself is usable: policy 4 may pass through its companion
        // while biometry is locked out or absent, and must not reveal the biometric state then.
        let biometryUsable = device.biometricProblem(appID: appID, snapshot: snapshot, requiresPasscodeSet: true) == nil
        // (Usable biometry has something enrolled, so the captured state has a value.)
        let captured = problem == nil && policy.rule.isBiometric && biometryUsable
        if problem == nil {
            state.withLock { state in
                state.domainSnapshot = snapshot
                if captured { state.biometrySnapshot = snapshot }
            }
        }
        return problem
    }

    /// Looks `name` up among the authenticator's policies and checks it (see ``canEvaluate(_:)-(Policy)``).
    public func canEvaluate(policyNamed name: String) throws -> AuthenticationError? {
        try canEvaluate(authenticator.policy(named: name))
    }

    /// Checks the policy `name` (``PolicyName/biometrics``, ...) without prompting.
    public func canEvaluate(_ name: PolicyName) throws -> AuthenticationError? {
        try canEvaluate(authenticator.policy(name))
    }

    /// Runs `policy`: shows the prompts it needs, consumes the user's actions and returns what
    /// satisfied it, or throws an ``AuthenticationError`` (or ``UsageError`` for an empty
    /// reason, the interaction's misfit error — a scripted person's `SimulationError` — when
    /// an action does not fit the prompt).
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`, what nonisolated async
    /// functions do by default under Swift's `NonisolatedNonsendingByDefault`; this package
    /// does not enable that mode, so it is an explicit choice here): an evaluation that needs
    /// nothing to wait for — a queued scripted answer — finishes without hopping to the global
    /// executor, and a sensor or person that must be waited for suspends the caller as any
    /// await does. Everything synchronous in it runs on the caller's executor too — the main
    /// actor when called from there: storage reads and writes (a counter commit is a few hundred
    /// microseconds on SQLite, but waits up to `busy-timeout` for another process), the passcode
    /// factor's check (the simulated one's PBKDF2, tens of milliseconds; PAM's, which delays a
    /// wrong password by about two seconds) and the sensor's state and enrolled set (for fprintd,
    /// D-Bus calls). With plugins like those, evaluate from a task, not the main actor.
    @discardableResult
    nonisolated(nonsending) public func evaluate(_ policy: any Policy, reason: String) async throws -> EvaluationResult {
        var machine = try begin(policy, reason: reason)
        do {
            // The driver of the state machine: it performs each action — the waits for the
            // sensor, for the person and for the time the person lets pass, the only awaits
            // of an evaluation — and reports what came back; the machine applies the rules
            // and writes the trace.
            var action = try machine.start()
            while true {
                // Each action is taken apart once (consumed: its prompt is moved, not copied).
                switch consume action {
                case let .capture(prompt, box):
                    let reading = try await box.sensor.capture(prompt)
                    action = try machine.step(.captured(reading, on: prompt))
                case let .ask(prompt):
                    let answer = try await authenticator.device.interaction.nextAction(for: prompt)
                    action = try machine.step(.acted(answer, on: prompt))
                case let .wait(duration, prompt):
                    let waited = try await authenticator.device.clock.elapse(duration, unlessInterrupted: prompt.isInterrupted)
                    action = try machine.step(.waited(waited, on: prompt))
                case let .finish(result):
                    conclude(machine, with: result)
                    return result
                }
            }
        } catch {
            throw conclude(&machine, throwing: error)
        }
    }

    /// Starts an evaluation of `policy`: checks the reason and the context, takes the
    /// context's settings and makes it the device's evaluation (ending one already on screen).
    private func begin(_ policy: any Policy, reason: String) throws -> EvaluationMachine {
        guard !reason.isEmpty else { throw UsageError.emptyLocalizedReason }
        let handle = EvaluationHandle()
        let settings = try state.withLock { state -> EvaluationSettings in
            if state.isInvalidated { throw AuthenticationError(.invalidContext) }
            state.current = handle
            return EvaluationSettings(
                fallbackTitle: state.fallbackTitle, cancelTitle: state.cancelTitle,
                reuseDuration: state.reuseDuration, interactionNotAllowed: state.interactionNotAllowed,
                provenMethods: state.keepsItsAuthentication ? Set(state.accessGrants.flatMap(\.methods)) : [])
        }
        authenticator.device.begin(handle)
        return EvaluationMachine(context: self, policy: policy, reason: reason, handle: handle, settings: settings)
    }

    /// Records a successful evaluation's outcome on the context (under one lock: its trace,
    /// grant and the device state its domain state is derived from when read) and ends it on
    /// the device.
    private func conclude(_ machine: borrowing EvaluationMachine, with result: EvaluationResult) {
        state.withLock { state in
            state.lastTrace = result.trace
            state.grant(methods: result.methods)
            // Compared first, by identity read in place: an unchanged device hands back the
            // snapshot already held (and binding it took a reference and dropped it).
            let captured = machine.capturedSnapshot.map(ObjectIdentifier.init)
            if captured != nil {
                if state.domainSnapshot.map(ObjectIdentifier.init) != captured { state.domainSnapshot = machine.capturedSnapshot }
                if state.biometrySnapshot.map(ObjectIdentifier.init) != captured { state.biometrySnapshot = machine.capturedSnapshot }
            }
            if state.current === machine.handle { state.current = nil }
        }
        machine.device.end(machine.handle, trace: result.trace)
    }

    /// Records a failed evaluation's trace and ends it; returns `error` to rethrow.
    private func conclude(_ machine: inout EvaluationMachine, throwing error: any Error) -> any Error {
        let handle = machine.handle
        let trace = machine.trace(endingWith: error)
        state.withLock { state in
            state.lastTrace = trace
            if state.current === handle { state.current = nil }
        }
        machine.device.end(handle, trace: trace)
        return error
    }

    /// Looks `name` up among the authenticator's policies and evaluates it.
    @discardableResult
    nonisolated(nonsending) public func evaluate(policyNamed name: String, reason: String) async throws -> EvaluationResult {
        try await evaluate(authenticator.policy(named: name), reason: reason)
    }

    /// Evaluates the policy `name`:
    ///
    /// ```swift
    /// let result = try await context.evaluate(.biometrics, reason: "Unlock your notes")
    /// ```
    @discardableResult
    nonisolated(nonsending) public func evaluate(_ name: PolicyName, reason: String) async throws -> EvaluationResult {
        try await evaluate(authenticator.policy(name), reason: reason)
    }

    /// Completion-handler form of ``evaluate(_:reason:)-(Policy,_)``: `reply` runs on another task.
    public func evaluate(
        _ policy: any Policy, reason: String,
        reply: @escaping @Sendable (Result<EvaluationResult, any Error>) -> Void
    ) {
        Task {
            do {
                reply(.success(try await self.evaluate(policy, reason: reason)))
            } catch {
                reply(.failure(error))
            }
        }
    }
}

/// The context options an evaluation reads, fixed when it starts.
struct EvaluationSettings: Sendable {
    var fallbackTitle: String?
    var cancelTitle: String?
    var reuseDuration: Duration
    var interactionNotAllowed: Bool
    /// What earlier successes on a context that ``AuthenticationContext/keepsItsAuthentication``
    /// proved; empty otherwise.
    var provenMethods: Set<AuthenticationMethod> = []
}

/// One evaluation in progress; the device and the context can interrupt it.
///
/// The evaluation reads the interruption before and after each user action, so it is an atomic
/// (a load, not a lock): the code's raw value, or ``none`` while uninterrupted.
final class EvaluationHandle: Sendable {
    private static let none = Int.min
    private let interruption = Atomic<Int>(EvaluationHandle.none)

    /// Records the first interruption; returns false if one was already recorded.
    @discardableResult
    func interrupt(with code: AuthenticationError.Code) -> Bool {
        interruption.compareExchange(expected: Self.none, desired: code.rawValue, ordering: .acquiringAndReleasing).exchanged
    }

    var interruptedWith: AuthenticationError.Code? {
        let raw = interruption.load(ordering: .acquiring)
        return raw == Self.none ? nil : AuthenticationError.Code(rawValue: raw)
    }
}
