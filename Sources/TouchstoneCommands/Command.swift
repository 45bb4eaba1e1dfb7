import Touchstone

/// What a command printed: lines for people and a `result` object for `--json`.
public struct CommandOutput: Sendable {
    /// Lines for the human form.
    public var lines: [String]
    /// The `result` object of the `--json` form.
    public var result: [(String, JSONValue)]

    /// Creates output.
    public init(_ lines: [String] = [], result: [(String, JSONValue)] = []) {
        self.lines = lines
        self.result = result
    }

    /// One line of text, with a result object.
    public init(_ line: String, result: [(String, JSONValue)] = []) {
        self.init([line], result: result)
    }

    /// The human form as one text.
    public var text: String { lines.joined(separator: "\n") }
}

/// The words a command was called with (after its name), with helpers that fail with a usage
/// error naming the command.
public struct CommandArguments: Sendable {
    /// The command being run.
    public let command: Command
    /// The words after the command name.
    public let words: [String]
    /// Whether each word was quoted (same indices as ``words``).
    public let quoted: [Bool]

    /// Creates arguments; `quoted` says which words were quoted (none when omitted).
    public init(command: Command, words: [String], quoted: [Bool] = []) {
        self.command = command
        self.words = words
        self.quoted = quoted
    }

    /// The word at `index`, or nil.
    public subscript(index: Int) -> String? {
        words.indices.contains(index) ? words[index] : nil
    }

    /// Whether the word at `index` was written in quotes.
    public func isQuoted(_ index: Int) -> Bool {
        quoted.indices.contains(index) && quoted[index]
    }

    /// The word at `index`, or a usage error saying `what` is missing.
    public func required(_ index: Int, _ what: String) throws(CommandError) -> String {
        guard let word = self[index] else { throw usageError("missing \(what)") }
        return word
    }

    /// Fails when more than `count` words were given.
    public func expectAtMost(_ count: Int) throws(CommandError) {
        if words.count > count {
            throw usageError("unexpected '\(words[count])'")
        }
    }

    /// A usage error for this command.
    public func usageError(_ problem: String) -> CommandError {
        .usage(command: command.name, problem: problem, usage: command.usage)
    }
}

/// One REPL command: its name, help, completion and what it does.
///
/// Commands live in a ``CommandTable``. A feature adds its commands from its own file:
///
/// ```swift
/// extension CommandTable {
///     static func keychainCommands() -> [Command] {
///         [Command(name: "keychain", summary: "...", usage: "keychain add <account>",
///                      example: "keychain add alice") { session, arguments in
///             CommandOutput("added")
///         }]
///     }
/// }
/// ```
/// and lists them once in ``CommandTable/standard()``.
public struct Command: Sendable {
    /// Runs the command, on the executor of the caller of ``CommandSession/execute(_:)``.
    public typealias Handler = nonisolated(nonsending) @Sendable (CommandSession, CommandArguments) async throws -> CommandOutput
    /// Candidates for the next word, given the words already typed after the command name.
    public typealias Completer = @Sendable (CommandSession, [String]) -> [String]
    /// The words with secrets replaced by `****`, or nil when there is none.
    public typealias Redactor = @Sendable ([String]) -> [String]?

    /// The name typed.
    public var name: String
    /// Other names that run it.
    public var aliases: [String]
    /// One line for `help`.
    public var summary: String
    /// The usage line, e.g. `enroll <name>`.
    public var usage: String
    /// Examples for `help <command>`; the first is shown in the overview.
    public var examples: [String]
    /// More explanation for `help <command>`.
    public var details: [String]
    /// Whether this is an assertion on the previous command (`expect`).
    public var isExpectation: Bool
    /// Completion of its arguments.
    public var completer: Completer
    /// Hides secrets from history, echo and `--json` input.
    public var redactor: Redactor
    /// What it does.
    public var handler: Handler

    /// Creates a command.
    public init(
        name: String, aliases: [String] = [], summary: String, usage: String,
        example: String, moreExamples: [String] = [], details: [String] = [],
        isExpectation: Bool = false,
        completer: @escaping Completer = { _, _ in [] },
        redactor: @escaping Redactor = { _ in nil },
        handler: @escaping Handler
    ) {
        self.name = name
        self.aliases = aliases
        self.summary = summary
        self.usage = usage
        self.examples = [example] + moreExamples
        self.details = details
        self.isExpectation = isExpectation
        self.completer = completer
        self.redactor = redactor
        self.handler = handler
    }

