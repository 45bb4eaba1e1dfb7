import Foundation
import Testing
import Touchstone
import TouchstoneBuiltins

/// The README's code, line for line, so the front page cannot drift from the API.
@Suite("README examples")
struct ReadmeTests {
    @Test("the Secure Enclave key example in the README runs as printed")
    func keyExample() async throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        try builder.use(.passcode, "passcode.sim", options: ["rounds": "1000"])
        let user = ScriptedInteraction()
        let authenticator = try builder.build(interaction: user)
        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("alice")

        let keys = authenticator.keys
        let key = try keys.create(accessControl: try AccessControl(.whenPasscodeSetThisDeviceOnly,
                                                                   flags: [.privateKeyUsage, .biometryCurrentSet]))
        user.enqueue([.present("alice")])
        let challenge = Data("server-challenge".utf8)
        let signature = try await keys.sign(challenge, with: key, reason: "Sign in")   // DER ECDSA P-256
        #expect(key.isValidSignature(signature, for: challenge))
        #expect(key.publicKeyData.count == 65)
    }

    @Test("the SDK example in the README runs as printed")
    func sdkExample() async throws {
        var builder = AuthenticatorBuilder(registry: .builtIn)
        try builder.use(.sensor, "sim.faceid")
        builder.composition.app = "com.example.notes"
        try builder.use(.passcode, "passcode.sim", options: ["rounds": "1000"])  // (faster hashing for tests)
        let user = ScriptedInteraction()
        let authenticator = try builder.build(interaction: user)

        try authenticator.device.setPasscode("1234")
        try authenticator.device.enroll("alice")
        try authenticator.saveBaseline(account: "alice")

        user.enqueue([.noMatch, .present("alice")])
        let context = authenticator.makeContext()
        let result = try await context.evaluate(policyNamed: "biometrics", reason: "Sign in")
        #expect(result.methods == [.biometry])
        #expect(try authenticator.checkForChange(account: "alice") == .unchanged)

        let keychain = authenticator.keychain
        try keychain.add(Data("token".utf8), service: "api", account: "alice",
                         accessControl: try AccessControl(flags: [.biometryCurrentSet]))
        user.enqueue([.present("alice")])
        let token = try await keychain.read(service: "api", account: "alice")
        #expect(token == Data("token".utf8))
        try authenticator.device.enroll("bob")
        await #expect {
            try await keychain.read(service: "api", account: "alice")
        } throws: { error in
            (error as? KeychainError)?.status.rawValue == -25300
        }
    }
}
