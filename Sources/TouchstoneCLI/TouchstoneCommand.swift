import ArgumentParser
import Foundation
import Logging
import Touchstone
import TouchstoneCommands
import TouchstoneREPL

/// The `touchstone` executable's command line: the REPL, interactive on a terminal, a script
/// runner otherwise. (A library, so that tests can compare its two command-line readers without
/// linking the executable, which carries the Swift runtime statically.)
package struct TouchstoneCommand: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "touchstone",
        abstract: "Compose, evaluate and inspect simulated LocalAuthentication devices.",
        discussion: """
            On a terminal: an interactive REPL with line editing, history and TAB completion. \
            With a script path, or when standard input is not a terminal, it runs the lines as a \
            script (# comments and blank lines skipped); the first failing expect stops it with \
            exit status 1. A script that cannot be read to its end (a directory, standard input \
            closed, a line over 1 MiB) or whose output cannot be written exits with status 2.

            The default device is persistent ($XDG_DATA_HOME/touchstone/device.sqlite); --memory \
            gives a throwaway one. Type help in the REPL for the commands.
            """,
        version: REPLHost.version)

    @Flag(help: "Print one JSON object per command on standard output.")
    var json = false

    @Option(help: ArgumentHelp("A composition file (JSON) as printed by the config command.", valueName: "file"))
    var config: String?

    // `.unconditional`: `--seed -1` is a value to refuse ("invalid"), not a missing one.
    @Option(parsing: .unconditional,
            help: "Seed for reproducible randomness (template ids, device secret, domain states): 0 to 18446744073709551615.")
    var seed: UInt64?

    @Flag(help: "Use a throwaway in-memory device.")
    var memory = false

    @Flag(help: "Stop a script at the first failing command (exit status 1), unless the next line expects it.")
    var strict = false

    @Flag(help: "In scripts, print each command before its output (secrets hidden).")
    var echo = false

    @Flag(help: "Check the device's store fully and read-only (it is never written), print what is wrong, and exit (status 1 when damaged).")
    var checkStore = false

    @Option(help: ArgumentHelp("Copy every record of the device's store that is still intact into a new store at <file>, and exit (status 1 when anything was skipped, each listed, or the export failed). The damaged store is only read.", valueName: "file"))
    var exportStore: String?

    @Option(help: ArgumentHelp("How much the device and its plugins log on standard error: trace, debug, info, notice, warning (the default), error or critical. debug shows, for instance, why fprintd counts as absent.", valueName: "level"))
    var logLevel: String?

    @Argument(help: ArgumentHelp("A script to run instead of reading standard input (- reads standard input as a script, also on a terminal).", valueName: "script"))
    var script: String?

    package init() {}

    /// The options ArgumentParser read.
    var launchOptions: LaunchOptions {
        LaunchOptions(
            json: json, config: config, seed: seed, memory: memory, strict: strict, echo: echo,
            checkStore: checkStore, exportStore: exportStore, logLevel: logLevel, script: script)
    }

    /// The executable's entry point: runs the everyday command lines straight away
    /// (``LaunchOptions/init(everyday:)``) and hands every other one to ArgumentParser.
    nonisolated(nonsending) package static func start() async {
        _ = StandardInput.wasClosed  // before anything can open a file (see there)
        let arguments = CommandLine.arguments
        guard let options = LaunchOptions(everyday: arguments.isEmpty ? [] : Array(arguments[1...])) else {
            await main(nil)
            return
        }
        do {
            try await launch(options)
        } catch {
            exit(withError: error)
        }
    }

    package mutating func run() async throws {
        try await Self.launch(launchOptions)
    }

    /// Builds the device `options` ask for and runs the REPL, a script or a store check.
    ///
    /// `nonisolated(nonsending)`: it runs on the thread `main` started on, so an interactive
    /// session shows its prompt without first starting Swift's thread pool (~0.3 ms, issue 14).
    nonisolated(nonsending) static func launch(_ options: LaunchOptions) async throws {
        // The REPL's own logger: standard error, so that output (and --json) stays clean.
        let levelName = options.logLevel ?? Logger.Level.warning.rawValue
        guard let logger = Logger.touchstoneStandardError(levelNamed: levelName) else {
            throw ValidationError("--log-level '\(levelName)' is not a level: \(Logger.touchstoneLevelNames)")
        }
        var composition = Composition()
        if let config = options.config {
            do {
                composition = try Composition.load(from: URL(fileURLWithPath: config))
            } catch {
                throw ValidationError("\(error)")
            }
        }
        if let seed = options.seed { composition.seed = seed }
        composition.storage = StorageChoice.selection(memory: options.memory, configured: options.config == nil ? nil : composition.storage)
        if options.checkStore || options.exportStore != nil {
            if let script = options.script {
                throw ValidationError("--check-store and --export-store run no script ('\(script)'): run it without them")
            }
            if options.json || options.strict || options.echo {
                throw ValidationError("--check-store and --export-store print a plain report: --json, --strict and --echo do not apply")
            }
            let status = StoreMaintenanceCommand.run(storage: composition.storage, check: options.checkStore, exportTo: options.exportStore)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let session: CommandSession
        do {
            session = try CommandSession(composition: composition, table: .repl(), logger: logger)
        } catch let error as StorageError {
            // Not a usage mistake: the store itself is damaged or unreadable. No usage text,
            // exit status 1, and the next step to take.
            FileHandle.standardError.write(Data(("error: cannot open the device: \(ErrorReport(error).text)"
                + StoreMaintenanceCommand.advice(for: error, storage: composition.storage) + "\n").utf8))
            throw ExitCode(1)
        } catch {
            throw ValidationError("cannot build the device: \(ErrorReport(error).text)")
        }
        var replOptions = REPLOptions()
        replOptions.json = options.json
        replOptions.strict = options.strict
        replOptions.echo = options.echo
        let host = REPLHost(session: session, options: replOptions)

        let status: Int32
        switch options.script {
        case "-"?: status = await host.runStandardInput()
        case let script?: status = await host.runScriptFile(script)
        case nil where LineEditor.isTerminal: status = await host.runInteractive(banner: StorageChoice.banner(for: session))
        case nil: status = await host.runStandardInput()
        }
        if status != 0 { throw ExitCode(status) }
    }
}
