import Foundation
import Touchstone

extension CommandTable {
    /// `plugins`, `use`, `config`, `app`, `reset`.
    static func compositionCommands() -> [Command] {
        let kinds = PluginKind.allCases.map(\.rawValue)
        return [
            Command(
                name: "plugins", summary: "the registered plugins by kind, with id, summary and options",
                usage: "plugins [kind]", example: "plugins sensor",
                details: ["kinds: " + kinds.joined(separator: ", ")],
                completer: Command.firstWord(kinds)
            ) { session, arguments in
                try arguments.expectAtMost(1)
                var selected = PluginKind.allCases
                if let word = arguments[0] {
                    guard let kind = PluginKind(rawValue: word) else {
                        throw arguments.usageError("unknown kind '\(word)'; kinds: \(kinds.joined(separator: ", "))")
                    }
                    selected = [kind]
                }
                var lines: [String] = []
                var json: [(String, JSONValue)] = []
                for kind in selected {
                    let descriptors = session.registry.descriptors(of: kind)
                    guard !descriptors.isEmpty else { continue }
                    lines.append("\(kind.rawValue):")
                    let width = (descriptors.map(\.id.count).max() ?? 0) + 2
                    for descriptor in descriptors {
                        lines.append("  " + descriptor.id + String(repeating: " ", count: width - descriptor.id.count) + descriptor.summary)
                        for option in descriptor.options {
                            let value = option.defaultValue.map { "=\($0)" } ?? ""
                            lines.append("      \(option.name)\(value)  \(option.summary)")
                        }
                    }
                    json.append((kind.rawValue, .array(descriptors.map { descriptor in
                        .object([
                            ("id", .string(descriptor.id)), ("summary", .string(descriptor.summary)),
                            ("options", .array(descriptor.options.map { option in
                                .object([("name", .string(option.name)), ("default", .optional(option.defaultValue)),
                                         ("summary", .string(option.summary))])
                            })),
                        ])
                    })))
                }
                return CommandOutput(lines, result: json)
            },
            Command(
                name: "use", summary: "swap a plugin (sensor, storage, detector, passcode, ...) in the composition",
                usage: "use <kind> <id> [key=value ...]", example: "use sensor sim.faceid",
                moreExamples: ["use passcode passcode.sim rounds=1000", "use sensor sim.touchid hardware=absent"],
                details: ["The device (enrolments, counters, clock) is kept unless the storage changes.",
                          "The context is always new: its titles, reuse window and interaction setting start over.",
                          "kinds: " + kinds.joined(separator: ", ") + "; see plugins for ids and options"],
                completer: { session, previous in
                    switch previous.count {
                    case 0: return kinds
                    case 1: return PluginKind(rawValue: previous[0]).map { session.registry.descriptors(of: $0).map(\.id) } ?? []
                    default:
                        guard let descriptor = try? session.registry.descriptor(previous[1]) else { return [] }
                        return descriptor.options.map { $0.name + "=" }
                    }
                },
                redactor: { words in
                    // A passphrase given as an option never reaches history, echo or --json input.
                    guard words.contains(where: { $0.lowercased().hasPrefix("passphrase=") }) else { return nil }
                    return words.map { $0.lowercased().hasPrefix("passphrase=") ? "passphrase=****" : $0 }
                }
            ) { session, arguments in
                let kindWord = try arguments.required(0, "the plugin kind")
                guard let kind = PluginKind(rawValue: kindWord) else {
                    throw arguments.usageError("unknown kind '\(kindWord)'; kinds: \(kinds.joined(separator: ", "))")
                }
                let id = try arguments.required(1, "the plugin id")
                let options = try Format.options(arguments.words.dropFirst(2), arguments: arguments)
                let storageBefore = session.builder.composition.storage
                try session.use(kind, id, options: options)
                let kept = session.builder.composition.storage == storageBefore
                let selection = PluginSelection(id, options: options)
                let shown = session.builder.registry.redactingSecrets(in: selection)
                return CommandOutput("\(kind.rawValue): \(shown)" + (kept ? " (device kept, new context)" : " (the device this storage holds, new if it held none)"), result: [
                    ("kind", .string(kind.rawValue)), ("id", .string(id)),
                    ("options", .object(shown.options.keys.sorted().map { ($0, .string(shown.options[$0] ?? "")) })),
                    ("deviceKept", .bool(kept)),
                ])
            },
            Command(
                name: "config", summary: "print the composition as a file --config accepts",
                usage: "config", example: "config"
            ) { session, arguments in
                try arguments.expectAtMost(0)
                // Secret options (a passphrase) are never printed.
                let text = session.builder.registry.redactingSecrets(in: session.builder.composition).jsonString()
                return CommandOutput(text.components(separatedBy: "\n"), result: [("config", .string(text))])
            },
            Command(
                name: "app", summary: "show or switch the app (bundle id) on the same device",
                usage: "app [app-id]", example: "app com.example.bank",
                details: ["Each app sees its own domain state and baselines; lockout and passcode are device-wide.",
                          "An app id is 1 to 255 bytes, without spaces or control characters."]
            ) { session, arguments in
                try arguments.expectAtMost(1)
                if let id = arguments[0] {
                    try session.switchApp(id)
                    return CommandOutput("app: \(id) (new context)", result: [("app", .string(id))])
                }
                return CommandOutput("app: \(session.authenticator.appID)", result: [("app", .string(session.authenticator.appID))])
            },
            Command(
                name: "reset", summary: "a fresh device with the same composition",
                usage: "reset [--yes]", example: "reset", moreExamples: ["reset --yes"],
                details: ["A device kept on disk (storage.sqlite, storage.encrypted-file) is erased only with",
                          "'reset --yes': its enrollments, passcode, counters, keychain items and keys are gone."]
            ) { session, arguments in
                try arguments.expectAtMost(1)
                if let word = arguments[0], word != "--yes" {
                    throw arguments.usageError("'\(word)' is not an option of reset; did you mean --yes?")
                }
                let storage = session.builder.composition.storage
                if storage.id != "storage.memory", arguments[0] == nil {
                    let place = storage.options["path"].map { " in \($0)" } ?? ""
                    throw arguments.usageError("reset erases the device kept\(place) (\(storage.id)): its enrollments, passcode, "
                        + "counters, keychain items and keys. Run 'reset --yes' to erase it")
                }
                try session.reset()
                // A composition's "device" setup applies to the fresh device too.
                let device = session.device
                let passcode = try device.isPasscodeSet ? "passcode set" : "no passcode"
                let enrolled = try device.enrolledNames()
                return CommandOutput("reset: fresh device (\(device.biometryType), \(passcode), "
                    + (enrolled.isEmpty ? "nothing enrolled" : "enrolled: \(enrolled.joined(separator: ", "))") + ")")
            },
        ]
    }
}
