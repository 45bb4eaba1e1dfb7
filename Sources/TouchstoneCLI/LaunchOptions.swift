/// What one `touchstone` invocation asks for, whichever parser read the command line.
struct LaunchOptions: Equatable, Sendable {
    var json = false
    var config: String?
    var seed: UInt64?
    var memory = false
    var strict = false
    var echo = false
    var checkStore = false
    var exportStore: String?
    /// `--log-level` (read by ArgumentParser only; nil: warning).
    var logLevel: String?
    var script: String?
}

extension LaunchOptions {
    /// Reads the everyday command lines without ArgumentParser: no arguments, a script path,
    /// `--memory`, `--json`, `--strict`, `--echo`, `--seed N` and `--config FILE`, each at most
    /// once, in any order. Returns nil for anything else (help, version, the store options,
    /// a repeated or unknown option, a value that is not plain), which `TouchstoneCommand`
    /// then hands to ArgumentParser: it stays the one source of help, usage and errors.
    ///
    /// Why: building ArgumentParser's argument set reflects over the command and looks up
    /// protocol conformances across every loaded library, ~2 ms of the REPL's ~11 ms start
    /// (issue 14). `LaunchOptionsParityTests` checks that every command line read here gives
    /// what ArgumentParser gives.
    init?(everyday arguments: [String]) {
        self.init()
        // Options met so far; a second one is left to ArgumentParser. (Flags in a bit set, not
        // a Set<String>: its first use alone costs ~0.2 ms of generic set-up at start-up.)
        var seen: UInt8 = 0
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-") else {
                // One positional argument: the script.
                guard script == nil, !argument.isEmpty else { return nil }
                script = argument
                continue
            }
            var name = Substring(argument), inline: Substring?
            if let equals = argument.firstIndex(of: "=") {
                name = argument[..<equals]
                inline = argument[argument.index(after: equals)...]
            }
            guard let option = Self.options.firstIndex(of: name) else { return nil }
            let bit: UInt8 = 1 << option
            guard seen & bit == 0 else { return nil }
            seen |= bit
            if option < 4 {
                // --memory, --json, --strict, --echo: flags take no value.
                guard inline == nil else { return nil }
                switch option {
                case 0: memory = true
                case 1: json = true
                case 2: strict = true
                default: echo = true
                }
                continue
            }
            let value: Substring
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else { return nil }
                value = Substring(arguments[index])
                index += 1
            }
            if option == 4 {
                guard Self.isPlainNumber(value), let number = UInt64(value) else { return nil }
                seed = number
            } else {
                guard Self.isPlainValue(value) else { return nil }
                config = String(value)
            }
        }
    }

    /// The options read here; the position is the option's bit in `seen`.
    private static let options: [Substring] = ["--memory", "--json", "--strict", "--echo", "--seed", "--config"]

    /// ASCII digits only, at most 20 of them (`UInt64` decides the range).
    private static func isPlainNumber(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= 20 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// A value ArgumentParser would take as-is: not empty, not option-like.
    private static func isPlainValue(_ text: Substring) -> Bool {
        !text.isEmpty && !text.hasPrefix("-")
    }
}
