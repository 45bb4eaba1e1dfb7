#if !canImport(Darwin)
import Foundation
import Logging
import Touchstone
import TouchstonePortable
import TouchstoneSimulation

/// Which Touchstone device `LAContext()` and the `SecItem*` functions talk to: one
/// process-wide default, set once, in the spirit of swift-log's `LoggingSystem.bootstrap`.
///
/// The default is chosen, in this order:
/// 1. inside ``withAuthenticator(_:operation:)-(_,()->R)``, the authenticator given there (a
///    task-local value, so parallel tests each get their own device);
/// 2. the authenticator passed to ``bootstrap(authenticator:)``;
/// 3. otherwise, on first use, one built from the environment (``makeAuthenticator(environment:support:)``):
///    `TOUCHSTONE_CONFIG` names a composition file (storage, sensor, app id, seed...),
///    `TOUCHSTONE_OUTCOMES` queues what the simulated user does at the prompts of this
///    process, and, in a program that opted in with `bootstrap(.builtIn)`,
///    `TOUCHSTONE_SETUP` changes the device first with the REPL's commands (enroll,
///    passcode, clock, keychain, evaluate...). Without `TOUCHSTONE_CONFIG` the device is a
///    fresh in-memory Touch ID device with no passcode and nothing enrolled; the composition's
///    `"device"` key (`{"passcode": "1234", "enrolled": ["thumb"]}`) sets a new device up.
///
/// What the environment may name depends on the products the program links
/// (``EnvironmentSupport``): with `LocalAuthentication` alone, the portable plugins
/// (`PluginRegistry.portable`: simulated sensors, memory and encrypted-file storage...); one
/// line at start, from the `TouchstoneCommands` product, adds SQLite stores, fprintd, PAM and
/// `TOUCHSTONE_SETUP`:
/// ```swift
/// import TouchstoneCommands
/// LocalAuthenticationSystem.bootstrap(.builtIn)
/// ```
///
/// A device of your own, in code (with `import LocalAuthentication` and `import
/// TouchstonePortable`, the product of that name: the builder, the scripted person and the
/// portable plugins; it needs no system library either):
/// ```swift
/// var builder = AuthenticatorBuilder(registry: .portable)
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
///
/// Each bootstrap is set-once: a second one, or one after the default device was made (by a
/// first `LAContext()` or `SecItem*` call), is a programmer error and stops the program, as
/// a second `LoggingSystem.bootstrap` does. Tests keep devices apart with
/// ``withAuthenticator(_:operation:)-(_,()->R)`` (the test kit's `.touchstoneDevice()` trait)
/// instead.
public enum LocalAuthenticationSystem {
    /// `TOUCHSTONE_CONFIG`: path of a composition JSON file (`Composition.load(from:defaults:)`
    /// from `TouchstonePortable`).
    public static let configurationVariable = "TOUCHSTONE_CONFIG"
    /// `TOUCHSTONE_SETUP`: `touchstone` REPL commands run on the device before the program's
    /// first context. Needs ``EnvironmentSupport/setup`` (`bootstrap(.builtIn)` from
    /// `TouchstoneCommands`).
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

    /// What a default device built from the environment may use: the plugins
    /// `TOUCHSTONE_CONFIG` may name, and what runs `TOUCHSTONE_SETUP`.
    ///
    /// ``portable`` is the default. The `TouchstoneCommands` product adds `.builtIn` (every
    /// built-in plugin, and `TOUCHSTONE_SETUP` through the REPL's command layer); a program
    /// with plugins of its own passes a registry that has them.
    public struct EnvironmentSupport: Sendable {
        /// Runs `TOUCHSTONE_SETUP`'s text on a device just built.
        public typealias Setup = @Sendable (_ script: String, _ authenticator: Authenticator) throws -> Void

        /// The plugins a `TOUCHSTONE_CONFIG` composition may name.
        public var registry: PluginRegistry
        /// What runs `TOUCHSTONE_SETUP`; nil refuses a non-empty one, saying what to add.
        public var setup: Setup?

