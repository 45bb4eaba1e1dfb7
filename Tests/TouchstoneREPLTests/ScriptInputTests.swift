import Foundation
import Testing
import TestSupport

/// A script that cannot be read to its end, or whose output cannot be written, must not pass
/// for a script that ran: CI would take a run that read nothing for a green one.
@Suite("Script input and output failures")
struct ScriptInputTests {
    static func scratch() throws -> URL { try makeScratchDirectory("touchstone-script-input") }

    /// Runs `command` in `/bin/sh` with `$TOUCHSTONE` set to the built binary.
    static func shell(_ command: String) throws -> Binary.Run {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        return try Binary.run(URL(fileURLWithPath: "/bin/sh"), ["-c", command], environment: ["TOUCHSTONE": binary.path])
    }

    @Test("a directory given as the script: exit 2, and the reason")
    func directoryAsScript() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try Self.shell("\"$TOUCHSTONE\" --memory '\(directory.path)'")
        #expect(run.status == 2)
        #expect(run.output.contains("cannot read script") && run.output.contains("Is a directory"))
    }

    @Test("standard input closed: exit 2, not an empty script that passed, whatever then takes descriptor 0",
          arguments: ["--memory", ""])
    func closedStandardInput(_ storage: String) throws {
        // (With the default SQLite store, SQLite would put /dev/null on descriptor 0; with
        // --memory, the runtime takes it for an event descriptor.)
        let run = try Self.shell("\"$TOUCHSTONE\" \(storage) <&-")
        #expect(run.status == 2, "\(run.output)")
        #expect(run.output.contains("cannot read script '<stdin>': standard input is closed"), "\(run.output)")
    }

    /// Shell lines that make `input` in `directory`, a FIFO whose writer (`$writer`) sends
    /// `text` (a `printf` format) and then keeps it open for 30 s.
    private static func fifoInput(in directory: URL, sending text: String) -> String {
        """
        cd '\(directory.path)' && mkfifo input || exit 1
        { printf '\(text)'; exec sleep 30; } > input &
        writer=$!

        """
    }

    @Test("a line ended by a lone CR runs at once, without waiting for the next byte")
    func loneCarriageReturnDoesNotWait() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The writer keeps the pipe open for 30 s after `quit\r`: the REPL must quit while it
        // is still there (waiting for the byte after the CR, it quit only at end of input).
        let run = try Self.shell(Self.fifoInput(in: directory, sending: "quit\\r") + """
            "$TOUCHSTONE" --memory < input
            echo "status $?"
            if kill -0 $writer 2>/dev/null; then echo "writer still open"; kill $writer; fi
            """)
        #expect(run.output.contains("status 0"), "\(run.output)")
        #expect(run.output.contains("writer still open"), "\(run.output)")
    }

    @Test("driven over pipes line by line, each answer is written before the next line is awaited (standard output is not a terminal)")
    func answersReachAPipeBeforeTheNextLine() throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        // The writer sends one line and keeps the pipe open: the answer must reach `out` while
        // the REPL still waits for more (it stayed in a 4 KB buffer until end of input).
        let run = try Self.shell(Self.fifoInput(in: directory, sending: "enroll thumb\\n") + """
            "$TOUCHSTONE" --memory < input > out &
            reader=$!
            for i in $(seq 100); do grep -q "enrolled thumb" out && break; sleep 0.1; done
            cat out
            if kill -0 $reader 2>/dev/null; then echo "reader still waiting"; fi
            kill $writer $reader 2>/dev/null
            """)
        #expect(run.output.contains("enrolled thumb"), "\(run.output)")
        #expect(run.output.contains("reader still waiting"), "\(run.output)")
    }

    /// Runs the script `enroll thumb`, then `line`, then `enroll index`, from a file on a memory device.
    private static func runScript(around line: Data) throws -> (status: Int32, output: String) {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("script.touchstone")
        try (Data("enroll thumb\n".utf8) + line + Data("\nenroll index\n".utf8)).write(to: script)
        let run = try shell("\"$TOUCHSTONE\" --memory '\(script.path)'")
        return (run.status, run.output)
    }

    @Test("a line longer than 1 MiB stops the script with exit 2 before the lines after it run")
    func overlongLine() throws {
        let run = try Self.runScript(around: Data(repeating: UInt8(ascii: "a"), count: (1 << 20) + 1))
        #expect(run.status == 2)
        #expect(run.output.contains("enrolled thumb"))
        #expect(run.output.contains("past line 1: line 2 is longer than 1048576 bytes"))
        #expect(!run.output.contains("enrolled index"))
    }

    @Test("a line that is not valid UTF-8 stops the script with exit 2 before it runs: two byte strings never become one name")
    func invalidUTF8Line() throws {
        let run = try Self.runScript(around: Data("enroll ".utf8) + [0xFF])
        #expect(run.status == 2)
        #expect(run.output.contains("enrolled thumb"))
        #expect(run.output.contains("past line 1: line 2 is not valid UTF-8"), "\(run.output)")
        #expect(!run.output.contains("\u{FFFD}") && !run.output.contains("enrolled index"))
    }

    @Test("output that cannot be written (a full disk): exit 2, and the reason on standard error")
    func unwritableOutput() throws {
        let run = try Self.shell("printf 'enroll thumb\\nstatus\\n' | \"$TOUCHSTONE\" --memory > /dev/full")
        #expect(run.status == 2)
        #expect(run.output.contains("cannot write the output"))
    }

    @Test("a lone carriage return ends a line (the expect after it runs); CRLF counts as one line end")
    func carriageReturns() throws {
        let alone = try Self.shell("printf 'enroll thumb\\rexpect error bogus' | \"$TOUCHSTONE\" --memory")
        #expect(alone.status == 1)
        #expect(alone.output.contains("<stdin>:2: expect error bogus failed"))
        let windows = try Self.shell("printf 'enroll thumb\\r\\nenroll thumb\\r\\nexpect ok\\r\\n' | \"$TOUCHSTONE\" --memory")
        #expect(windows.status == 1)
        #expect(windows.output.contains("<stdin>:3: expect ok failed"))
    }
}
