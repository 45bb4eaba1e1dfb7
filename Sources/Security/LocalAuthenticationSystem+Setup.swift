#if !canImport(Darwin)
import Foundation
import TouchstoneSimulation
import Touchstone

extension LocalAuthenticationSystem {
    /// Runs device commands on `authenticator`: what `TOUCHSTONE_SETUP` holds. Commands are
    /// separated by `;` or new lines, `#` starts a comment, and they are spelled as the
    /// `touchstone` REPL's device commands:
    ///
    /// | command | effect |
    /// |---|---|
    /// | `enroll <name>` / `unenroll <name>` / `reenroll <name>` | change the enrolled set |
    /// | `sensor present\|absent\|disconnected\|denied\|not-paired` | hardware state (this process only) |
    /// | `passcode set <code>` / `passcode clear` | the device passcode |
    /// | `passcode enter <code>` | a lock-screen entry (a correct one clears a biometry lockout) |
    /// | `unlock <name>` | the device was unlocked by `<name>` now (opens the reuse window) |
    /// | `lock`, `restart`, `remote-lock` | the device locks; restarts (passcode needed before biometry, afterFirstUnlock items unreadable); is locked remotely |
    /// | `clock advance <duration>` | virtual time (`90s`, `5m`, `1h`), kept for the next process |
    /// | `os-upgrade` | every app's domain state changes |
    /// | `evaluate <policy> ["reason"] <outcome> ...` | runs an evaluation, ignoring its LAError (e.g. `evaluate biometrics nomatch nomatch nomatch` towards a lockout) |
    ///
    /// ```sh
    /// TOUCHSTONE_SETUP='passcode set 1234; enroll thumb; evaluate biometrics nomatch nomatch nomatch' ./MyApp
    /// ```
    /// Throws a ``ConfigurationError`` naming the command that failed.
    public static func runSetup(_ script: String, on authenticator: Authenticator) throws {
        let device = authenticator.device
        let commands = script.split(whereSeparator: { $0 == ";" || $0.isNewline })
        for rawCommand in commands {
            var line = String(rawCommand)
            if let hash = line.firstIndex(of: "#") { line = String(line[..<hash]) }
            let tokens = tokenize(line)
            guard let verb = tokens.first?.text else { continue }
            let arguments = tokens.dropFirst().map(\.text)
            let quoted = tokens.dropFirst().map(\.quoted)
            func fail(_ reason: String) -> ConfigurationError {
                .invalidSetting(name: setupVariable, reason: "'\(line.trimmingCharacters(in: .whitespaces))': \(reason)")
            }
            func argument(_ index: Int, _ what: String) throws -> String {
                guard index < arguments.count else { throw fail("missing \(what)") }
                return arguments[index]
            }
            do {
                switch verb.lowercased() {
                case "enroll": try device.enroll(argument(0, "identity name"))
                case "unenroll": try device.unenroll(argument(0, "identity name"))
                case "reenroll": try device.reenroll(argument(0, "identity name"))
                case "unlock": try device.unlock(with: argument(0, "identity name"))
                case "os-upgrade": try device.simulateOSUpgrade()
                case "lock": try device.lock()
                case "restart": try device.restart()
                case "remote-lock": try device.remoteLock()
                case "sensor":
                    let name = try argument(0, "hardware state")
                    guard let state = HardwareState(optionName: name) else {
                        throw fail("unknown hardware state; use present, absent, disconnected, denied or not-paired")
                    }
                    guard let sensor = device.sensor else { throw fail("this device has no biometric sensor") }
                    guard let control = sensor as? any SimulatedHardwareControl else {
                        throw fail("the sensor \(type(of: sensor).descriptor.id) is real: its hardware state is what the hardware reports")
                    }
                    control.setHardwareState(state)
                case "passcode":
                    switch try argument(0, "set, clear or enter").lowercased() {
                    case "set": try device.setPasscode(argument(1, "passcode"))
                    case "clear": try device.clearPasscode()
                    case "enter": _ = try device.enterPasscode(argument(1, "passcode"))
                    default: throw fail("use passcode set <code>, passcode clear or passcode enter <code>")
                    }
                case "clock":
                    guard try argument(0, "advance").lowercased() == "advance" else { throw fail("use clock advance <duration>") }
                    let text = try argument(1, "duration")
                    guard let duration = Duration(compact: text) else { throw fail("'\(text)' is not a duration from \(Duration.compactRangeDescription), such as 90s, 5m or 1h") }
                    guard let clock = device.clock as? any ManualClock else { throw fail("the device runs on the wall clock") }
                    clock.advance(by: duration)
                case "evaluate":
                    let policy = try authenticator.policy(named: argument(0, "policy"))
                    var rest = Array(arguments.dropFirst())
                    var reason = "TOUCHSTONE_SETUP"
                    if quoted.count > 1, quoted[1] {
                        reason = rest.removeFirst()
                    }
                    let actions = try parseOutcomes(rest.joined(separator: " "))
                    try evaluateIgnoringOutcome(policy, reason: reason, actions: actions, on: authenticator)
                default:
                    throw fail("unknown command; use enroll, unenroll, reenroll, sensor, passcode, unlock, lock, restart, remote-lock, clock advance, os-upgrade or evaluate")
                }
            } catch let error as ConfigurationError {
                throw error
            } catch {
                throw fail("\(error)")
            }
        }
    }

    /// Runs one setup evaluation with `actions` queued; its LAError is ignored, a script
    /// problem (outcomes left over or missing) is thrown.
    private static func evaluateIgnoringOutcome(
        _ policy: any Policy, reason: String, actions: [UserAction], on authenticator: Authenticator
    ) throws {
        guard let user = authenticator.device.interaction as? ScriptedInteraction else {
            throw ConfigurationError.invalidSetting(name: setupVariable, reason: "evaluate needs a scripted user")
        }
        user.enqueue(actions)
        defer { user.clear() }
        let context = authenticator.makeContext()
        do {
            _ = try runBlocking { try await context.evaluate(policy, reason: reason) }
        } catch is AuthenticationError {
            // The outcome of a setup evaluation does not matter; its effect on the counters does.
        }
        if !user.pending.isEmpty {
            throw ConfigurationError.invalidSetting(
                name: setupVariable,
                reason: "evaluate \(policy.name): \(user.pending.count) outcome(s) left over after the evaluation ended")
        }
    }

    /// Splits on whitespace, keeping double-quoted words together (without the quotes) and
    /// noting which were quoted.
    private static func tokenize(_ line: String) -> [(text: String, quoted: Bool)] {
        var words: [(text: String, quoted: Bool)] = []
        var current = ""
        var inQuotes = false
        var wasQuoted = false
        var started = false
        for character in line {
            if character == "\"" {
                inQuotes.toggle()
                wasQuoted = true
                started = true
            } else if character.isWhitespace, !inQuotes {
                if started { words.append((current, wasQuoted)) }
                current = ""
                started = false
                wasQuoted = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started { words.append((current, wasQuoted)) }
        return words
    }
}
#endif
