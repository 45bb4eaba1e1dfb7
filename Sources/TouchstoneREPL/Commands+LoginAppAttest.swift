import Crypto
import Foundation
import Touchstone
import TouchstoneAppAttest
import TouchstoneCommands

extension CommandTable {
    /// `login attest [name]`: binds an App Attest key to the signed-in account (issue 36): a
    /// binding challenge, a new key attested over SHA-256 of the challenge's bytes, and
    /// `POST /v1/devices {kind: "appattest", keyID, attestation, challenge, name}`.
    static func loginAttest(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(2)
        let name = arguments[1] ?? "app-attest"
        guard !name.isEmpty, name.count <= 100 else { throw arguments.usageError("a device name is 1 to 100 characters") }
        guard let token = session.login.token else {
            throw LoginError.notReady(name: "notSignedIn", message: "sign in first: login password <user> [password]")
        }
        let (challengeText, challenge) = try session.loginRequest("POST", "/v1/devices/attest-challenges", bearer: token)
            .base64("challenge")
        let appAttest = session.authenticator.appAttest
        let keyID = try appAttest.generateKey()
        let attestation = try appAttest.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
        let deviceID = try session.loginRequest("POST", "/v1/devices", bearer: token, json: .object([
            ("kind", .string("appattest")), ("keyID", .string(keyID)), ("attestation", .string(attestation.base64EncodedString())),
            ("challenge", .string(challengeText)), ("name", .string(name)),
        ])).string("deviceID")
        session.login.attestKeyID = keyID
        session.login.attestDeviceID = deviceID
        return CommandOutput(
            "ok: App Attest key \(keyID) attested for \(appAttest.appID) and bound as device \(deviceID)",
            result: [("keyID", .string(keyID)), ("deviceID", .string(deviceID)), ("appID", .string(appAttest.appID))])
    }

    /// `login assert`: logs in with the bound App Attest key: a challenge, then
    /// `POST /v1/logins {deviceID, challenge, assertion}` with an assertion over SHA-256 of it.
    static func loginAssert(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(1)
        guard let keyID = session.login.attestKeyID, let deviceID = session.login.attestDeviceID else {
            throw LoginError.notReady(name: "notAttested", message: "no App Attest key is bound here: login password <user>, then login attest")
        }
        let (challengeText, challenge) = try session.loginRequest("POST", "/v1/challenges", json: .object([("deviceID", .string(deviceID))]))
            .base64("challenge")
        let assertion = try session.authenticator.appAttest.generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
        let answer = try session.loginRequest("POST", "/v1/logins", json: .object([
            ("deviceID", .string(deviceID)), ("challenge", .string(challengeText)), ("assertion", .string(assertion.base64EncodedString())),
        ]))
        let profile = try answer.string("profileID")
        if profile != session.login.profileID { session.login.username = nil }
        session.login.profileID = profile
        session.login.token = try answer.string("token")
        session.login.signedInBy = "appattest"
        let who = session.login.username ?? "profile \(profile)"
        return CommandOutput("ok: signed in as \(who) with App Attest (the server verified the assertion and its counter)",
                             result: [("profileID", .string(profile)), ("by", .string("appattest")), ("deviceID", .string(deviceID))])
    }
}
