import Foundation
import TestSupport
import Testing

/// Runs the `StorageCrashChild` helper built next to the test bundle.
enum ChildProcess {
    /// The helper's path: beside the test executable in the build directory.
    static var executable: URL? {
        let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var directory = me.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("StorageCrashChild")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }

    /// Starts the helper with `arguments`; stdout goes to the returned pipe.
    static func start(_ arguments: [String]) throws -> (SpawnedProcess, Pipe) {
        guard let executable else { throw CocoaError(.fileNoSuchFile) }
        let process = SpawnedProcess()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Every complete line the helper printed (a line cut by the kill is dropped).
    static func lines(_ pipe: Pipe) -> [String] {
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        var text = String(decoding: data, as: UTF8.self)
        if !text.hasSuffix("\n"), let last = text.lastIndex(of: "\n") {
            text = String(text[...last])
        } else if !text.hasSuffix("\n") {
            text = ""
        }
        return text.split(separator: "\n").map(String.init)
    }

    /// The storage arguments for `backend` in `directory`.
    static func storageArguments(_ backend: Backend, _ directory: URL) -> [String] {
        [backend.rawValue] + backend.options(in: directory).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }
}
