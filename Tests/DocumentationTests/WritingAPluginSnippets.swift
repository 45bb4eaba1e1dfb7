// The code of the article "Writing a plugin" (Sources/Touchstone/Touchstone.docc/WritingAPlugin.md).
// Every ```swift block of the article appears here verbatim; DocumentationTests checks it, and
// the tests below run the sensor in a device, in a REPL and under the test kit.

import Foundation
import Synchronization
import Testing
import Touchstone
import TouchstoneBuiltins
import TouchstoneREPL
import TouchstoneTesting

/// The prints an ACME reader holds. They live in the reader, not in Touchstone: a real reader
/// keeps them in its own flash or daemon, and Touchstone only asks which are enrolled.
final class AcmePrints: Sendable {
    private let prints = Mutex<[SensorIdentity]>([])

    var enrolled: [SensorIdentity] { prints.withLock { $0 } }

    func change(_ body: (inout [SensorIdentity]) throws -> Void) rethrows {
        try prints.withLock { try body(&$0) }
    }
}

/// A fingerprint reader that owns its identities end to end.
struct AcmeReader: EnrollingSensor {
    static let descriptor = PluginDescriptor(
        id: "acme.reader", kind: .sensor, summary: "ACME USB fingerprint reader",
        options: [OptionSpec("slots", .integer(1 ... 10), default: "5", "how many prints the reader holds")])

    let biometryType = BiometryType.touchID
    var isRemovable: Bool { true }

    private let slots: Int
    private let prints = AcmePrints()
    private let person: any Interaction
    private let random: RandomSource

    init(options: PluginOptions, environment: PluginEnvironment) throws {
        slots = options.integer("slots") ?? 5
        person = environment.interaction
        random = environment.random
    }

    func hardwareState(for appID: String) -> HardwareState { .present }

    func enrolledIdentities() throws -> [SensorIdentity] { prints.enrolled }

    func capture(_ prompt: Prompt) async throws -> CaptureResult {
        // A real reader waits for a finger here. This one asks the person at the device
        // (scripted in tests and in the REPL) and matches against its own prints.
        switch try await person.nextAction(for: prompt) {
        case let .present(finger):
            return prints.enrolled.contains { $0.id == finger } ? .matched(finger) : .noMatch
        case .noMatch:
            return .noMatch
        case let action:
            return .action(action)   // cancel, fallback, a passcode...
        }
    }

    func interrupt() {}

    func enroll(_ id: String, replacing: Bool,
                progress: @escaping @Sendable (EnrollmentProgress) -> Void) throws -> SensorIdentity {
        for stage in 1 ... 3 {
            progress(EnrollmentProgress(result: "enroll-stage-passed", stage: stage, stages: 3))
        }
        let identity = SensorIdentity(id: id, generation: random.hex(16))   // a new template
        try prints.change { prints in
            if let index = prints.firstIndex(where: { $0.id == id }) {
                guard replacing else { throw UsageError.alreadyEnrolled(name: id) }
                prints[index] = identity
            } else {
                guard prints.count < slots else { throw UsageError.tooManyIdentities(limit: slots) }
                prints.append(identity)
            }
        }
        return identity
    }

    func remove(_ id: String) throws {
        try prints.change { prints in
            guard prints.contains(where: { $0.id == id }) else { throw UsageError.notEnrolled(name: id) }
            prints.removeAll { $0.id == id }
        }
    }

    func removeAll() throws {
        prints.change { $0.removeAll() }
    }
}

/// The article's REPL: the built-in plugins plus the ACME reader.
func makeAcmeREPL() throws -> REPLHost {
    var registry = PluginRegistry.builtIn
    try registry.register(AcmeReader.self)
    var composition = Composition()
    composition.sensor = PluginSelection("acme.reader", options: ["slots": "3"])
    let session = try CommandSession(composition: composition, registry: registry)
    return REPLHost(session: session, options: REPLOptions())
}

/// What the REPL executable's `main.swift` does with it (not run by the tests: it reads a
/// terminal).
func runAcmeREPL() async throws -> Int32 {
    let host = try makeAcmeREPL()
    return await host.runInteractive(banner: "ACME reader: type help")
}

@Suite("Article: Writing a plugin")
struct WritingAPluginSnippets {
    @Test("the reader enrolls, matches and counts failures through the core")
    func readerInADevice() async throws {
        var registry = PluginRegistry.builtIn
        try registry.register(AcmeReader.self)
        var builder = AuthenticatorBuilder(registry: registry)
        try builder.use(.sensor, "acme.reader", options: ["slots": "2"])
        let user = ScriptedInteraction()
        let authenticator = try builder.build(interaction: user)

        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("right-index")
        user.enqueue([.noMatch, .present("right-index")])
        let result = try await authenticator.makeContext().evaluate(.biometrics, reason: "Unlock")
        print(result.methods)   // [biometry]: the reader matched, the core counted one failure

        #expect(result.methods == [.biometry])
        #expect(try authenticator.device.enrolledNames() == ["right-index"])
        try authenticator.device.enroll("left-index")
        #expect(throws: UsageError.tooManyIdentities(limit: 2)) { try authenticator.device.enroll("thumb") }
    }

    @Test("the REPL built from the REPL library drives the reader")
    func readerInTheREPL() async throws {
        let host = try makeAcmeREPL()
        let status = await host.runScript(lines: [
            "passcode set 1234",
            "enroll right-index",
            "evaluate biometrics \"Unlock\" nomatch right-index",
            "expect ok",
        ], name: "acme")
        #expect(status == 0)
    }

    @Test("the test kit takes the reader too")
    func readerUnderTheKit() async throws {
        var registry = PluginRegistry.builtIn
        try registry.register(AcmeReader.self)
        var composition = Composition()
        composition.sensor = PluginSelection("acme.reader")
        let device = try TestDevice(registry: registry, composition: composition, enrolled: ["right-index"])

        _ = try? await device.evaluate(.biometrics, .failures(3))
        device.expectLastEvaluation(.failed(.authenticationFailed), endedBy: .touchIDThreeFailuresEnd)
        _ = try? await device.evaluate(.biometrics, .failures(2))
        device.expectLastEvaluation(.failed(.biometryLockout), endedBy: .fiveFailuresLockOut)
    }
}
