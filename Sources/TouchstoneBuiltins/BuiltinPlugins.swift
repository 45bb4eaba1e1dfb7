import ChangeDetectors
import EncryptedFileStorage
import LinuxFprintd
import LinuxPAM
import MemoryStorage
import SimulatedPasscode
import SQLiteStorage
import StandardPolicies
@_exported import Touchstone
@_exported import TouchstoneSimulation

extension PluginRegistry {
    /// Every plugin that ships with Touchstone, registered in one explicit list.
    public static var builtIn: PluginRegistry {
        var registry = PluginRegistry()
        let plugins: [any Plugin.Type] = [
            // Sensors
            SimulatedFingerprintSensor.self,
            SimulatedFaceSensor.self,
            SimulatedIrisSensor.self,
            LinuxFprintdSensor.self,
            // Companions
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
            SQLiteStorage.self,
            EncryptedFileStorage.self,
            // Passcode
            SimulatedPasscode.self,
            LinuxPAMPasscode.self,
            // Change detectors
            DomainStateDetector.self,
            EnrollmentEventDetector.self,
            KeychainDetector.self,
        ]
        for plugin in plugins {
            do {
                try registry.register(plugin)
            } catch {
                // A programmer error in the list above, which no input can reach; a test
                // registers the list once to prove it cannot happen.
                preconditionFailure("the built-in plugin list registers \(plugin.descriptor.id) twice: \(error)")
            }
        }
        registry.simulation = .standard
        return registry
    }
}