        /// Support over `registry`, with `setup` for `TOUCHSTONE_SETUP` (nil: refused).
        public init(registry: PluginRegistry, setup: Setup? = nil) {
            self.registry = registry
            self.setup = setup
        }

        /// `PluginRegistry.portable` and no `TOUCHSTONE_SETUP`: what the Apple-named modules
        /// carry, and so the default.
        public static var portable: EnvironmentSupport { EnvironmentSupport(registry: .portable) }
    }

    /// How to opt in to what ``EnvironmentSupport/portable`` lacks, for error messages.
    static let optInAdvice = "depend on the TouchstoneCommands product and call LocalAuthenticationSystem.bootstrap(.builtIn) once at start (docs/ADOPTING.md)"

    /// Plugin ids that come with `.builtIn` but not with ``EnvironmentSupport/portable``.
    static let builtInOnlyPlugins: Set<String> = ["storage.sqlite", "linux.fprintd", "linux.pam"]

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
    package static let callLogger = Locked<Logger>((try? logger(environment: ProcessInfo.processInfo.environment)) ?? .touchstoneSilent)

    /// The default device, once made.
    private enum DefaultDevice: Sendable {
        case unmade
        case bootstrapped(Authenticator)
        case environment(Result<Authenticator, TouchstoneError>)
    }

    /// What the bootstraps set, each once.
    private struct State: Sendable {
        /// What ``bootstrap(_:)`` chose; nil until then (``EnvironmentSupport/portable`` is used).
        var support: EnvironmentSupport?
        var device = DefaultDevice.unmade

        /// Stops the program when the default device was already made: `call` came too late.
        func requireUnmade(_ call: String) {
            guard case .unmade = device else {
                preconditionFailure("LocalAuthenticationSystem.\(call): the default device was already made (by an earlier bootstrap or a first LAContext/SecItem call); bootstrap once, first thing at start. Tests: use withAuthenticator or TouchstoneTesting's .touchstoneDevice() trait.")
            }
        }
    }

    private static let state = Locked(State())

    @TaskLocal package static var taskAuthenticator: Authenticator?

    /// Chooses what the default device may use when it is built from the environment (see
    /// ``EnvironmentSupport``): `bootstrap(.builtIn)` for SQLite stores, fprintd, PAM and
    /// `TOUCHSTONE_SETUP`. Call it once, before the first `LAContext` or `SecItem*` call.
    public static func bootstrap(_ support: EnvironmentSupport) {
        state.withLock { state in
            state.requireUnmade("bootstrap(_:)")
            precondition(state.support == nil, "LocalAuthenticationSystem.bootstrap(_:) was called twice; it may be called once per process")
            state.support = support
        }
    }

    /// Makes `authenticator` the process-wide default device. Call it once, before the first
    /// `LAContext` or `SecItem*` call.
    public static func bootstrap(authenticator: Authenticator) {
        state.withLock { state in
            state.requireUnmade("bootstrap(authenticator:)")
            state.device = .bootstrapped(authenticator)
        }
    }

    /// Builds the default device from `environment` now (see
    /// ``makeAuthenticator(environment:support:)``), makes it the default and returns it;
    /// throws what went wrong instead of reporting it through the first `LAContext` call
    /// (the default device is then still unmade). Set-once, as the other bootstraps.
    @discardableResult
    public static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Authenticator {
        let authenticator = try makeAuthenticator(environment: environment)
        state.withLock { state in
            state.requireUnmade("bootstrap(environment:)")
            state.device = .environment(.success(authenticator))
        }
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
            let current = state.withLock { $0.device }
            switch current {
            case let .bootstrapped(authenticator): return authenticator
            case let .environment(result): return try result.get()
            case .unmade: break
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
            let published = state.withLock { state -> DefaultDevice in
                if case .unmade = state.device { state.device = .environment(built) }
                return state.device
            }
            switch published {
            case let .bootstrapped(authenticator): return authenticator
            case let .environment(result): return try result.get()
            case .unmade: return try built.get()
            }
        }
    }

