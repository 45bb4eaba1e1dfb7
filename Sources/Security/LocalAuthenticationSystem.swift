#if !canImport(Darwin)
import Foundation
import Logging
import Synchronization
import Touchstone
import TouchstoneBuiltins
import TouchstoneCommands

/// Which Touchstone device `LAContext()` and the `SecItem*` functions talk to: one
/// process-wide default, in the spirit of swift-log's `LoggingSystem.bootstrap`.
///
/// The default is chosen, in this order:
/// 1. inside ``withAuthenticator(_:operation:)-(_,()->R)``, the authenticator given there (a
///    task-local value, so parallel tests each get their own device);
/// 2. the authenticator passed to ``bootstrap(authenticator:)``;
/// 3. otherwise, on first use, one built from the environment (``makeAuthenticator(environment:)``):
///    `TOUCHSTONE_CONFIG` names a composition file (storage, sensor, app id, seed...),
///    `TOUCHSTONE_SETUP` changes the device first with the REPL's commands (enroll, passcode,
///    clock, keychain, evaluate... see ``runSetup(_:on:)``), and
///    `TOUCHSTONE_OUTCOMES` queues what the simulated user does at the prompts of this process.
///    Without `TOUCHSTONE_CONFIG` the device is a fresh in-memory Touch ID device with no
///    passcode and nothing enrolled.
///
/// In code (with `import LocalAuthentication` and `import TouchstoneBuiltins`):
/// ```swift
/// var builder = AuthenticatorBuilder(registry: .builtIn)
/// try builder.use(.sensor, "sim.faceid")
/// let user = ScriptedInteraction()
/// let authenticator = try builder.build(interaction: user)
/// try authenticator.device.setPasscode("1234")
/// try authenticator.device.enroll("alice")
/// LocalAuthenticationSystem.bootstrap(authenticator: authenticator)
///
/// user.enqueue(.present("alice"))
/// let ok = try await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics,
///                                               localizedReason: "Sign in")
/// ```
///
/// From a test script, for a program that only knows `LAContext` (one process per step):
/// ```sh
/// export TOUCHSTONE_CONFIG=device.json          # e.g. {"storage": {"id": "storage.sqlite", ...}, "seed": 7}
/// TOUCHSTONE_SETUP='passcode set 1234; enroll thumb' ./MyApp enable
/// TOUCHSTONE_OUTCOMES='nomatch,thumb' ./MyApp login
/// TOUCHSTONE_SETUP='clock advance 5m' TOUCHSTONE_OUTCOMES='passcode:1234' ./MyApp unlock
/// ```
public enum LocalAuthenticationSystem {
    /// `TOUCHSTONE_CONFIG`: path of a composition JSON file (``Composition/load(from:)``).
    public static let configurationVariable = "TOUCHSTONE_CONFIG"
    /// `TOUCHSTONE_SETUP`: `touchstone` REPL commands run on the device before the program's
    /// first context (see ``runSetup(_:on:)``).
    public static let setupVariable = "TOUCHSTONE_SETUP"
    /// `TOUCHSTONE_OUTCOMES`: the simulated user's actions for this process, in order,
    /// separated by commas or spaces: an enrolled name, `nomatch`, `cancel`, `fallback`,
    /// `passcode:<code>`, `systemcancel`, `invalidate`, `wait:<duration>`, `companion`.
    public static let outcomesVariable = "TOUCHSTONE_OUTCOMES"
    /// `TOUCHSTONE_LOG_LEVEL`: `trace`, `debug`, `info`, `notice`, `warning`, `error` or
    /// `critical`. When set, the device and its plugins log on standard error from that level
    /// up, and at `debug` every failed `SecItem*` call logs why (the status alone does not
    /// say which attribute was wrong). Unset: nothing is logged.
    public static let logLevelVariable = "TOUCHSTONE_LOG_LEVEL"

    /// The logger `environment` asks for (``logLevelVariable``): standard error at that level,
    /// or `Logger.touchstoneSilent` when the variable is unset or empty.
    static func logger(environment: [String: String]) throws -> Logger {
        guard let name = environment[logLevelVariable], !name.isEmpty else { return .touchstoneSilent }
        guard let logger = Logger.touchstoneStandardError(levelNamed: name) else {
            throw ConfigurationError.invalidSetting(name: logLevelVariable, reason: "'\(name)' is not a level: \(Logger.touchstoneLevelNames)")
        }
        return logger
    }

    /// Where failed `SecItem*` calls are logged: the process environment's logger (a level
    /// that is not one logs nothing here; building the device reports it).
    package static let callLogger = Mutex<Logger>((try? logger(environment: ProcessInfo.processInfo.environment)) ?? .touchstoneSilent)

    private enum Source: Sendable {
        case unset
        case bootstrapped(Authenticator)
        case environment(Result<Authenticator, TouchstoneError>)
    }

    private static let source = Mutex<Source>(.unset)

