#if !canImport(Darwin)
import Dispatch
import Foundation
import TouchstoneSecurity
import Touchstone

/// A request for authentication, with Apple's `LAContext` API over a Touchstone device.
///
/// `LAContext()` talks to the process-wide default device (``LocalAuthenticationSystem``);
/// ``init(authenticator:)`` to a given one. Behaviour is the engine's (REFERENCE §2–§8);
/// replies arrive on a background queue, as on iOS.
///
/// ```swift
/// let context = LAContext()
/// context.localizedFallbackTitle = "Use Password"
/// var error: NSError?
/// guard context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) else {
///     print("unavailable:", error?.code ?? 0)
///     return
/// }
/// context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in") { success, error in
///     // a background queue
/// }
/// ```
///
/// Differences from Apple's class: an empty `localizedReason` makes Apple's framework raise an
/// exception; here the evaluation ends with a ``TouchstoneError`` (`programmerError`). When
/// the default device cannot be composed (a bad `TOUCHSTONE_CONFIG`), every call fails with a
/// ``TouchstoneError`` (`configuration`) that says why.
open class LAContext: NSObject, @unchecked Sendable {
    // @unchecked: the engine context is Sendable and every mutable field is behind a `Locked`.

    /// The engine context, or why there is none.
    private let engine: Result<AuthenticationContext, TouchstoneError>
    private let reasonStore = Locked("")
    private let maxFailures = Locked<NSNumber?>(nil)

    /// A context on the process-wide default device (``LocalAuthenticationSystem/authenticator``).
    public override init() {
        // The device ``init(authenticator:)`` hands over, for this very object: taken only by
        // the `init()` of the type it was given for (`Self`, the type being made), so a context
        // that a subclass makes while it is made (a stored property, its own `init()`) keeps
        // the default device.
        if let given = Thread.current.threadDictionary[Self.givenAuthenticatorKey] as? GivenDevice,
           given.type == ObjectIdentifier(Self.self) {
            Thread.current.threadDictionary.removeObject(forKey: Self.givenAuthenticatorKey)
            engine = .success(given.authenticator.makeContext())
        } else {
            do {
                engine = .success(try LocalAuthenticationSystem.authenticator.makeContext())
            } catch {
                engine = .failure(TouchstoneError(wrapping: error))
            }
        }
        // As iOS's: what a success proved stays proven for this context's later evaluations.
        (try? engine.get())?.keepsItsAuthentication = true
        super.init()
    }

    /// A context on `authenticator`'s device (Touchstone only; Apple has no such initializer).
    ///
    /// A convenience initializer, so that `init()` stays the only designated one, as on Apple
    /// platforms: a subclass whose initializer never calls `super.init()` (as test doubles are
    /// written) gets the call Swift inserts only then. The device reaches `init()` through the
    /// calling thread, for that one call.
    public convenience init(authenticator: Authenticator) {
        // (A context of the same type made inside its own initializer would still take it:
        // nothing Apple code does.)
        let previous = Thread.current.threadDictionary[Self.givenAuthenticatorKey]
        Thread.current.threadDictionary[Self.givenAuthenticatorKey] = GivenDevice(authenticator: authenticator, type: ObjectIdentifier(Self.self))
        self.init()
        Thread.current.threadDictionary[Self.givenAuthenticatorKey] = previous
    }

    /// Where ``init(authenticator:)`` hands its device to ``init()``.
    private static let givenAuthenticatorKey = "touchstone.LAContext.givenAuthenticator"

    /// A device handed to ``init()``, and the type it is for.
    private final class GivenDevice {
        let authenticator: Authenticator
        let type: ObjectIdentifier

        init(authenticator: Authenticator, type: ObjectIdentifier) {
            self.authenticator = authenticator
            self.type = type
        }
    }

    /// The Touchstone context behind this one (for traces and tests); nil when the default
    /// device could not be composed.
    public var touchstoneContext: AuthenticationContext? { try? engine.get() }

    // MARK: Options

    /// The fallback button's title: nil shows the default ("Enter Password", or "Enter
    /// Passcode" under `.deviceOwnerAuthentication`); the empty string hides the button.
    open var localizedFallbackTitle: String? {
        get { touchstoneContext?.localizedFallbackTitle }
        set { touchstoneContext?.localizedFallbackTitle = newValue }
    }

    /// The cancel button's title; nil shows the default ("Cancel").
    open var localizedCancelTitle: String? {
        get { touchstoneContext?.localizedCancelTitle }
        set { touchstoneContext?.localizedCancelTitle = newValue }
    }

