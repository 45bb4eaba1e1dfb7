import Foundation
import Touchstone

extension TestDevice {
    /// The policy `name` among the device's policies.
    public func policy(_ name: PolicyName) throws -> any Policy {
        try authenticator.policy(name)
    }

    /// Evaluates `policy` with `actions` queued first, on a fresh context (or `context`).
    /// Returns what satisfied it, or throws the `AuthenticationError` it ended with.
    @discardableResult
    public func evaluate(
        _ policy: PolicyName, _ actions: [UserAction] = [], on context: AuthenticationContext? = nil,
        reason: String = "Unlock"
    ) async throws -> EvaluationResult {
        user.enqueue(actions)
        return try await (context ?? authenticator.makeContext()).evaluate(self.policy(policy), reason: reason)
    }

    /// The LAError code `policy` ends with when `actions` are queued, or nil when it succeeds.
    /// Other errors (a scripting mistake, storage) are thrown.
    ///
    /// ```swift
    /// #expect(try await device.outcome(.biometrics, .failures(3)) == .authenticationFailed)
    /// ```
    public func outcome(
        _ policy: PolicyName, _ actions: [UserAction] = [], on context: AuthenticationContext? = nil,
        reason: String = "Unlock"
    ) async throws -> AuthenticationError.Code? {
        do {
            try await evaluate(policy, actions, on: context, reason: reason)
            return nil
        } catch let error as AuthenticationError {
            return error.code
        }
    }

    /// The can-evaluate answer for `policy` on a fresh (or given) context: nil when it could be
    /// evaluated, else the LAError code.
    public func canEvaluate(_ policy: PolicyName, on context: AuthenticationContext? = nil) throws -> AuthenticationError.Code? {
        try (context ?? authenticator.makeContext()).canEvaluate(self.policy(policy))?.code
    }

    /// Reads the keychain item (`service`, `account`) as text, with `actions` queued for the
    /// prompt its access control may show; the value or the `KeychainError`.
    public func read(
        _ service: String, _ account: String, _ actions: [UserAction] = [],
        context: AuthenticationContext? = nil, reason: String = "Read"
    ) async -> Result<String, KeychainError> {
        user.enqueue(actions)
        do {
            return .success(try await keychain.readString(service: service, account: account, context: context, reason: reason))
        } catch let error as KeychainError {
            return .failure(error)
        } catch {
            return .failure(KeychainError(.storageFailure, message: "\(error)"))
        }
    }
}
