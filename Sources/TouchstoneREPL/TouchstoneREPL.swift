// The REPL library: libedit line editing and completion (`LineEditor`), the terminal and
// script host (`REPLHost`), the storage defaults and banner (`StorageChoice`), and the `right`
// commands, which need the `LocalAuthentication` module. Everything else a REPL line does — the
// tokenizer, the command table, the session, outcomes, output and errors — is the headless
// command layer, `TouchstoneCommands`, which this module re-exports: `import TouchstoneREPL`
// alone builds a REPL.
@_exported import TouchstoneCommands
import Touchstone

extension CommandTable {
    /// The REPL's commands: ``CommandTable/standard()`` and the commands only the REPL can
    /// offer because they need a module above the command layer (`right`, over
    /// `LocalAuthentication`'s `LARight`), in `help` order.
    public static func repl() -> CommandTable {
        var table = standard()
        table.register(rightCommands(), before: "clock")
        table.register(loginCommands(), before: "clock")
        return table
    }
}