    /// The reason shown when a keychain operation given this context
    /// (`kSecUseAuthenticationContext`) needs to authenticate. Default "".
    open var localizedReason: String {
        get { reasonStore.withLock { $0 } }
        set { reasonStore.withLock { $0 = newValue } }
    }

    /// How long after a biometric device unlock a biometric evaluation succeeds without a new
    /// scan, in seconds. Default 0; at most ``LATouchIDAuthenticationMaximumAllowableReuseDuration``
    /// (larger values, and infinity, are clamped to it; negative values and NaN to 0).
    open var touchIDAuthenticationAllowableReuseDuration: TimeInterval {
        get {
            guard let duration = touchstoneContext?.touchIDAuthenticationAllowableReuseDuration else { return 0 }
            let (seconds, attoseconds) = duration.components
            return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        }
        set {
            let clamped = newValue.isNaN ? 0 : min(max(newValue, 0), LATouchIDAuthenticationMaximumAllowableReuseDuration)
            touchstoneContext?.touchIDAuthenticationAllowableReuseDuration = .seconds(clamped)
        }
    }

    /// When true, evaluations that would need the user fail with `LAError.notInteractive`, and
    /// keychain reads that would need the user fail with `errSecInteractionNotAllowed`.
    open var interactionNotAllowed: Bool {
        get { touchstoneContext?.interactionNotAllowed ?? false }
        set { touchstoneContext?.interactionNotAllowed = newValue }
    }

    /// How many failed biometric matches an evaluation allows (iOS 8.3, deprecated in iOS 9).
    /// Accepted and ignored, as on iOS 9 and later: the limits are REFERENCE §5's.
    @available(iOS, introduced: 8.3, deprecated: 9.0)
    @available(macOS, introduced: 10.10.3, deprecated: 10.11)
    open var maxBiometryFailures: NSNumber? {
        get { maxFailures.withLock { $0 } }
        set { maxFailures.withLock { $0 = newValue } }
    }

    // MARK: State

    /// The device's biometry type, filled by ``canEvaluatePolicy(_:error:)`` whatever it
    /// returns; `.none` before.
    open var biometryType: LABiometryType {
        touchstoneContext.flatMap { LABiometryType(rawValue: $0.biometryType.rawValue) } ?? .none
    }

    /// The opaque biometric domain state captured when ``canEvaluatePolicy(_:error:)`` last
    /// succeeded for a biometric policy, or a biometric evaluation last succeeded, on this
    /// context; nil before. It changes with the enrolled set, differs between apps, and a
    /// later enrollment change shows only after the next such call (REFERENCE §7).
    open var evaluatedPolicyDomainState: Data? { touchstoneContext?.evaluatedPolicyDomainState }

    /// The newer domain-state API, captured by every ``canEvaluatePolicy(_:error:)`` and
    /// evaluation; every hash is nil before the first.
    open var domainState: LADomainState { LADomainState(touchstoneContext?.domainState ?? .empty) }

    // MARK: Credentials

