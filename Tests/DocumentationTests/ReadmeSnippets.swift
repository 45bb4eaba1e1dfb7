// The ```swift blocks of README.md, compiled and run (their `import` lines are this file's).

import Foundation
import LocalAuthentication
import Testing
import TouchstoneBuiltins
import TouchstoneTesting

@Suite("README")
struct ReadmeSnippets {
    @Test("the SDK, keychain and key examples run as printed")
    func sdk() async throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)      // the one list of built-in plugins
        try builder.use(.sensor, "sim.faceid")
        builder.composition.app = "com.example.notes"
        let user = ScriptedInteraction()                            // what the person at the device does
        let authenticator = try builder.build(interaction: user)    // virtual clock, in-memory device

        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("alice")
        try authenticator.saveBaseline(account: "alice")            // turn biometric login on

        user.enqueue([.noMatch, .present("alice")])
        let context = authenticator.makeContext()
        let result = try await context.evaluate(.biometrics, reason: "Sign in")
        print(result.methods, result.trace)                         // [biometry], every step and rule
        print(try authenticator.checkForChange(account: "alice"))  // unchanged

        #expect(result.methods == [.biometry])
        #expect(try authenticator.checkForChange(account: "alice") == .unchanged)

        let keychain = authenticator.keychain
        try keychain.add(Data("token".utf8), service: "api", account: "alice",
                         accessControl: try AccessControl(flags: [.biometryCurrentSet]))
        user.enqueue([.present("alice")])
        let token = try await keychain.read(service: "api", account: "alice")   // prompts for biometry
        try authenticator.device.enroll("bob")
        // now reading fails with KeychainError itemNotFound (-25300): invalidated by the enrollment change

        #expect(token == Data("token".utf8))
        await #expect(throws: KeychainError.self) { try await keychain.read(service: "api", account: "alice") }

        let keys = authenticator.keys
        let key = try keys.create(accessControl: try AccessControl(.whenPasscodeSetThisDeviceOnly,
                                                                   flags: [.privateKeyUsage, .biometryCurrentSet]))
        user.enqueue([.present("alice")])
        let challenge = Data("server-challenge".utf8)
        let signature = try await keys.sign(challenge, with: key, reason: "Sign in")   // DER ECDSA P-256
        print(key.isValidSignature(signature, for: challenge))   // true: the server keeps key.publicKeyData

        #expect(key.isValidSignature(signature, for: challenge))
    }

    /// README "iOS code on Linux" (compiled; it would talk to the process-wide default device).
    static func iOSCode() {
        let context = LAContext()
        var error: NSError?
        if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) {
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in") { ok, error in
                if case LAError.userFallback? = error { /* show the app's password screen */ }
            }
        }
    }

    @Test(.touchstoneDevice(sensor: "sim.faceid", enrolled: ["alice"]))
    func cancelKeepsTheLockScreen() async throws {
        let device = try TestDevice.current
        device.enqueue(.cancel)
        let ok = try? await LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics,
                                                       localizedReason: "Unlock your notes")
        #expect(ok == nil)
        device.expectLastEvaluation(.failed(.userCancel), endedBy: .userCancel)
    }
}
