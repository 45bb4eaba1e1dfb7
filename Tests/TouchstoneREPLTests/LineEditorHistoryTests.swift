import Foundation
import Testing
import TestSupport
@testable import TouchstoneREPL

/// The history file is the user's, in their state directory: whatever is found there, the
/// editor neither hangs on it nor reports a failure to save it in Foundation's codes.
@Suite("Line editor history files")
struct LineEditorHistoryTests {
    static func scratch() throws -> URL { try makeScratchDirectory("touchstone-history") }

    @Test("a FIFO where the history file should be is not read (reading it would wait for a writer forever)")
    func fifoHistoryIsSkipped() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("history")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Returns at once; a read of the FIFO would block this test until its time limit.
        let editor = LineEditor(programName: "touchstone-test", historyFile: fifo, historySize: 10)
        editor.addHistory("status")
        #expect(editor.historyFile == fifo)
    }

    @Test("a history directory blocked by a file: the error names the file, in words")
    func blockedHistoryDirectory() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let blocker = directory.appendingPathComponent("state")
        try Data("not a directory".utf8).write(to: blocker)
        let editor = LineEditor(programName: "touchstone-test", historyFile: blocker.appendingPathComponent("touchstone/history"),
                                historySize: 10)
        editor.addHistory("status")
        #expect {
            try editor.saveHistory()
        } throws: { error in
            let text = "\(error)"
            return text.contains("\(blocker.path) is a file, not a directory") && !text.contains("NSCocoaErrorDomain")
        }
    }
}
