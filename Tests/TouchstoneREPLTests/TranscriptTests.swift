import Foundation
import Testing
import TestSupport

/// Script files under `Tests/Transcripts` run through the built `touchstone` binary; the
/// output (standard output and error) and exit status must equal the `.expected` file.
///
/// A script's first `# args:` line gives the command-line flags. Run with
/// `UPDATE_TRANSCRIPTS=1` to rewrite the expected files after an intended change.
@Suite struct TranscriptTests {
    static let directory = Binary.packageRoot.appendingPathComponent("Tests/Transcripts")

    static let scripts: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".touchstone") }.sorted()
    }()

    @Test func theSeedScenariosHaveTranscripts() {
        for name in ["lockout-and-passcode-recovery", "enrollment-change-baseline", "faceid-cancel-fallback", "passcode-delay-ladder"] {
            #expect(Self.scripts.contains(name + ".touchstone"))
        }
    }

    @Test(arguments: scripts)
    func transcriptMatches(_ script: String) throws {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        let source = try String(contentsOf: Self.directory.appendingPathComponent(script), encoding: .utf8)
        let arguments = source.split(separator: "\n").first { $0.hasPrefix("# args:") }
            .map { $0.dropFirst("# args:".count).split(separator: " ").map(String.init) } ?? []
        let run = try Binary.run(binary, arguments + [script], in: Self.directory)
        let actual = Self.maskingSignatures(run.output) + "[exit \(run.status)]\n"
        let expectedURL = Self.directory.appendingPathComponent(script.replacingOccurrences(of: ".touchstone", with: ".expected"))
        if ProcessInfo.processInfo.environment["UPDATE_TRANSCRIPTS"] == "1" {
            try actual.write(to: expectedURL, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        if actual != expected {
            let actualLines = actual.components(separatedBy: "\n")
            let expectedLines = expected.components(separatedBy: "\n")
            let first = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actualLines.count, expectedLines.count)
            Issue.record("""
                \(script) differs from its .expected at output line \(first + 1):
                  expected: \(first < expectedLines.count ? expectedLines[first] : "<end>")
                  actual:   \(first < actualLines.count ? actualLines[first] : "<end>")
                (UPDATE_TRANSCRIPTS=1 rewrites the expected files)
                """)
        }
    }

    /// ECDSA signatures are randomized: their hex after `signature (DER): ` (and in `--json`,
    /// `"signature":"`) is replaced by `<DER signature>` so transcripts stay comparable.
    static func maskingSignatures(_ output: String) -> String {
        var masked = output
        for marker in ["signature (DER): ", "\"signature\":\""] {
            var searchStart = masked.startIndex
            while let range = masked.range(of: marker, range: searchStart ..< masked.endIndex) {
                let hexEnd = masked[range.upperBound...].firstIndex { !$0.isHexDigit } ?? masked.endIndex
                masked.replaceSubrange(range.upperBound ..< hexEnd, with: "<DER signature>")
                searchStart = masked.index(range.upperBound, offsetBy: "<DER signature>".count)
            }
        }
        return masked
    }

    @Test func aScriptOnStandardInputRunsWithoutPrompts() throws {
        let binary = try #require(Binary.touchstone)
        let run = try Binary.run(binary, ["--seed", "1"], input: "# comment\n\nenroll thumb\nexpect ok\ndevice\n")
        #expect(run.status == 0)
        #expect(!run.output.contains("touchstone>"))
        #expect(run.output.hasPrefix("enrolled thumb"))
    }

    @Test("names and values with control characters are printed escaped, and expect sees them as stored")
    func outputNeverPassesControlCharactersToTheTerminal() throws {
        let binary = try #require(Binary.touchstone)
        let script = "keychain add 'sv\u{1B}[2Jc' acct 'v\u{7}al'\nkeychain list\nkeychain get 'sv\u{1B}[2Jc' acct\n"
            + "expect contains 'v\u{7}al'\nexpect contains 'v\u{7}alx'\n"
        let run = try Binary.run(binary, ["--memory"], input: script)
        // The second expect fails (and ends the script): the first matched the raw value.
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("sv\\u{1B}[2Jc/acct  genericPassword"), "\(run.output)")
        #expect(run.output.contains("ok: v\\u{7}al"), "\(run.output)")
        #expect(run.output.contains("<stdin>:5: expect contains 'v\\u{7}alx' failed"), "\(run.output)")
        let more = try Binary.run(binary, ["--memory", "--echo"], input: "app 'com.\u{1B}]0;x\u{7}y'\nbogus\u{1B}[31m\n")
        // An app id with control characters is refused, and the refusal shows them escaped.
        #expect(more.output.contains("\"com.\\u{1B}]0;x\\u{7}y\" is not an app id"), "\(more.output)")
        #expect(more.output.contains("unknown command 'bogus\\u{1B}[31m'"), "\(more.output)")
        for output in [run.output, more.output] {
            #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(output.debugDescription)")
        }
    }

    @Test("an expect line that cannot be read, or a misspelt expect, fails the script instead of vanishing",
          arguments: ["expect contains \"ok", "expcet ok", "expect 'ok"])
    func unreadableExpectationFailsTheScript(_ line: String) throws {
        let binary = try #require(Binary.touchstone)
        let run = try Binary.run(binary, ["--memory"], input: "can biometrics\n\(line)\ndevice\n")
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("<stdin>:2: "), "\(run.output)")
        // An unknown command that is not meant as an expectation still lets the script go on.
        let other = try Binary.run(binary, ["--memory"], input: "bogus\nenroll \"thumb\ndevice\n")
        #expect(other.status == 0, "\(other.output)")
    }

    @Test func aMissingOutcomeInAScriptIsAnErrorNotAHang() throws {
        let binary = try #require(Binary.touchstone)
        let run = try Binary.run(binary, ["--seed", "1"], input: "passcode set 1234\nenroll thumb\nevaluate biometrics \"x\"\nexpect error noScriptedOutcome\n")
        #expect(run.status == 0)
        #expect(run.output.contains("error: noScriptedOutcome"))
    }

    @Test func versionAndHelpFlags() throws {
        let binary = try #require(Binary.touchstone)
        let version = try Binary.run(binary, ["--version"])
        #expect(version.status == 0)
        #expect(version.output.contains("0."))
        let help = try Binary.run(binary, ["--help"])
        #expect(help.output.contains("--json"))
        #expect(help.output.contains("--config"))
        #expect(help.output.contains("--seed"))
        #expect(help.output.contains("--memory"))
    }

    @Test func configPrintedByTheREPLIsAcceptedByConfig() throws {
        let binary = try #require(Binary.touchstone)
        // The printed configuration names the store by its path: both runs use one data folder.
        let scratch = try makeScratchDirectory("touchstone-config")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let data = ["XDG_DATA_HOME": scratch.appendingPathComponent("data").path]
        let printed = try Binary.run(binary, ["--seed", "3"], input: "use sensor sim.faceid\napp com.example.notes\nconfig\n", environment: data)
        let json = printed.output.components(separatedBy: "\n").drop { !$0.hasPrefix("{") }.joined(separator: "\n")
        let file = scratch.appendingPathComponent("config.json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        let run = try Binary.run(binary, ["--config", file.path], input: "device\napp\n", environment: data)
        #expect(run.status == 0)
        #expect(run.output.contains("biometry: faceID (sim.faceid)"))
        #expect(run.output.contains("app: com.example.notes"))
    }
}
