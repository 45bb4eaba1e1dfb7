// The code of the article "Getting started" (Sources/Touchstone/Touchstone.docc/GettingStarted.md).
// Every ```swift block of the article appears here verbatim; DocumentationTests checks it, and
// the test below runs the code.

import Foundation
import Testing
import TouchstoneBuiltins

@Suite("Article: Getting started")
struct GettingStartedSnippets {
    @Test("the article's walk-through runs as printed")
    func walkThrough() async throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)   // every built-in plugin
        try builder.use(.sensor, "sim.touchid")
        builder.composition.app = "com.example.notes"
        let user = ScriptedInteraction()                         // the person at the device
        let authenticator = try builder.build(interaction: user) // virtual clock, in memory

        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("thumb")

        user.enqueue([.noMatch, .present("thumb")])
        let context = authenticator.makeContext()
        let result = try await context.evaluate(.biometrics, reason: "Unlock your notes")
        print(result.methods)        // [biometry]
        print(result.trace)          // every step, the counters, the rule that decided

        #expect(result.methods == [.biometry])

        user.enqueue([.noMatch, .noMatch, .noMatch])
        do {
            try await authenticator.makeContext().evaluate(.biometrics, reason: "Unlock your notes")
        } catch let error as AuthenticationError {
            print(error.code)                            // authenticationFailed (-1)
            print(authenticator.device.lastTrace?.rules ?? [])
            // [touchid.three-failures-end-evaluation]
        }

        #expect(authenticator.device.lastTrace?.rules.last == .touchIDThreeFailuresEnd)

        try authenticator.saveBaseline(account: "alice")              // biometric login on
        try authenticator.device.enroll("index")                      // a finger added in Settings
        user.enqueue([.present("thumb")])
        _ = try await authenticator.makeContext().evaluate(.biometrics, reason: "Sign in")
        print(try authenticator.checkForChange(account: "alice"))     // changed

        #expect(try authenticator.checkForChange(account: "alice") == .changed)

        let keychain = authenticator.keychain
        try keychain.add(Data("token".utf8), service: "api", account: "alice",
                         accessControl: try AccessControl(flags: [.biometryCurrentSet]))
        user.enqueue([.present("thumb")])
        let token = try await keychain.read(service: "api", account: "alice")   // prompts
        try authenticator.device.unenroll("index")
        // Reading again throws KeychainError itemNotFound (-25300): the set changed.

        #expect(token == Data("token".utf8))
        await #expect(throws: KeychainError.self) { try await keychain.read(service: "api", account: "alice") }
    }
}
