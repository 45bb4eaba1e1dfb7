import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// Plugins are created as their kind without a dynamic cast (``Plugin/makeInstance(options:environment:)``),
/// and a manual clock is found without one (``DeviceClock/manual``).
@Suite struct PluginInstanceTests {
    static func environment() -> PluginEnvironment {
        PluginEnvironment(clock: VirtualClock(), random: RandomSource(seed: 3), interaction: ScriptedInteraction())
    }

    /// The kind an instance holds.
    static func kind(of instance: PluginInstance) -> PluginKind {
        switch instance {
        case .sensor: .sensor
        case .companion: .companion
        case .policy: .policy
        case .storage: .storage
        case .detector: .detector
        case .passcode: .passcode
        }
    }

    @Test func everyBuiltInPluginIsMadeAsTheKindItsDescriptorNames() throws {
        let registry = PluginRegistry.builtIn
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-instance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Options the SQLite store needs; the Linux plugins talk to system daemons and the
        // encrypted store needs a passphrase (their own suites create them).
        let options = ["storage.sqlite": ["path": directory.appendingPathComponent("d.sqlite").path]]
        var made = 0
        for descriptor in registry.descriptors() where !descriptor.id.hasPrefix("linux.") && descriptor.id != "storage.encrypted-file" {
            let selection = PluginSelection(descriptor.id, options: options[descriptor.id] ?? [:])
            let instance = try registry.instance(selection, kind: descriptor.kind, environment: Self.environment())
            #expect(Self.kind(of: instance) == descriptor.kind, "\(descriptor.id)")
            #expect(type(of: instance.plugin).descriptor.id == descriptor.id)
            made += 1
        }
        #expect(made >= 10)
    }

    /// A type that conforms to `Plugin` only: the default creates it and casts it to its
    /// descriptor's kind, which fails with a clear error.
    struct NotASensor: Plugin {
        static let descriptor = PluginDescriptor(id: "test.not-a-sensor", kind: .sensor, summary: "claims to be a sensor")
        init(options: PluginOptions, environment: PluginEnvironment) {}
    }

    @Test func aPluginOfNoKindProtocolIsRefusedByKind() throws {
        var registry = PluginRegistry()
        try registry.register(NotASensor.self)
        #expect(throws: ConfigurationError.wrongKind(id: "test.not-a-sensor", expected: .sensor, actual: .sensor)) {
            try registry.instance(PluginSelection("test.not-a-sensor"), kind: .sensor, environment: Self.environment())
        }
        #expect(throws: ConfigurationError.self) {
            let _: any BiometricSensor = try registry.make(PluginSelection("test.not-a-sensor"), kind: .sensor, environment: Self.environment())
        }
    }

    @Test func onlyAManualClockSaysItIsOne() {
        #expect(VirtualClock().manual != nil)
        #expect(WallClock().manual == nil)
        let clock = VirtualClock()
        let before = clock.now
        clock.manual?.advance(by: .seconds(90))
        #expect(clock.now == before.advanced(by: .seconds(90)))
    }
}