    /// Builds a device the way the environment describes it, with what `support` allows
    /// (by default what ``bootstrap(_:)`` chose, else ``EnvironmentSupport/portable``):
    /// - `TOUCHSTONE_CONFIG`: the composition file; without it, `Composition()` from
    ///   `TouchstonePortable` (an in-memory Touch ID device on a virtual clock). A plugin only `.builtIn` has
    ///   (`storage.sqlite`, `linux.fprintd`, `linux.pam`) is refused with how to opt in.
    /// - The virtual clock continues from the time saved in the device's storage
    ///   (``Device/restoreVirtualTime()``), so time advanced by one step is still advanced in
    ///   the next, and is saved again after the setup script and after every evaluation.
    /// - `TOUCHSTONE_SETUP`: run by ``EnvironmentSupport/setup``; refused without one.
    /// - `TOUCHSTONE_OUTCOMES`: queued on the device's ``ScriptedInteraction``. When the queue
    ///   runs dry, an evaluation ends with a ``TouchstoneError`` (`simulation`) instead of
    ///   waiting forever.
    public static func makeAuthenticator(environment: [String: String], support: EnvironmentSupport? = nil) throws -> Authenticator {
        let support = support ?? state.withLock { $0.support } ?? .portable
        var composition = Composition()
        if let path = environment[configurationVariable], !path.isEmpty {
            composition = try Composition.load(from: URL(fileURLWithPath: path))
        }
        let outcomes = try parseOutcomes(environment[outcomesVariable] ?? "")
        let script = environment[setupVariable] ?? ""
        guard support.setup != nil || script.allSatisfy(\.isWhitespace) else {
            throw ConfigurationError.invalidSetting(
                name: setupVariable, reason: "running REPL commands before the program starts needs the command layer: \(optInAdvice)")
        }
        let user = ScriptedInteraction()
        let authenticator: Authenticator
        do {
            authenticator = try AuthenticatorBuilder(registry: support.registry, composition: composition, logger: logger(environment: environment))
                .build(interaction: user)
        } catch let ConfigurationError.unknownPlugin(id, _, _) where builtInOnlyPlugins.contains(id) {
            throw ConfigurationError.invalidSetting(
                name: configurationVariable, reason: "the plugin '\(id)' is not in this program: \(optInAdvice)")
        }
        if let setup = support.setup {
            // Restores the saved virtual time even without a script (the command layer's
            // session does, and saves it after each command).
            try setup(script, authenticator)
        } else {
            try authenticator.device.restoreVirtualTime()
        }
        persistentClocks.withLock { $0.insert(authenticator.device) }
        if environment[outcomesVariable] != nil { outcomeDriven.withLock { $0.insert(authenticator.device) } }
        user.enqueue(outcomes)
        return authenticator
    }

    /// Devices whose virtual time is saved after each evaluation (those built from the environment).
    private static let persistentClocks = Locked(DeviceTable<Void>())

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
    private static let mistakes = Locked(DeviceTable<[String]>())

    /// Devices built from an environment that sets `TOUCHSTONE_OUTCOMES`: that script drives
    /// the process, and a mistake in it stops the process (``reportScriptingMistake(_:on:)``).
    private static let outcomeDriven = Locked(DeviceTable<Void>())

    /// Devices built from the environment that a test took over (`TestDevice.processDefault()`):
    /// a scripting mistake there is the test's, and ends the call as for a device given in code.
    private static let testedDevices = Locked(DeviceTable<Void>())

