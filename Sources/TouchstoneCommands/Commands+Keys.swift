import Foundation
import Touchstone

extension CommandTable {
    /// `key create|list|sign|verify|export|delete`: Secure Enclave keys (REFERENCE §10) and software
    /// keys, named by their application tag, signing through the same evaluation as keychain items.
    static func keyCommands() -> [Command] {
        [
            Command(
                name: "key",
                summary: "Secure Enclave keys: create, list, sign (prompts), verify, export (software keys), delete",
                usage: "key create <name> [access=flag,flag] [accessible=class] [software] | key list | "
                    + "key sign <name> <text|hex:bytes> [outcome ...] | key verify <name> <text|hex:bytes> <signature-hex|last> | "
                    + "key export <name> [outcome ...] | key delete <name>",
                example: "key create login access=biometryCurrentSet",
                moreExamples: [
                    "key sign login challenge-42 thumb",
                    "key verify login challenge-42 last",
                    "key sign login hex:00ff10 thumb",
                    "key list",
                    "key create dpop software",
                    "key export dpop",
                    "key delete login",
                ],
                details: [
                    "A key is a P-256 private key generated inside the simulated Secure Enclave, sealed at rest, never",
                    "exported; its name (one word, 1 to 255 bytes) is its application tag (kSecAttrApplicationTag) and",
                    "label. access flags as for keychain items (privateKeyUsage is added); accessible defaults to",
                    "whenUnlockedThisDeviceOnly.",
                    "sign consumes outcomes with the prompt the key's flags require (the session's context: a context",
                    "that already authenticated signs without asking, as a reused LAContext does), then prints the DER",
                    "ECDSA signature over SHA-256 of the message and the public key (65-byte X9.63) in hex; 'trace'",
                    "shows the evaluation it ran. verify needs no prompt ('last' is the last signature made).",
                    "A biometryCurrentSet key is unusable after an enrollment change: errSecItemNotFound (-25300)",
                    "[invalidated]; removing the passcode deletes whenPasscodeSetThisDeviceOnly keys.",
                    "software makes a software key (SecKeyCreateRandomKey without kSecAttrTokenIDSecureEnclave): sealed",
                    "and guarded the same way, but export prints its private key (X9.63, 97 bytes) after the prompt",
                    "its flags require; export of a Secure Enclave key fails (errSecParam).",
                ],
                completer: { session, previous in
                    switch previous.count {
                    case 0: return ["create", "list", "sign", "verify", "export", "delete"]
                    case 1 where ["sign", "verify", "export", "delete"].contains(previous[0]):
                        return ((try? session.authenticator.keys.keys(includingInvalidated: true)) ?? []).compactMap(\.label)
                    default:
                        if previous[0] == "create" {
                            return ["access=" + AccessControlFlags.named.map(\.name).joined(separator: ",")]
                                + Accessibility.allCases.map { "accessible=\($0.rawValue)" } + ["software"]
                        }
                        let outcomesFrom = previous[0] == "export" ? 2 : 3
                        return ["sign", "export"].contains(previous[0]) && previous.count >= outcomesFrom ? session.outcomeWords : []
                    }
                },
                redactor: Command.redacting()  // passcode outcomes never reach history or echo
            ) { session, arguments in
                let verb = try arguments.required(0, "create, list, sign, verify, export or delete")
                switch verb {
                case "create": return try keyCreate(session, arguments)
                case "list": return try keyList(session, arguments)
                case "sign": return try await keySign(session, arguments)
                case "verify": return try keyVerify(session, arguments)
                case "export": return try await keyExport(session, arguments)
                case "delete": return try keyDelete(session, arguments)
                default: throw arguments.usageError("unknown key action '\(verb)'")
                }
            },
        ]
    }

    private static func keyCreate(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        let name = try arguments.required(1, "the key's name")
        // One word, as `key sign`, `key list` and the other commands take it back.
        guard UsageError.isPlainWord(name, maxBytes: 255) else {
            throw arguments.usageError("a key's name is one word of 1 to 255 bytes, without spaces or control characters: \(UsageError.escaped(name))")
        }
        let software = arguments.words.dropFirst(2).contains("software")
        let (flags, accessibility) = try protection(arguments, from: 2, flags: software ? [] : [.privateKeyUsage],
                                                    accessibility: .whenUnlockedThisDeviceOnly, skipping: ["software"])
        let keys = session.authenticator.keys
        if try !keys.keys(tag: Data(name.utf8), includingInvalidated: true).isEmpty {
            throw KeychainError(.duplicateItem, message: "a key named '\(name)' exists (key delete \(name) first)")
        }
        let key = try keys.create(accessControl: AccessControl(accessibility, flags: flags), tag: Data(name.utf8), label: name,
                                  software: software)
        return CommandOutput(["ok: created \(software ? "software " : "")key \(name) (\(key.accessControl))",
                              "public key (X9.63): \(key.publicKeyData.hexString)"],
                             result: keyJSON(name, key, invalidated: false))
    }

