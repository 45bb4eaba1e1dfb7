import Foundation
import Touchstone

extension CommandTable {
    /// `expect`.
    static func expectationCommands() -> [Command] {
        [
            Command(
                name: "expect", summary: "assert on the previous command: ok, an error, or text in its output",
                usage: "expect ok | error <name-or-code> | contains \"<text>\"", example: "expect error biometryLockout",
                moreExamples: ["expect error -8", "expect ok", "expect contains \"changed\""],
                details: ["error takes a case name or a raw code; a keychain or key error also answers to its kind",
                          "([itemNotFound]) and, when a prompt caused it, to the LAError behind it (userCancel, -2).",
                          "In a script the first failing expect stops it with exit status 1.",
                          "An expect line that cannot be read (an unbalanced quote) or a misspelt one (expcet) fails the same way."],
                isExpectation: true,
                completer: { _, previous in
                    switch previous.count {
                    case 0: return ["ok", "error", "contains"]
                    case 1 where previous[0] == "error": return AuthenticationError.Code.allCases.map(\.name)
                    default: return []
                    }
                }
            ) { session, arguments in
                let word = try arguments.required(0, "ok, error or contains")
                // A misspelt expectation is named as such, also on a script's first line.
                guard let kind = ExpectationKind(rawValue: word) else {
                    throw arguments.usageError("unknown expectation '\(word)'")
                }
                guard let previous = session.previous else {
                    throw CommandError.expectationFailed(expectation: arguments.words.joined(separator: " "), actual: "there is no previous command")
                }
                let subject = "'\(previous.input)'"
                let happened = previous.error.map { "\(subject) failed with \($0.text)" } ?? "\(subject) succeeded"
                switch kind {
                case .ok:
                    try arguments.expectAtMost(1)
                    guard previous.ok else { throw CommandError.expectationFailed(expectation: "ok", actual: happened) }
                case .error:
                    try arguments.expectAtMost(2)
                    let expected = try arguments.required(1, "the error name or code")
                    guard let error = previous.error, error.matches(expected) else {
                        throw CommandError.expectationFailed(expectation: "error \(expected)", actual: happened)
                    }
                case .contains:
                    try arguments.expectAtMost(2)
                    let text = try arguments.required(1, "the text")
                    guard !text.isEmpty else { throw arguments.usageError("give the text to look for (\"\" is in every output)") }
                    guard previous.text.contains(text) else {
                        throw CommandError.expectationFailed(
                            expectation: "output containing \"\(text)\"",
                            actual: "\(subject) printed: \(previous.text.replacingOccurrences(of: "\n", with: " / "))")
                    }
                }
                return CommandOutput([], result: [("expectation", .string(arguments.words.joined(separator: " "))), ("holds", true)])
            },
        ]
    }
}

/// What `expect` can check.
private enum ExpectationKind: String {
    case ok, error, contains
}
