import Foundation
import Logging
import Touchstone
import TouchstoneSimulation
import TouchstoneBuiltins

/// The state commands work on: the composition, the authenticator built from it, the current
/// context, and what the previous command did (for `expect`). Headless: the REPL runs it at a
/// terminal (installing an asker and a secret reader), `TOUCHSTONE_SETUP` runs it on the device
/// an app is about to use (``init(authenticator:table:)``).
///
/// ```swift
/// let session = try CommandSession(composition: Composition())
/// let record = await session.execute("enroll thumb")
/// print(record.ok)
/// ```
public final class CommandSession {
    /// The reason an `evaluate` without a quoted reason shows on its prompt.
    public static let defaultReason = "Touchstone"

    /// The plugins available to `use`.
    public let registry: PluginRegistry
    /// The commands.
    public var table: CommandTable
    /// What `use`, `app` and `config` change and print.
    public private(set) var builder: AuthenticatorBuilder
    /// The device as the current app sees it.
    public private(set) var authenticator: Authenticator
    /// The current context (`context new` replaces it).
    public private(set) var context: AuthenticationContext
    /// The queue of scripted outcomes and the terminal asker.
    public let interaction: SessionInteraction
    /// Whether outcomes queued on ``interaction`` reach the device (false when the session
    /// wraps a device whose user is neither a ``SessionInteraction`` nor a ``ScriptedInteraction``).
    public let drivesDevice: Bool
    /// Whether a person is at a terminal (the REPL may ask for outcomes and passcodes).
    public var isInteractive = false
    /// Whether outcomes left over when a command's prompts end are an error (`TOUCHSTONE_SETUP`)
    /// rather than a note (the REPL).
    public var rejectsUnusedOutcomes = false
    /// Reads a secret without echo when interactive (set by the terminal host).
    public var readSecret: ((String) -> String?)?
    /// Outcomes the running command queued and its prompts left unused (see
    /// ``withScriptedOutcomes(_:arguments:_:)``).
    var unusedOutcomes: [UserAction] = []
    /// What the last command other than `expect` did.
    public internal(set) var previous: CommandRecord?
    /// The last signature `key sign` or `right sign` made (`key verify <name> <message> last` checks it).
    public package(set) var lastSignature: Data?
    /// What commands registered above this layer keep for the session, by key type (the REPL's
    /// `right` commands keep the rights they authorized, its `login` commands their server,
    /// session and device binding; in memory only). Read and written through
    /// ``subscript(state:)``, typed by the key.
    private var featureState: [ObjectIdentifier: any Sendable] = [:]

    /// Keeps the virtual clock's time in the device's storage, so a persistent device keeps
    /// its time across restarts.
    private var time: VirtualTimeKeeper

    /// Creates a session on a device built from `composition`; the device and its plugins log
    /// through `logger` (by default `Logger.touchstoneSilent`, which discards
    /// everything).
    public init(composition: Composition, registry: PluginRegistry = .builtIn, table: CommandTable = .standard(),
                logger: Logger = .touchstoneSilent) throws {
        self.registry = registry
        self.table = table
        let interaction = SessionInteraction()
        self.interaction = interaction
        drivesDevice = true
        builder = AuthenticatorBuilder(registry: registry, composition: composition, logger: logger)
        let built = try builder.build(interaction: interaction)
        authenticator = built
        context = built.makeContext()
        time = try VirtualTimeKeeper(restoring: built.device)
    }

    /// Creates a session on an existing authenticator (its device, app, plugins and registry):
    /// what `TOUCHSTONE_SETUP` does with the device an app is about to use. Outcomes that
    /// commands queue go to the device's ``ScriptedInteraction`` (or ``SessionInteraction``);
    /// virtual time restored from and saved to the device's storage as for any session.
    ///
    /// ```swift
    /// let session = try CommandSession(authenticator: authenticator)
    /// let record = await session.execute(#"evaluate biometrics "Unlock notes" nomatch"#)
    /// ```
    public init(authenticator: Authenticator, table: CommandTable = .standard()) throws {
        registry = authenticator.registry
        self.table = table
        let user = authenticator.device.interaction
        if let repl = user as? SessionInteraction {
            interaction = repl
            drivesDevice = true
        } else if let script = user as? ScriptedInteraction {
            interaction = SessionInteraction(script: script)
            drivesDevice = true
        } else {
            interaction = SessionInteraction()
            drivesDevice = false
        }
        builder = AuthenticatorBuilder(registry: authenticator.registry, composition: authenticator.composition,
                                      logger: authenticator.device.logger)
        self.authenticator = authenticator
        context = authenticator.makeContext()
        time = try VirtualTimeKeeper(restoring: authenticator.device)
    }

