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
        var seen: Set<String> = []
        var index = 0
        func value(of option: String, inline: String?) -> String? {
            if let inline { return inline }
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            defer { index += 1 }
            guard argument.hasPrefix("-") else {
                // One positional argument: the script.
                guard script == nil, !argument.isEmpty else { return nil }
                script = argument
                continue
            }
            let name: String, inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
                inline = nil
            }
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "--memory" where inline == nil: memory = true
            case "--json" where inline == nil: json = true
            case "--strict" where inline == nil: strict = true
            case "--echo" where inline == nil: echo = true
            case "--seed":
                guard let text = value(of: name, inline: inline), Self.isPlainNumber(text), let number = UInt64(text) else { return nil }
                seed = number
            case "--config":
                guard let file = value(of: name, inline: inline), Self.isPlainValue(file) else { return nil }
                config = file
            default:
                return nil
            }
        }
    }

    /// ASCII digits only, at most 20 of them (`UInt64` decides the range).
    private static func isPlainNumber(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 20 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// A value ArgumentParser would take as-is: not empty, not option-like.
    private static func isPlainValue(_ text: String) -> Bool {
        !text.isEmpty && !text.hasPrefix("-")
    }
}
