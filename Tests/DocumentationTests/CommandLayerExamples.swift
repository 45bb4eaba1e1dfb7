// The ```swift examples of the doc comments in Sources/TouchstoneCommands and
// Sources/TouchstoneREPL, compiled here (see DocCommentExamples.swift for the rules).

import Foundation
import Touchstone
import TouchstoneBuiltins
import TouchstoneCommands
import TouchstoneREPL

// Sources/TouchstoneCommands/Command.swift
extension CommandTable {
    static func keychainCommands() -> [Command] {
        [Command(name: "keychain", summary: "...", usage: "keychain add <account>",
                     example: "keychain add alice") { session, arguments in
            CommandOutput("added")
        }]
    }
}

enum CommandLayerExamples {
    // Sources/TouchstoneCommands/JSONValue.swift
    static func jsonValue() {
        let value: JSONValue = .object([("command", "can"), ("ok", true)])
        print(value.serialized)   // {"command":"can","ok":true}
    }

    // Sources/TouchstoneSimulation/Outcomes.swift
    static func outcomes() throws {
        _ = try Outcomes.parse(["nomatch", "thumb"])          // [.noMatch, .present("thumb")]
        _ = try Outcomes.parse(list: "nomatch,passcode:1234")  // [.noMatch, .passcode("1234")]
    }

    // Sources/TouchstoneCommands/CommandSession.swift
    static func featureState(session: CommandSession) {
        enum VisitsKey: CommandSessionStateKey { static var initial: Int { 0 } }
        session[state: VisitsKey.self] += 1
    }

    // Sources/TouchstoneCommands/CommandSession.swift
    static func session() async throws {
        let session = try CommandSession(composition: Composition())
        let record = await session.execute("enroll thumb")
        print(record.ok)
    }

    // Sources/TouchstoneCommands/CommandSession.swift
    static func wrapping(_ authenticator: Authenticator) async throws -> CommandRecord {
        let session = try CommandSession(authenticator: authenticator)
        let record = await session.execute(#"evaluate biometrics "Unlock notes" nomatch"#)
        return record
    }

    // Sources/TouchstoneCommands/Tokenizer.swift
    static func tokenizer() throws {
        _ = try Tokenizer.split(#"evaluate biometrics "Unlock notes" thumb"#)
        // ["evaluate", "biometrics", "Unlock notes", "thumb"]
        _ = try Tokenizer.words(#"evaluate biometrics 'Unlock notes' thumb"#).map(\.quoted)
        // [false, false, true, false]
        _ = Tokenizer.commands("passcode set 1234; enroll thumb  # ready\nevaluate owner \"Pay; now\" passcode:1234")
        // ["passcode set 1234", "enroll thumb", "evaluate owner \"Pay; now\" passcode:1234"]
    }

    // Sources/TouchstoneCommands/VirtualTimeKeeper.swift
    static func virtualTime(_ device: Device) throws {
        var time = try VirtualTimeKeeper(restoring: device)
        device.clock.manual?.advance(by: .seconds(300))
        try time.save(device)   // written once; unchanged time is not written again
    }

    // Sources/TouchstoneREPL/REPLHost.swift
    static func host() async throws -> Int32 {
        let host = REPLHost(session: try CommandSession(composition: Composition()), options: REPLOptions())
        let status = await host.runScript(lines: ["enroll thumb", "expect ok"], name: "inline")
        return status
    }
}