    /// The device.
    public var device: Device { authenticator.device }

    /// The state a feature keeps under `key` for this session; the key's initial value until
    /// set.
    ///
    /// ```swift
    /// enum VisitsKey: CommandSessionStateKey { static var initial: Int { 0 } }
    /// session[state: VisitsKey.self] += 1
    /// ```
    public subscript<Key: CommandSessionStateKey>(state key: Key.Type) -> Key.Value {
        get { featureState[ObjectIdentifier(key)] as? Key.Value ?? Key.initial }
        set { featureState[ObjectIdentifier(key)] = newValue }
    }

    // MARK: Changing the composition

    /// Puts plugin `id` in the slot of `kind` and rebuilds, keeping the device (storage,
    /// clock) when the storage selection is unchanged. A new context is made.
    public func use(_ kind: PluginKind, _ id: String, options: [String: String]) throws {
        var candidate = builder
        try candidate.use(kind, id, options: options)
        try rebuild(with: candidate, reusing: true)
    }

    /// Switches to the app `appID` on the same device; a new context is made.
    public func switchApp(_ appID: String) throws {
        var candidate = builder
        candidate.composition.app = appID
        try rebuild(with: candidate, reusing: true)
    }

    /// A fresh device with the same composition. A persistent store is erased first (every
    /// record but the virtual time: device records, the sensor's templates, keychain items,
    /// keys, baselines), so the device really starts over.
    public func reset() throws {
        if builder.composition.storage.id != "storage.memory" {
            try device.eraseStore(keeping: [Device.virtualTimeRecord.namespace])
        }
        try rebuild(with: builder, reusing: false)
    }

    /// A new context for the current app.
    public func newContext() {
        context = authenticator.makeContext()
    }

    private func rebuild(with candidate: AuthenticatorBuilder, reusing: Bool) throws {
        let storageChanged = !reusing || candidate.composition.storage != builder.composition.storage
            || candidate.composition.seed != builder.composition.seed
        let built = try candidate.build(reusing: reusing ? authenticator : nil, interaction: authenticator.device.interaction)
        builder = candidate
        authenticator = built
        context = built.makeContext()
        if storageChanged {
            time = try VirtualTimeKeeper(restoring: built.device)
        }
    }

    /// The record of a line that failed before any command ran: `word` is its first word and
    /// `suggestion` the command an unknown word suggests. A line meant as an expectation — its
    /// word names one, or is a slip from one — fails as one, so a script's check cannot silently
    /// vanish; any other such line is the previous command for the next `expect`.
    private func failedLine(_ line: String, command: String, word: String, suggestion: String?,
                            _ error: any Error) -> CommandRecord {
        let meant = isExpectation(word: word, suggestion: suggestion)
        let record = CommandRecord(command: meant ? word : command, input: line,
                                   outcome: .failure(ErrorReport(error)), isExpectation: meant)
        if !meant { previous = record }
        return record
    }

    /// Whether `line` is meant as an expectation (its first word names one, or is a slip from
    /// one, as ``execute(_:)`` judges it), without running it.
    public func isExpectation(_ line: String) -> Bool {
        guard let first = line.split(whereSeparator: \.isWhitespace).first.map(String.init) else { return false }
        return isExpectation(word: first, suggestion: table.command(named: first) == nil ? table.suggestion(for: first) : nil)
    }

    /// Whether a line whose first word is `word` (a slip from `suggestion`, when it names no
    /// command) is meant as an expectation.
    private func isExpectation(word: String, suggestion: String?) -> Bool {
        word.count >= 3  // shorter is too short to tell what was meant
            && (table.command(named: word) ?? suggestion.flatMap(table.command(named:)))?.isExpectation == true
    }

    /// A line with its secrets masked, written so that it reads as the original did: a word
    /// quoted there is quoted here too (a quoted reason is not an outcome), a masked word as
    /// the redactor wrote it.
    static func redactedLine(_ name: String, _ words: [String], quoted: [Bool]) -> String {
        ([name] + words.enumerated().map { index, word in
            Tokenizer.quote(word, always: word != "****" && !word.hasSuffix(":****") && index < quoted.count && quoted[index])
        }).joined(separator: " ")
    }

