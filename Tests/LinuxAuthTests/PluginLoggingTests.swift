import Logging
import LinuxFprintd
import Synchronization
import Testing
import TouchstoneBuiltins

/// A log handler that keeps every message it is given, for assertions.
struct CapturingLogHandler: LogHandler {
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
    }

    let entries: Mutex<[Entry]>.Box
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        merged.merge(event.metadata ?? [:]) { $1 }
        entries.value.withLock { $0.append(Entry(level: event.level, message: "\(event.message)", metadata: merged)) }
    }
}

extension Mutex {
    /// A mutex in a box, so that copies of a struct share it.
    final class Box: Sendable where Value: Sendable {
        let value: Mutex<Value>
        init(_ initial: Value) { value = Mutex(initial) }
    }
}

/// Plugins log through the logger the builder hands them, with their id as metadata: a reader
/// that fprintd cannot reach says why (it counts as absent, which alone says nothing).
struct PluginLoggingTests {
    /// A device whose fprintd sensor points at a bus that does not exist, logging at `level`
    /// into the returned box.
    private func unreachableReader(loggingAt level: Logger.Level) throws -> (Authenticator, Mutex<[CapturingLogHandler.Entry]>.Box) {
        let entries = Mutex<[CapturingLogHandler.Entry]>.Box([])
        var logger = Logger(label: "touchstone.test") { _ in CapturingLogHandler(entries: entries) }
        logger.logLevel = level
        var composition = Composition()
        composition.sensor = PluginSelection("linux.fprintd", options: ["bus": "unix:path=/nonexistent/touchstone/bus"])
        let authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition, logger: logger)
            .build(clock: VirtualClock(), interaction: ScriptedInteraction())
        return (authenticator, entries)
    }

    @Test func anFprintdThatDoesNotAnswerIsLoggedWithThePluginIdAndTheReason() throws {
        let (authenticator, entries) = try unreachableReader(loggingAt: .debug)
        #expect(try authenticator.makeContext().canEvaluate(authenticator.policy(named: "biometrics"))?.code == .biometryNotAvailable)
        let absent = entries.value.withLock { $0 }.filter { $0.message.contains("fprintd did not answer") }
        let entry = try #require(absent.first, "logged: \(entries.value.withLock { $0.map(\.message) })")
        #expect(entry.level == .debug)
        #expect(entry.metadata["plugin"] == .string("linux.fprintd"))
        #expect("\(entry.metadata["error"] ?? "")".contains("nonexistent"), "\(entry.metadata)")
    }

    @Test func atTheDefaultLevelTheAbsentReaderIsNotLogged() throws {
        let (authenticator, entries) = try unreachableReader(loggingAt: .warning)
        _ = try authenticator.makeContext().canEvaluate(authenticator.policy(named: "biometrics"))
        // Asked before every evaluation: a debug message, below the REPL's default level.
        #expect(entries.value.withLock { $0.isEmpty })
    }
}
