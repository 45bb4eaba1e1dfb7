#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
internal import CLibEdit

/// Reads the REPL's input lines with editing, history and TAB completion.
///
/// On a terminal, `LineEditor` drives BSD libedit in emacs mode: arrow keys
/// and the usual Ctrl bindings edit the line, Up and Down browse the history,
/// TAB asks ``completer`` for candidates, Ctrl-C abandons the line and
/// Ctrl-D on an empty line ends the input. When standard input or output is
/// not a terminal (a script, a pipe), it reads plain lines instead, without
/// printing prompts.
///
/// ```swift
/// let editor = LineEditor(
///     programName: "touchstone",
///     historyFile: URL(fileURLWithPath: NSHomeDirectory())
///         .appendingPathComponent(".touchstone/history"),
///     historySize: 500
/// )
/// editor.completer = { lineBeforeCursor in
///     let word = lineBeforeCursor.split(separator: " ", omittingEmptySubsequences: false).last ?? ""
///     return ["enroll", "evaluate", "exit", "help"].filter { $0.hasPrefix(word) }
/// }
/// repl: while true {
///     switch editor.readLine(prompt: "touchstone> ") {
///     case .line(let line):
///         editor.addHistory(line)
///         if line == "exit" { break repl }
///     case .interrupted:
///         continue
///     case .endOfFile:
///         break repl
///     }
/// }
/// try? editor.saveHistory()
/// ```
///
/// A `LineEditor` owns the terminal while ``readLine(prompt:)`` or
/// ``readSecret(prompt:)`` runs; use one instance at a time, from one thread.
///
/// Ctrl-C handling: while a line is being edited, the terminal's interrupt
/// character is switched off (libedit `setty -d -intr`), so Ctrl-C reaches the
/// editor as an ordinary key bound to a command that abandons the line;
/// ``readLine(prompt:)`` then returns ``ReadResult/interrupted``. No signal
/// handler is installed for this. Between two reads the terminal is back in
/// its normal mode, so Ctrl-C during a command sends SIGINT as usual: what it
/// does then is up to the host program.
public final class LineEditor {
    /// What one call to ``LineEditor/readLine(prompt:)`` produced.
    public enum ReadResult: Equatable, Sendable {
        /// A line the user entered, without its line terminator.
        case line(String)
        /// The user pressed Ctrl-C: the line was abandoned and the cursor moved
        /// to a new line. Prompt again.
        case interrupted
        /// Ctrl-D on an empty line, or the end of non-terminal input: stop reading.
        case endOfFile
    }

    /// Why ``LineEditor/saveHistory()`` could not write the history file.
    public struct HistoryError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The history file that could not be written.
        public let path: String
        /// What went wrong, for example `"Permission denied"`.
        public let reason: String

