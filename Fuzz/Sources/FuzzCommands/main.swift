// libFuzzer target: the command language of `touchstone` (the REPL and CI scripts), line by
// line, on a fresh simulated device per input — the simulated sensors, companion and
// passcode, the standard policies, in-memory storage, the change detectors. Every line must
// end in a record: a success, or a failure whose message says what went wrong; never a trap,
// a hang or a memory error.
//
// Kept out: lines naming `rounds` or `real`, slow by design (a passcode verifier of ten million
// PBKDF2 rounds takes seconds; a wall clock sleeps for the time a `wait` names), and lines naming
// `encrypted`, whose store is a file at a path the line gives: the portable plugins are
// registered, so nothing else touches files or the system.
import Dispatch
import Foundation
import FuzzSupport
import TouchstoneCommands
import TouchstonePortable

/// The default device with a cheap passcode verifier (the fewest rounds the plugin allows).
func fuzzComposition() -> Composition {
    var composition = Composition()
    composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
    return composition
}

let registry = PluginRegistry.portable
let composition = fuzzComposition()

/// The lines of the transcripts in Tests/Transcripts, one seed per transcript.
writeSeedsIfAsked {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Tests/Transcripts").standardized
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".touchstone") }.sorted()
    return try names.map { name in
        let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        let lines = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.contains("rounds") }
        return Data(lines.joined(separator: "\n").utf8)
    }
}

/// The words of the language: command names and aliases, the words of their usage, examples
/// and details, the plugin ids and option names, and the outcomes `evaluate` takes.
writeDictionaryIfAsked {
    var words = ["nomatch", "cancel", "fallback", "passcode:", "systemcancel", "invalidate", "wait:", "companion", "\"", "\n"]
    for command in CommandTable.standard().commands {
        words += [command.name] + command.aliases
        for text in [command.usage] + command.examples + command.details {
            words += text.split(whereSeparator: { " ()[]<>,;|'\"`".contains($0) }).map(String.init).filter { (2...24).contains($0.count) }
        }
    }
    for plugin in registry.descriptors() where !plugin.id.contains("encrypted") {
        words += [plugin.id] + plugin.options.map { $0.name + "=" }
    }
    return words
}

/// Runs `body` to its end on the global executor and waits for it (libFuzzer's callback is
/// synchronous).
func runToEnd(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}

fuzz { input in
    let text = String(decoding: input.rest(), as: UTF8.self)
    let lines = text.split(separator: "\n").prefix(24).map(String.init)
        .filter { line in ["rounds", "real", "encrypted"].allSatisfy { !line.localizedCaseInsensitiveContains($0) } }
    runToEnd {
        let session: CommandSession
        do {
            session = try CommandSession(composition: composition, registry: registry)
        } catch {
            fatalError("the default device could not be built: \(error)")
        }
        for line in lines {
            let record = await session.execute(line)
            if case let .failure(report) = record.outcome, report.message.isEmpty {
                fatalError("'\(line)' failed without a message: \(report)")
            }
            if record.quits { break }
        }
    }
}