    private static func keyList(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(1)
        let keys = session.authenticator.keys
        let all = try keys.keys(includingInvalidated: true)
        var rows: [(String, EnclaveKey, Bool)] = []
        for key in all { rows.append((key.label ?? key.id, key, try keys.isInvalidated(key))) }
        let lines = rows.isEmpty ? ["no keys for \(session.authenticator.appID)"] : rows.map { name, key, invalidated in
            "\(name)  \(key.accessControl)\(key.isSoftware ? "  software" : "")  public \(key.publicKeyData.hexString.prefix(18))…"
                + (invalidated ? "  invalidated by an enrollment change" : "")
        }
        return CommandOutput(lines, result: [("keys", .array(rows.map { .object(keyJSON($0.0, $0.1, invalidated: $0.2)) }))])
    }

    nonisolated(nonsending) private static func keySign(_ session: CommandSession, _ arguments: CommandArguments) async throws -> CommandOutput {
        let name = try arguments.required(1, "the key's name")
        let message = try messageBytes(try arguments.required(2, "the message (text, or hex:bytes)"), arguments)
        let key = try findKey(session, name)
        let context = session.context
        let signature = try await session.withScriptedOutcomes(arguments.words.dropFirst(3), arguments: arguments) { _ in
            try await session.authenticator.keys.sign(message, with: key, context: context, reason: "Sign with \"\(name)\"")
        }
        session.lastSignature = signature
        return CommandOutput(["ok: signed \(message.count) bytes with \(name)", "signature (DER): \(signature.hexString)",
                              "public key (X9.63): \(key.publicKeyData.hexString)"],
                             result: [("key", .string(name)), ("signature", .string(signature.hexString)),
                                      ("publicKey", .string(key.publicKeyData.hexString)), ("algorithm", .string("ecdsaSignatureMessageX962SHA256"))])
    }

    nonisolated(nonsending) private static func keyExport(_ session: CommandSession, _ arguments: CommandArguments) async throws -> CommandOutput {
        let name = try arguments.required(1, "the key's name")
        let key = try findKey(session, name)
        let context = session.context
        let exported = try await session.withScriptedOutcomes(arguments.words.dropFirst(2), arguments: arguments) { _ in
            try await session.authenticator.keys.exportPrivateKey(key, context: context, reason: "Export \"\(name)\"")
        }
        return CommandOutput(["ok: exported software key \(name)", "private key (X9.63): \(exported.hexString)"],
                             result: [("key", .string(name)), ("privateKey", .string(exported.hexString))])
    }

    private static func keyVerify(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        let name = try arguments.required(1, "the key's name")
        let message = try messageBytes(try arguments.required(2, "the message (text, or hex:bytes)"), arguments)
        let word = try arguments.required(3, "the signature in hex, or 'last'")
        try arguments.expectAtMost(4)
        let signatureBytes: Data
        if word == "last" {
            guard let last = session.lastSignature else { throw arguments.usageError("no signature was made in this session yet") }
            signatureBytes = last
        } else {
            guard let parsed = Data(hexString: word) else { throw arguments.usageError("'\(word)' is not hex") }
            signatureBytes = parsed
        }
        let key = try findKey(session, name, includingInvalidated: true)
        guard key.isValidSignature(signatureBytes, for: message) else {
            throw KeychainError(.authenticationFailed, message: "the signature does not verify with \(name)'s public key (errSecVerifyFailed -67808)")
        }
        return CommandOutput("ok: the signature verifies with \(name)'s public key", result: [("key", .string(name)), ("valid", .bool(true))])
    }

    private static func keyDelete(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        let name = try arguments.required(1, "the key's name")
        try arguments.expectAtMost(2)
        try session.authenticator.keys.delete(try findKey(session, name, includingInvalidated: true))
        return CommandOutput("ok: deleted key \(name)", result: [("key", .string(name))])
    }

    private static func findKey(_ session: CommandSession, _ name: String, includingInvalidated: Bool = true) throws -> EnclaveKey {
        guard let key = try session.authenticator.keys.keys(tag: Data(name.utf8), includingInvalidated: includingInvalidated).first else {
            throw KeychainError(.itemNotFound, message: "no key named '\(name)'")
        }
        return key
    }

    /// The bytes a word names: its UTF-8 text, or `hex:…` bytes (`key sign`, `attest`).
    static func messageBytes(_ word: String, _ arguments: CommandArguments) throws -> Data {
        guard word.lowercased().hasPrefix("hex:") else { return Data(word.utf8) }
        guard let bytes = Data(hexString: String(word.dropFirst(4))) else { throw arguments.usageError("'\(word)' is not hex") }
        return bytes
    }

    private static func keyJSON(_ name: String, _ key: EnclaveKey, invalidated: Bool) -> [(String, JSONValue)] {
        [("key", .string(name)), ("accessible", .string(key.accessibility.rawValue)), ("access", .string(key.flags.description)),
         ("publicKey", .string(key.publicKeyData.hexString)), ("software", .bool(key.isSoftware)), ("invalidated", .bool(invalidated))]
    }
}

extension Data {
    /// Bytes from hex (even length, 0-9 a-f A-F); nil otherwise.
    package init?(hexString: String) {
        let characters = Array(hexString.utf8)
        guard characters.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        var index = 0
        while index < characters.count {
            guard let high = Self.nibble(characters[index]), let low = Self.nibble(characters[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(bytes)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
