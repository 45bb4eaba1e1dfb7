import ChangeDetectors
import EncryptedFileStorage
import MemoryStorage
import SimulatedPasscode
import StandardPolicies
@_exported import Touchstone
@_exported import TouchstoneSimulation

extension PluginRegistry {
    /// The built-in plugins that need nothing but Swift and swift-crypto: the simulated
    /// sensors and companion, the standard policies, in-memory and encrypted-file storage, the
    /// simulated passcode and the change detectors, with the simulation (virtual clock,
    /// scripted person).
    ///
    /// This is what the `LocalAuthentication`, `Security`, `CryptoKit` and `TouchstoneTesting`
    /// products are made of, so an app that adopts them builds with the Swift toolchain alone:
    /// no system library, no database. ``builtIn`` (the `TouchstoneBuiltins` product) adds the
    /// plugins that do need one: `storage.sqlite` (GRDB), `linux.fprintd` and `linux.pam`.
    ///
    /// ```swift
    /// let authenticator = try AuthenticatorBuilder(registry: .portable).build()
    /// ```
    public static var portable: PluginRegistry {
        var registry = PluginRegistry()
        registry.registerListed([
            // Sensors and companions
            SimulatedFingerprintSensor.self,
            SimulatedFaceSensor.self,
            SimulatedIrisSensor.self,
            SimulatedCompanion.self,
            // Policies
            BiometricsPolicy.self,
            DeviceOwnerPolicy.self,
            CompanionPolicy.self,
            BiometricsOrCompanionPolicy.self,
            WristDetectionPolicy.self,
            BiometricsAndPasscodePolicy.self,
            // Storage
            MemoryStorage.self,
            EncryptedFileStorage.self,
            // Passcode
            SimulatedPasscode.self,
            // Change detectors
            DomainStateDetector.self,
            EnrollmentEventDetector.self,
            KeychainDetector.self,
        ])
        registry.simulation = .standard
        return registry
    }

    /// Registers a list of plugins that ships with Touchstone. A duplicate id in such a list
    /// is a programmer error no input can reach (a test registers every list once to prove it
    /// cannot happen), so it stops the program.
    package mutating func registerListed(_ plugins: [any Plugin.Type]) {
        for plugin in plugins {
            do {
                try register(plugin)
            } catch {
                preconditionFailure("a built-in plugin list registers \(plugin.descriptor.id) twice: \(error)")
            }
        }
    }
}
