import TouchstoneAppAttestFormat
import Crypto
import Foundation
import TestSupport
import Testing
import TouchstoneAppAttest
import TouchstoneTesting

/// The device's attestations and assertions checked by an implementation we did not write:
/// pyattest (PyPI; its chain check is pyhanko-certvalidator over pyca/cryptography), in the
/// virtual environment `scripts/pyattest-env.sh` makes (`make test` runs it first). Without
/// it these tests fail, naming the script.
@Suite struct IndependentVerifierTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = root.appendingPathComponent(".build/pyattest-venv/bin/python")
    static let script = root.appendingPathComponent("scripts/appattest-pyattest.py")

    /// Runs the pyattest script with `arguments`; returns its exit status and output.
    func pyattest(_ arguments: [String]) throws -> (status: Int32, output: String) {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            Issue.record("pyattest is not installed: run scripts/pyattest-env.sh (make test does)")
            return (-1, "")
        }
        let process = SpawnedProcess()
        process.executableURL = Self.python
        process.arguments = [Self.script.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func pyattestAcceptsTheAttestationAndAssertionsAndRefusesAnotherAppChallengeOrRoot() throws {
        let directory = try makeScratchDirectory("pyattest")
        defer { try? FileManager.default.removeItem(at: directory) }
        let device = try TestDevice()
        let appAttest = device.authenticator.appAttest
        let challenge = Data("server challenge 42".utf8)
        let keyID = try appAttest.generateKey()
        let attestation = try appAttest.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
        let files = (root: directory.appendingPathComponent("root.pem"), otherRoot: directory.appendingPathComponent("other.pem"),
                     attestation: directory.appendingPathComponent("attestation.cbor"), key: directory.appendingPathComponent("key.pem"))
        try appAttest.testRootPEM().write(to: files.root, atomically: true, encoding: .utf8)
        try TestDevice(seed: 99).authenticator.appAttest.testRootPEM().write(to: files.otherRoot, atomically: true, encoding: .utf8)
        try attestation.write(to: files.attestation)
        let hex = challenge.map { String(format: "%02x", $0) }.joined()

        let accepted = try pyattest(["attest", files.root.path, appAttest.appID, keyID, hex, files.attestation.path, "--pubkey-out", files.key.path])
        #expect(accepted.status == 0, "\(accepted.output)")
        #expect(try pyattest(["attest", files.root.path, "TOUCHSTONE.com.example.other", keyID, hex, files.attestation.path]).output.contains("InvalidAppIdException"))
        #expect(try pyattest(["attest", files.root.path, appAttest.appID, keyID, "00", files.attestation.path]).output.contains("InvalidNonceException"))
        #expect(try pyattest(["attest", files.otherRoot.path, appAttest.appID, keyID, hex, files.attestation.path]).output.contains("InvalidCertificateChainException"))
        #expect(try pyattest(["attest", files.root.path, appAttest.appID, keyID, hex, files.attestation.path, "--production"]).output.contains("InvalidAaguidException"))

        for counter in 1 ... 3 {
            let clientData = Data("request \(counter)".utf8)
            let assertion = directory.appendingPathComponent("assertion\(counter).cbor")
            try appAttest.generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: clientData))).write(to: assertion)
            let data = clientData.map { String(format: "%02x", $0) }.joined()
            let result = try pyattest(["assert", files.key.path, appAttest.appID, data, assertion.path, "--previous-counter", String(counter - 1)])
            #expect(result.status == 0, "\(result.output)")
            #expect(try pyattest(["assert", files.key.path, appAttest.appID, data, assertion.path, "--previous-counter", String(counter)]).status == 1)
            #expect(try pyattest(["assert", files.key.path, appAttest.appID, "00", assertion.path]).output.contains("InvalidSignature"))
        }
    }
}
