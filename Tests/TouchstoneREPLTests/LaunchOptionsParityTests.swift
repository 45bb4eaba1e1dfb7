import ArgumentParser
import Testing
@testable import TouchstoneCLI

/// `touchstone` reads its everyday command lines without ArgumentParser (start-up time, issue
/// 14). Whatever it reads that way must be exactly what ArgumentParser reads; everything else
/// must be left to ArgumentParser.
@Suite struct LaunchOptionsParityTests {
    /// Tokens that make up the command lines tried: every option, plain and odd values.
    static let tokens = [
        "--memory", "--json", "--strict", "--echo", "--seed", "--config", "--seed=7", "--config=c.json",
        "5", "007", "18446744073709551615", "18446744073709551616", "-1", "+3", "c.json", "script.touchstone",
        "other.touchstone", "help", "", "-", "--", "--help", "-h", "--version", "--check-store",
        "--export-store", "out.sqlite", "--memory=1", "--seed=", "--bogus", "--MEMORY", "--seed=x",
    ]

    /// ArgumentParser's reading, or nil when it refuses the line (an error, help, version).
    private func argumentParser(_ arguments: [String]) -> LaunchOptions? {
        (try? TouchstoneCommand.parse(arguments))?.launchOptions
    }

    /// Tokens of the everyday command lines only, for longer lines that the quick reader takes.
    static let everydayTokens = [
        "--memory", "--json", "--strict", "--echo", "--seed", "--config", "--seed=12", "--config=a.json",
        "1", "0", "18446744073709551615", "b.json", "s.touchstone",
    ]

    /// Compares the two readings when the quick reader takes the line; whether it did.
    @discardableResult
    private func check(_ arguments: [String]) -> Bool {
        guard let quick = LaunchOptions(everyday: arguments) else { return false }
        #expect(argumentParser(arguments) == quick, "command line \(arguments)")
        return true
    }

    @Test func everyCommandLineOfUpToThreeTokensReadsAsArgumentParserReadsIt() {
        var taken = check([]) ? 1 : 0
        for a in Self.tokens {
            if check([a]) { taken += 1 }
            for b in Self.tokens {
                if check([a, b]) { taken += 1 }
                for c in Self.tokens where check([a, b, c]) { taken += 1 }
            }
        }
        // Of the 33,825 lines, 1,590 are read without ArgumentParser, so compared.
        #expect(taken > 1_500, "only \(taken) lines were read without ArgumentParser")
    }

    @Test func randomLongerCommandLinesReadAsArgumentParserReadsThem() {
        var generator = FuzzTests.Generator(state: 14)
        var taken = 0
        for _ in 0..<3_000 {
            let count = Int.random(in: 4...8, using: &generator)
            let line = (0..<count).map { _ in
                Self.everydayTokens[Int.random(in: 0..<Self.everydayTokens.count, using: &generator)]
            }
            if check(line) { taken += 1 }
        }
        #expect(taken > 100, "only \(taken) random lines were read without ArgumentParser")
    }

    @Test func theEverydayCommandLinesSkipArgumentParser() {
        let everyday: [[String]] = [
            [], ["--memory"], ["script.touchstone"], ["--memory", "--seed", "1", "script.touchstone"],
            ["--json", "--strict", "--echo", "--config", "c.json"], ["--seed=42", "--config=c.json", "s"],
            ["s", "--memory"],
        ]
        for arguments in everyday {
            let quick = LaunchOptions(everyday: arguments)
            #expect(quick != nil, "command line \(arguments)")
            #expect(quick == argumentParser(arguments), "command line \(arguments)")
        }
        #expect(LaunchOptions(everyday: ["--memory", "--seed", "9", "x.touchstone"])
            == LaunchOptions(seed: 9, memory: true, script: "x.touchstone"))
    }

    @Test func helpVersionStoreOptionsAndMistakesAreLeftToArgumentParser() {
        let others: [[String]] = [
            ["--help"], ["-h"], ["--version"], ["--check-store"], ["--export-store", "x"], ["--bogus"],
            ["--memory", "--memory"], ["a", "b"], ["--seed"], ["--seed", "x"], ["--seed", "-1"],
            ["--seed", "18446744073709551616"], ["--config"], ["--config", "--memory"], ["--memory=yes"],
            ["--"], ["-"], [""], ["--generate-completion-script", "bash"], ["--experimental-dump-help"],
            ["--log-level", "debug"], ["--memory", "--log-level=info"],
        ]
        for arguments in others {
            #expect(LaunchOptions(everyday: arguments) == nil, "command line \(arguments)")
        }
    }
}
