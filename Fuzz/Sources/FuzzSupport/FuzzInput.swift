import CFuzzDriver
import Foundation

/// The fuzzer's bytes read as a sequence of choices: each read takes bytes from the front and
/// yields a value in range, and reads past the end yield zeros (so every input is a program).
public struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    /// The input at `start`, `count` bytes long (libFuzzer's arguments).
    public init(_ start: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = ArraySlice(UnsafeBufferPointer(start: start, count: start == nil ? 0 : count))
    }

    /// Whether every byte was read.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The next byte (0 past the end).
    public mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    /// A whole number in `range`, from the next one or two bytes.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = range.upperBound - range.lowerBound
        guard span > 0 else { return range.lowerBound }
        let raw = span > 255 ? Int(byte()) << 8 | Int(byte()) : Int(byte())
        return range.lowerBound + raw % (span + 1)
    }

    /// One of `choices` (which must not be empty).
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[int(in: 0...(choices.count - 1))]
    }

    /// Whether the next byte is odd.
    public mutating func bool() -> Bool {
        byte() & 1 == 1
    }

    /// The next bytes: a length byte (at most `maxCount`), then that many bytes.
    public mutating func data(maxCount: Int = 255) -> Data {
        let count = int(in: 0...maxCount)
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return Data(taken)
    }

    /// Every byte left.
    public mutating func rest() -> Data {
        defer { bytes = [] }
        return Data(bytes)
    }
}

/// The environment variable naming the folder seeds are written to.
private let seedsVariable = "TOUCHSTONE_FUZZ_SEEDS"

/// The target, for the C callback (which captures nothing).
nonisolated(unsafe) private var target: ((inout FuzzInput) -> Void)?

/// Runs libFuzzer with the process's arguments, calling `body` with each input, and exits
/// with its status. A target's main sets up what every run shares, then calls this.
public func fuzz(_ body: @escaping (inout FuzzInput) -> Void) -> Never {
    // Asked only for seeds or a dictionary (``writeSeedsIfAsked(_:)``,
    // ``writeDictionaryIfAsked(_:)``): a target with none has none to write.
    let environment = ProcessInfo.processInfo.environment
    if environment[seedsVariable] != nil || environment[dictionaryVariable] != nil { exit(0) }
    target = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        var input = FuzzInput(data, size)
        target?(&input)
        return 0
    }
    exit(status)
}

/// Writes `seeds` as files named `<prefix>-<n>` into the folder named by the environment
/// variable `TOUCHSTONE_FUZZ_SEEDS` and exits, when it is set: `scripts/fuzz.sh` fills each
/// target's corpus with valid inputs this way before fuzzing. Otherwise returns.
public func writeSeedsIfAsked(_ seeds: () throws -> [Data]) {
    guard let folder = ProcessInfo.processInfo.environment[seedsVariable] else { return }
    writeAndExit("the seeds") {
        for (index, seed) in try seeds().enumerated() {
            try seed.write(to: URL(fileURLWithPath: folder).appendingPathComponent("seed-\(index)"))
        }
    }
}

/// Runs `write` and exits: 0 when it wrote, else 1 with what could not be written.
private func writeAndExit(_ what: String, _ write: () throws -> Void) -> Never {
    do {
        try write()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("could not write \(what): \(error)\n".utf8))
        exit(1)
    }
}

/// The environment variable naming the file a dictionary is written to.
private let dictionaryVariable = "TOUCHSTONE_FUZZ_DICTIONARY"

/// Writes `words` as a libFuzzer dictionary (one quoted entry per line) to the file named by
/// the environment variable `TOUCHSTONE_FUZZ_DICTIONARY` and exits, when it is set:
/// `scripts/fuzz.sh` passes it to the run with `-dict=`, so that the mutations splice in the
/// words a text format is made of. Otherwise returns.
public func writeDictionaryIfAsked(_ words: () -> [String]) {
    guard let path = ProcessInfo.processInfo.environment[dictionaryVariable] else { return }
    let entries = Set(words()).filter { !$0.isEmpty }.sorted().map { word in
        // Printable ASCII as it is but the quote and the backslash; every other byte as \xNN.
        let escaped = word.utf8.map { byte -> String in
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): "\\" + String(UnicodeScalar(byte))
            case 0x20...0x7E: String(UnicodeScalar(byte))
            default: "\\x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return "\"" + escaped.joined() + "\""
    }
    writeAndExit("the dictionary") {
        try Data((entries.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