    /// Sets (or, with nil, removes) a credential. Only `.applicationPassword` is simulated;
    /// returns false for `.smartCardPIN` and on an invalidated context.
    @discardableResult
    open func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        guard let context = touchstoneContext, let type = CredentialType(rawValue: type.rawValue) else { return false }
        return context.setCredential(credential, type: type)
    }

    /// Whether a credential of `type` is set.
    open func isCredentialSet(_ type: LACredentialType) -> Bool {
        guard let context = touchstoneContext, let type = CredentialType(rawValue: type.rawValue) else { return false }
        return context.isCredentialSet(type)
    }

    // MARK: Evaluation

    /// Whether `policy` can be evaluated now. On false, `error` receives the `NSError` an
    /// evaluation would fail with (domain ``LAErrorDomain``, code = `LAError.Code` raw value);
    /// on true it is left untouched. Fills ``biometryType`` either way, and on success for a
    /// biometric policy captures ``evaluatedPolicyDomainState``.
    @discardableResult
    open func canEvaluatePolicy(_ policy: LAPolicy, error: NSErrorPointer) -> Bool {
        do {
            let context = try engine.get()
            let enginePolicy = try context.authenticator.policy(rawValue: policy.rawValue)
            if let problem = try context.canEvaluate(enginePolicy) {
                error?.pointee = LAError(problem).nsError
                return false
            }
            return true
        } catch let failure {
            error?.pointee = bridgeToNSError(failure, on: touchstoneContext?.authenticator)
            return false
        }
    }

    /// Evaluates `policy`: shows the prompts it needs and calls `reply` on a background queue
    /// with `(true, nil)` or `(false, error)`, the error an ``LAError`` (or a
    /// ``TouchstoneError`` for an empty `localizedReason` or a simulation problem).
    open func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String,
        reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        // The running evaluation keeps the context alive, as iOS's does: real code calls
        // `LAContext().evaluatePolicy(...) { ... }` on a context nothing else holds.
        let engine = self.engine
        Task.detached {
            do {
                let success = try await self.evaluatePolicy(policy, localizedReason: localizedReason)
                Self.deliver(success, nil, to: reply, on: try? engine.get().authenticator)
            } catch {
                Self.deliver(false, error, to: reply, on: try? engine.get().authenticator)
            }
        }
    }

    /// Evaluates `policy`; returns true on success and throws the ``LAError`` (or
    /// ``TouchstoneError``) otherwise.
    @discardableResult
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try await Self.evaluate(policy, localizedReason: localizedReason, engine: engine)
    }

    private static func evaluate(
        _ policy: LAPolicy, localizedReason: String, engine: Result<AuthenticationContext, TouchstoneError>
    ) async throws -> Bool {
        let context = try engine.get()
        defer { LocalAuthenticationSystem.didUse(context.authenticator) }
        do {
            try await context.evaluate(context.authenticator.policy(rawValue: policy.rawValue), reason: localizedReason)
            return true
        } catch {
            throw bridge(error, on: context.authenticator)
        }
    }

    /// Authenticates for `accessControl` (made by `SecAccessControlCreateWithFlags`): runs the
    /// evaluation its flags require and calls `reply` on a background queue. Once it succeeds,
    /// keychain calls given this context (`kSecUseAuthenticationContext`) open items whose
    /// flags it satisfies without asking again.
    open func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String,
        reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        let engine = self.engine
        Task.detached {
            do {
                let success = try await self.evaluateAccessControl(accessControl, operation: operation,
                                                                   localizedReason: localizedReason)
                Self.deliver(success, nil, to: reply, on: try? engine.get().authenticator)
            } catch {
                Self.deliver(false, error, to: reply, on: try? engine.get().authenticator)
            }
        }
    }

    /// The `async` form of ``evaluateAccessControl(_:operation:localizedReason:reply:)``:
    /// returns true or throws.
    @discardableResult
    open func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String
    ) async throws -> Bool {
        try await Self.evaluateAccessControl(accessControl, operation: operation, localizedReason: localizedReason, engine: engine)
    }

    private static func evaluateAccessControl(
        _ accessControl: SecAccessControl, operation: LAAccessControlOperation, localizedReason: String,
        engine: Result<AuthenticationContext, TouchstoneError>
    ) async throws -> Bool {
        let context = try engine.get()
        defer { LocalAuthenticationSystem.didUse(context.authenticator) }
        let engineOperation = AccessControlOperation(rawValue: operation.rawValue) ?? .useItem
        do {
            try await context.evaluateAccessControl(accessControl.accessControl, operation: engineOperation, reason: localizedReason)
            return true
        } catch {
            throw bridge(error, on: context.authenticator)
        }
    }

    /// Invalidates the context: an evaluation in progress ends with `LAError.appCancel`, every
    /// later call fails with `LAError.invalidContext`. Calling it again does nothing.
    open func invalidate() {
        touchstoneContext?.invalidate()
    }

    /// Releasing the last reference to a context invalidates it (REFERENCE §8, `LAContext.h`:
    /// "an evaluation would be canceled when the context is being deallocated"): its engine
    /// context (``touchstoneContext``, which a test or the keychain may still hold) then fails
    /// every call with `invalidContext`, and anything still running on it ends with
    /// `appCancel`. A running `evaluatePolicy` / `evaluateAccessControl` keeps its `LAContext`
    /// alive until the reply, as on iOS, so a context released mid-prompt is cancelled only
    /// when nothing but the prompt is left — which never happens through this API.
    deinit {
        touchstoneContext?.invalidate()
    }

    /// Calls `reply` on a background queue (not the Swift concurrency pool, so a reply may
    /// block, e.g. on a synchronous `SecItemCopyMatching`), with the context's device as the
    /// default device of the `SecItem*` calls it makes.
    private static func deliver(
        _ success: Bool, _ error: (any Error)?,
        to reply: @escaping @Sendable (Bool, (any Error)?) -> Void, on authenticator: Authenticator?
    ) {
        LocalAuthenticationSystem.dispatch(with: authenticator) { reply(success, error) }
    }
}
#endif
#if !canImport(Darwin)
extension LAContext: KeychainAuthenticationContext {}
#endif
