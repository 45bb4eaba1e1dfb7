import Foundation
import Testing
import Touchstone
import TouchstoneBuiltins
@testable import TouchstoneCommands
@testable import TouchstoneREPL

/// The REPL's commands run in-process, without a terminal.
@Suite struct CommandSessionTests {
    func session(seed: UInt64 = 1) throws -> CommandSession {
        var composition = Composition()
        composition.seed = seed
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        return try CommandSession(composition: composition)
    }

    @Test func quotedWordsStayTogether() throws {
        #expect(try Tokenizer.split(#"evaluate biometrics "Unlock your notes" thumb"#) == ["evaluate", "biometrics", "Unlock your notes", "thumb"])
        #expect(try Tokenizer.split(#"context set fallback-title """#) == ["context", "set", "fallback-title", ""])
        #expect(try Tokenizer.split("a 'b c' d\\ e") == ["a", "b c", "d e"])
        #expect(throws: CommandError.self) { try Tokenizer.split("evaluate \"open") }
    }

    @Test func anUnknownCommandSuggestsTheNearest() async throws {
        let record = try await session().execute("evalute biometrics")
        #expect(record.error?.name == "unknownCommand")
        #expect(record.error?.message.contains("did you mean 'evaluate'?") == true)
        #expect(CommandTable.standard().suggestion(for: "enrol") == "enroll")
        #expect(CommandTable.standard().suggestion(for: "stauts") == "status")
    }

    @Test func everyCommandHasASummaryAndAnExample() {
        for command in CommandTable.standard().commands {
            #expect(!command.summary.isEmpty, "\(command.name)")
            #expect(!command.examples.isEmpty && !command.examples[0].isEmpty, "\(command.name)")
        }
    }

