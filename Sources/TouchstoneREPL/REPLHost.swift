#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Touchstone
import TouchstoneCommands
import TouchstoneSimulation
internal import CLibEdit

/// How the REPL prints and when it stops.
public struct REPLOptions: Sendable {
    /// One JSON object per command on stdout.
    public var json = false
    /// Stop a script at the first failing command (exit status 1).
    public var strict = false
    /// In scripts, print each command (`> line`, secrets hidden) before its output.
    public var echo = false
    /// Colour on terminals (nil: decide from the terminal and `NO_COLOR`).
    public var color: Bool?

    /// Default options.
    public init() {}
}

/// Runs a ``CommandSession`` as a script (lines from a file or a pipe) or interactively on a
/// terminal with libedit.
///
/// ```swift
/// let host = REPLHost(session: try CommandSession(composition: Composition()), options: REPLOptions())
/// let status = await host.runScript(lines: ["enroll thumb", "expect ok"], name: "inline")
/// ```
public final class REPLHost {
    /// The session the lines run in.
    public let session: CommandSession
    /// The options.
    public let options: REPLOptions
    private let useColor: Bool

    /// The version printed by `--version` and the banner.
    public static let version = "0.1.0"

    /// Creates a host.
    public init(session: CommandSession, options: REPLOptions) {
        self.session = session
        self.options = options
        let noColor = environmentValue("NO_COLOR").map { !$0.isEmpty } ?? false
        useColor = options.color ?? (isatty(STDOUT_FILENO) != 0 && !noColor)
    }

    // MARK: Scripts

    /// Runs `lines` without prompts. `#` comments and blank lines are skipped; the first
    /// failing `expect` (or, with `strict`, the first failing command that the next line does
    /// not `expect`) stops with status 1.
    public func runScript<Lines: Sequence<String>>(lines: Lines, name: String) async -> Int32 {
        var number = 0
        // With `strict`, a failed command waits for the next line: an `expect` there judges it
        // (`expect error ...` is how a script tests a failure); anything else stops the script.
        var unexpectedFailure: (number: Int, record: CommandRecord)?
        func stop(_ failure: (number: Int, record: CommandRecord)) -> Int32 {
            let report = failure.record.error.map(\.message) ?? "failed"
            fail("\(name):\(failure.number): stopped (--strict) after \(failure.record.input): \(report)")
            return 1
        }
        for raw in lines {
            number += 1
            let line = raw.trimmingBlanks()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if let failure = unexpectedFailure {
                guard session.isExpectation(line) else { return stop(failure) }
                unexpectedFailure = nil
            }
            let record = await session.execute(line)
            if options.echo && !options.json { emit(UsageError.escapingUnprintable("> " + record.input)) }
            if options.json || !record.isExpectation || record.ok { show(record) }
            if record.quits { return 0 }
            if let error = record.error, error.isStoreDamage {
                // Nothing after it can be trusted to have run on the device the script set up.
                fail("\(name):\(number): stopped: the device's store is damaged (\(error.name)). "
                     + "See what is damaged with: touchstone --check-store; copy what is intact to a new store with: touchstone --export-store NEW-FILE")
                return 1
            }
            if !record.ok, record.isExpectation {
                fail("\(name):\(number): \(record.input) failed: \(record.error.map(\.message) ?? "failed")")
                return 1
            }
            if !record.ok, options.strict { unexpectedFailure = (number, record) }
        }
        if let failure = unexpectedFailure { return stop(failure) }
        flushOutput()
        return 0
    }

    /// Runs standard input as a script, line by line as it arrives.
    public func runStandardInput() async -> Int32 {
        await runScript(ScriptLines(standardInput: ()), name: "<stdin>")
    }

    /// Runs the script file at `path`, streaming it: one line in memory at a time, whatever
    /// the file's size.
    public func runScriptFile(_ path: String) async -> Int32 {
        guard let lines = ScriptLines(path: path) else {
            fail("touchstone: cannot read script '\(path)': \(String(cString: strerror(errno)))")
            return 2
        }
        return await runScript(lines, name: path)
    }

