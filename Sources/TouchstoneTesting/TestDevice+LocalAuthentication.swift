#if !canImport(Darwin)
import Dispatch
import Foundation
import LocalAuthentication
import Touchstone

extension TestDevice {
    /// Runs `body` with this device as the default device of `LAContext()` and the `SecItem*`
    /// functions, for the current task only (task-local: parallel tests never share a device).
    /// The ``Testing/Trait/touchstoneDevice(sensor:sensorOptions:passcode:enrolled:companion:storage:detector:eraseDataAfterTenFailedPasscodes:app:seed:)``
    /// trait does this for a whole test.
    ///
    /// ```swift
    /// let device = try TestDevice()
    /// device.enqueue(.present("thumb"))
    /// let unlocked = await device.asDefaultDevice {
    ///     await unlockNotes()          // app code: LAContext(), SecItemCopyMatching
    /// }
    /// ```
    public func asDefaultDevice<R>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> R
    ) async rethrows -> R {
        try await LocalAuthenticationSystem.withAuthenticator(authenticator, isolation: isolation, operation: body)
    }

    /// A context on this device, as `LAContext()` makes it when this device is the default.
    public func makeLAContext() -> LAContext {
        LocalAuthenticationSystem.withAuthenticator(authenticator) { LAContext() }
    }

    /// The `canEvaluatePolicy` answer on a fresh (or given) context: nil, or the error's code
    /// (`kLAErrorBiometryLockout`...).
    public func canEvaluatePolicy(_ policy: LAPolicy, on context: LAContext? = nil) -> Int? {
        var error: NSError?
        _ = (context ?? makeLAContext()).canEvaluatePolicy(policy, error: &error)
        return error?.code
    }

    /// Evaluates `policy` through `LAContext`'s async API with `actions` queued first: nil on
    /// success, else the `LAError.Code`. Errors that are not `LAError`s are thrown.
    public func evaluatePolicy(
        _ policy: LAPolicy, _ actions: [UserAction] = [], on context: LAContext? = nil, reason: String = "Sign in"
    ) async throws -> LAError.Code? {
        user.enqueue(actions)
        do {
            _ = try await (context ?? makeLAContext()).evaluatePolicy(policy, localizedReason: reason)
            return nil
        } catch let error as LAError {
            return error.code
        }
    }

    /// Evaluates through `LAContext`'s completion-handler API and waits for the reply; also
    /// says whether the reply ran on the main thread.
    public func evaluatePolicyWithReply(
        _ policy: LAPolicy, _ actions: [UserAction] = [], on context: LAContext? = nil, reason: String = "Sign in"
    ) async -> (success: Bool, error: (any Error)?, onMainThread: Bool) {
        user.enqueue(actions)
        let context = context ?? makeLAContext()
        return await withCheckedContinuation { continuation in
            context.evaluatePolicy(policy, localizedReason: reason) { success, error in
                continuation.resume(returning: (success, error, Thread.isMainThread))
            }
        }
    }

    /// Runs synchronous Security calls (`SecItem*`, `SecKey*`) with this device as the default
    /// device, on a Dispatch thread: they block their thread while the engine works (a prompt
    /// may be waiting for the script), which must not starve the Swift concurrency pool tests
    /// run on.
    ///
    /// ```swift
    /// let status = await device.blocking {
    ///     SecItemCopyMatching([kSecClass as String: kSecClassGenericPassword] as CFDictionary, nil)
    /// }
    /// ```
    public func blocking<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
        let authenticator = authenticator
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: LocalAuthenticationSystem.withAuthenticator(authenticator, operation: body))
            }
        }
    }

    /// Queues outcomes written as in `TOUCHSTONE_OUTCOMES` and the REPL (`"nomatch, thumb"`,
    /// `"cancel"`, `"passcode:1234"`, `"wait:5m"`), so a scripted session can become a test.
    /// Throws a `ConfigurationError` naming a word that is not an outcome.
    public func enqueue(script: String) throws {
        user.enqueue(try LocalAuthenticationSystem.parseOutcomes(script))
    }

    /// The scripting mistakes reported on this device so far: outcomes the dialog could not
    /// produce, or a prompt with nothing queued. `LAContext` code sees these as a system cancel;
    /// a test should expect the list to be empty. The process's device
    /// (``processDefault(passcode:enrolled:)``) is shared by every test of the process, and so is
    /// its list: there, compare with the count the test started with.
    public var scriptingMistakes: [String] {
        LocalAuthenticationSystem.scriptingMistakes(of: authenticator)
    }
}
#endif
