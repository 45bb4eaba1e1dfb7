import Foundation
import Touchstone
import TouchstoneCommands

/// Where the REPL's device lives unless a configuration says otherwise.
///
/// The default is a persistent device: the SQLite store `device.sqlite` under
/// `$XDG_DATA_HOME/touchstone/` (`~/.local/share/touchstone/` when unset), so enrolments,
/// counters, lockouts and keychain items survive restarts. `--memory` always forces a
/// throwaway in-memory device; `use storage <id> path=...` switches at run time.
public enum StorageChoice {
    /// The storage used when neither `--memory` nor a configuration chooses.
    public static var defaultSelection: PluginSelection {
        PluginSelection("storage.sqlite", options: ["path": defaultPath])
    }

    /// `$XDG_DATA_HOME/touchstone/device.sqlite`, or `~/.local/share/touchstone/device.sqlite`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"].map { $0 + "/.local/share" } ?? FileManager.default.temporaryDirectory.path)
        return base + "/touchstone/device.sqlite"
    }

    /// The storage for the flags given: `--memory` wins, then the configuration's, then the default.
    public static func selection(memory: Bool, configured: PluginSelection?) -> PluginSelection {
        if memory { return PluginSelection("storage.memory") }
        return configured ?? defaultSelection
    }

    /// The first lines an interactive session prints.
    public static func banner(for session: CommandSession) -> String {
        let device = session.device
        let enrolled = session.enrolledNames
        let passcode = ((try? device.isPasscodeSet) ?? false) ? "passcode set" : "no passcode"
        let sensor = device.sensor == nil ? "no biometric sensor" : "simulated \(device.biometryType), sensor \(device.sensor?.hardwareState(for: session.authenticator.appID).optionName ?? "?")"
        return """
            Touchstone \(REPLHost.version): \(sensor), \(passcode), \(enrolled.isEmpty ? "nothing enrolled" : "enrolled: \(enrolled.joined(separator: ", "))") \
            (storage \(session.builder.composition.storage.id), app \(session.authenticator.appID)).
            Type help for the commands, TAB to complete, Ctrl-D to leave.
            """
    }
}
