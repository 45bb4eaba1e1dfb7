import TouchstoneSimulation
import Touchstone

extension CommandTable {
    /// `device`, `enroll`, `unenroll`, `reenroll`, `sensor`, `os-upgrade`, `unlock`, `lock`,
    /// `restart`, `remote-lock`, `passcode`.
    static func deviceCommands() -> [Command] {
        let hardwareStates = HardwareState.allCases.map(\.optionName)
        let enrolledCompleter: Command.Completer = { session, previous in previous.isEmpty ? session.enrolledNames : [] }
        return [
            Command(
                name: "device", summary: "biometry, hardware, enrolled names, passcode, lockout, clock",
                usage: "device", example: "device"
            ) { session, arguments in
                try arguments.expectAtMost(0)
                let device = session.device
                let composition = session.builder.composition
                let hardware = device.sensor?.hardwareState(for: session.authenticator.appID)
                let names = try device.enrolledNames()
                let biometry = try device.biometryStatus()
                let passcode = try device.passcodeStatus()
                let clockKind = device.clock.manual != nil ? "virtual" : "wall"
                let sensorText = device.sensor == nil ? "none (no sensor)"
                    : "\(device.biometryType) (\(composition.sensor?.id ?? "?")), hardware \(hardware?.optionName ?? "?")"
                // A real reader describes itself (linux.fprintd: its name and D-Bus path).
                let reader = (device.sensor as? any CustomStringConvertible)?.description
                return CommandOutput((reader.map { ["reader: \($0)"] } ?? []) + [
                    "biometry: \(sensorText)",
                    "enrolled: \(Format.list(names))",
                    "passcode: \(passcode.isSet ? "set" : "not set")",
                    Format.biometry(biometry).replacingPrefix("biometry:", with: "lockout:"),
                    Format.passcode(passcode).replacingPrefix("passcode:", with: "passcode status:"),
                    "clock: \(device.clock.now) (\(clockKind))",
                    "app: \(session.authenticator.appID)",
                    // A path may hold a new line: one line each, always.
                    "storage: \(UsageError.escapingUnprintable(device.storage.location)) (\(composition.storage.id))",
                ], result: [
                    ("biometryType", .string(device.biometryType.description)),
                    ("sensor", .optional(composition.sensor?.id)),
                    ("hardware", .optional(hardware?.optionName)),
                    ("enrolled", .strings(names)),
                    ("passcodeSet", .bool(passcode.isSet)),
                    ("biometry", Format.biometryJSON(biometry)),
                    ("passcode", Format.passcodeJSON(passcode)),
                    ("clock", .string(device.clock.now.description)),
                    ("clockKind", .string(clockKind)),
                    ("app", .string(session.authenticator.appID)),
                    ("storage", .string(composition.storage.id)),
                ] + (reader.map { [("reader", JSONValue.string($0))] } ?? []))
            },
            Command(
                name: "enroll", summary: "enroll a new identity (finger, face, iris) under a name",
                usage: "enroll <name>", example: "enroll thumb",
                details: ["Enrolling changes every app's domain state."]
            ) { session, arguments in
                try arguments.expectAtMost(1)
                let name = try arguments.required(0, "the identity name")
                let steps = Locked<[EnrollmentProgress]>([])
                try session.device.enroll(name) { step in steps.withLock { $0.append(step) } }
                // A real reader reports its stages (fprintd: 5 touches); a one-step enrollment
                // (the simulated sensors) prints only the result.
                let stages = steps.withLock { $0 }.filter { ($0.stages ?? 1) > 1 || $0.stage == nil }.map { step in
                    if let stage = step.stage, let count = step.stages { "  stage \(stage)/\(count): \(step.result)" } else { "  \(step.result)" }
                }
                let enrolled = try session.device.enrolledNames()
                return CommandOutput((stages + ["enrolled \(name) (\(Format.list(enrolled)))"]).joined(separator: "\n"),
                                     result: [("name", .string(name)), ("enrolled", .strings(enrolled))])
            },
            Command(
                name: "unenroll", summary: "remove an enrolled identity",
                usage: "unenroll <name>", example: "unenroll thumb", completer: enrolledCompleter
            ) { session, arguments in
                try arguments.expectAtMost(1)
                let name = try arguments.required(0, "the identity name")
                try session.device.unenroll(name)
                let enrolled = try session.device.enrolledNames()
                return CommandOutput("unenrolled \(name) (enrolled: \(Format.list(enrolled)))",
                                     result: [("name", .string(name)), ("enrolled", .strings(enrolled))])
            },
            Command(
                name: "reenroll", summary: "enroll the same identity again: a new template, so domain states change",
                usage: "reenroll <name>", example: "reenroll thumb", completer: enrolledCompleter
            ) { session, arguments in
                try arguments.expectAtMost(1)
                let name = try arguments.required(0, "the identity name")
                try session.device.reenroll(name)
                return CommandOutput("reenrolled \(name) (new template)", result: [("name", .string(name))])
            },
            Command(
                name: "sensor", summary: "show or set the biometric hardware state",
                usage: "sensor [present|absent|disconnected|denied|not-paired]", example: "sensor absent",
                completer: Command.firstWord(hardwareStates)
            ) { session, arguments in
                try arguments.expectAtMost(1)
                guard let sensor = session.device.sensor else {
                    throw CommandError.unavailable("this device has no biometric sensor; use sensor sim.touchid to add one")
                }
                if let word = arguments[0] {
                    guard let state = HardwareState(optionName: word) else {
                        throw arguments.usageError("unknown state '\(word)'; states: \(hardwareStates.joined(separator: ", "))")
                    }
                    guard let control = sensor as? any SimulatedHardwareControl else {
                        throw CommandError.unavailable("the sensor \(type(of: sensor).descriptor.id) is real: its hardware state is what the hardware reports")
                    }
                    control.setHardwareState(state)
                }
                let state = sensor.hardwareState(for: session.authenticator.appID)
                return CommandOutput("sensor: \(state.optionName)", result: [("hardware", .string(state.optionName))])
            },
            Command(
                name: "os-upgrade", summary: "simulate an OS upgrade: every app's domain state changes",
                usage: "os-upgrade", example: "os-upgrade"
            ) { session, arguments in
                try arguments.expectAtMost(0)
                try session.device.simulateOSUpgrade()
                let epoch = try session.device.osEpoch
                return CommandOutput("OS upgraded (epoch \(epoch)): domain states changed, nothing enrolled or removed",
                                     result: [("osEpoch", .int(epoch))])
            },
            Command(
                name: "unlock", summary: "the device is unlocked by this identity now (opens the reuse window)",
                usage: "unlock <name>", example: "unlock thumb", completer: enrolledCompleter
            ) { session, arguments in
                try arguments.expectAtMost(1)
                let name = try arguments.required(0, "the identity name")
                try session.device.unlock(with: name)
                return CommandOutput("device unlocked by \(name) at \(session.device.clock.now)",
                                     result: [("name", .string(name)), ("at", .string(session.device.clock.now.description))])
            },
            lockCommand("lock", summary: "lock the device (whenUnlocked keychain items become unreadable)",
                        details: ["Without a passcode the device counts as unlocked."]) { try $0.lock() },
            lockCommand("restart", summary: "restart the device: locked, not unlocked since restart, passcode needed before biometry",
                        details: ["afterFirstUnlock keychain items are unreadable until the passcode unlocks the device."]) { try $0.restart() },
            lockCommand("remote-lock", summary: "lock the device remotely: the passcode is needed before biometry",
                        details: []) { try $0.remoteLock() },
            passcodeCommand(),
        ]
    }

