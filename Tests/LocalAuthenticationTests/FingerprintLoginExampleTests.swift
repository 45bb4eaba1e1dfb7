#if !canImport(Darwin)
import Foundation
import Testing

/// `Examples/FingerprintLogin` (seed 003's strong form) without a server: how it is called and
/// how it fails. The story itself (register, password, enable, fingerprint login, enrollment
/// change → refused → password → re-bind, and the LARightStore variant) runs against a real
/// touchstone-server in scripts/login-demo.sh --check, which scripts/server-test.sh runs.
@Suite("Example: fingerprint login (without a server)")
struct FingerprintLoginExampleTests {
    @Test("a missing server URL or step is a usage error (64)")
    func usage() throws {
        let app = try SeedHarness("FingerprintLogin")
        defer { app.remove() }
        for arguments in [[], ["login"], ["not a url", "login"], ["http://127.0.0.1:9", "frobnicate"]] {
            let (status, _, errors) = try app.execute(arguments)
            #expect(status == 64, "\(arguments)")
            #expect(errors.contains("usage: FingerprintLogin <server-url>"), "\(arguments)")
        }
    }

    @Test("a server that does not answer is named, with exit status 69")
    func unreachable() throws {
        let app = try SeedHarness("FingerprintLogin")
        defer { app.remove() }
        // Port 9 (discard) on loopback: nothing listens there on a development machine or in CI.
        let (status, lines, errors) = try app.execute(["http://127.0.0.1:9", "login"], setup: "passcode set 1234; enroll thumb")
        #expect(status == 69)
        #expect(lines.isEmpty)
        #expect(errors.contains("FingerprintLogin: server unreachable: http://127.0.0.1:9"))
    }
}
#endif
