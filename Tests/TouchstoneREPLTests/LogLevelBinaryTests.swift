import Foundation
import Testing

/// `--log-level`: the device and its plugins log on standard error at the level asked for
/// (warning by default), through the built binary.
struct LogLevelBinaryTests {
    private static let unreachableReader = "use sensor linux.fprintd bus=unix:path=/nonexistent/touchstone/bus\ncan biometrics\n"

    @Test("--log-level debug shows why fprintd counts as absent, naming the plugin; the default level does not")
    func debugShowsTheAbsentReadersReason() throws {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        let debug = try Binary.run(binary, ["--memory", "--log-level", "debug"], input: Self.unreachableReader)
        #expect(debug.status == 0, "\(debug.output)")
        #expect(debug.output.contains("fprintd did not answer; the reader counts as absent"), "\(debug.output)")
        #expect(debug.output.contains("touchstone.plugin=linux.fprintd"), "\(debug.output)")
        #expect(debug.output.contains("biometryNotAvailable"), "\(debug.output)")

        let quiet = try Binary.run(binary, ["--memory"], input: Self.unreachableReader)
        #expect(quiet.status == 0, "\(quiet.output)")
        #expect(!quiet.output.contains("fprintd did not answer"), "\(quiet.output)")
        #expect(quiet.output.contains("biometryNotAvailable"), "\(quiet.output)")
    }

    @Test("log lines go to standard error only: with --json, standard output is still one JSON object per line")
    func logLinesStayOffStandardOutput() throws {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        let shell = URL(fileURLWithPath: "/bin/sh")
        let stdout = try Binary.run(shell, ["-c", #""$0" --memory --json --log-level debug 2>/dev/null"#, binary.path],
                                    input: Self.unreachableReader)
        #expect(stdout.status == 0, "\(stdout.output)")
        let lines = stdout.output.split(separator: "\n")
        #expect(lines.count == 2, "\(stdout.output)")
        for line in lines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "not JSON: \(line)")
        }
        let stderr = try Binary.run(shell, ["-c", #""$0" --memory --json --log-level debug 2>&1 >/dev/null"#, binary.path],
                                    input: Self.unreachableReader)
        #expect(stderr.output.contains("fprintd did not answer"), "\(stderr.output)")
    }

    @Test("--log-level with a word that is not a level is refused, naming the option and the levels")
    func anUnknownLevelIsRefused() throws {
        let binary = try #require(Binary.touchstone, "build the touchstone executable first (swift build)")
        let run = try Binary.run(binary, ["--memory", "--log-level", "loud"], input: "status\n")
        #expect(run.status != 0, "\(run.output)")
        #expect(run.output.contains("--log-level 'loud' is not a level"), "\(run.output)")
        #expect(run.output.contains("warning"), "\(run.output)")
        // Before anything else runs: the store options are refused the same way.
        let check = try Binary.run(binary, ["--memory", "--check-store", "--log-level", "loud"])
        #expect(check.status != 0 && check.output.contains("--log-level 'loud' is not a level"), "\(check.output)")
    }
}
