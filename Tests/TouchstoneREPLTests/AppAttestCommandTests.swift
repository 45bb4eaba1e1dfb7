import TouchstoneAppAttestFormat
import Crypto
import Foundation
import TestSupport
import Testing
import Touchstone
import TouchstoneBuiltins
@testable import TouchstoneCommands

/// The REPL's `attest` commands (issue 36), in-process and across `touchstone` processes
/// sharing one persistent device.
@Suite struct AppAttestCommandTests {
    func session() throws -> CommandSession {
        var composition = Composition()
        composition.seed = 3
        return try CommandSession(composition: composition)
    }

    @Test func attestNewAssertAndRootGiveWhatAServerVerifies() async throws {
        let repl = try session()
        let made = await repl.execute("attest new challenge-42")
        let keyID = try #require(made.json["result"]?["keyID"]?.text)
        let attestationText = try #require(made.json["result"]?["attestation"]?.text)
        let attestation = try #require(Data(base64Encoded: attestationText))
        let rootRecord = await repl.execute("attest root")
        let root = try #require(rootRecord.json["result"]?["root"]?.text)
        let verifier = try AppAttestVerifier(appID: "TOUCHSTONE.com.example.app", environment: .development, trustedRootsPEM: [root])
        let key = try verifier.verifyAttestation(attestation, keyID: try #require(AppAttestVerifier.keyID(base64: keyID)),
                                                 clientDataHash: sha256("challenge-42"))
        var counter = key.counter
        for request in ["request-1", "request-2"] {
            let record = await repl.execute("attest assert last \(request)")
            let assertionText = try #require(record.json["result"]?["assertion"]?.text)
            let assertion = try #require(Data(base64Encoded: assertionText))
            counter = try verifier.verifyAssertion(assertion, clientDataHash: sha256(request), publicKey: key.publicKey, previousCounter: counter)
        }
        #expect(counter == 2)
        #expect(await repl.execute("attest list").text.contains("attested  counter 2"))
    }

    @Test func faultsAreScriptedAndErrorsCarryDCErrorNamesAndCodes() async throws {
        let repl = try session()
        #expect(await repl.execute("attest fault server-unavailable").text == "App Attest faults: server-unavailable=1")
        let failed = await repl.execute("attest new challenge")
        #expect(failed.text.hasPrefix("error: serverUnavailable (4): "))
        #expect(failed.json["error"]?["domain"] == "com.apple.devicecheck.error")
        #expect(failed.error?.matches("serverUnavailable") == true)
        #expect(await repl.execute("attest key last challenge").ok)
        #expect(await repl.execute("attest fault unsupported").ok)
        #expect(await repl.execute("attest new").text.hasPrefix("error: featureUnsupported (1): "))
        #expect(await repl.execute("attest fault clear").text == "App Attest faults: none")
        #expect(await repl.execute("attest fault cloned-key 0").text.contains("count '0' is not a whole number from 1 to 1000000"))
        #expect(await repl.execute("attest fault melted").text.contains("unknown fault 'melted'"))
        #expect(await repl.execute("attest assert nope x").text.hasPrefix("error: invalidInput (2): "))
    }

    @Test func countersNeverRepeatAcrossParallelProcessesOrASIGKILL() throws {
        let touchstone = try #require(Binary.touchstone, "the touchstone executable is not built")
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("appattest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let environment = ["XDG_DATA_HOME": data.path]
        let made = try Binary.run(touchstone, [], input: "attest new challenge\n", environment: environment)
        let keyID = try #require(made.output.split(separator: " ").dropFirst(7).first.map(String.init), "\(made.output)")
        #expect(made.output.hasPrefix("ok: made and attested App Attest key \(keyID) "))

        // Four processes, ten assertions each, at once: forty different counters, 1...40.
        let script = String(repeating: "attest assert \(keyID) request\n", count: 10)
        let outputs = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let output = (try? Binary.run(touchstone, [], input: script, environment: environment).output) ?? ""
            outputs.withLock { $0.append(output) }
        }
        let counters = outputs.withLock { $0 }.flatMap(Self.counters)
        #expect(counters.sorted() == Array(1 ... 40), "\(outputs.withLock { $0 })")

        // A process killed while asserting: the next counter is above every one it printed.
        let process = SpawnedProcess()
        process.executableURL = touchstone
        var childEnvironment = ProcessInfo.processInfo.environment
        childEnvironment["XDG_DATA_HOME"] = data.path
        process.environment = childEnvironment
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // 400 lines (about 27 KiB) fit in the pipe: the write never waits for the child.
        try input.fileHandleForWriting.write(contentsOf: Data(String(repeating: "attest assert \(keyID) request\n", count: 400).utf8))
        var printed = ""
        while Self.counters(printed).count < 20 {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            printed += String(decoding: chunk, as: UTF8.self)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        let seen = Self.counters(printed)
        #expect(seen.count >= 20)
        let after = try Binary.run(touchstone, [], input: "attest assert \(keyID) request\n", environment: environment)
        let next = try #require(Self.counters(after.output).first, "\(after.output)")
        #expect(next > (seen.max() ?? 0))
    }

    private static func counters(_ output: String) -> [Int] {
        output.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("ok: assertion by "), let range = line.range(of: ", counter ") else { return nil }
            return Int(line[range.upperBound...])
        }
    }

    private func sha256(_ text: String) -> Data {
        Data(SHA256.hash(data: Data(text.utf8)))
    }
}

extension JSONValue {
    /// The string, or nil.
    fileprivate var text: String? {
        if case let .string(value) = self { return value }
        return nil
    }
}
