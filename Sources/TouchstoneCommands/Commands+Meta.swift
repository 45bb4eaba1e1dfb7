import Touchstone

extension CommandTable {
    /// `help`, `quit`.
    static func metaCommands() -> [Command] {
        [
            Command(
                name: "help", aliases: ["?"], summary: "list the commands, or explain one",
                usage: "help [command]", example: "help evaluate",
                completer: { session, previous in previous.isEmpty ? session.table.commands.map(\.name) : [] }
            ) { session, arguments in
                try arguments.expectAtMost(1)
                if let name = arguments[0] {
                    guard let command = session.table.command(named: name) else {
                        throw CommandError.unknownCommand(name, suggestion: session.table.suggestion(for: name))
                    }
                    var lines = ["\(command.usage)", "  \(command.summary)"]
                    if !command.aliases.isEmpty { lines.append("  aliases: \(command.aliases.joined(separator: ", "))") }
                    lines += command.details.map { "  " + $0 }
                    lines.append(command.examples.count == 1 ? "  example:" : "  examples:")
                    lines += command.examples.map { "    " + $0 }
                    return CommandOutput(lines, result: [
                        ("name", .string(command.name)), ("summary", .string(command.summary)),
                        ("usage", .string(command.usage)), ("aliases", .strings(command.aliases)),
                        ("examples", .strings(command.examples)),
                    ])
                }
                let width = (session.table.commands.map(\.name.count).max() ?? 0) + 2
                var lines = session.table.commands.map { command in
                    command.name + String(repeating: " ", count: max(1, width - command.name.count))
                        + command.summary + " (e.g. \(command.examples[0]))"
                }
                lines.append("Type help <command> for details and an example. Outcomes for evaluate:")
                lines.append("  <enrolled name>, nomatch, cancel, fallback, passcode:<code>, systemcancel, invalidate, wait:<duration>, companion")
                return CommandOutput(lines, result: [
                    ("commands", .array(session.table.commands.map { command in
                        .object([("name", .string(command.name)), ("summary", .string(command.summary)),
                                 ("usage", .string(command.usage)), ("example", .string(command.examples[0]))])
                    })),
                ])
            },
            Command(
                name: "quit", aliases: ["exit", "q"], summary: "leave the REPL (Ctrl-D on an empty line does too)",
                usage: "quit", example: "quit"
            ) { _, arguments in
                try arguments.expectAtMost(0)
                throw QuitRequest()
            },
        ]
    }
}
