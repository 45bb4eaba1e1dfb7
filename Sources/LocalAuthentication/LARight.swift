#if !canImport(Darwin)
import Foundation
import TouchstoneSecurity
import Touchstone

/// Which authentication a right asks for (iOS 16 `LAAuthenticationRequirement`).
///
/// Touchstone runs each as the access-control evaluation of the flags in parentheses:
/// ``default`` (userPresence: biometry, passcode as fallback), ``biometry`` (biometryAny),
/// ``biometryCurrentSet`` (biometryCurrentSet: a persisted right dies with an enrollment
/// change), ``biometry(fallback:)`` with ``LABiometryFallbackRequirement/devicePasscode``
/// (biometryAny or devicePasscode).
open class LAAuthenticationRequirement: NSObject, @unchecked Sendable {
    // @unchecked: immutable.
    let flags: AccessControlFlags
    let name: String

    init(_ flags: AccessControlFlags, name: String) {
        self.flags = flags
        self.name = name
    }

    /// The device owner: biometry, with the device passcode as fallback.
    open class var `default`: LAAuthenticationRequirement { LAAuthenticationRequirement(.userPresence, name: "default") }
    /// Any enrolled biometric identity.
    open class var biometry: LAAuthenticationRequirement { LAAuthenticationRequirement(.biometryAny, name: "biometry") }
    /// The biometric set enrolled when the right was saved: a persisted right is invalidated
    /// when it changes.
    open class var biometryCurrentSet: LAAuthenticationRequirement {
        LAAuthenticationRequirement(.biometryCurrentSet, name: "biometryCurrentSet")
    }

    /// Biometry with the given fallback.
    open class func biometry(fallback: LABiometryFallbackRequirement) -> LAAuthenticationRequirement {
        fallback.allowsPasscode
            ? LAAuthenticationRequirement([.biometryAny, .or, .devicePasscode], name: "biometry(fallback: devicePasscode)")
            : .biometry
    }

    /// `LAAuthenticationRequirement.biometryCurrentSet`.
    open override var description: String { "LAAuthenticationRequirement.\(name)" }
}

/// What a biometric requirement falls back to (iOS 16 `LABiometryFallbackRequirement`).
open class LABiometryFallbackRequirement: NSObject, @unchecked Sendable {
    // @unchecked: immutable.
    let allowsPasscode: Bool

    init(allowsPasscode: Bool) {
        self.allowsPasscode = allowsPasscode
    }

    /// The system's default fallback (none beyond biometry here).
    open class var `default`: LABiometryFallbackRequirement { LABiometryFallbackRequirement(allowsPasscode: false) }
    /// The device passcode.
    open class var devicePasscode: LABiometryFallbackRequirement { LABiometryFallbackRequirement(allowsPasscode: true) }
}

/// A grouped set of requirements an app authorizes once and then uses (iOS 16 `LARight`).
///
/// ```swift
/// let right = LARight(requirement: .biometry(fallback: .devicePasscode))
/// try await right.authorize(localizedReason: "Unlock your vault")
/// // right.state == .authorized
/// ```
///
/// Touchstone: the right talks to the default device (``LocalAuthenticationSystem``) as it
/// is when the right is made. Authorizing runs the requirement's access-control evaluation
/// (REFERENCE §8, §9); failures are ``LAError``s.
open class LARight: NSObject, @unchecked Sendable {
    // @unchecked: every mutable field is behind a `Locked`.

    /// The authorization state of a right.
    public enum State: Int, Sendable {
        /// Not yet known.
        case unknown = 0
        /// An authorization is running.
        case authorizing = 1
        /// Authorized: a persisted right's key and secret may be used.
        case authorized = 2
        /// Not authorized (never, or deauthorized, or the last authorization failed).
        case notAuthorized = 3
    }

    struct Inner {
        var state: State = .unknown
        var tag = 0
        /// The engine context that authorized (its grant opens the key without a new prompt).
        var context: AuthenticationContext?
    }

    let requirement: LAAuthenticationRequirement
    let device: Result<Authenticator, TouchstoneError>
    let inner = Locked(Inner())

    /// A right with the default requirement.
    public override convenience init() {
        self.init(requirement: .default)
    }

    /// A right with `requirement`.
    public init(requirement: LAAuthenticationRequirement) {
        self.requirement = requirement
        do {
            device = .success(try LocalAuthenticationSystem.authenticator)
        } catch {
            device = .failure(TouchstoneError(wrapping: error))
        }
        super.init()
    }

    /// A right with `requirement` on `authenticator`'s device (Touchstone only; Apple has no
    /// such initializer).
    public init(requirement: LAAuthenticationRequirement, authenticator: Authenticator) {
        self.requirement = requirement
        device = .success(authenticator)
        super.init()
    }

    /// The authorization state.
    open var state: State { inner.withLock { $0.state } }

    /// An app-defined number identifying the right.
    open var tag: Int {
        get { inner.withLock { $0.tag } }
        set { inner.withLock { $0.tag = newValue } }
    }