    /// Marks `authenticator`'s device as a test's (see ``reportScriptingMistake(_:on:)``).
    /// Returns whether this is the first time for a device built from the environment (the one a
    /// test then prepares; a device given in code is used as it was made).
    package static func takeOverForTests(_ authenticator: Authenticator) -> Bool {
        let device = authenticator.device
        let first = testedDevices.withLock { tested in
            defer { tested.insert(device) }
            return !tested.contains(device)
        }
        return first && persistentClocks.withLock { $0.contains(device) }
    }

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
    /// when the device was built from an environment that sets `TOUCHSTONE_OUTCOMES` (that script
    /// drives this process) and no test took it over, the process stops with
    /// ``scriptingMistakeExitStatus``. Otherwise (a device given in code, a test's, one built
    /// from an environment without that script, as in an XCTest run) it returns, and the app's call ends as a system cancel
    /// (`LAError.systemCancel`; `errSecUserCanceled` from `SecItem*`, our rule, where a real
    /// system cancel there is errSecAuthFailed), which apps treat as "do nothing".
    package static func reportScriptingMistake(_ mistake: SimulationError, on authenticator: Authenticator?) {
        let text = mistake.description
        if let authenticator {
            mistakes.withLock { $0.update(authenticator.device, default: []) { $0.append(text) } }
        }
        if let sink = mistakeSink {
            sink.record(mistake)
            return
        }
        let scriptDrivesProcess = authenticator.map { authenticator in
            outcomeDriven.withLock { $0.contains(authenticator.device) }
                && !testedDevices.withLock { $0.contains(authenticator.device) }
        } ?? false
        if scriptDrivesProcess {
            FileHandle.standardError.write(Data("Touchstone: scripting mistake in \(outcomesVariable): \(text). Stopping the program (exit status \(scriptingMistakeExitStatus)).\n".utf8))
            exit(scriptingMistakeExitStatus)
        }
        FileHandle.standardError.write(Data("Touchstone: scripting mistake: \(text); the app sees a system cancel.\n".utf8))
    }

    /// How a call ends for the app after a scripting mistake, whichever API it made: as a
    /// system cancel (apps treat it as "do nothing"). One mapping for every module:
    /// `LAError.systemCancel` from `LAContext` and CryptoKit, a CFError of that code from
    /// `SecKey*`, `errSecUserCanceled` from `SecItem*` (our rule: a mistake reads as the user's
    /// cancel there, which apps ignore, rather than as a failure); the message is the same in each.
    package struct SystemCancel: Sendable {
        /// `LAError.Code.systemCancel`'s raw value.
        package static let laErrorCode = -4
        /// The `SecItem*` status: `errSecUserCanceled` (-128), the status of a canceled prompt.
        package static let osStatus = errSecUserCanceled
        /// `Touchstone scripting mistake: <what>`.
        package let message: String
    }

    /// Reports `mistake` (``reportScriptingMistake(_:on:)``) and returns how the app's call
    /// ends: the one place a ``SimulationError`` becomes what an app sees.
    package static func systemCancel(after mistake: SimulationError, on authenticator: Authenticator?) -> SystemCancel {
        reportScriptingMistake(mistake, on: authenticator)
        return SystemCancel(message: "Touchstone scripting mistake: \(mistake.description)")
    }

    /// Where scripting mistakes go instead of standard error while set: the REPL, which drives
    /// the Apple-named API itself (`right authorize`), reports them as its own errors
    /// (`noScriptedOutcome`...) rather than as the system cancel an app sees.
    @TaskLocal package static var mistakeSink: ScriptingMistakeSink?

    /// The scripting mistakes reported while it was ``mistakeSink``.
    package final class ScriptingMistakeSink: Sendable {
        private let recorded = Locked<[SimulationError]>([])

        package init() {}

        func record(_ mistake: SimulationError) {
            recorded.withLock { $0.append(mistake) }
        }

        /// The first mistake recorded, if any.
        package var first: SimulationError? { recorded.withLock { $0.first } }
    }

    /// Values kept per device without keeping the device alive: an entry whose device is gone
    /// (its `ObjectIdentifier` may be reused by a new device) never answers for another one.
    package struct DeviceTable<Value>: Sendable where Value: Sendable {
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
