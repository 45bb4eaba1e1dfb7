import InMemoryLogging
import Logging
import LinuxFprintd
import Testing
import TouchstoneBuiltins

/// Plugins log through the logger the builder hands them, with their id as metadata: a reader
/// that fprintd cannot reach says why (it counts as absent, which alone says nothing).
struct PluginLoggingTests {
    /// A device whose fprintd sensor points at a bus that does not exist, logging at `level`
    /// into the returned handler.
    private func unreachableReader(loggingAt level: Logger.Level) throws -> (Authenticator, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "touchstone.test") { _ in handler }
        logger.logLevel = level
        var composition = Composition()
        composition.sensor = PluginSelection("linux.fprintd", options: ["bus": "unix:path=/nonexistent/touchstone/bus"])
        let authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition, logger: logger)
            .build(clock: VirtualClock(), interaction: ScriptedInteraction())
        return (authenticator, handler)
    }

    @Test func anFprintdThatDoesNotAnswerIsLoggedWithThePluginIdAndTheReason() throws {
        let (authenticator, handler) = try unreachableReader(loggingAt: .debug)
        #expect(try authenticator.makeContext().canEvaluate(authenticator.policy(named: "biometrics"))?.code == .biometryNotAvailable)
        let absent = handler.entries.filter { "\($0.message)".contains("fprintd did not answer") }
        let entry = try #require(absent.first, "logged: \(handler.entries.map { "\($0.message)" })")
        #expect(entry.level == .debug)
        #expect(entry.metadata["touchstone.plugin"] == .string("linux.fprintd"))
        #expect("\(entry.error.map { "\($0)" } ?? "")".contains("nonexistent"), "\(String(describing: entry.error))")
    }

    @Test func atTheDefaultLevelTheAbsentReaderIsNotLogged() throws {
        let (authenticator, handler) = try unreachableReader(loggingAt: .warning)
        _ = try authenticator.makeContext().canEvaluate(authenticator.policy(named: "biometrics"))
        // Asked before every evaluation: a debug message, below the REPL's default level.
        #expect(handler.entries.isEmpty)
    }

    @Test func withoutALoggerNothingIsLogged() throws {
        // The default discards everything: a library prints nothing of its own accord.
        var composition = Composition()
        composition.sensor = PluginSelection("linux.fprintd", options: ["bus": "unix:path=/nonexistent/touchstone/bus"])
        let builder = AuthenticatorBuilder(registry: .builtIn, composition: composition)
        #expect(builder.logger.handler is SwiftLogNoOpLogHandler)
        let authenticator = try builder.build(clock: VirtualClock(), interaction: ScriptedInteraction())
        #expect(authenticator.device.logger.handler is SwiftLogNoOpLogHandler)
    }
}
