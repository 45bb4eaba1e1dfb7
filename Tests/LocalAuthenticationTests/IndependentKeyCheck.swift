#if !canImport(Darwin)
import Foundation
import TestSupport
import Testing

/// scripts/seckey-check.py: pyca/cryptography — an implementation we did not write — making and
/// checking RSA and EC keys, signatures and ciphertexts, in the virtual environment
/// scripts/pyattest-env.sh makes (`make test` runs it first; without it the tests that use it
/// fail, naming the script).
enum IndependentKeyCheck {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build/pyattest-venv/bin/python")
    static let script = root.appendingPathComponent("scripts/seckey-check.py")

    /// Runs `script` (seckey-check.py unless named) with `arguments` and `input` as JSON on
    /// standard input; its JSON output.
    static func run(_ arguments: [String], input: [String: Any] = [:], script: URL = script) throws -> [String: Any] {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("pyca/cryptography is not installed: run scripts/pyattest-env.sh (make test does)")
            return [:]
        }
        let process = SpawnedProcess()
        process.executableURL = python
        process.arguments = [script.path] + arguments
        let (stdin, stdout) = (Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(script.lastPathComponent) \(arguments) failed")
        return try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
    }

    /// The bytes of a base64 string in the script's output.
    static func bytes(_ value: Any?) throws -> Data { try #require((value as? String).flatMap { Data(base64Encoded: $0) }) }
}
#endif
