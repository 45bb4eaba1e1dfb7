import Foundation
import Touchstone

/// Plays the finger on the virtual reader exactly when fprintd starts waiting for one: it
/// watches the private bus (`dbus-monitor`) for `VerifyStart` / `EnrollStart` calls and sends
/// the next queued commands to the reader's socket then. (Commands queued before a claim are
/// lost when the device closes, so a test driving several captures cannot send them ahead.)
final class FingerPlayer: Sendable {
    private struct State {
        var queue: [[String]] = []
        var played = 0
        var failure: String?
    }

    private let reader: VirtualReader
    private let state = Locked(State())
    private let pid: pid_t
    private let output: Int32

    /// Starts `dbus-monitor` on `environment`'s bus and waits until it listens.
    init(_ environment: FprintTestEnvironment) throws {
        reader = environment.reader
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw EnvironmentFailure(description: "pipe(): \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        let arguments = ["/usr/bin/dbus-monitor", "--address", environment.busAddress,
                         "type='method_call',interface='net.reactivated.Fprint.Device'"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, arguments[0], &actions, nil, argv, nil)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw EnvironmentFailure(description: "cannot run dbus-monitor (apt dbus-bin): \(String(cString: strerror(spawned)))")
        }
        pid = child
        output = fds[0]
        // dbus-monitor prints its NameAcquired/NameLost lines once it is a monitor.
        let ready = Locked(false)
        let thread = Thread { [self] in
            var pending = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(output, &buffer, buffer.count)
                if count <= 0 { return }
                ready.withLock { $0 = true }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    guard line.contains("member=VerifyStart") || line.contains("member=EnrollStart") else { continue }
                    let commands: [String]? = state.withLock { state in
                        state.queue.isEmpty ? nil : state.queue.removeFirst()
                    }
                    guard let commands else { continue }
                    do {
                        try reader.send(commands)
                        state.withLock { $0.played += 1 }
                    } catch {
                        state.withLock { $0.failure = "\(error)" }
                    }
                }
            }
        }
        thread.start()
        let deadline = ContinuousClock.now + .seconds(20)
        while !ready.withLock({ $0 }) {
            guard ContinuousClock.now < deadline else {
                stop()
                throw EnvironmentFailure(description: "dbus-monitor did not start on \(environment.busAddress)")
            }
            usleep(2_000)
        }
    }

    /// Queues what the finger does at the next `VerifyStart` / `EnrollStart`, one entry each.
    func queue(_ steps: [[String]]) {
        state.withLock { $0.queue.append(contentsOf: steps) }
    }

    /// Steps not played yet, and a failure to reach the reader, if any.
    var leftover: (queued: Int, failure: String?) {
        state.withLock { ($0.queue.count, $0.failure) }
    }

    private let stopped = Locked(false)

    /// Ends `dbus-monitor` (the reading thread then sees end of file). SIGKILL: the test
    /// runner's blocked signals are inherited.
    func stop() {
        guard !stopped.withLock({ let was = $0; $0 = true; return was }) else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    deinit {
        stop()
        close(output)
    }
}