    @TaskLocal package static var taskAuthenticator: Authenticator?

    /// Makes `authenticator` the process-wide default device. May be called again (tests);
    /// contexts created before keep the device they were created with.
    public static func bootstrap(authenticator: Authenticator) {
        source.withLock { $0 = .bootstrapped(authenticator) }
    }

    /// Builds the default device from `environment` now (see
    /// ``makeAuthenticator(environment:)``), makes it the default and returns it; throws what
    /// went wrong instead of reporting it through the first `LAContext` call.
    @discardableResult
    public static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Authenticator {
        let authenticator = try makeAuthenticator(environment: environment)
        source.withLock { $0 = .environment(.success(authenticator)) }
        return authenticator
    }

    /// Runs `operation` with `authenticator` as the default device of the current task (and
    /// of `LAContext` replies started from it), leaving the process-wide default alone.
    /// Parallel tests use this to keep their devices apart.
    public static func withAuthenticator<R>(_ authenticator: Authenticator, operation: () throws -> R) rethrows -> R {
        try $taskAuthenticator.withValue(authenticator, operation: operation)
    }

    /// Runs `work` on a GCD global queue, as iOS calls completion handlers (not the Swift
    /// concurrency pool, so `work` may block, e.g. on a synchronous `SecItemCopyMatching`),
    /// with `authenticator`, when given, as the default device of the calls it makes.
    package static func dispatch(with authenticator: Authenticator?, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .userInitiated).async {
            if let authenticator {
                withAuthenticator(authenticator, operation: work)
            } else {
                work()
            }
        }
    }

    /// The `async` form of ``withAuthenticator(_:operation:)-(_,()->R)``.
    public static func withAuthenticator<R>(
        _ authenticator: Authenticator,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> R
    ) async rethrows -> R {
        try await $taskAuthenticator.withValue(authenticator, operation: operation, isolation: isolation)
    }

    /// The default device now: the task's, the bootstrapped one, or the one built from the
    /// environment (built on first use). Throws a ``TouchstoneError`` when the environment's
    /// configuration cannot be used.
    public static var authenticator: Authenticator {
        get throws {
            if let authenticator = taskAuthenticator { return authenticator }
            let current = source.withLock { $0 }
            switch current {
            case let .bootstrapped(authenticator): return authenticator
            case let .environment(result): return try result.get()
            case .unset: break
            }
            // Build outside the lock (the setup script may run evaluations), then publish the
            // first result; a concurrent first use may build twice and discard one.
            let built: Result<Authenticator, TouchstoneError>
            do {
                built = .success(try makeAuthenticator(environment: ProcessInfo.processInfo.environment))
            } catch {
                let failure = TouchstoneError(wrapping: error)
                FileHandle.standardError.write(Data("Touchstone: the default device is unusable: \(failure.message)\n".utf8))
                built = .failure(failure)
            }
            let published = source.withLock { source -> Source in
                if case .unset = source { source = .environment(built) }
                return source
            }
            switch published {
            case let .bootstrapped(authenticator): return authenticator
            case let .environment(result): return try result.get()
            case .unset: return try built.get()
            }
        }
    }

    /// Builds a device the way the environment describes it:
    /// - `TOUCHSTONE_CONFIG`: the composition file; without it, ``Composition/init()`` (an
    ///   in-memory Touch ID device on a virtual clock).
    /// - The virtual clock continues from the time saved in the device's storage
    ///   (``Device/restoreVirtualTime()``), so time advanced by one step is still advanced in
    ///   the next, and is saved again after the setup script and after every evaluation.
    /// - `TOUCHSTONE_SETUP`: REPL commands (``runSetup(_:on:)``).
    /// - `TOUCHSTONE_OUTCOMES`: queued on the device's ``ScriptedInteraction``. When the queue
    ///   runs dry, an evaluation ends with a ``TouchstoneError`` (`simulation`) instead of
    ///   waiting forever.
    public static func makeAuthenticator(environment: [String: String]) throws -> Authenticator {
        var composition = Composition()
        if let path = environment[configurationVariable], !path.isEmpty {
            composition = try Composition.load(from: URL(fileURLWithPath: path))
        }
        let outcomes = try parseOutcomes(environment[outcomesVariable] ?? "")
        let user = ScriptedInteraction()
        let authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition, logger: logger(environment: environment))
            .build(interaction: user)
        // Restores the saved virtual time even without a script (the command layer's session
        // does, and saves it after each command).
        try runSetup(environment[setupVariable] ?? "", on: authenticator)
        persistentClocks.withLock { $0.insert(authenticator.device) }
        user.enqueue(outcomes)
        return authenticator
    }

    /// Devices whose virtual time is saved after each evaluation (those built from the environment).
    private static let persistentClocks = Mutex(DeviceTable<Void>())

    /// Called after every evaluation and keychain operation: saves virtual time for devices
    /// built from the environment.
    package static func didUse(_ authenticator: Authenticator) {
        let device = authenticator.device
        guard persistentClocks.withLock({ $0.contains(device) }) else { return }
        do {
            try device.saveVirtualTime()
        } catch {
            // Another process then reads an older time (a lockout or passcode delay ends late
            // there); the next call saves it again.
            device.logger.info("the virtual time could not be saved", error: error)
        }
    }

    // MARK: Scripting mistakes

    /// Scripting mistakes reported per device, for ``scriptingMistakes(of:)``.
    private static let mistakes = Mutex(DeviceTable<[String]>())

    /// The scripting mistakes reported on `authenticator`'s device so far, oldest first: each
    /// time a scripted user had no outcome for a prompt, or gave one the dialog cannot produce
    /// (a fallback before the button is shown, a passcode on a biometrics-only prompt...).
    /// Tests assert on this; app code never sees these mistakes as errors.
    public static func scriptingMistakes(of authenticator: Authenticator) -> [String] {
        mistakes.withLock { $0.value(for: authenticator.device) ?? [] }
    }

    /// The exit status of a process stopped for a scripting mistake: 70 (`EX_SOFTWARE`).
    public static let scriptingMistakeExitStatus: Int32 = 70

    /// Reports a scripted outcome that does not fit the prompt, to the script's author rather
    /// than to the app: a line on standard error, a record in ``scriptingMistakes(of:)``, and,
    /// when the device was built from the environment (`TOUCHSTONE_OUTCOMES` drives this
    /// process), the process stops with ``scriptingMistakeExitStatus``. For a device given in
    /// code it returns, and the app's call ends as a system cancel would (`LAError.systemCancel`,
    /// `errSecUserCanceled`), which apps treat as "do nothing".
    package static func reportScriptingMistake(_ mistake: SimulationError, on authenticator: Authenticator?) {
        let text = mistake.description
        if let authenticator {
            mistakes.withLock { $0.update(authenticator.device, default: []) { $0.append(text) } }
        }
        if let sink = mistakeSink {
            sink.record(mistake)
            return
        }
        let fromEnvironment = authenticator.map { authenticator in
            persistentClocks.withLock { $0.contains(authenticator.device) }
        } ?? false
        if fromEnvironment {
            FileHandle.standardError.write(Data("Touchstone: scripting mistake in \(outcomesVariable): \(text). Stopping the program (exit status \(scriptingMistakeExitStatus)).\n".utf8))
            exit(scriptingMistakeExitStatus)
        }
        FileHandle.standardError.write(Data("Touchstone: scripting mistake: \(text); the app sees a system cancel.\n".utf8))
    }

    /// Where scripting mistakes go instead of standard error while set: the REPL, which drives
    /// the Apple-named API itself (`right authorize`), reports them as its own errors
    /// (`noScriptedOutcome`...) rather than as the system cancel an app sees.
    @TaskLocal package static var mistakeSink: ScriptingMistakeSink?

    /// The scripting mistakes reported while it was ``mistakeSink``.
    package final class ScriptingMistakeSink: Sendable {
        private let recorded = Mutex<[SimulationError]>([])

        package init() {}

        func record(_ mistake: SimulationError) {
            recorded.withLock { $0.append(mistake) }
        }

        /// The first mistake recorded, if any.
        package var first: SimulationError? { recorded.withLock { $0.first } }
    }

    /// Values kept per device without keeping the device alive: an entry whose device is gone
    /// (its `ObjectIdentifier` may be reused by a new device) never answers for another one.
    package struct DeviceTable<Value> {
        private struct Entry {
            weak var device: Device?
            var value: Value
        }
        private var entries: [ObjectIdentifier: Entry] = [:]

        package init() {}

        package func value(for device: Device) -> Value? {
            guard let entry = entries[ObjectIdentifier(device)], entry.device === device else { return nil }
            return entry.value
        }

        package func contains(_ device: Device) -> Bool { value(for: device) != nil }

        package mutating func insert(_ device: Device) where Value == Void {
            entries = entries.filter { $0.value.device != nil }
            entries[ObjectIdentifier(device)] = Entry(device: device, value: ())
        }

        package mutating func update(_ device: Device, default initial: Value, _ change: (inout Value) -> Void) {
            var value = self.value(for: device) ?? initial
            change(&value)
            entries = entries.filter { $0.value.device != nil }
            entries[ObjectIdentifier(device)] = Entry(device: device, value: value)
        }
    }

    /// Parses `TOUCHSTONE_OUTCOMES`: actions separated by commas, semicolons or whitespace,
    /// spelled as the REPL's outcomes (the command layer's ``Outcomes`` parser).
    public static func parseOutcomes(_ text: String) throws -> [UserAction] {
        do {
            return try Outcomes.parse(list: text)
        } catch {
            throw ConfigurationError.invalidSetting(name: outcomesVariable, reason: error.description)
        }
    }
}
#endif
