import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// `Fixtures/round1.sqlite` was written by round 1 (the core kept the templates; records had
/// no schema version), by the script `Fixtures/round1-made-by.tsc` with
/// `{"app": "com.example.notes", "seed": 7, "storage": "storage.sqlite"}`. The values below
/// are what that build printed.
@Suite("A round-1 store migrates")
struct RoundOneMigrationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/round1.sqlite")
    static let evaluatedPolicyDomainState = "27c773aadb0e295b315003bb449485b2517ddad9651fa410b7753079839f0a72"
    static let biometryStateHash = "9bf28595d405196715931c5e6d20a56e7456845d5d4c1f58bf8484f2ec7195eb"

    func openCopy(in directory: URL) throws -> TestDevice {
        try FileManager.default.copyItem(at: Self.fixture, to: directory.appendingPathComponent("device.sqlite"))
        return try TestDevice(passcode: nil, enrolled: [], storage: Backend.sqlite.selection(in: directory), app: "com.example.notes", registry: .builtIn)
    }

    @Test("schema version: a round-1 store opens with its enrolled set, domain states, keychain item, key and baseline as they were")
    func roundOneStoreOpensUnchanged() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let rig = try openCopy(in: directory)

        #expect(try rig.device.enrolledNames() == ["thumb", "index"])
        #expect(try rig.device.enrollmentSequence() == 2)
        #expect(try rig.device.isPasscodeSet)
        #expect(try rig.authenticator.checkForChange() == .unchanged)

        let context = rig.authenticator.makeContext()
        rig.user.enqueue([.present("index")])
        _ = try await context.evaluate(rig.authenticator.policy(named: "biometrics"), reason: "Sign in")
        #expect(context.evaluatedPolicyDomainState?.hex == Self.evaluatedPolicyDomainState)
        #expect(context.domainState.biometry.stateHash?.hex == Self.biometryStateHash)
        #expect(try await rig.read("api", "alice", [.present("thumb")]).get() == "s3cret")
        let key = try #require(try rig.authenticator.keys.keys().first)
        rig.user.enqueue([.present("thumb")])
        _ = try await rig.authenticator.keys.sign(Data("challenge".utf8), with: key, context: nil, reason: "Sign in")

        // The state record now carries the schema; the counters get it with their next write.
        let state = try #require(try rig.device.storage.read(RecordKey("device", "state")))
        let fields = try JSONSerialization.jsonObject(with: state.value) as? [String: Any]
        #expect(fields?["schema"] as? Int == 2)
    }

    @Test("schema version: the first enrollment change moves the round-1 templates into the sensor's own record and invalidates as before")
    func firstChangeMovesTheTemplates() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let rig = try openCopy(in: directory)
        #expect(try rig.device.storage.read(RecordKey("sensor", "touchID")) == nil)
        try rig.device.enroll("ring")
        #expect(try rig.device.enrolledNames() == ["thumb", "index", "ring"])
        #expect(try rig.device.enrollmentSequence() == 3)
        let record = try #require(try rig.device.storage.read(RecordKey("sensor", "touchID")))
        #expect(String(decoding: record.value, as: UTF8.self).contains("\"schema\":1"))
        #expect(try rig.authenticator.checkForChange() == .changed)
        let afterChange = await rig.read("api", "alice", [.present("thumb")])
        #expect(afterChange.kind == .invalidated, "\(afterChange)")

        // Reopened: the sensor's record is the source now, in the same order.
        let reopened = try TestDevice(passcode: nil, enrolled: [], storage: Backend.sqlite.selection(in: directory), app: "com.example.notes", registry: .builtIn)
        #expect(try reopened.device.enrolledNames() == ["thumb", "index", "ring"])
        #expect(try reopened.device.enrollmentSequence() == 3)
    }
}

extension Data {
    fileprivate var hex: String { map { String(format: "%02x", $0) }.joined() }
}