    /// The access control the right's evaluation runs for.
    var accessControl: AccessControl {
        AccessControl(requirementFlags: requirement.flags)
    }

    /// Authorizes the right: runs the requirement's evaluation (the prompt). Throws the
    /// ``LAError`` of a failed evaluation; the state is then ``State/notAuthorized``.
    open func authorize(localizedReason: String) async throws {
        let authenticator = try device.get()
        inner.withLock { $0.state = .authorizing }
        let context = authenticator.makeContext()
        defer { LocalAuthenticationSystem.didUse(authenticator) }
        do {
            try await context.evaluateAccessControl(accessControl, operation: .useKeySign, reason: localizedReason)
            try checkStillValid()
            inner.withLock {
                $0.state = .authorized
                $0.context = context
            }
        } catch {
            inner.withLock {
                $0.state = .notAuthorized
                $0.context = nil
            }
            throw laError(error, on: authenticator)
        }
    }

    /// ``authorize(localizedReason:)`` with a completion handler (called on a background queue).
    open func authorize(localizedReason: String, completion: @escaping @Sendable ((any Error)?) -> Void) {
        complete(completion) { try await self.authorize(localizedReason: localizedReason) }
    }

    /// Whether the right could be authorized now, without prompting: throws the ``LAError`` an
    /// authorization would fail with before any prompt (biometry not enrolled, locked out,
    /// no passcode; an invalidated persisted right).
    open func checkCanAuthorize() async throws {
        let authenticator = try device.get()
        do {
            try checkStillValid()
            guard let rule = requirement.flags.policyRule else { return }
            let policy = LARightPolicy(rule: rule, names: [requirement.name])
            if let problem = try authenticator.makeContext().canEvaluate(policy) { throw problem }
        } catch {
            throw laError(error, on: authenticator)
        }
    }

    /// ``checkCanAuthorize()`` with a completion handler.
    open func checkCanAuthorize(completion: @escaping @Sendable ((any Error)?) -> Void) {
        complete(completion) { try await self.checkCanAuthorize() }
    }

    /// Ends the authorization: the key and secret of a persisted right need a new one.
    open func deauthorize() async {
        let context = inner.withLock { inner -> AuthenticationContext? in
            inner.state = .notAuthorized
            defer { inner.context = nil }
            return inner.context
        }
        context?.invalidate()
    }

    /// ``deauthorize()`` with a completion handler.
    open func deauthorize(completion: @escaping @Sendable () -> Void) {
        Task.detached {
            await self.deauthorize()
            completion()
        }
    }

    /// Throws when the right can no longer be used (a persisted right whose key was invalidated).
    func checkStillValid() throws {}

    /// The authorized engine context; LAError notInteractive when the right is not authorized
    /// (our rule: using a persisted right's key or secret never prompts).
    func authorizedContext() throws -> AuthenticationContext {
        guard let context = inner.withLock({ $0.state == .authorized ? $0.context : nil }) else {
            throw LAError(.notInteractive, userInfo: [NSLocalizedDescriptionKey: "The right is not authorized: call authorize(localizedReason:) first."])
        }
        return context
    }

    /// The ``LAError`` for an engine, keychain or key error.
    func laError(_ error: any Error, on authenticator: Authenticator) -> any Error {
        if let keychain = error as? KeychainError {
            if keychain.kind == .interactionNotAllowed { return LAError(.notInteractive) }
            // The keychain's error stays under NSUnderlyingErrorKey, as Apple's errors carry theirs.
            let userInfo: [String: Any] = [NSLocalizedDescriptionKey: keychain.message, NSUnderlyingErrorKey: keychain]
            if let code = keychain.authenticationCode {
                return LAError(LAError.Code(code.rawValue), userInfo: userInfo)
            }
            return LAError(.authenticationFailed, userInfo: userInfo)
        }
        return bridge(error, on: authenticator)
    }
}

/// The policy a right's `checkCanAuthorize()` preflights.
struct LARightPolicy: Policy {
    static let descriptor = PluginDescriptor(id: "la-right", kind: .policy, summary: "an LARight's requirement")
    let rule: PolicyRule
    let names: [String]

    init(rule: PolicyRule, names: [String]) {
        self.rule = rule
        self.names = names
    }

    init(options: PluginOptions, environment: PluginEnvironment) {
        rule = PolicyRule(steps: [.passcode], requiresPasscodeSet: true)
        names = ["la-right"]
    }

    var rawValue: Int? { nil }
}

extension AccessControl {
    /// The access control of a right's requirement: privateKeyUsage plus the requirement's
    /// flags, whenPasscodeSetThisDeviceOnly (rights need a device passcode, as biometry does).
    init(requirementFlags flags: AccessControlFlags) {
        self.init(validated: .whenPasscodeSetThisDeviceOnly, flags: flags.union(.privateKeyUsage))
    }
}
#endif