    /// Runs `lines` to their end; a script that could not be read to its end, or whose output
    /// could not be written, ends with status 2 and says why, so a CI run never passes on a
    /// script it did not read.
    private func runScript(_ lines: ScriptLines, name: String) async -> Int32 {
        let status = await runScript(lines: lines, name: name)
        if status == 0, let failure = lines.failure {
            fail("touchstone: cannot read script '\(name)'\(lines.count == 0 ? "" : " past line \(lines.count)"): \(failure)")
            return 2
        }
        flushOutput()
        if ferror(ts_stdout()) != 0 {
            fail("touchstone: cannot write the output: \(String(cString: strerror(errno)))")
            return 2
        }
        return status
    }

    // MARK: Interactive

    /// The history file: `$XDG_STATE_HOME/touchstone/history`, else `~/.local/state/touchstone/history`.
    public static func historyFile() -> URL {
        historyFile(environment: ["XDG_STATE_HOME": environmentValue("XDG_STATE_HOME"), "HOME": environmentValue("HOME")].compactMapValues { $0 })
    }

    /// The history file for the variables in `environment`.
    public static func historyFile(environment: [String: String]) -> URL {
        let base: URL
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            base = URL(fileURLWithPath: state)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home).appendingPathComponent(".local/state")
        }
        return base.appendingPathComponent("touchstone/history")
    }

    /// Reads commands at a terminal with line editing, history and TAB completion until
    /// `quit` or Ctrl-D.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`), and so do the commands: from
    /// an async `main`, the editor reads on the main thread, not on a thread of the pool that
    /// the rest of the program shares, and the first prompt does not wait for the pool to start.
    nonisolated(nonsending) public func runInteractive(banner: String) async -> Int32 {
        let editor = LineEditor(programName: "touchstone", historyFile: Self.historyFile(), historySize: 1000)
        let completer = Completer(session: session)
        editor.completer = { completer.candidates(lineBeforeCursor: $0) }
        session.isInteractive = true
        session.readSecret = { editor.readSecret(prompt: $0) }
        let asker = TerminalAsker(editor: editor, session: session)
        session.interaction.setAsker { prompt in asker.ask(prompt) }
        defer { session.interaction.setAsker(nil) }

        emit(banner)
        flushOutput()
        let prompt = useColor ? "\u{1}\u{1B}[1m\u{1}touchstone>\u{1}\u{1B}[0m\u{1} " : "touchstone> "
        loop: while true {
            switch editor.readLine(prompt: prompt) {
            case .interrupted:
                continue loop
            case .endOfFile:
                break loop
            case let .line(raw):
                let line = raw.trimmingBlanks()
                if line.isEmpty || line.hasPrefix("#") { continue loop }
                let record = await session.execute(line)
                if !record.containsSecret && !line.lowercased().contains("passcode:") {
                    editor.addHistory(line)
                }
                show(record)
                flushOutput()
                if record.quits { break loop }
            }
        }
        flushOutput()
        do {
            try editor.saveHistory()
        } catch {
            fail("touchstone: \(error)")
        }
        return 0
    }

    // MARK: Output

    private func show(_ record: CommandRecord) {
        if options.json {
            emit(record.json.serialized)
            return
        }
        switch record.outcome {
        case let .success(output):
            // Names and values come from the user or a store: no control characters reach the
            // terminal (a line's new lines and tabs stay).
            if !output.lines.isEmpty { emit(UsageError.escapingUnprintable(output.text, keeping: ["\n", "\t"])) }
        case let .failure(report):
            let prefix = useColor ? "\u{1B}[31merror:\u{1B}[0m " : "error: "
            emit(prefix + report.text)
        }
    }

    private func emit(_ text: String) {
        print(text)
    }

    private func flushOutput() {
        fflush(ts_stdout())
    }

    private func fail(_ message: String) {
        fflush(ts_stdout())
        FileHandle.standardError.write(Data((UsageError.escapingUnprintable(message, keeping: ["\n", "\t"]) + "\n").utf8))
    }
}

