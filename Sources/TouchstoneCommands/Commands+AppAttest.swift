import TouchstoneAppAttestFormat
import Crypto
import Foundation
import Touchstone
import TouchstoneAppAttest

extension CommandTable {
    /// `attest new|key|assert|list|root|fault`: App Attest on the device (REFERENCE §12).
    static func appAttestCommands() -> [Command] {
        [
            Command(
                name: "attest",
                summary: "App Attest: make and attest keys, assertions, the device's test root, faults",
                usage: "attest new [<challenge>] | attest key <key-id|last> <challenge> | attest assert <key-id|last> <client-data> | "
                    + "attest list | attest root | attest fault [unsupported|server-unavailable|unknown-root|cloned-key|bad-signature [count]|clear]",
                example: "attest new challenge-42",
                moreExamples: [
                    "attest assert last request-1",
                    "attest root",
                    "attest fault server-unavailable",
                    "attest key last challenge-43",
                    "attest fault cloned-key 1",
                    "attest fault clear",
                ],
                details: [
                    "new makes an App Attest key (DCAppAttestService.generateKey) and prints its id, base64 of SHA-256 of",
                    "its public key; with a challenge it also attests it (attestKey with clientDataHash = SHA-256 of the",
                    "challenge's bytes; text, or hex:bytes) and prints the attestation object in base64. key attests a key",
                    "made earlier (a retry after server-unavailable). assert prints an assertion over SHA-256 of the client",
                    "data, with its counter: one above the last, stored before signing. 'last' is the key last made or used.",
                    "The App ID is <teamID>.<app> (composition keys teamID, default TOUCHSTONE, and appAttestEnvironment).",
                    "root prints the device's test root in PEM: what touchstone-server --app-attest-root trusts.",
                    "fault: unsupported (until cleared: isSupported false, every call featureUnsupported 1),",
                    "server-unavailable (attestKey fails with serverUnavailable 4), unknown-root (the attestation chains",
                    "to a root nobody trusts), cloned-key (an assertion repeats the last counter), bad-signature; the",
                    "counted faults apply to the next count calls (default 1, at most 1000000). fault alone shows them.",
                ],
                completer: { _, previous in
                    switch previous.count {
                    case 0: ["new", "key", "assert", "list", "root", "fault"]
                    case 1 where ["key", "assert"].contains(previous[0]): ["last"]
                    case 1 where previous[0] == "fault": ["unsupported", "server-unavailable", "unknown-root", "cloned-key", "bad-signature", "clear"]
                    default: []
                    }
                }
            ) { session, arguments in
                let verb = try arguments.required(0, "new, key, assert, list, root or fault")
                switch verb {
                case "new": return try attestNew(session, arguments)
                case "key": return try attestKey(session, arguments)
                case "assert": return try attestAssert(session, arguments)
                case "list": return try attestList(session, arguments)
                case "root":
                    try arguments.expectAtMost(1)
                    let pem = try session.authenticator.appAttest.testRootPEM()
                    return CommandOutput(pem.split(separator: "\n").map(String.init), result: [("root", .string(pem))])
                case "fault": return try attestFault(session, arguments)
                default: throw arguments.usageError("unknown attest action '\(verb)'")
                }
            },
        ]
    }

    private static func attestNew(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(2)
        let appAttest = session.authenticator.appAttest
        let keyID = try appAttest.generateKey()
        session[state: LastAppAttestKey.self] = keyID
        guard let challenge = arguments[1] else {
            return CommandOutput(["ok: made App Attest key \(keyID)"], result: [("keyID", .string(keyID))])
        }
        return try attest(session, keyID: keyID, challenge: try messageBytes(challenge, arguments), made: true)
    }

    private static func attestKey(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(3)
        let keyID = try keyID(session, arguments)
        let challenge = try messageBytes(try arguments.required(2, "the challenge (text, or hex:bytes)"), arguments)
        return try attest(session, keyID: keyID, challenge: challenge, made: false)
    }

