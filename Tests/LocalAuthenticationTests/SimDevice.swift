#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
@testable import Touchstone
import TouchstoneBuiltins

/// A simulated device for one test, reached through the LocalAuthentication API: virtual clock,
/// scripted user, in-memory storage, fast passcode hashing, seeded randomness.
struct SimDevice {
    let authenticator: Authenticator
    let user: ScriptedInteraction
    let clock: VirtualClock

    var device: Touchstone.Device { authenticator.device }

    init(
        sensor: String? = "sim.touchid",
        sensorOptions: [String: String] = [:],
        passcode: String? = "1234",
        enrolled: [String] = ["thumb"],
        companion: [String: String]? = nil,
        app: String = "com.example.app",
        seed: UInt64 = 7
    ) throws {
        var composition = Composition()
        composition.app = app
        composition.seed = seed
        composition.sensor = sensor.map { PluginSelection($0, options: sensorOptions) }
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        composition.companion = companion.map { PluginSelection("sim.companion", options: $0) }
        let user = ScriptedInteraction()
        let clock = VirtualClock()
        authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition)
            .build(clock: clock, interaction: user)
        self.user = user
        self.clock = clock
        if let passcode { try authenticator.device.setPasscode(passcode) }
        for name in enrolled { try authenticator.device.enroll(name) }
    }

    /// The scripting mistakes reported on this device (outcomes the dialog could not produce).
    var scriptingMistakes: [String] { LocalAuthenticationSystem.scriptingMistakes(of: authenticator) }

    /// A context on this device, made by `LAContext()` with this device as the task's default.
    func context() -> LAContext {
        LocalAuthenticationSystem.withAuthenticator(authenticator) { LAContext() }
    }

    /// The `canEvaluatePolicy` answer on a fresh (or given) context: nil or the error's code.
    func can(_ policy: LAPolicy, on context: LAContext? = nil) -> Int? {
        var error: NSError?
        let ok = (context ?? self.context()).canEvaluatePolicy(policy, error: &error)
        #expect(ok == (error == nil))
        return error?.code
    }

    /// Evaluates `policy` through the async API with `actions` queued; nil on success, else the
    /// `LAError.Code`. Other errors are thrown.
    func evaluate(_ policy: LAPolicy, _ actions: [UserAction], on context: LAContext? = nil,
                  reason: String = "Sign in") async throws -> LAError.Code? {
        user.enqueue(actions)
        do {
            let ok = try await (context ?? self.context()).evaluatePolicy(policy, localizedReason: reason)
            #expect(ok)
            return nil
        } catch let error as LAError {
            return error.code
        }
    }

    /// Evaluates through the callback API and waits for the reply.
    func evaluateWithReply(_ policy: LAPolicy, _ actions: [UserAction], on context: LAContext? = nil,
                           reason: String = "Sign in") async -> (success: Bool, error: (any Error)?, onMainThread: Bool) {
        user.enqueue(actions)
        let context = context ?? self.context()
        return await withCheckedContinuation { continuation in
            context.evaluatePolicy(policy, localizedReason: reason) { success, error in
                continuation.resume(returning: (success, error, Thread.isMainThread))
            }
        }
    }

    /// Waits until an evaluation is on screen.
    func untilEvaluationIsOnScreen() async {
        while device.activity.withLock({ $0.activeEvaluation }) == nil { await Task.yield() }
    }

    /// Runs synchronous keychain calls with this device as the default device, on a GCD
    /// thread: `SecItem*` block their thread while the engine works, which must not starve the
    /// (small) Swift concurrency pool the tests run on.
    func keychain<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
        let authenticator = authenticator
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: LocalAuthenticationSystem.withAuthenticator(authenticator, operation: body))
            }
        }
    }
}

extension Array where Element == UserAction {
    static func failures(_ count: Int) -> [UserAction] { Array(repeating: .noMatch, count: count) }
}
#endif
