import Foundation
import Testing
@testable import Touchstone
import TouchstoneBuiltins

/// A simulated device for one test: virtual clock, scripted user, in-memory storage, fast
/// passcode hashing, seeded randomness.
struct Rig {
    let authenticator: Authenticator
    let user: ScriptedInteraction
    let clock: VirtualClock

    var device: Device { authenticator.device }

    init(
        sensor: String? = "sim.touchid",
        sensorOptions: [String: String] = [:],
        passcode: String? = "1234",
        enrolled: [String] = ["thumb"],
        companion: [String: String]? = nil,
        eraseData: Bool = false,
        app: String = "com.example.app",
        seed: UInt64 = 7
    ) throws {
        var composition = Composition()
        composition.app = app
        composition.seed = seed
        composition.sensor = sensor.map { PluginSelection($0, options: sensorOptions) }
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        composition.companion = companion.map { PluginSelection("sim.companion", options: $0) }
        composition.eraseDataAfterTenFailedPasscodes = eraseData
        let user = ScriptedInteraction()
        let clock = VirtualClock()
        authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition)
            .build(clock: clock, interaction: user)
        self.user = user
        self.clock = clock
        if let passcode { try authenticator.device.setPasscode(passcode) }
        for name in enrolled { try authenticator.device.enroll(name) }
    }

    func policy(_ name: String) throws -> any Policy {
        try authenticator.policy(named: name)
    }

    /// Evaluates `policy` with `actions` queued; returns the result or throws.
    @discardableResult
    func evaluate(_ policy: String, _ actions: [UserAction], on context: AuthenticationContext? = nil,
                  reason: String = "Unlock") async throws -> EvaluationResult {
        user.enqueue(actions)
        return try await (context ?? authenticator.makeContext()).evaluate(self.policy(policy), reason: reason)
    }

    /// The LAError code an evaluation ends with, or nil when it succeeds.
    func outcome(_ policy: String, _ actions: [UserAction], on context: AuthenticationContext? = nil) async throws -> AuthenticationError.Code? {
        do {
            try await evaluate(policy, actions, on: context)
            return nil
        } catch let error as AuthenticationError {
            return error.code
        }
    }

    /// The can-evaluate answer for `policy` on a fresh (or given) context.
    func canEvaluate(_ policy: String, on context: AuthenticationContext? = nil) throws -> AuthenticationError.Code? {
        try (context ?? authenticator.makeContext()).canEvaluate(self.policy(policy))?.code
    }
}

extension Array where Element == UserAction {
    static func failures(_ count: Int) -> [UserAction] { Array(repeating: .noMatch, count: count) }
}
