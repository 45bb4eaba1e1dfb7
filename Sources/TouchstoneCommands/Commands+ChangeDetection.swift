import Touchstone
import TouchstoneSimulation

extension CommandTable {
    /// `state`, `baseline`, `check`.
    static func changeDetectionCommands() -> [Command] {
        [
            Command(
                name: "state", summary: "the context's domain state (hex or nil), its parts, and the app's baselines",
                usage: "state", example: "state",
                details: ["evaluatedPolicyDomainState is captured by a successful can or biometric evaluate on this context."]
            ) { session, arguments in
                try arguments.expectAtMost(0)
                let context = session.context
                let domain = context.domainState
                let accounts = try session.authenticator.detector.accounts(in: session.authenticator)
                let companions = domain.companion.availableCompanionTypes.map(\.rawValue).sorted()
                return CommandOutput([
                    "evaluatedPolicyDomainState: \(Format.hex(context.evaluatedPolicyDomainState))",
                    "domainState.biometry.stateHash: \(Format.hex(domain.biometry.stateHash))",
                    "domainState.biometry.biometryType: \(domain.biometry.biometryType)",
                    "domainState.companion.stateHash: \(Format.hex(domain.companion.stateHash))",
                    "domainState.companion.availableCompanionTypes: \(Format.list(companions))",
                    "domainState.stateHash: \(Format.hex(domain.stateHash))",
                    "baselines (\(session.authenticator.appID)): \(Format.list(accounts))",
                ], result: [
                    ("evaluatedPolicyDomainState", Format.hexJSON(context.evaluatedPolicyDomainState)),
                    ("domainState", .object([
                        ("biometry", .object([("stateHash", Format.hexJSON(domain.biometry.stateHash)),
                                              ("biometryType", .string(domain.biometry.biometryType.description))])),
                        ("companion", .object([("stateHash", Format.hexJSON(domain.companion.stateHash)),
                                               ("availableCompanionTypes", .strings(companions))])),
                        ("stateHash", Format.hexJSON(domain.stateHash)),
                    ])),
                    ("app", .string(session.authenticator.appID)),
                    ("baselines", .strings(accounts)),
                ])
            },
            Command(
                name: "baseline", summary: "save, clear or list the change detector's baselines of the current app",
                usage: "baseline [save [account] | clear [account]]", example: "baseline save",
                moreExamples: ["baseline save alice", "baseline clear alice", "baseline"],
                details: ["The account defaults to 'default'. Saving reads the current state as seed 000 does."],
                completer: Command.firstWord(["save", "clear"])
            ) { session, arguments in
                try arguments.expectAtMost(2)
                let authenticator = session.authenticator
                switch arguments[0] {
                case nil:
                    let accounts = try authenticator.detector.accounts(in: authenticator)
                    return CommandOutput("baselines (\(authenticator.appID)): \(Format.list(accounts))",
                                         result: [("app", .string(authenticator.appID)), ("baselines", .strings(accounts))])
                case "save":
                    let account = arguments[1] ?? "default"
                    try authenticator.saveBaseline(account: account)
                    return CommandOutput("baseline saved for '\(account)' (\(authenticator.composition.detector.id))",
                                         result: [("account", .string(account)), ("detector", .string(authenticator.composition.detector.id))])
                case "clear":
                    let account = arguments[1] ?? "default"
                    try authenticator.clearBaseline(account: account)
                    return CommandOutput("baseline cleared for '\(account)'", result: [("account", .string(account))])
                case let other?:
                    throw arguments.usageError("unknown sub-command '\(other)'")
                }
            },
            Command(
                name: "check", summary: "the change detector's verdict: not-enabled, unchanged, changed or unknown",
                usage: "check [account]", example: "check",
                completer: { session, previous in
                    previous.isEmpty ? ((try? session.authenticator.detector.accounts(in: session.authenticator)) ?? []) : []
                }
            ) { session, arguments in
                try arguments.expectAtMost(1)
                let account = arguments[0] ?? "default"
                let verdict = try session.authenticator.checkForChange(account: account)
                let advice: String
                switch verdict {
                case .notEnabled: advice = "no baseline: biometric login is off"
                case .unchanged: advice = "the enrolled set is as when the baseline was saved: use biometrics"
                case .changed: advice = "differs from the baseline (the enrolled set changed, or an OS upgrade changed the domain state): clear the baseline and ask for the app's own password"
                case .unknown: advice = "the current state cannot be read (locked out or unavailable): neither changed nor unchanged"
                }
                return CommandOutput("\(verdict.rawValue): \(advice)",
                                     result: [("account", .string(account)), ("verdict", .string(verdict.rawValue))])
            },
        ]
    }

    /// `clock`.
    static func timeCommands() -> [Command] {
        [
            Command(
                name: "clock", summary: "show the device time, or advance the virtual clock",
                usage: "clock [advance <duration>]", example: "clock advance 5m",
                moreExamples: ["clock advance 90s", "clock advance 1h"],
                details: ["The virtual clock stops at t+72999d, a day short of its 200-year range, so a passcode delay started there still runs; a longer advance (or wait:) is an error."],
                completer: Command.firstWord(["advance"])
            ) { session, arguments in
                try arguments.expectAtMost(2)
                let clock = session.device.clock
                switch arguments[0] {
                case nil:
                    break
                case "advance":
                    let text = try arguments.required(1, "the duration (90s, 5m, 1h)")
                    guard let duration = Duration(compact: text) else {
                        throw arguments.usageError("'\(text)' is not a duration from \(Duration.compactRangeDescription), such as 90s, 5m or 1h")
                    }
                    guard let virtual = clock.manual else {
                        throw UsageError.notSimulated("clock advance (the device runs on the wall clock)")
                    }
                    guard virtual.remaining >= duration else {
                        throw arguments.usageError("the device clock cannot go past \(Timestamp.latestReading) (it reads \(clock.now)); advance by at most \(virtual.remaining.compactDescription)")
                    }
                    virtual.advance(by: duration)
                case let other?:
                    throw arguments.usageError("unknown sub-command '\(other)'")
                }
                let kind = clock.manual != nil ? "virtual" : "wall"
                return CommandOutput("clock: \(clock.now) (\(kind))",
                                     result: [("now", .string(clock.now.description)), ("kind", .string(kind))])
            },
        ]
    }
}
