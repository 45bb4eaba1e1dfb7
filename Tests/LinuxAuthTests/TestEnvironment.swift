import Foundation
import Testing

/// Why the test environment could not be set up. Tests fail with it; they never skip.
struct EnvironmentFailure: Error, CustomStringConvertible {
    var description: String
}

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Runs `executable` with `arguments` (posix_spawn and waitpid: Foundation's `Process`
/// never reaped the script here and `waitUntilExit` hung); returns its standard output, or
/// throws with its standard error when it fails. Output goes through temporary files, so
/// daemons the tool leaves running cannot hold a pipe open.
func runTool(_ executable: String, _ arguments: [String]) throws -> String {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-tool-\(UUID().uuidString)").path
    let outPath = base + ".out", errPath = base + ".err"
    defer {
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        argv.forEach { free($0) }
        envp.forEach { free($0) }
    }
    // The test runner's threads block or ignore signals; the daemons the script starts would
    // inherit that and ignore `stop`'s SIGTERM. Start the tool with a clean slate.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
    guard spawned == 0 else {
        throw EnvironmentFailure(description: "cannot run \(executable): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { throw EnvironmentFailure(description: "waitpid \(executable): \(String(cString: strerror(errno)))") }
    }
    let out = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    // WIFEXITED && WEXITSTATUS == 0
    guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
        throw EnvironmentFailure(description: "\(executable) \(arguments.joined(separator: " ")) failed (status \(status)): \(err)")
    }
    return out
}

/// A private fprintd (scripts/fprint-testenv.sh): its bus address, the virtual reader's
/// socket, its folder. The script's `--watch` stops it once this test process ends.
struct FprintTestEnvironment: Sendable {
    let directory: String
    let busAddress: String
    let readerSocket: String

    static let script = repositoryRoot.appendingPathComponent("scripts/fprint-testenv.sh").path

    /// Starts one in a fresh temporary folder.
    static func start(withFprintd: Bool = true) throws -> FprintTestEnvironment {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("touchstone-fprint-\(UUID().uuidString.prefix(8))").path
        var arguments = ["start", directory, "--watch", "\(getpid())"]
        if !withFprintd { arguments.append("--no-fprintd") }
        let output: String
        do {
            output = try runTool(script, arguments)
        } catch {
            throw EnvironmentFailure(description: "cannot start the private fprintd (run scripts/install-deps.sh): \(error)")
        }
        var exports: [String: String] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { exports[String(pair[0])] = String(pair[1]) }
        }
        guard let bus = exports["DBUS_SYSTEM_BUS_ADDRESS"], let socket = exports["FP_VIRTUAL_DEVICE"] else {
            throw EnvironmentFailure(description: "fprint-testenv.sh printed no exports: \(output)")
        }
        return FprintTestEnvironment(directory: directory, busAddress: bus, readerSocket: socket)
    }

    /// The suite's shared environment, started on first use.
    static let shared: Result<FprintTestEnvironment, EnvironmentFailure> = {
        do { return .success(try start()) } catch let failure as EnvironmentFailure {
            return .failure(failure)
        } catch {
            return .failure(EnvironmentFailure(description: "\(error)"))
        }
    }()

    /// Makes the polkit mock allow or refuse every action.
    func polkit(allow: Bool) throws {
        _ = try runTool(Self.script, ["polkit", directory, allow ? "allow" : "deny"])
    }

    /// Stops its processes now and deletes its folder.
    func stop() {
        _ = try? runTool(Self.script, ["stop", directory])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The virtual reader.
    var reader: VirtualReader { VirtualReader(path: readerSocket) }
}

/// libfprint's virtual_device, driven through its socket: one connection per command; the
/// socket accepts connections only while fprintd has the device open (claimed).
struct VirtualReader: Sendable {
    let path: String

    /// Sends `command` (e.g. `SCAN finger-1`), retrying the connection until the device is
    /// open or `within` has passed; returns the reply.
    @discardableResult
    func send(_ command: String, within: Duration = .seconds(20)) throws -> String {
        let deadline = ContinuousClock.now + within
        while true {
            if let reply = try attempt(command) { return reply }
            guard ContinuousClock.now < deadline else {
                throw EnvironmentFailure(description: "the virtual reader at \(path) never accepted '\(command)' (device not claimed?)")
            }
            usleep(5_000)
        }
    }

    /// Sends each command in order (each on its own connection).
    func send(_ commands: [String], within: Duration = .seconds(20)) throws {
        for command in commands { try send(command, within: within) }
    }

    /// ``send(_:within:)`` for a task: waits between attempts by suspending, so it never holds
    /// one of the few threads of Swift's cooperative pool (2 on this machine) while the task
    /// that is to claim the device waits for one.
    @discardableResult
    func send(_ command: String, within: Duration = .seconds(20)) async throws -> String {
        let deadline = ContinuousClock.now + within
        while true {
            if let reply = try attempt(command) { return reply }
            guard ContinuousClock.now < deadline else {
                throw EnvironmentFailure(description: "the virtual reader at \(path) never accepted '\(command)' (device not claimed?)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Sends each command in order (each on its own connection), from a task.
    func send(_ commands: [String], within: Duration = .seconds(20)) async throws {
        for command in commands { try await send(command, within: within) }
    }

    private func attempt(_ command: String) throws -> String? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw EnvironmentFailure(description: "socket(): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw EnvironmentFailure(description: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return nil }
        let payload = Array(command.utf8)
        guard write(fd, payload, payload.count) == payload.count else { return nil }
        shutdown(fd, Int32(SHUT_WR))
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            reply.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