    private static func attest(_ session: CommandSession, keyID: String, challenge: Data, made: Bool) throws -> CommandOutput {
        let appAttest = session.authenticator.appAttest
        let attestation = try appAttest.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
        return CommandOutput(
            ["ok: \(made ? "made and " : "")attested App Attest key \(keyID) for \(appAttest.appID) (\(appAttest.environment.rawValue))",
             "attestation (base64): \(attestation.base64EncodedString())"],
            result: [("keyID", .string(keyID)), ("appID", .string(appAttest.appID)),
                     ("environment", .string(appAttest.environment.rawValue)), ("attestation", .string(attestation.base64EncodedString()))])
    }

    private static func attestAssert(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(3)
        let keyID = try keyID(session, arguments)
        let clientData = try messageBytes(try arguments.required(2, "the client data (text, or hex:bytes)"), arguments)
        let assertion = try session.authenticator.appAttest.generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: clientData)))
        let counter = (try? AssertionObject(decoding: assertion)).flatMap { try? AuthenticatorData(parsing: $0.authenticatorData, as: .assertion) }?.counter ?? 0
        return CommandOutput(["ok: assertion by \(keyID), counter \(counter)", "assertion (base64): \(assertion.base64EncodedString())"],
                             result: [("keyID", .string(keyID)), ("counter", .int(Int(counter))),
                                      ("assertion", .string(assertion.base64EncodedString()))])
    }

    private static func attestList(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(1)
        let keys = try session.authenticator.appAttest.keys()
        let lines = keys.isEmpty ? ["no App Attest keys for \(session.authenticator.appID)"] : keys.map { key in
            "\(key.id)  \(key.isAttested ? "attested" : "not attested")  counter \(key.counter)"
        }
        return CommandOutput(lines, result: [("keys", .array(keys.map { key in
            .object([("keyID", .string(key.id)), ("attested", .bool(key.isAttested)), ("counter", .int(Int(key.counter)))])
        }))])
    }

    private static func attestFault(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        let appAttest = session.authenticator.appAttest
        if let name = arguments[1] {
            var count = 1
            if let word = arguments[2] {
                guard let parsed = Int(word), (1 ... AppAttestFaults.maximumCount).contains(parsed) else {
                    throw arguments.usageError("count '\(word)' is not a whole number from 1 to \(AppAttestFaults.maximumCount)")
                }
                count = parsed
            }
            let change: @Sendable (inout AppAttestFaults) -> Void
            switch name {
            case "clear":
                try arguments.expectAtMost(2)
                change = { $0 = AppAttestFaults() }
            case "unsupported":
                try arguments.expectAtMost(2)
                change = { $0.unsupported = true }
            case "server-unavailable": change = { [count] in $0.serverUnavailable = count }
            case "unknown-root": change = { [count] in $0.unknownRoot = count }
            case "cloned-key": change = { [count] in $0.repeatedCounter = count }
            case "bad-signature": change = { [count] in $0.badSignature = count }
            default:
                throw arguments.usageError("unknown fault '\(name)'; known: unsupported, server-unavailable, unknown-root, cloned-key, bad-signature, clear")
            }
            try arguments.expectAtMost(3)
            try appAttest.updateFaults(change)
        }
        let faults = try appAttest.faults()
        return CommandOutput("App Attest faults: \(faults)", result: [("faults", .string(faults.description))])
    }

    /// The key id at word 1: 'last' (the key last made or used in this session) or an id.
    private static func keyID(_ session: CommandSession, _ arguments: CommandArguments) throws -> String {
        let word = try arguments.required(1, "the key id, or 'last'")
        if word == "last" {
            guard let last = session[state: LastAppAttestKey.self] else {
                throw arguments.usageError("no App Attest key was made in this session yet (attest new)")
            }
            return last
        }
        session[state: LastAppAttestKey.self] = word
        return word
    }
}

/// The App Attest key last made or named in a session (`attest ... last`).
enum LastAppAttestKey: CommandSessionStateKey {
    static var initial: String? { nil }
}

extension AppAttestError: ReportableError {
    /// As `DCError`: domain `com.apple.devicecheck.error`, Apple's code and name.
    public var errorReport: ErrorReport {
        ErrorReport(domain: "com.apple.devicecheck.error", code: code.rawValue, name: "\(code)", message: message)
    }
}
