/// What one successful evaluation on a context proved: the factors it used and, for
/// ``AuthenticationContext/evaluateAccessControl(_:operation:reason:)``, the operation.
struct AccessGrant: Sendable, Equatable {
    /// The methods that satisfied the evaluation, in order (a set only when checked against
    /// access-control flags, off the evaluation's hot path).
    var methods: [AuthenticationMethod]
    var operation: AccessControlOperation?
}

/// An ad-hoc policy built from access-control flags; never registered, used by the keychain
/// and ``AuthenticationContext/evaluateAccessControl(_:operation:reason:)`` to run the
/// evaluation the flags require through the engine.
struct AccessControlPolicy: Policy {
    static let descriptor = PluginDescriptor(
        id: "access-control", kind: .policy,
        summary: "the evaluation a keychain item's access-control flags require")

    let flags: AccessControlFlags
    let rule: PolicyRule

    init(flags: AccessControlFlags, rule: PolicyRule) {
        self.flags = flags
        self.rule = rule
    }

    init(options: PluginOptions, environment: PluginEnvironment) {
        flags = .userPresence
        rule = AccessControlFlags.userPresence.policyRule ?? PolicyRule(steps: [.passcode], requiresPasscodeSet: true)
    }

    var rawValue: Int? { nil }
    var names: [String] { ["access-control(\(flags.constraints))"] }
}

extension AuthenticationContext {
    /// Authenticates for `accessControl` (`evaluateAccessControl(_:operation:localizedReason:)`):
    /// runs the evaluation its constraints require (biometry for biometryAny /
    /// biometryCurrentSet, biometry-or-passcode for userPresence, the passcode alone for
    /// devicePasscode; see ``AccessControlFlags/policyRule``), honouring the reuse window and
    /// ``interactionNotAllowed``. Once it succeeds, keychain operations given this context open
    /// items whose flags it satisfies without asking again. Flags without constraints succeed
    /// at once. The application password is not asked for here: it is read from the
    /// context's credential when an item needs it.
    ///
    /// Throws the ``AuthenticationError`` of the failed evaluation.
    ///
    /// ```swift
    /// let access = try AccessControl(.whenUnlockedThisDeviceOnly, flags: .biometryCurrentSet)
    /// try await context.evaluateAccessControl(access, operation: .useItem, reason: "Sign in")
    /// let token = try await keychain.read(service: "api", account: "alice", context: context)
    /// ```
    @discardableResult
    public func evaluateAccessControl(
        _ accessControl: AccessControl, operation: AccessControlOperation, reason: String
    ) async throws -> [AuthenticationMethod] {
        guard !reason.isEmpty else { throw UsageError.emptyLocalizedReason }
        if isInvalidated { throw AuthenticationError(.invalidContext) }
        guard let rule = accessControl.flags.policyRule else {
            state.withLock { $0.grant(methods: [], operation: operation) }
            return []
        }
        let result = try await evaluate(AccessControlPolicy(flags: accessControl.flags, rule: rule), reason: reason)
        state.withLock { $0.grant(methods: result.methods, operation: operation) }
        return result.methods
    }

    /// Marks `key` as opened through this context: its later uses with this context run none of
    /// its protection rules (``KeyStore/authorize(_:context:reason:)``). `Security` opens a
    /// software key a lookup authenticated or `SecKeyCreateRandomKey` just made: iOS checks such
    /// a key's access control when it reads the stored item, then uses the key in memory.
    package func open(_ key: EnclaveKey) {
        state.withLock { _ = $0.openedKeys.insert(key.publicKeyData) }
    }

    /// A context with this one's grants, options and credentials that may not prompt: what a
    /// keychain call under `kSecUseAuthenticationUIFail` opens items through when the caller
    /// gave this context (iOS makes that call's evaluations non-interactive without changing
    /// the caller's `LAContext`: `SecItemAuthDo`, SecItem.m). What it proves stays with it.
    package func nonInteractiveCopy() -> AuthenticationContext {
        let copy = AuthenticationContext(authenticator: authenticator)
        let current = state.withLock { $0 }
        copy.state.withLock { state in
            state = current
            state.current = nil
            state.interactionNotAllowed = true
        }
        return copy
    }

    /// Whether ``open(_:)`` opened `key` through this context.
    func hasOpened(_ key: EnclaveKey) -> Bool {
        state.withLock { $0.openedKeys.contains(key.publicKeyData) }
    }

    /// Whether an earlier successful evaluation on this context satisfies `flags` (our rule:
    /// any operation's grant opens matching items, as does a policy evaluation that used the
    /// required factors).
    package func hasGrant(for flags: AccessControlFlags) -> Bool {
        state.withLock { state in
            state.accessGrants.contains { !$0.methods.isEmpty && flags.isSatisfied(by: Set($0.methods)) }
        }
    }
}
