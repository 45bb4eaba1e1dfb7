import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The real `touchstone-server` executable, started as a child process for the benchmark so
/// that the server is measured as it ships (its own process, executors and logging) and its
/// CPU time can be told apart from the load generator's.
final class ServerProcess {
    let port: Int
    private let process: Process

    /// Starts `executable` on a free loopback port with `database` and warning-level logs.
    init(executable: URL, database: String) throws {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw LoadGenerator.Failure(description: """
                no touchstone-server at \(executable.path): build it beside the bench \
                (swift build -c release --package-path Server --product touchstone-server) or pass --server PATH
                """)
        }
        port = try Self.freePort()
        process = Process()
        process.executableURL = executable
        process.arguments = ["--host", "127.0.0.1", "--port", String(port), "--database", database, "--log-level", "warning"]
        try process.run()
    }

    /// CPU seconds (user + system, every thread) the server has used so far, from
    /// `/proc/PID/stat`.
    func cpuSeconds() throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)
        // Fields after the command name (which may hold spaces) start at ") ": state is field 3,
        // utime field 14 and stime field 15 of the whole line.
        guard let close = stat.lastIndex(of: ")") else { throw LoadGenerator.Failure(description: "unreadable /proc stat") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw LoadGenerator.Failure(description: "unreadable /proc stat")
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// SIGTERM (the server drains and exits), then waits; returns the exit status.
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A port the kernel just handed out for loopback (bound, read and released).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw LoadGenerator.Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard found else { throw LoadGenerator.Failure(description: "no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// CPU seconds this process has used (user + system).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
