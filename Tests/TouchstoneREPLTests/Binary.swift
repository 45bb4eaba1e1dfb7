import Foundation
import TestSupport

/// Finds and runs the built `touchstone` executable for end-to-end tests.
enum Binary {
    /// The package root, from this file's path.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `touchstone` executable: `$TOUCHSTONE_BINARY`, else next to the test bundle, else
    /// the newest `.build*/debug/touchstone` under the package root.
    static let touchstone: URL? = {
        let fileManager = FileManager.default
        if let path = ProcessInfo.processInfo.environment["TOUCHSTONE_BINARY"], fileManager.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL {
            candidates.append(executable.deletingLastPathComponent().appendingPathComponent("touchstone"))
        }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("touchstone"))
        if let found = candidates.first(where: { fileManager.isExecutableFile(atPath: $0.path) }) {
            return found
        }
        let builds = (try? fileManager.contentsOfDirectory(atPath: packageRoot.path))?.filter { $0.hasPrefix(".build") } ?? []
        let built = builds.map { packageRoot.appendingPathComponent($0).appendingPathComponent("debug/touchstone") }
            .filter { fileManager.isExecutableFile(atPath: $0.path) }
        return built.max { modified($0) < modified($1) }
    }()

    private static func modified(_ url: URL) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date) ?? .distantPast
    }

    /// What a run printed (standard output and error interleaved) and its exit status.
    struct Run {
        var output: String
        var status: Int32
    }

    /// Runs `executable` with `arguments` in `directory`, standard input from `input`.
    static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil, input: String? = nil,
                    environment extra: [String: String] = [:]) throws -> Run {
        let process = SpawnedProcess()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        // Never touch the user's persistent device or history: a fresh folder per run holds
        // both (the default storage lives under XDG_DATA_HOME), removed when the run ends.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-run-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        environment["XDG_DATA_HOME"] = scratch.appendingPathComponent("data").path
        environment["XDG_STATE_HOME"] = scratch.appendingPathComponent("state").path
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let inputPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
        // A binary that exits before reading its input (a refused store) must not kill the
        // test process with SIGPIPE: the write fails with EPIPE and the output says why.
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        if let input {
            try? inputPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try inputPipe.fileHandleForWriting.close()
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(output: String(decoding: data, as: UTF8.self), status: process.terminationStatus)
    }
}