    /// A command that changes the lock state and prints it.
    private static func lockCommand(
        _ name: String, summary: String, details: [String], _ change: @escaping @Sendable (Device) throws -> Void
    ) -> Command {
        Command(name: name, summary: summary, usage: name, example: name, details: details) { session, arguments in
            try arguments.expectAtMost(0)
            try change(session.device)
            let state = try session.device.lockState()
            return CommandOutput("lock state: \(state)", result: [
                ("locked", .bool(state.isLocked)), ("unlockedSinceRestart", .bool(state.unlockedSinceRestart)),
                ("passcodeRequired", state.passcodeRequiredReason.map { .string($0) } ?? .null),
            ])
        }
    }

    private static func passcodeCommand() -> Command {
        Command(
            name: "passcode", summary: "set, clear or show the device passcode; enter it on the lock screen",
            usage: "passcode set [code] | clear | status | enter [code]", example: "passcode set 1234",
            moreExamples: ["passcode enter 0000", "passcode status"],
            details: ["enter succeeds only for the right passcode: a wrong one, a repeat, one refused during a delay or",
                      "on a disabled device fails with authenticationFailed (--json: result.entry says which).",
                      "On a terminal, set and enter without a code ask for it without echo.",
                      "Lines holding a passcode are never written to the history.",
                      "A passcode is at most 512 bytes (PAM's limit for an answer)."],
            completer: Command.firstWord(["set", "clear", "status", "enter"]),
            redactor: { words in
                guard words.count >= 2, ["set", "enter"].contains(words[0]) else { return nil }
                return [words[0]] + words.dropFirst().map { _ in "****" }
            }
        ) { session, arguments in
            let sub = try arguments.required(0, "set, clear, status or enter")
            let device = session.device
            switch sub {
            case "set":
                try arguments.expectAtMost(2)
                let code = try arguments[1] ?? session.askSecret("new passcode: ", arguments: arguments)
                try device.setPasscode(code)
                return CommandOutput("passcode set", result: [("set", true)])
            case "clear":
                try arguments.expectAtMost(1)
                try device.clearPasscode()
                return CommandOutput("passcode cleared", result: [("set", false)])
            case "status":
                try arguments.expectAtMost(1)
                let status = try device.passcodeStatus()
                return CommandOutput(Format.passcode(status), result: [("passcode", Format.passcodeJSON(status))])
            case "enter":
                try arguments.expectAtMost(2)
                let code = try arguments[1] ?? session.askSecret("passcode: ", arguments: arguments)
                guard !code.isEmpty else {
                    throw arguments.usageError("an empty passcode is not an entry (the keypad submits at least one character)")
                }
                // Only an accepted passcode unlocks: every other answer fails the command, so
                // `expect ok` cannot pass on a wrong one (`expect error authenticationFailed`);
                // `--json` still tells which answer it was (`result.entry`) and the status.
                let failure: String, entry: String
                switch try device.enterPasscode(code) {
                case .accepted:
                    return CommandOutput("passcode accepted: failure counts and biometry lockout cleared",
                                         result: [("entry", .string("accepted")),
                                                  ("passcode", Format.passcodeJSON(try device.passcodeStatus()))])
                case let .rejected(failures, delay):
                    entry = "rejected"
                    failure = "passcode rejected (\(failures) wrong)" + (delay > .zero ? "; next attempt in \(delay.compactDescription)" : "")
                case let .repeatedNotCounted(failures):
                    (entry, failure) = ("repeated", "same wrong passcode again: not counted (\(failures) wrong)")
                case let .refused(remaining):
                    (entry, failure) = ("refused", "passcode refused: delay running, \(remaining.compactDescription) remaining")
                case let .disabledNow(erased):
                    (entry, failure) = erased
                        ? ("erased", "tenth wrong passcode: the device is erased, as new (no passcode, nothing enrolled, no app's data)")
                        : ("disabled", "device disabled")
                case .deviceDisabled:
                    (entry, failure) = ("disabled", "device disabled: no passcode is accepted")
                case .notSet:
                    throw AuthenticationError(.passcodeNotSet, recovery: "Set one with passcode set <code>.")
                }
                throw FailureWithResult(AuthenticationError(.authenticationFailed, message: failure),
                                        result: [("entry", .string(entry)), ("passcode", Format.passcodeJSON(try device.passcodeStatus()))])
            default:
                throw arguments.usageError("unknown sub-command '\(sub)'")
            }
        }
    }
}

extension CommandSession {
    /// Asks for a secret without echo on a terminal; a usage error otherwise.
    func askSecret(_ prompt: String, arguments: CommandArguments) throws -> String {
        guard isInteractive, let readSecret else { throw arguments.usageError("missing the passcode") }
        guard let secret = readSecret(prompt), !secret.isEmpty else { throw arguments.usageError("no passcode entered") }
        return secret
    }
}

extension String {
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
