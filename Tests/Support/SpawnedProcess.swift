import CTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests, started with `posix_spawn` and reaped with `waitpid`.
///
/// It stands in for Foundation's `Process` in the test bundle: there, `Process` learns of a
/// child's exit from SIGCHLD, and in a test runner whose threads block signals (and where
/// other tests spawn and reap their own children) that notice can be lost, leaving
/// `waitUntilExit()` spinning over a child that has long exited. Here the exit is read from
/// `waitpid` on the child's own pid. The API is the subset of `Process` the tests use.
public final class SpawnedProcess: @unchecked Sendable {
    /// The program to run.
    public var executableURL: URL?
    /// Its arguments (without the program name).
    public var arguments: [String] = []
    /// Its environment; nil inherits the test process's.
    public var environment: [String: String]?
    /// Its working directory; nil inherits the test process's.
    public var currentDirectoryURL: URL?
    /// Standard input: a `Pipe`, a `FileHandle`, or nil for /dev/null.
    public var standardInput: Any?
    /// Standard output: a `Pipe`, a `FileHandle`, or nil for /dev/null.
    public var standardOutput: Any?
    /// Standard error: a `Pipe`, a `FileHandle`, or nil for /dev/null.
    public var standardError: Any?

    /// The child's pid once running (0 before).
    public private(set) var processIdentifier: pid_t = 0
    private let state = NSLock()
    private var waitStatus: Int32?

    /// A process not started yet.
    public init() {}

    /// Starts the child. Throws when it cannot be spawned.
    public func run() throws {
        guard let executableURL else { throw CocoaError(.fileNoSuchFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentCloses: [FileHandle] = []
        for (target, stream, reading) in [(Int32(0), standardInput, true), (1, standardOutput, false), (2, standardError, false)] {
            switch stream {
            case let pipe as Pipe:
                let childEnd = reading ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                if !parentCloses.contains(where: { $0 === childEnd }) { parentCloses.append(childEnd) }
            case let handle as FileHandle:
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            default:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", reading ? O_RDONLY : O_WRONLY, 0)
            }
        }
        // Every other descriptor of this process (other tests' pipes) stays out of the child:
        // an inherited write end would keep a reader of this child's output waiting forever.
        ts_spawn_actions_close_from(&actions, 3)
        // The child runs in its directory through the shell's `cd`, then `exec`s the program.
        var program = executableURL.path
        var argv = [program] + arguments
        if let directory = currentDirectoryURL?.path {
            program = "/bin/sh"
            argv = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", directory, executableURL.path] + arguments
        }
        let cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        let cEnvironment: [UnsafeMutablePointer<CChar>?] = (environment ?? ProcessInfo.processInfo.environment)
            .map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        // The test runner's threads block or ignore signals; the child starts with defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, cArguments, cEnvironment)
        guard result == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executableURL.path,
                                                       NSLocalizedDescriptionKey: String(cString: strerror(result))])
        }
        processIdentifier = pid
        // The child holds its ends now; the parent's copies would keep a reader from seeing EOF.
        // Through the handles, so that they know (a raw close would be repeated by their deinit).
        for handle in parentCloses { try? handle.close() }
    }

    /// Waits for the child to exit (at most once for real; later calls return at once).
    public func waitUntilExit() {
        state.lock()
        defer { state.unlock() }
        guard waitStatus == nil, processIdentifier > 0 else { return }
        var status: Int32 = 0
        while waitpid(processIdentifier, &status, 0) < 0 {
            guard errno == EINTR else { waitStatus = -1; return }
        }
        waitStatus = status
    }

    /// The exit status, or the signal number for a child killed by a signal (as `Process`).
    public var terminationStatus: Int32 {
        state.lock()
        defer { state.unlock() }
        guard let status = waitStatus else { return -1 }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }
}