/// Standard input as the process found it.
public enum StandardInput {
    /// Whether the process started with standard input closed (`touchstone <&-`); then a
    /// script is not read from it (``REPLHost/runStandardInput()`` fails with status 2). Read
    /// it first thing: a closed descriptor 0 goes to the next file opened — SQLite's store, the
    /// runtime's event descriptor — and "standard input" would then be that. When descriptor 0
    /// is still free, `/dev/null` takes it.
    public static let wasClosed = checkClosed()

    private static func checkClosed() -> Bool {
        if fcntl(STDIN_FILENO, F_GETFD) == -1 {
            _ = open("/dev/null", O_RDONLY | O_CLOEXEC)
            return true
        }
        // The runtime may have taken descriptor 0 already (an epoll or event descriptor).
        var target = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/self/fd/0", &target, target.count - 1)
        guard length > 0 else { return false }
        return String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix("anon_inode:")
    }
}

/// A script's lines, read one at a time from a file or standard input: one line in memory at
/// a time, invalid UTF-8 repaired, a final line without a new line counted. A line ends at a
/// new line, a carriage return and new line, or a lone carriage return (a lone one would
/// otherwise hide the rest of its line from the terminal, and from whoever reads the script).
///
/// Reading stops with a ``failure`` — instead of passing for the end of the script — when the
/// stream cannot be read (a directory, standard input closed, an I/O error) or a line is longer
/// than ``maximumLineBytes``.
final class ScriptLines: Sequence, IteratorProtocol {
    /// The longest line read: 1 MiB, far past any command (names are at most 64 bytes).
    static let maximumLineBytes = 1 << 20

    private let file: UnsafeMutablePointer<FILE>
    private let closesFile: Bool
    /// Standard input may be a pipe a program drives line by line: before reading waits for
    /// more, the answers so far are flushed (standard output is block-buffered when it is not
    /// a terminal), so the driver sees each answer before it sends the next line. A script
    /// piped in whole costs one flush per buffer of input, not one per line.
    private let flushesBeforeWaiting: Bool
    private var bytes: [UInt8] = []
    /// The last line ended at a CR: a LF right after it belongs to that line end. (Looking
    /// for it then would wait on a pipe for bytes not sent yet, and hold back the line.)
    private var endedAtCarriageReturn = false
    /// Lines read so far.
    private(set) var count = 0
    /// Why reading stopped before the end, or nil.
    private(set) var failure: String?

    /// The lines of the file at `path`; nil (with `errno` set) when it cannot be opened.
    init?(path: String) {
        guard let file = fopen(path, "r") else { return nil }
        self.file = file
        closesFile = true
        flushesBeforeWaiting = false
    }

    /// The lines of standard input, as they arrive; none, with a ``failure``, when the process
    /// started with it closed (``StandardInput/wasClosed``).
    init(standardInput: Void) {
        file = ts_stdin()
        closesFile = false
        flushesBeforeWaiting = true
        if StandardInput.wasClosed { failure = "standard input is closed" }
    }

    deinit {
        if closesFile { fclose(file) }
    }

    func next() -> String? {
        guard failure == nil else { return nil }
        bytes.removeAll(keepingCapacity: true)
        while true {
            if flushesBeforeWaiting, ts_input_buffered(file) == 0 { fflush(ts_stdout()) }
            let byte = getc_unlocked(file)
            if endedAtCarriageReturn {
                endedAtCarriageReturn = false
                if byte == 0x0A { continue }
            }
            if byte == EOF {
                if ferror(file) != 0 {
                    failure = String(cString: strerror(errno))
                    return nil
                }
                if bytes.isEmpty { return nil }
                break
            }
            if byte == 0x0A { break }
            if byte == 0x0D {
                endedAtCarriageReturn = true
                break
            }
            guard bytes.count < Self.maximumLineBytes else {
                failure = "line \(count + 1) is longer than \(Self.maximumLineBytes) bytes"
                return nil
            }
            bytes.append(UInt8(truncatingIfNeeded: byte))
        }
        // Bytes that are not UTF-8 would be read with U+FFFD in their place, and two different
        // names would silently become one: the script is not read past them.
        guard let line = String(validating: bytes, as: UTF8.self) else {
            failure = "line \(count + 1) is not valid UTF-8"
            return nil
        }
        count += 1
        return line
    }
}

