#if !canImport(Darwin)
import Foundation
import TestSupport
import Testing

/// Runs one seed example program step by step, each step a new process, against one simulated
/// device kept in a SQLite file (as a CI script would): `TOUCHSTONE_CONFIG` names the device,
/// `TOUCHSTONE_SETUP` changes it before the step, `TOUCHSTONE_OUTCOMES` is what the user does.
struct SeedHarness {
    let program: URL
    let directory: URL
    let configuration: URL

    init(_ name: String, app: String = "com.example.seed", sensor: String = "sim.touchid") throws {
        guard let program = Self.locate(name) else {
            throw HarnessError("the \(name) executable was not found next to the test binary; build the package first")
        }
        self.program = program
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        configuration = directory.appendingPathComponent("device.json")
        let json = """
            {
              "app": "\(app)",
              "seed": 7,
              "sensor": {"id": "\(sensor)"},
              "passcode": {"id": "passcode.sim", "options": {"rounds": "1000"}},
              "storage": {"id": "storage.sqlite", "options": {"path": "\(directory.appendingPathComponent("device.sqlite").path)", "synchronous": "normal"}}
            }
            """
        try Data(json.utf8).write(to: configuration)
    }

    /// Runs one step; returns its standard output as lines.
    @discardableResult
    func run(_ arguments: String..., setup: String = "", outcomes: String = "",
             sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let (status, lines, errorText) = try execute(arguments, setup: setup, outcomes: outcomes)
        #expect(status == 0, "\(arguments) exited with \(status): \(lines.joined(separator: "\n"))\(errorText)",
                sourceLocation: sourceLocation)
        #expect(!errorText.contains("Touchstone:"), "\(arguments): \(errorText)", sourceLocation: sourceLocation)
        return lines
    }

    /// Runs one step without judging it: exit status, standard output as lines, standard error.
    func execute(_ arguments: [String], setup: String = "", outcomes: String? = "") throws -> (Int32, [String], String) {
        let process = SpawnedProcess()
        process.executableURL = program
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TOUCHSTONE_CONFIG"] = configuration.path
        environment["TOUCHSTONE_SETUP"] = setup
        environment["TOUCHSTONE_OUTCOMES"] = outcomes  // nil: unset
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let errorText = String(decoding: errorData, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty }
        return (process.terminationStatus, lines, errorText)
    }

    func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    private static func locate(_ name: String) -> URL? {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        return candidates.map { $0.appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
