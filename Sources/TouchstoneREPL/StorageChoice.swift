import Touchstone

/// Where the REPL's device lives unless a configuration says otherwise.
///
/// Today the default is `storage.memory`; when persistent storage lands, change
/// ``defaultSelection`` (one line) to the SQLite store under `$XDG_DATA_HOME/touchstone`.
/// `--memory` always forces a throwaway in-memory device.
public enum StorageChoice {
    /// The storage used when neither `--memory` nor a configuration chooses.
    public static var defaultSelection: PluginSelection { PluginSelection("storage.memory") }

    /// The storage for the flags given: `--memory` wins, then the configuration's, then the default.
    public static func selection(memory: Bool, configured: PluginSelection?) -> PluginSelection {
        if memory { return PluginSelection("storage.memory") }
        return configured ?? defaultSelection
    }

    /// The first lines an interactive session prints.
    public static func banner(for session: REPLSession) -> String {
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