        /// Creates an error for `path`, explained by `reason`.
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        /// A one-line message naming the file and the reason.
        public var description: String { "cannot save history to \(path): \(reason)" }
    }

    /// Whether standard input is a terminal (`isatty(0)`).
    ///
    /// When it is not, a REPL is being fed by a script or a pipe: prompts,
    /// banners and line editing are noise there.
    public static var isTerminal: Bool { isatty(STDIN_FILENO) != 0 }

    /// Proposes completions when the user presses TAB.
    ///
    /// Called with the line's text up to the cursor; returns the words that
    /// could replace the word being typed, which is the text after the last
    /// whitespace of `lineBeforeCursor` (empty right after a space). Return
    /// full words, not suffixes; return an empty array when nothing fits.
    ///
    /// With one candidate, the word is replaced by it followed by a space.
    /// With several, the word is extended to their longest common prefix and
    /// the candidates are listed under the line. With none, the terminal beeps.
    ///
    /// ```swift
    /// editor.completer = { lineBeforeCursor in
    ///     let word = lineBeforeCursor.split(separator: " ", omittingEmptySubsequences: false).last ?? ""
    ///     return commandNames.filter { $0.hasPrefix(word) }
    /// }
    /// ```
    public var completer: ((_ lineBeforeCursor: String) -> [String])?

    /// The file history is loaded from at start and saved to by ``saveHistory()``.
    public let historyFile: URL?

    /// Whether lines are read with libedit (standard input and output are
    /// terminals) rather than as plain lines.
    public var isInteractive: Bool { editLine != nil }

    /// The libedit instance; nil when not interactive.
    var editLine: OpaquePointer?
    /// libedit's history list; nil when history is disabled or unavailable.
    private let history: OpaquePointer?
    /// The current prompt as a C string, handed to libedit by the prompt callback.
    private var promptCString: UnsafeMutablePointer<CChar>
    /// Set by the Ctrl-C command while `el_gets` runs.
    private var interruptRequested = false

    /// Creates a line editor and loads the history file if it exists.
    ///
    /// - Parameters:
    ///   - programName: The name libedit uses to select lines of `~/.editrc`
    ///     (`touchstone:bind ...`).
    ///   - historyFile: Where history is loaded from now and saved to by
    ///     ``saveHistory()``; nil keeps history in memory only.
    ///   - historySize: The most entries kept; 0 or less disables history.
    ///
    /// Sets the process's `LC_CTYPE` locale from the environment first, falling
    /// back to `C.UTF-8` when the environment's locale is not UTF-8, because
    /// libedit silently drops non-ASCII input otherwise.
    public init(programName: String, historyFile: URL?, historySize: Int) {
        _ = ts_setup_utf8_ctype()
        self.historyFile = historyFile
        self.promptCString = Self.makeCString("")
        if historySize > 0, let list = history_init() {
            _ = ts_history_set_size(list, Int32(clamping: historySize))
            _ = ts_history_set_unique(list, 1)
            self.history = list
        } else {
            self.history = nil
        }
        self.editLine = nil

        if isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0,
           let el = el_init(programName, ts_stdin(), ts_stdout(), ts_stderr()) {
            editLine = el
            configure(el)
        }
        loadHistory()
    }

    deinit {
        if let editLine {
            el_end(editLine)
        }
        if let history {
            history_end(history)
        }
        promptCString.deallocate()
    }

    // MARK: - Reading lines

    /// Reads one line, showing `prompt` and allowing the user to edit it.
    ///
    /// On a terminal, this returns ``ReadResult/interrupted`` when the user
    /// presses Ctrl-C (the line is abandoned and `^C` is shown) and
    /// ``ReadResult/endOfFile`` on Ctrl-D with an empty line. The line is not
    /// added to the history: call ``addHistory(_:)`` for lines worth recalling.
    ///
    /// Non-printing sequences in `prompt`, such as colours, must be enclosed
    /// in `"\u{1}"` characters so they are not counted in its width.
    ///
    /// When the editor is not interactive, the prompt is not printed and the
    /// next line of standard input is returned.
    public func readLine(prompt: String) -> ReadResult {
        guard let el = editLine else {
            guard let line = Swift.readLine(strippingNewline: true) else { return .endOfFile }
            return .line(line)
        }
        setPrompt(prompt)
        interruptRequested = false
        Self.acceptTerminalSignals()
        var count: Int32 = 0
        let raw = el_gets(el, &count)
        let failure = errno
        if interruptRequested {
            interruptRequested = false
            return .interrupted
        }
        guard let raw, count > 0 else {
            writeToTerminal("\n")
            return count < 0 && failure == EINTR ? .interrupted : .endOfFile
        }
        var line = String(cString: raw)
        while let last = line.unicodeScalars.last, last == "\n" || last == "\r" {
            line.unicodeScalars.removeLast()
        }
        return .line(line)
    }

    /// Reads a line without echoing it, for passcodes and other secrets.
    ///
    /// Shows `prompt`, turns terminal echo off while the user types, restores
    /// the terminal afterwards, and never records the line in the history.
    /// Backspace and Ctrl-U edit the hidden text; Enter finishes it.
    ///
    /// - Returns: The text typed, or nil when the user pressed Ctrl-C, or
    ///   Ctrl-D on an empty entry, or the input ended, or echo could not be
    ///   switched off. When standard input is not a terminal, the prompt is
    ///   not printed and the next line is returned.
    public func readSecret(prompt: String) -> String? {
        guard isatty(STDIN_FILENO) != 0 else {
            return Swift.readLine(strippingNewline: true)
        }
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            return nil  // Echo cannot be switched off: refuse rather than show the secret.
        }
        var hidden = saved
        // No echo, byte at a time, and Ctrl-C / Ctrl-Z / Ctrl-\ arrive as bytes
        // rather than signals, so cancelling cannot leave echo switched off.
        hidden.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &hidden.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSADRAIN, &hidden) == 0 else {
            return nil
        }
        defer { _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &saved) }

        writeToTerminal(prompt)
        var bytes: [UInt8] = []
        defer {
            // Best effort: do not leave the secret's bytes in freed memory.
            for index in bytes.indices { bytes[index] = 0 }
        }
        var accepted = false
        reading: while true {
            guard let byte = readByte() else { break reading }
            switch byte {
            case 0x0A, 0x0D:                    // Enter
                accepted = true
                break reading
            case 0x03:                          // Ctrl-C: cancel
                writeToTerminal("^C")
                break reading
            case 0x04:                          // Ctrl-D: cancel when empty
                if bytes.isEmpty { break reading }
            case 0x7F, 0x08:                    // Backspace: drop one scalar
                while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
            case 0x15:                          // Ctrl-U: start over
                bytes.removeAll(keepingCapacity: true)
            case 0x1B:                          // Escape sequence (arrow keys): skip
                skipEscapeSequence()
            case 0x00..<0x20:                   // Other control characters: ignore
                continue reading
            default:
                bytes.append(byte)
            }
        }
        writeToTerminal("\n")
        return accepted ? String(decoding: bytes, as: UTF8.self) : nil
    }

    // MARK: - History

    /// Records `line` in the history, so Up arrow recalls it and
    /// ``saveHistory()`` writes it.
    ///
    /// The caller decides what is worth recording: never pass secrets.
    /// Blank lines and a repeat of the previous entry are not recorded.
    public func addHistory(_ line: String) {
        guard let history, line.contains(where: { !$0.isWhitespace }) else { return }
        _ = ts_history_enter(history, line)
    }

    /// Writes the history to ``historyFile``, creating its parent directories.
    ///
    /// The file is readable by its owner only (mode 0600) and is replaced
    /// atomically. Does nothing when there is no history file or history is
    /// disabled.
    ///
    /// - Throws: ``HistoryError`` naming the file and the reason when it
    ///   cannot be written.
    public func saveHistory() throws(HistoryError) {
        guard let history, let historyFile else { return }
        let path = historyFile.path
        let directory = historyFile.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw HistoryError(path: path, reason: "cannot create \(directory.path): \(Self.describeDirectoryFailure(directory, error))")
        }
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode_t(0o600))
        guard descriptor >= 0 else {
            throw HistoryError(path: path, reason: Self.describeErrno())
        }
        guard let stream = fdopen(descriptor, "w") else {
            let reason = Self.describeErrno()
            _ = close(descriptor)
            _ = unlink(temporary)
            throw HistoryError(path: path, reason: reason)
        }
        let written = ts_history_save_fp(history, stream)
        let reason = Self.describeErrno()
        let closed = fclose(stream) == 0
        guard written >= 0, closed else {
            _ = unlink(temporary)
            throw HistoryError(path: path, reason: reason)
        }
        guard rename(temporary, path) == 0 else {
            let reason = Self.describeErrno()
            _ = unlink(temporary)
            throw HistoryError(path: path, reason: reason)
        }
    }

    /// Loads the history file if it exists; an unreadable file is ignored, and so is anything
    /// but a plain file (reading a FIFO would wait forever before the first prompt).
    private func loadHistory() {
        guard let history, let historyFile else { return }
        var status = stat()
        guard stat(historyFile.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
        _ = ts_history_load(history, historyFile.path)
    }

    /// Why `directory` could not be created, in words: Foundation's own message on Linux can
    /// be a bare "NSCocoaErrorDomain error 512".
    private static func describeDirectoryFailure(_ directory: URL, _ error: any Error) -> String {
        var ancestor = directory
        while ancestor.path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: ancestor.path, isDirectory: &isDirectory) {
                if !isDirectory.boolValue { return "\(ancestor.path) is a file, not a directory" }
                if !FileManager.default.isWritableFile(atPath: ancestor.path) { return "\(ancestor.path) is not writable" }
                break
            }
            ancestor = ancestor.deletingLastPathComponent()
        }
        return error.localizedDescription
    }

    // MARK: - libedit set-up and callbacks

    /// Binds keys and callbacks on a fresh libedit instance.
    private func configure(_ el: OpaquePointer) {
        _ = ts_el_set_clientdata(el, Unmanaged.passUnretained(self).toOpaque())
        _ = ts_el_set_prompt(el, { el in
            guard let el, let editor = LineEditor.owner(of: el) else { return ts_empty_prompt() }
            return editor.promptCString
        }, 1)
        _ = ts_el_set_editor(el, "emacs")
        // Restore the terminal and redraw around Ctrl-Z / fg, resize, SIGTERM...
        _ = ts_el_set_signal_handling(el, 1)
        if let history {
            _ = ts_el_set_history(el, history)
        }
        // The user's ~/.editrc (or $EDITRC) first, so the bindings below win.
        _ = el_source(el, nil)

        _ = ts_el_add_function(el, "touchstone-complete", "Complete the word before the cursor") { el, _ in
            guard let el, let editor = LineEditor.owner(of: el) else { return UInt8(CC_ERROR) }
            return editor.complete(el)
        }
        _ = ts_el_bind(el, "^I", "touchstone-complete")

        _ = ts_el_add_function(el, "touchstone-interrupt", "Abandon the line being edited") { el, _ in
            guard let el, let editor = LineEditor.owner(of: el) else { return UInt8(CC_ERROR) }
            return editor.abandonLine(el)
        }
        _ = ts_el_bind(el, "^C", "touchstone-interrupt")
        // While editing, Ctrl-C must arrive as a key, not as SIGINT: drop the
        // interrupt character from the editing-mode terminal settings. `-intr`
        // keeps it dropped when libedit re-reads changed terminal settings;
        // `intr=` drops it from the settings already computed.
        _ = ts_el_setty(el, "-d", "-intr")
        _ = ts_el_setty(el, "-d", "intr=")
    }

    /// Unblocks, on the calling thread, the signals libedit handles while it reads (a closed
    /// terminal, Ctrl-Z and `fg`, a resize, SIGTERM, SIGQUIT). A parent may start the program
    /// with them blocked (Foundation's `Process` spawns from dispatch threads, which block
    /// nearly every signal, and the child inherits that mask): the REPL would then neither end
    /// when its terminal closes nor redraw after a resize. SIGINT is left as it is: while a
    /// line is edited Ctrl-C is a key, and during a command the host decides.
    private static func acceptTerminalSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGHUP, SIGTERM, SIGQUIT, SIGTSTP, SIGCONT, SIGWINCH] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// The `LineEditor` registered as client data of `el`.
    static func owner(of el: OpaquePointer) -> LineEditor? {
        guard let data = ts_el_clientdata(el) else { return nil }
        return Unmanaged<LineEditor>.fromOpaque(data).takeUnretainedValue()
    }

    /// The Ctrl-C command: moves to the end of the line, shows `^C` and ends
    /// `el_gets`, flagging the line as abandoned.
    private func abandonLine(_ el: OpaquePointer) -> UInt8 {
        if let line = el_wline(el)?.pointee, let cursor = line.cursor, let end = line.lastchar,
           end > cursor {
            // Put the cursor after the text first so `^C` does not overwrite it,
            // then run this command again (Ctrl-C pushed back as input) once
            // libedit has moved the terminal's cursor.
            _ = el_cursor(el, Int32(clamping: end - cursor))
            el_push(el, "\u{03}")
            return UInt8(CC_CURSOR)
        }
        writeToTerminal("^C\n")
        interruptRequested = true
        return UInt8(CC_NEWLINE)
    }

    // MARK: - Helpers

    private func setPrompt(_ prompt: String) {
        let replacement = Self.makeCString(prompt)
        promptCString.deallocate()
        promptCString = replacement
    }

    /// A NUL-terminated copy of `string`, cut at its first NUL if any.
    private static func makeCString(_ string: String) -> UnsafeMutablePointer<CChar> {
        let bytes = Array(string.utf8.prefix { $0 != 0 })
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() {
            buffer[index] = CChar(bitPattern: byte)
        }
        buffer[bytes.count] = 0
        return buffer
    }

    /// Writes `text` to standard output immediately.
    func writeToTerminal(_ text: String) {
        let stream = ts_stdout()
        _ = fputs(text, stream)
        _ = fflush(stream)
    }

    /// One byte from standard input, retrying after signals; nil at end of input.
    private func readByte() -> UInt8? {
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count == 1 { return byte }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// Skips the rest of an escape sequence whose ESC was just read.
    private func skipEscapeSequence() {
        guard let introducer = readByte(), introducer == UInt8(ascii: "[") || introducer == UInt8(ascii: "O") else {
            return
        }
        // Parameters and intermediates until a final byte in 0x40...0x7E.
        while let byte = readByte(), !(0x40...0x7E).contains(byte) {}
    }

    private static func describeErrno() -> String {
        String(cString: strerror(errno))
    }
}
