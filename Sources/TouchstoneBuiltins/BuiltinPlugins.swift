import LinuxFprintd
import LinuxPAM
import SQLiteStorage
@_exported import TouchstonePortable

extension PluginRegistry {
    /// Every plugin that ships with Touchstone: the ``portable`` set plus the plugins that
    /// need a system library or a database — `storage.sqlite` (GRDB and SQLite),
    /// `linux.fprintd` (libsystemd's sd-bus) and `linux.pam` (libpam).
    public static var builtIn: PluginRegistry {
        var registry = PluginRegistry.portable
        registry.registerListed([
            LinuxFprintdSensor.self,
            SQLiteStorage.self,
            LinuxPAMPasscode.self,
        ])
        return registry
    }
}