    /// A completer offering `choices` for the first argument.
    public static func firstWord(_ choices: [String]) -> Completer {
        { _, previous in previous.isEmpty ? choices : [] }
    }
}

/// The commands a REPL knows, looked up by name or alias.
public struct CommandTable: Sendable {
    /// The commands, in `help` order.
    public private(set) var commands: [Command] = []
    private var index: [String: Int] = [:]

    /// An empty table.
    public init() {}

    /// Every built-in command of the headless layer. Features add theirs here, one line each
    /// (a module above this one adds its own with ``register(_:)`` or
    /// ``register(_:before:)``, as the REPL does for `right`).
    public static func standard() -> CommandTable {
        var table = CommandTable()
        table.register(metaCommands())
        table.register(compositionCommands())
        table.register(deviceCommands())
        table.register(contextCommands())
        table.register(evaluationCommands())
        table.register(changeDetectionCommands())
        table.register(keychainCommands())
        table.register(keyCommands())
        table.register(appAttestCommands())
        table.register(timeCommands())
        table.register(expectationCommands())
        return table
    }

    /// Adds commands; a later command with a taken name or alias replaces the earlier one.
    public mutating func register(_ new: [Command]) {
        for command in new {
            if let existing = index[command.name] {
                commands[existing] = command
            } else {
                commands.append(command)
            }
            let position = index[command.name] ?? commands.count - 1
            for name in [command.name] + command.aliases {
                index[name] = position
            }
        }
    }

    /// Adds commands as ``register(_:)`` does, placing the new ones just before the command
    /// called `name` in `help` order (at the end when there is none).
    public mutating func register(_ new: [Command], before name: String) {
        register(new)
        guard let anchor = commands.firstIndex(where: { $0.name == name }) else { return }
        let names = Set(new.map(\.name))
        let moved = commands.filter { names.contains($0.name) }
        var reordered = commands.filter { !names.contains($0.name) }
        let position = reordered.firstIndex(where: { $0.name == name }) ?? anchor
        reordered.insert(contentsOf: moved, at: position)
        commands = reordered
        index = [:]
        for (position, command) in commands.enumerated() {
            for alias in [command.name] + command.aliases { index[alias] = position }
        }
    }

    /// The command called `name` (or aliased so).
    public func command(named name: String) -> Command? {
        index[name].map { commands[$0] } ?? index[name.lowercased()].map { commands[$0] }
    }

    /// Every name and alias.
    public var allNames: [String] {
        index.keys.sorted()
    }

    /// The known name nearest to `name` (edit distance at most 3, or a prefix match).
    public func suggestion(for name: String) -> String? {
        let lowered = name.lowercased()
        if let prefixed = commands.map(\.name).first(where: { $0.hasPrefix(lowered) }) {
            return prefixed
        }
        var best: (String, Int)?
        let length = lowered.count
        for candidate in allNames {
            // No suggestion is more than 3 edits away, so a name whose length differs by more
            // cannot be one: skipped before the quadratic distance (a 1 MB word stays cheap).
            guard abs(length - candidate.count) <= 3 else { continue }
            let distance = editDistance(lowered, candidate)
            if distance <= max(1, min(3, candidate.count / 2)), best.map({ distance < $0.1 }) ?? true {
                best = (candidate, distance)
            }
        }
        return best.map { index[$0.0].map { commands[$0].name } ?? $0.0 }
    }
}

/// Edit distance between two strings, by characters: insertions, deletions, substitutions and
/// transpositions of neighbours (`stauts` is one step from `status`).
func editDistance(_ lhs: String, _ rhs: String) -> Int {
    let a = Array(lhs), b = Array(rhs)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], beforePrevious[j - 2] + 1)
            }
        }
        (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
}

extension Command {
    /// The redactor most commands need: every `passcode:<code>` outcome becomes
    /// `passcode:****`, and, when the first word is one of `verbs`, the word at `index` (a value
    /// or password) becomes `****`. Nil when nothing was hidden.
    public static func redacting(wordAt index: Int? = nil, after verbs: Set<String> = []) -> Redactor {
        { words in
            var redacted = words
            var changed = false
            if let index, let verb = words.first, verbs.contains(verb), redacted.count > index {
                redacted[index] = "****"
                changed = true
            }
            for position in redacted.indices where redacted[position].lowercased().hasPrefix("passcode:") {
                redacted[position] = "passcode:****"
                changed = true
            }
            return changed ? redacted : nil
        }
    }
}