    @Test func errorsCarryTheLAErrorNameAndCode() async throws {
        let repl = try session()
        _ = await repl.execute("passcode set 1234")
        _ = await repl.execute("enroll thumb")
        _ = await repl.execute(#"evaluate biometrics "x" nomatch nomatch nomatch"#)
        let record = await repl.execute(#"evaluate biometrics "x" nomatch nomatch"#)
        #expect(record.text.hasPrefix("error: biometryLockout (-8): "))
        let json = record.json
        #expect(json["ok"] == false)
        #expect(json["command"] == "evaluate")
        #expect(json["error"]?["domain"] == "com.apple.LocalAuthentication")
        #expect(json["error"]?["code"] == -8)
        #expect(json["error"]?["name"] == "biometryLockout")
        #expect(ErrorReport(AuthenticationError(.biometryLockout)).matches("touchIDLockout"))
        #expect(ErrorReport(AuthenticationError(.biometryLockout)).matches("-8"))
    }

    @Test func aSuccessHasAResultObject() async throws {
        let record = try await session().execute("enroll thumb")
        #expect(record.json.serialized == #"{"command":"enroll","input":"enroll thumb","ok":true,"result":{"name":"thumb","enrolled":["thumb"]}}"#)
    }

    @Test func passcodesAreHiddenFromTheEchoedInput() async throws {
        let repl = try session()
        let set = await repl.execute("passcode set 4321")
        #expect(set.containsSecret)
        #expect(set.input == "passcode set ****")
        _ = await repl.execute("enroll thumb")
        let evaluate = await repl.execute(#"evaluate owner "Pay" fallback passcode:4321"#)
        #expect(evaluate.containsSecret)
        #expect(!evaluate.input.contains("4321"))
        #expect(!evaluate.json.serialized.contains("4321"))
        let status = await repl.execute("passcode status")
        #expect(!status.containsSecret)
    }

    @Test func expectChecksThePreviousCommandNotTheLastExpect() async throws {
        let repl = try session()
        _ = await repl.execute("can biometrics")
        #expect(await repl.execute("expect error biometryNotEnrolled").ok)
        #expect(await repl.execute("expect error -7").ok)
        let wrong = await repl.execute("expect ok")
        #expect(!wrong.ok)
        #expect(wrong.error?.name == "expectationFailed")
        #expect(await repl.execute(#"expect contains "biometryNotEnrolled (-7)""#).ok)
    }

    @Test func theVirtualClockIsKeptInStorage() async throws {
        let repl = try session()
        _ = await repl.execute("clock advance 5m")
        let record = try #require(try repl.device.storage.read(Device.virtualTimeRecord))
        #expect(try JSONDecoder().decode(Timestamp.self, from: record.value) == Timestamp.epoch.advanced(by: .seconds(300)))
        // A device opened on that storage later starts at the stored time (the record the
        // LocalAuthentication module writes too, so both share one device time).
        let later = try JSONEncoder().encode(Timestamp.epoch.advanced(by: .seconds(3600)))
        try repl.device.storage.commit([.put(Record(key: Device.virtualTimeRecord, value: later))])
        try repl.restoreClock()
        #expect(repl.device.clock.now == Timestamp.epoch.advanced(by: .seconds(3600)))
    }

    @Test func useKeepsTheDeviceAndAppSwitchesDomainState() async throws {
        let repl = try session()
        _ = await repl.execute("passcode set 1234")
        _ = await repl.execute("enroll thumb")
        _ = await repl.execute("clock advance 1m")
        #expect(await repl.execute("use sensor sim.touchid removable=true").ok)
        #expect(repl.enrolledNames == ["thumb"])
        #expect(repl.device.clock.now == Timestamp.epoch.advanced(by: .seconds(60)))
        _ = await repl.execute("can biometrics")
        let first = repl.context.evaluatedPolicyDomainState
        _ = await repl.execute("app com.example.other")
        _ = await repl.execute("can biometrics")
        #expect(first != nil)
        #expect(repl.context.evaluatedPolicyDomainState != first)
    }

    @Test func completionOffersCommandsPoliciesIdsNamesAndOptions() async throws {
        let repl = try session()
        _ = await repl.execute("enroll thumb")
        let completer = Completer(session: repl)
        #expect(completer.candidates(lineBeforeCursor: "enr") == ["enroll"])
        #expect(completer.candidates(lineBeforeCursor: "evaluate bio").contains("biometrics"))
        #expect(completer.candidates(lineBeforeCursor: "use sensor sim.f") == ["sim.faceid"])
        #expect(completer.candidates(lineBeforeCursor: "use sensor sim.faceid hard") == ["hardware="])
        #expect(completer.candidates(lineBeforeCursor: "unenroll th") == ["thumb"])
        #expect(completer.candidates(lineBeforeCursor: #"evaluate biometrics "x" no"#) == ["nomatch"])
        #expect(completer.candidates(lineBeforeCursor: "plugins det") == ["detector"])
        #expect(completer.candidates(lineBeforeCursor: "expect error biometryL") == ["biometryLockout"])
    }

    @Test func aFeatureCanRegisterCommandsFromItsOwnFile() async throws {
        var table = CommandTable.standard()
        table.register([Command(name: "greet", summary: "says hello", usage: "greet", example: "greet") { _, _ in
            CommandOutput("hello")
        }])
        var composition = Composition()
        composition.seed = 1
        let repl = try CommandSession(composition: composition, table: table)
        #expect(await repl.execute("greet").text == "hello")
        #expect(await repl.execute("help greet").text.contains("says hello"))
    }

    @Test func theREPLAddsItsRightAndLoginCommandsAboveTheHeadlessLayerInHelpOrder() {
        #expect(CommandTable.standard().command(named: "right") == nil)
        #expect(CommandTable.standard().command(named: "login") == nil)
        let names = CommandTable.repl().commands.map(\.name)
        let right = names.firstIndex(of: "right")
        #expect(right.map { Array(names[$0 + 1...$0 + 2]) } == ["login", "clock"])
        #expect(names.last == "expect")
        #expect(CommandTable.repl().command(named: "right")?.name == "right")
    }

    @Test func quitEndsTheSession() async throws {
        #expect(try await session().execute("exit").quits)
    }

    @Test func theApplicationPasswordCredentialOpensApplicationPasswordItemsAndStaysSecret() async throws {
        let repl = try session()
        _ = await repl.execute("passcode set 1234")
        let refused = await repl.execute("keychain add vault alice secret access=applicationPassword")
        #expect(!refused.ok)
        let set = await repl.execute("context set credential hunter2")
        #expect(set.ok)
        #expect(set.containsSecret)
        #expect(!set.input.contains("hunter2"))
        #expect(await repl.execute("keychain add vault alice secret access=applicationPassword").ok)
        #expect(await repl.execute("keychain get vault alice").ok)
        #expect(await repl.execute("context set credential nil").ok)
        #expect(!(await repl.execute("keychain get vault alice").ok))
    }

    @Test("a mistyped outcome (thum for thumb, cancle for cancel) is refused before any prompt, and counts no failed match")
    func aMistypedOutcomeIsRefusedAndCountsNothing() async throws {
        let repl = try session()
        _ = await repl.execute("passcode set 1234")
        _ = await repl.execute("enroll thumb")
        let thum = await repl.execute("evaluate biometrics thum")
        #expect(thum.error?.message.contains("did you mean thumb?") == true, "\(thum.text)")
        let cancle = await repl.execute("evaluate biometrics nomatch cancle")
        #expect(cancle.error?.message.contains("did you mean cancel?") == true, "\(cancle.text)")
        let keychain = await repl.execute("keychain get api alice thmub")
        #expect(keychain.error?.message.contains("did you mean thumb?") == true, "\(keychain.text)")
        #expect(try repl.device.biometryStatus().consecutiveFailures == 0)
        // A name that resembles nothing is a finger that is not enrolled: a failed match.
        let stranger = await repl.execute("evaluate biometrics pinky cancel")
        #expect(stranger.error?.name == "userCancel", "\(stranger.text)")
        #expect(try repl.device.biometryStatus().consecutiveFailures == 1)
        #expect(Outcomes.likelySlip("thumb", enrolled: ["thumb"]) == nil)
        #expect(Outcomes.likelySlip("Thumb", enrolled: ["thumb"]) == "thumb")
        #expect(Outcomes.likelySlip("falback", enrolled: []) == "fallback")
    }

    @Test("every command that takes outcomes notes the ones its prompts left unused, on success and on failure")
    func unusedOutcomesAreNotedByEveryCommand() async throws {
        let repl = try session()
        _ = await repl.execute("passcode set 1234")
        _ = await repl.execute("enroll thumb")
        _ = await repl.execute("keychain add api alice s3cret access=biometryAny")
        let get = await repl.execute("keychain get api alice thumb thumb")
        #expect(get.ok)
        #expect(get.text.hasSuffix("note: unused outcomes: thumb"), "\(get.text)")
        #expect(get.json["result"]?["unusedOutcomes"] == .strings(["thumb"]))
        let authorize = await repl.execute("keychain authorize access=biometryAny cancel nomatch")
        #expect(authorize.error?.name == "userCancel", "\(authorize.text)")
        #expect(authorize.error?.message.hasSuffix("(unused outcomes: nomatch)") == true, "\(authorize.text)")
        let evaluate = await repl.execute("evaluate biometrics thumb cancel")
        #expect(evaluate.text.components(separatedBy: "unused outcomes").count == 2, "noted once: \(evaluate.text)")
        _ = await repl.execute("context new")
        let clean = await repl.execute("keychain get api alice thumb")
        #expect(!clean.text.contains("unused"), "\(clean.text)")
    }

    @Test("identity names with control characters are refused, and the message shows them escaped")
    func identityNamesWithControlCharactersAreRefused() async throws {
        let repl = try session()
        for name in ["a\u{1B}[31mb", "a\u{7}b", "a\u{200B}b"] {
            let record = await repl.execute("enroll '\(name)'")
            #expect(record.error?.name == "invalidIdentityName", "\(record.text)")
            #expect(!record.text.contains(name), "printed raw: \(record.text.debugDescription)")
        }
        #expect(try repl.device.enrolledNames().isEmpty)
        #expect(await repl.execute("enroll Daumen-links").ok)
        // A megabyte name is refused with its first 80 characters shown, not all of it.
        let long = await repl.execute("enroll " + String(repeating: "x", count: 1 << 20))
        #expect(long.error?.name == "invalidIdentityName", "\(long.text.prefix(200))")
        #expect(long.text.contains("\"" + String(repeating: "x", count: 80) + "\"…"), "\(long.text.prefix(200))")
        #expect(long.text.utf8.count < 400, "\(long.text.prefix(200))")
    }

    @Test("a key's name is one word: an empty name or one with a space is refused and no key is made")
    func keyNamesAreOneWord() async throws {
        let repl = try session()
        for line in [#"key create """#, #"key create "a b""#, "key create 'tab\there'"] {
            let record = await repl.execute(line)
            #expect(record.error?.name == "usage", "\(record.text)")
        }
        #expect(try repl.authenticator.keys.keys(includingInvalidated: true).isEmpty)
        #expect(await repl.execute("key create signing-key").ok)
    }

    @Test("`device` shows a storage path with a new line in it escaped, on its one line")
    func storagePathWithNewLine() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-nl-\(UUID().uuidString)\nsecond")
        defer { try? FileManager.default.removeItem(at: directory) }
        var composition = Composition()
        composition.seed = 1
        composition.storage = PluginSelection("storage.sqlite", options: ["path": directory.appendingPathComponent("d.sqlite").path])
        let repl = try CommandSession(composition: composition)
        let device = await repl.execute("device")
        let lines = device.text.components(separatedBy: "\n")
        let line = try #require(lines.first { $0.hasPrefix("storage: ") }, "\(device.text)")
        #expect(line.contains("\\u{A}second/d.sqlite"), "\(line)")
        #expect(!lines.contains { $0.hasPrefix("second") }, "\(device.text)")
    }

    @Test("a composition's device setup in the REPL: the device starts set up, config prints its passcode as <redacted>, reset sets the fresh device up again and says so, use keeps the device as it is")
    func deviceSetupInTheREPL() async throws {
        var composition = Composition()
        composition.seed = 1
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        composition.device = DeviceSetup(passcode: "2468", enrolled: ["thumb"])
        let repl = try CommandSession(composition: composition)
        #expect(await repl.execute("evaluate biometrics Unlock thumb").ok)
        let config = await repl.execute("config")
        #expect(config.text.contains(#""passcode" : "<redacted>""#) || config.text.contains(#""passcode": "<redacted>""#), "\(config.text)")
        #expect(!config.text.contains("2468"))
        #expect(await repl.execute("unenroll thumb").ok)
        #expect(await repl.execute("use sensor sim.faceid").ok)
        #expect(try repl.device.enrolledNames().isEmpty, "use keeps the device: the setup is not applied again")
        let reset = await repl.execute("reset")
        #expect(reset.text.contains("passcode set") && reset.text.contains("enrolled: thumb"), "\(reset.text)")
        #expect(try repl.device.enrolledNames() == ["thumb"])
    }

    @Test("an error that echoes input never passes its control characters to the terminal")
    func errorsEscapeTheControlCharactersTheyEcho() async throws {
        let repl = try session()
        for line in ["x\u{1B}]0;owned\u{7}y", "evaluate 'bio\u{1B}[2J' Unlock", "use sensor 'sim\u{8}\u{8}x'"] {
            let record = await repl.execute(line)
            #expect(record.error != nil, "\(record.text)")
            #expect(!record.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" },
                    "printed raw: \(record.text.debugDescription)")
            #expect(record.text.contains("\\u{1B}") || record.text.contains("\\u{8}"), "\(record.text)")
        }
    }

    @Test func keychainErrorsShowTheOSStatusAndAnswerToTheirKind() async throws {
        let repl = try session()
        let missing = await repl.execute("keychain get nothing here")
        #expect(missing.error?.name == "errSecItemNotFound")
        #expect(await repl.execute("expect error -25300").ok)
        #expect(await repl.execute("expect error itemNotFound").ok)
        #expect(await repl.execute(#"expect contains "errSecItemNotFound (-25300)""#).ok)
    }

    @Test("two items whose service and account split a '/' differently print differently; a misspelt expect is named as such on a first line too")
    func itemNamesAndFirstLineExpect() async throws {
        let repl = try session()
        let first = await repl.execute("expect maybe")
        #expect(first.error?.message.contains("unknown expectation 'maybe'") == true, "\(first.text)")
        #expect(await repl.execute("keychain add a/b c v1").text.contains(#"added "a/b" "c""#))
        #expect(await repl.execute("keychain add a b/c v2").text.contains(#"added "a" "b/c""#))
        let list = await repl.execute("keychain list").text
        #expect(list.contains(#""a/b" "c""#) && list.contains(#""a" "b/c""#), "\(list)")
        #expect(await repl.execute("keychain add plain name v3").text.contains("added plain/name"))
    }

    @Test("a keychain or key error a prompt caused also answers to the LAError behind it (REFERENCE §10: userCancel, -2)")
    func promptErrorsAnswerToTheirLAError() async throws {
        let repl = try session()
        for line in ["passcode set 1234", "enroll thumb", "key create k access=biometryAny"] {
            #expect(await repl.execute(line).error == nil, "\(line)")
        }
        let cancelled = await repl.execute("key sign k msg cancel")
        #expect(cancelled.error?.name == "errSecUserCanceled")
        for expectation in ["expect error userCancel", "expect error -2", "expect error errSecUserCanceled", "expect error -128",
                            "expect error cancelled"] {
            #expect(await repl.execute(expectation).ok, "\(expectation)")
        }
        #expect(!(await repl.execute("expect error systemCancel").ok))
        #expect(cancelled.json.serialized.contains(#""laError":{"code":-2,"name":"userCancel"}"#), "\(cancelled.json.serialized)")
        // Three failed matches: authenticationFailed, by name and by code.
        _ = await repl.execute("key sign k msg nomatch nomatch nomatch")
        #expect(await repl.execute("expect error authenticationFailed").ok)
        #expect(await repl.execute("expect error -1").ok)
    }
}

/// `reset` on a persistent store.
@Suite struct REPLResetTests {
    @Test("reset --yes erases every record of a persistent store (reset alone refuses) — the sensor's templates, keychain items, keys, baselines — and keeps the virtual time")
    func resetErasesThePersistentStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-reset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var composition = Composition()
        composition.seed = 1
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        composition.storage = PluginSelection("storage.sqlite", options: ["path": directory.appendingPathComponent("d.sqlite").path])
        let repl = try CommandSession(composition: composition)
        for line in ["passcode set 1234", "enroll thumb", "keychain add api alice s3cret access=biometryCurrentSet",
                     "key create login access=biometryAny", "baseline save", "clock advance 5m"] {
            #expect(await repl.execute(line).error == nil, "\(line)")
        }
        #expect(try Set(repl.device.storage.namespaces()).isSuperset(of: ["device", "sensor", "clock"]))
        let unconfirmed = await repl.execute("reset")
        #expect(unconfirmed.error?.message.contains("reset --yes") == true, "\(unconfirmed.text)")
        #expect(try repl.device.enrolledNames() == ["thumb"], "an unconfirmed reset erases nothing")
        #expect(await repl.execute("reset --yes").error == nil)
        #expect(try repl.device.enrolledNames().isEmpty)
        #expect(try !repl.device.isPasscodeSet)
        #expect(try repl.device.storage.namespaces() == ["clock", "device"])
        #expect(await repl.execute("keychain list").text.contains("alice") == false)
        #expect(repl.device.clock.now == Timestamp.epoch.advanced(by: .seconds(300)))
    }
}