/// TAB completion of the REPL's command line.
final class Completer {
    let session: CommandSession

    init(session: CommandSession) {
        self.session = session
    }

    /// Candidates for the word before the cursor.
    func candidates(lineBeforeCursor line: String) -> [String] {
        let word = String(LineEditor.CompletionPlan.currentWord(in: line))
        let before = String(line.dropLast(word.count))
        let words = (try? Tokenizer.split(before)) ?? before.split(separator: " ").map(String.init)
        let pool: [String]
        if words.isEmpty {
            pool = session.table.commands.map(\.name) + session.table.commands.flatMap(\.aliases).filter { $0.count > 2 }
        } else if let command = session.table.command(named: words[0]) {
            pool = command.completer(session, Array(words.dropFirst()))
        } else {
            pool = []
        }
        return pool.filter { $0.hasPrefix(word) }.sorted()
    }
}

/// Asks the person at the terminal for the outcome of a prompt during `evaluate`.
///
/// `@unchecked Sendable`: it is used only while the REPL loop is suspended in `evaluate`,
/// on behalf of that one loop, never concurrently.
final class TerminalAsker: @unchecked Sendable {
    private let editor: LineEditor
    private let session: CommandSession

    init(editor: LineEditor, session: CommandSession) {
        self.editor = editor
        self.session = session
    }

    func ask(_ prompt: Prompt) -> UserAction? {
        if prompt.kind == .passcode {
            guard let code = editor.readSecret(prompt: "  [passcode prompt] passcode (empty or Ctrl-C cancels): "),
                  !code.isEmpty else { return .cancel }
            return .passcode(code)
        }
        let saved = editor.completer
        let words = prompt.kind == .companion ? ["companion", "cancel"] : session.outcomeWords
        editor.completer = { line in
            let word = String(LineEditor.CompletionPlan.currentWord(in: line))
            return words.filter { $0.hasPrefix(word) }
        }
        defer { editor.completer = saved }
        print("  [\(prompt.kind.rawValue) prompt: \"\(UsageError.escapingUnprintable(prompt.reason))\"] \(prompt.allowedActions.joined(separator: ", "))")
        fflush(ts_stdout())
        while true {
            switch editor.readLine(prompt: "  outcome> ") {
            case .interrupted, .endOfFile:
                return .cancel
            case let .line(text):
                let trimmed = text.trimmingBlanks()
                if trimmed.lowercased() == "passcode" || trimmed.lowercased().hasPrefix("passcode:") {
                    print("  (type passcodes only at the passcode prompt, where they are not echoed)")
                    continue
                }
                guard let action = UserAction(script: trimmed) else {
                    print("  '\(UsageError.escapingUnprintable(trimmed))' is not an outcome")
                    continue
                }
                if case let .present(name) = action,
                   let nearest = Outcomes.likelySlip(name, enrolled: (try? session.device.enrolledNames()) ?? []) {
                    print("  " + UsageError.escapingUnprintable(Outcomes.slipMessage(name, nearest: nearest)))
                    continue
                }
                switch action {
                case .fallback where prompt.fallbackButton == nil:
                    print("  the fallback button is not shown on this prompt")
                case .present where prompt.kind != .biometric, .noMatch where prompt.kind != .biometric:
                    print("  nothing is scanned on this prompt")
                default:
                    return action
                }
            }
        }
    }
}

extension StringProtocol {
    /// The text without leading and trailing blanks (spaces, tabs and other space separators,
    /// as `CharacterSet.whitespaces`), in native Swift: Foundation's `trimmingCharacters`
    /// bridges through NSString, which cost more than running a script line.
    func trimmingBlanks() -> String {
        func isBlank(_ character: Character) -> Bool {
            character == " " || character == "\t"
                || character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .spaceSeparator }
        }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}

/// One environment variable, read with `getenv`: at start-up this is cheaper than building
/// `ProcessInfo.processInfo.environment`, a dictionary of every variable (issue 14).
func environmentValue(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
}