    /// Moves the virtual clock to the time stored in the device's storage, if later.
    func restoreClock() throws {
        time = try VirtualTimeKeeper(restoring: device)
    }

    // MARK: Running lines

    /// Runs one line (already known not to be blank or a comment), on the caller's executor.
    nonisolated(nonsending) public func execute(_ line: String) async -> CommandRecord {
        let tokens: [Tokenizer.Word]
        do {
            tokens = try Tokenizer.words(line)
        } catch {
            // A line that cannot be read (an unbalanced quote): its first word as written.
            let first = line.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            let suggestion = table.command(named: first) == nil ? table.suggestion(for: first) : nil
            return failedLine(line, command: "", word: first, suggestion: suggestion, error)
        }
        let words = tokens.map(\.text)
        guard let name = words.first else {
            return CommandRecord(command: "", input: "", outcome: .success(CommandOutput()), isExpectation: true)
        }
        guard let command = table.command(named: name) else {
            // A misspelt `expect` (`expcet ok`) fails as the expectation it was meant to be.
            let suggestion = table.suggestion(for: name)
            return failedLine(line, command: name, word: name, suggestion: suggestion,
                              CommandError.unknownCommand(name, suggestion: suggestion))
        }
        let arguments = Array(words.dropFirst())
        let input = command.redactor(arguments).map { Self.redactedLine(name, $0, quoted: tokens.dropFirst().map(\.quoted)) } ?? line
        var outcome: CommandRecord.Outcome
        unusedOutcomes = []
        do {
            outcome = .success(try await command.handler(self, CommandArguments(
                command: command, words: arguments, quoted: tokens.dropFirst().map(\.quoted))))
        } catch let quit as QuitRequest {
            _ = quit
            return CommandRecord(command: command.name, input: input, outcome: .success(CommandOutput()), isExpectation: false, quits: true)
        } catch {
            outcome = .failure(ErrorReport(error))
        }
        outcome = noteUnusedOutcomes(outcome)
        do {
            try time.save(device)
        } catch {
            // Keeping the time is best effort; the command's own outcome stands.
        }
        let record = CommandRecord(command: command.name, input: input, outcome: outcome,
                                   isExpectation: command.isExpectation,
                                   containsSecret: command.redactor(arguments) != nil)
        if !command.isExpectation { previous = record }
        return record
    }
}

/// Thrown by `quit` to end the session.
struct QuitRequest: Error {}

/// What one line did.
public struct CommandRecord: Sendable {
    /// Success with output, or failure with the error.
    public enum Outcome: Sendable {
        case success(CommandOutput)
        case failure(ErrorReport)
    }

    /// The command's canonical name (or the unknown word typed).
    public var command: String
    /// The line as typed, with secrets replaced by `****`.
    public var input: String
    /// What happened.
    public var outcome: Outcome
    /// Whether it was an `expect`.
    public var isExpectation: Bool
    /// Whether the line ends the session.
    public var quits = false
    /// Whether the line held a secret (never recorded in history).
    public var containsSecret = false

    /// Whether it succeeded.
    public var ok: Bool {
        if case .success = outcome { true } else { false }
    }

    /// The error, on failure.
    public var error: ErrorReport? {
        if case let .failure(report) = outcome { report } else { nil }
    }

    /// The human form: output lines, or `error: ...`.
    public var text: String {
        switch outcome {
        case let .success(output): output.text
        case let .failure(report): "error: " + report.text
        }
    }

    /// The `--json` form: one object.
    public var json: JSONValue {
        var pairs: [(String, JSONValue)] = [("command", .string(command)), ("input", .string(input)), ("ok", .bool(ok))]
        switch outcome {
        case let .success(output): pairs.append(("result", .object(output.result)))
        case let .failure(report):
            pairs.append(("error", report.json))
            if let result = report.result { pairs.append(("result", result)) }
        }
        return .object(pairs)
    }
}

/// A key of a session's feature state (``CommandSession/subscript(state:)``): a feature's
/// commands registered above the command layer keep their state under a key type of their own,
/// whose `Value` is that state — typed, and never colliding with another feature's.
public protocol CommandSessionStateKey {
    /// The state kept under this key.
    associatedtype Value: Sendable
    /// The state before anything was kept.
    static var initial: Value { get }
}
