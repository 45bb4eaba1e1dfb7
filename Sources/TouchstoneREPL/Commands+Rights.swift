import Foundation
import LocalAuthentication
import TouchstoneSecurity
import Touchstone
import TouchstoneCommands

extension CommandTable {
    /// `right save|authorize|sign|secret|deauthorize|remove`: iOS 16's LARight / LARightStore
    /// (REFERENCE §10) on the session's device, through the `LocalAuthentication` module itself.
    static func rightCommands() -> [Command] {
        [
            Command(
                name: "right",
                summary: "LARight / LARightStore: save, authorize (prompts), sign, secret, deauthorize, remove",
                usage: "right save <id> [requirement=default|biometry|biometryCurrentSet|biometry-or-passcode] [secret=<text>] | "
                    + "right authorize <id> [outcome ...] | right sign <id> <text|hex:bytes> | right secret <id> | "
                    + "right deauthorize <id> | right remove <id>",
                example: "right save login requirement=biometryCurrentSet secret=device-token-1",
                moreExamples: ["right authorize login thumb", "right sign login challenge-42", "right secret login",
                               "right deauthorize login", "right remove login"],
                details: [
                    "save: LARightStore.saveRight(_:identifier:secret:) — a Secure Enclave key bound to the requirement",
                    "(default: userPresence; biometry: biometryAny; biometryCurrentSet; biometry-or-passcode:",
                    "biometry(fallback: .devicePasscode)); rights need a device passcode. authorize: right(forIdentifier:)",
                    "then authorize(localizedReason:), consuming outcomes; sign and secret work only while authorized",
                    "(else notInteractive -1004) and never prompt. A biometryCurrentSet right is gone after an",
                    "enrollment change (authenticationFailed -1). Errors are the LAErrors an app sees.",
                ],
                completer: { session, previous in
                    switch previous.count {
                    case 0: return ["save", "authorize", "sign", "secret", "deauthorize", "remove"]
                    default:
                        if previous[0] == "save" {
                            return ["requirement=default", "requirement=biometry", "requirement=biometryCurrentSet",
                                    "requirement=biometry-or-passcode", "secret="]
                        }
                        return previous[0] == "authorize" && previous.count >= 2 ? session.outcomeWords : []
                    }
                },
                redactor: { words in
                    var redacted = words
                    var changed = false
                    for index in redacted.indices {
                        let word = redacted[index].lowercased()
                        if word.hasPrefix("passcode:") { redacted[index] = "passcode:****"; changed = true }
                        if word.hasPrefix("secret=") { redacted[index] = "secret=****"; changed = true }
                    }
                    return changed ? redacted : nil
                }
            ) { session, arguments in
                let verb = try arguments.required(0, "save, authorize, sign, secret, deauthorize or remove")
                let identifier = try arguments.required(1, "the right's identifier")
                do {
                    switch verb {
                    case "save": return try await rightSave(session, arguments, identifier)
                    case "authorize": return try await rightAuthorize(session, arguments, identifier)
                    case "sign": return try await rightSign(session, arguments, identifier)
                    case "secret":
                        try arguments.expectAtMost(2)
                        let data = try await authorizedRight(session, identifier).secret.rawData
                        let text = String(data: data, encoding: .utf8)
                        return CommandOutput("ok: \(text ?? "<\(data.count) bytes, not UTF-8>")",
                                             result: [("right", .string(identifier)), ("secret", .optional(text)), ("bytes", .int(data.count))])
                    case "deauthorize":
                        try arguments.expectAtMost(2)
                        await authorizedRight(session, identifier, requireAuthorized: false)?.deauthorize()
                        return CommandOutput("ok: \(identifier) deauthorized", result: [("right", .string(identifier))])
                    case "remove":
                        try arguments.expectAtMost(2)
                        try await LARightStore(authenticator: session.authenticator).removeRight(forIdentifier: identifier)
                        session.rights[identifier] = nil
                        return CommandOutput("ok: removed right \(identifier)", result: [("right", .string(identifier))])
                    default: throw arguments.usageError("unknown right action '\(verb)'")
                    }
                } catch let error as LAError {
                    // A damaged store is the store's problem, not an authentication failure: it
                    // stops a script as any other command's damage does.
                    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? KeychainError, underlying.kind == .corrupt {
                        throw underlying
                    }
                    // The app's view of the failure, in the REPL's error form.
                    let code = AuthenticationError.Code(rawValue: error.code.rawValue) ?? .authenticationFailed
                    throw AuthenticationError(code, message: error.localizedDescription,
                                              recovery: code == .notInteractive ? "Run: right authorize \(identifier) <outcome>." : nil)
                }
            },
        ]
    }

