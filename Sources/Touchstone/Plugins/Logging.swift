import Logging

extension Logger {
    /// The logger Touchstone uses when the application passes none: labelled `touchstone`, it
    /// discards everything, so a library prints nothing of its own accord. Pass a logger to
    /// ``AuthenticatorBuilder`` (or ``Device``) to see what the device and its plugins log; the
    /// `touchstone` REPL passes one that writes to standard error (`--log-level`).
    public static let touchstoneSilent = Logger(label: "touchstone") { _ in SwiftLogNoOpLogHandler() }
}
