import ChangeDetectors
import EncryptedFileStorage
import MemoryStorage
import SimulatedPasscode
import SimulatedSensors
import SQLiteStorage
import StandardPolicies
@_exported import Touchstone

extension PluginRegistry {
    /// Every plugin that ships with Touchstone, registered in one explicit list.
    public static var builtIn: PluginRegistry {
        var registry = PluginRegistry()
        let plugins: [any Plugin.Type] = [
            // Sensors
            SimulatedFingerprintSensor.self,
            SimulatedFaceSensor.self,
            SimulatedIrisSensor.self,
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
            // Change detectors
            DomainStateDetector.self,
            EnrollmentEventDetector.self,
            KeychainDetector.self,
        ]
        for plugin in plugins {
            // Ids in this list are distinct by construction.
            try? registry.register(plugin)
        }
        return registry
    }
}
