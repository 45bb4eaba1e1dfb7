import Logging

extension Logger {
    /// The logger Touchstone uses when the application passes none: labelled `touchstone`, it
    /// discards everything, so a library prints nothing of its own accord. Pass a logger to
    /// ``AuthenticatorBuilder`` (or ``Device``) to see what the device and its plugins log; the
    /// `touchstone` REPL passes one that writes to standard error (`--log-level`).
    public static let touchstoneSilent = Logger(label: "touchstone") { _ in SwiftLogNoOpLogHandler() }

    /// The levels by name, as `--log-level` and `TOUCHSTONE_LOG_LEVEL` list them in a refusal:
    /// "trace, debug, info, notice, warning, error or critical".
    package static let touchstoneLevelNames: String = {
        let names = Logger.Level.allCases.map(\.rawValue)
        return names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    }()

    /// A logger labelled `touchstone` writing to standard error from the level named `name`
    /// up (what the REPL's `--log-level` and `TOUCHSTONE_LOG_LEVEL` give); nil when `name` is
    /// not a level.
    package static func touchstoneStandardError(levelNamed name: String) -> Logger? {
        guard let level = Logger.Level(rawValue: name) else { return nil }
        var logger = Logger(label: "touchstone") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = level
        return logger
    }
}