    nonisolated(nonsending) private static func rightSave(_ session: CommandSession, _ arguments: CommandArguments, _ identifier: String) async throws -> CommandOutput {
        var requirement = LAAuthenticationRequirement.default
        var secret: Data?
        for word in arguments.words.dropFirst(2) {
            if word.hasPrefix("requirement=") {
                switch word.dropFirst("requirement=".count).lowercased() {
                case "default": requirement = .default
                case "biometry": requirement = .biometry
                case "biometrycurrentset": requirement = .biometryCurrentSet
                case "biometry-or-passcode": requirement = .biometry(fallback: .devicePasscode)
                default: throw arguments.usageError("'\(word)': requirements are default, biometry, biometryCurrentSet, biometry-or-passcode")
                }
            } else if word.hasPrefix("secret=") {
                secret = Data(word.dropFirst("secret=".count).utf8)
            } else {
                throw arguments.usageError("unexpected '\(word)' (give requirement=... or secret=...)")
            }
        }
        let store = LARightStore(authenticator: session.authenticator)
        let right = LARight(requirement: requirement, authenticator: session.authenticator)
        let persisted: LAPersistedRight
        if let secret {
            persisted = try await store.saveRight(right, identifier: identifier, secret: secret)
        } else {
            persisted = try await store.saveRight(right, identifier: identifier)
        }
        session.rights[identifier] = nil
        let publicKey = try await persisted.key.publicKey.bytes
        return CommandOutput(["ok: saved right \(identifier) (\(requirement.description))", "public key (X9.63): \(publicKey.hexString)"],
                             result: [("right", .string(identifier)), ("requirement", .string(requirement.description)),
                                      ("publicKey", .string(publicKey.hexString)), ("secret", .bool(secret != nil))])
    }

    nonisolated(nonsending) private static func rightAuthorize(_ session: CommandSession, _ arguments: CommandArguments, _ identifier: String) async throws -> CommandOutput {
        let right = try await LARightStore(authenticator: session.authenticator).right(forIdentifier: identifier)
        // A scripting mistake (no outcome left, one the prompt cannot take) is the REPL's own
        // error, as for `evaluate`, not the system cancel the app sees.
        let mistakes = LocalAuthenticationSystem.ScriptingMistakeSink()
        do {
            try await LocalAuthenticationSystem.$mistakeSink.withValue(mistakes) {
                try await session.withScriptedOutcomes(arguments.words.dropFirst(2), arguments: arguments) { _ in
                    try await right.authorize(localizedReason: "Authorize \"\(identifier)\"")
                }
            }
        } catch let error as LAError where error.code == .systemCancel {
            throw mistakes.first ?? error
        }
        session.rights[identifier] = right
        return CommandOutput("ok: \(identifier) authorized", result: [("right", .string(identifier)), ("state", .string("authorized"))])
    }

    nonisolated(nonsending) private static func rightSign(_ session: CommandSession, _ arguments: CommandArguments, _ identifier: String) async throws -> CommandOutput {
        let word = try arguments.required(2, "the message (text, or hex:bytes)")
        try arguments.expectAtMost(3)
        let message: Data
        if word.lowercased().hasPrefix("hex:") {
            guard let bytes = Data(hexString: String(word.dropFirst(4))) else { throw arguments.usageError("'\(word)' is not hex") }
            message = bytes
        } else {
            message = Data(word.utf8)
        }
        let right = try await authorizedRight(session, identifier)
        let signature = try await right.key.sign(message, algorithm: .ecdsaSignatureMessageX962SHA256)
        session.lastSignature = signature
        let publicKey = try await right.key.publicKey.bytes
        return CommandOutput(["ok: signed \(message.count) bytes with right \(identifier)", "signature (DER): \(signature.hexString)",
                              "public key (X9.63): \(publicKey.hexString)"],
                             result: [("right", .string(identifier)), ("signature", .string(signature.hexString)),
                                      ("publicKey", .string(publicKey.hexString))])
    }

    /// The right `right authorize` loaded; without one, the stored right (not authorized, so its
    /// key and secret refuse with notInteractive).
    nonisolated(nonsending) private static func authorizedRight(_ session: CommandSession, _ identifier: String) async throws -> LAPersistedRight {
        if let right = session.rights[identifier] { return right }
        return try await LARightStore(authenticator: session.authenticator).right(forIdentifier: identifier)
    }

    nonisolated(nonsending) private static func authorizedRight(_ session: CommandSession, _ identifier: String, requireAuthorized: Bool) async -> LAPersistedRight? {
        session.rights[identifier]
    }
}

extension CommandSession {
    /// Persisted rights loaded by `right authorize`, by identifier (their authorization lasts
    /// until `right deauthorize`; `context new` does not end it).
    var rights: [String: LAPersistedRight] {
        get { self[state: AuthorizedRightsKey.self] }
        set { self[state: AuthorizedRightsKey.self] = newValue }
    }
}

/// Where a session keeps the rights `right authorize` loaded.
enum AuthorizedRightsKey: CommandSessionStateKey {
    static var initial: [String: LAPersistedRight] { [:] }
}
