#if !canImport(Darwin)
import Foundation
import TouchstoneSecurity
import Touchstone
import TouchstoneBuiltins

extension LocalAuthenticationSystem.EnvironmentSupport {
    /// Every built-in plugin (`PluginRegistry.builtIn`: SQLite stores, fprintd, PAM besides
    /// the portable ones) and `TOUCHSTONE_SETUP` run by the REPL's command layer
    /// (``LocalAuthenticationSystem/runSetup(_:on:)``). A program opts in with one line at
    /// start:
    ///
    /// ```swift
    /// LocalAuthenticationSystem.bootstrap(.builtIn)
    /// ```
    public static var builtIn: Self {
        Self(registry: .builtIn, setup: { script, authenticator in
            try LocalAuthenticationSystem.runSetup(script, on: authenticator)
        })
    }
}

extension LocalAuthenticationSystem {
    /// Runs `TOUCHSTONE_SETUP`'s commands on `authenticator`, through the same command layer
    /// as the `touchstone` REPL (`TouchstoneCommands`: one tokenizer, one command table, one
    /// outcome parser), so a line moves between a REPL script and `TOUCHSTONE_SETUP` unchanged.
    ///
    /// Commands are separated by `;` or new lines and `#` starts a comment (inside quotes both
    /// are plain characters). Every REPL command that makes sense before an app starts works:
    /// `enroll`, `unenroll`, `reenroll`, `sensor`, `passcode set|clear|enter`, `unlock`, `lock`,
    /// `restart`, `remote-lock`, `os-upgrade`, `clock advance`, `evaluate` (with a quoted reason
    /// or none), `can`, `context`, `baseline`, `keychain`, `key`, `app` (the following lines act
    /// as that app on the same device), `expect`... Their output is discarded. Not here:
    /// `use` and `reset` (they would build a device the app never sees), `quit`, and `right`
    /// (the REPL registers it, with its other commands that use the `LocalAuthentication`
    /// module).
    ///
    /// A command ending in an LAError does not stop the setup (`evaluate biometrics nomatch
    /// nomatch nomatch` is there for its effect on the counters, not its result), nor does an
    /// evaluation whose outcomes run out (`evaluate biometrics "Unlock notes" nomatch`: one
    /// failure counted, then the prompt is left, as in a REPL script); outcomes left over
    /// after an evaluation, and every other error, do.
    ///
    /// ```sh
    /// TOUCHSTONE_SETUP='passcode set 1234; enroll thumb; evaluate biometrics "Unlock notes" nomatch nomatch nomatch' ./MyApp
    /// ```
    /// Throws a ``ConfigurationError`` (`invalidSetting` of `TOUCHSTONE_SETUP`) naming the
    /// command that failed.
    ///
    /// Why here: the command layer sits above `Security` and beside `LocalAuthentication`,
    /// so an app that imports only `LocalAuthentication` does not build it; a program that
    /// wants it opts in with `bootstrap(.builtIn)`. The REPL (above `LocalAuthentication`)
    /// adds the commands that need Apple's names.
    public static func runSetup(_ script: String, on authenticator: Authenticator) throws {
        let lines = Tokenizer.commands(script)
        guard !lines.isEmpty else {
            // Nothing to run: only the saved virtual time to restore, without blocking a
            // thread on the asynchronous command layer (most processes have no setup).
            _ = try VirtualTimeKeeper(restoring: authenticator.device)
            return
        }
        try runBlocking { try await runSetup(lines: lines, on: authenticator) }
    }

    /// The REPL commands `TOUCHSTONE_SETUP` refuses, with why.
    static let commandsRefusedInSetup: [String: String] = [
        "use": "use swaps plugins in a device the app never sees; set them in TOUCHSTONE_CONFIG",
        "reset": "reset builds a device the app never sees; remove the store instead",
        "quit": "quit has nothing to leave here",
    ]

    /// Whether `error` is how an attempt ended (an LAError, or a prompt left when the
    /// outcomes ran out) rather than a mistake in the setup.
    package static func isOutcomeOfAnAttempt(_ error: ErrorReport) -> Bool {
        error.domain == AuthenticationError.domain
            || (error.domain == "touchstone.simulation" && error.name == "noScriptedOutcome")
    }

    private static func runSetup(lines: [String], on authenticator: Authenticator) async throws {
        // The session restores the device's virtual time and saves it after each command.
        let session = try CommandSession(authenticator: authenticator)
        session.rejectsUnusedOutcomes = true
        for line in lines {
            func fail(_ reason: String) -> ConfigurationError {
                .invalidSetting(name: setupVariable, reason: "'\(line)': \(reason)")
            }
            if let name = try? Tokenizer.split(line).first, let command = session.table.command(named: name),
               let refusal = commandsRefusedInSetup[command.name] {
                throw fail("not available in \(setupVariable): \(refusal)")
            }
            let record = await session.execute(line)
            guard let error = record.error else { continue }
            if isOutcomeOfAnAttempt(error) { continue }
            throw ConfigurationError.invalidSetting(
                name: setupVariable, reason: "'\(record.input.isEmpty ? line : record.input)': \(error.text)")
        }
    }
}
#endif
