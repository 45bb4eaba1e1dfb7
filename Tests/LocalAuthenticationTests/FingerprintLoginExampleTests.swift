#if !canImport(Darwin)
import Foundation
import Testing

/// `Examples/FingerprintLogin` (seed 003's strong form) run step by step as separate processes
/// on one SQLite device, as a CI script would.
@Suite("Example: fingerprint login with a Secure Enclave key and with LARightStore")
struct FingerprintLoginExampleTests {
    let ready = "passcode set 1234; enroll thumb"

    @Test("enable, log in by fingerprint, enrollment change → password fallback, re-bind, log in again")
    func secureEnclaveFlow() throws {
        let app = try SeedHarness("FingerprintLogin")
        defer { app.remove() }
        #expect(try app.run("enable", "alice", "secret", setup: ready, outcomes: "thumb")
            == ["password login: ok profile=alice", "enable: bound this device to alice (public key 65 bytes)"])
        #expect(try app.run("login", outcomes: "thumb") == ["login: ok profile=alice (challenge signature verified)"])
        #expect(try app.run("login", outcomes: "cancel") == ["login: cancelled or failed (LAError userCancel (-2))"])
        #expect(try app.run("login", setup: "enroll index", outcomes: "thumb")
            == ["login: fingerprint login is off or biometry changed: sign in with your password and enable it again"])
        #expect(try app.run("enable", "alice", "secret", outcomes: "index").last == "enable: bound this device to alice (public key 65 bytes)")
        #expect(try app.run("login", outcomes: "index") == ["login: ok profile=alice (challenge signature verified)"])
    }

    @Test("the LARightStore variant: enable, log in, enrollment change kills the right, re-bind")
    func rightsFlow() throws {
        let app = try SeedHarness("FingerprintLogin")
        defer { app.remove() }
        #expect(try app.run("enable-right", "bob", "hunter2", setup: ready, outcomes: "thumb").last
            == "enable-right: bound this device to bob (public key 65 bytes)")
        #expect(try app.run("login-right", outcomes: "thumb") == ["login-right: ok profile=bob (challenge signature verified)"])
        #expect(try app.run("login-right", setup: "enroll index")
            == ["login-right: fingerprint login is off or biometry changed: sign in with your password and enable it again"])
        #expect(try app.run("enable-right", "bob", "wrong") == ["password login: wrong password"])
        #expect(try app.run("enable-right", "bob", "hunter2", outcomes: "thumb").last == "enable-right: bound this device to bob (public key 65 bytes)")
        #expect(try app.run("login-right", outcomes: "thumb") == ["login-right: ok profile=bob (challenge signature verified)"])
    }
}
#endif
