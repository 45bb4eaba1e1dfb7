import Foundation
import Touchstone

extension CommandTable {
    /// `keychain add|get|update|delete|list|authorize`: keychain items with access control,
    /// enforced by the engine through the session's context (its reuse window,
    /// interactionNotAllowed, application-password credential and earlier grants apply).
    static func keychainCommands() -> [Command] {
        [
            Command(
                name: "keychain", aliases: ["kc"],
                summary: "keychain items with access control: add, get, update, delete, list, authorize",
                usage: "keychain add <service> <account> <value> [access=flag,flag] [accessible=class] | "
                    + "keychain get|delete <service> <account> [outcome ...] | keychain update <service> <account> <value> [outcome ...] | "
                    + "keychain list [service] | keychain authorize access=flag,flag [outcome ...]",
                example: "keychain add api alice s3cret access=biometryCurrentSet",
                moreExamples: [
                    "keychain get api alice thumb",
                    "keychain update api alice n3w-s3cret thumb",
                    "keychain add notes pin 1234 access=devicePasscode accessible=whenPasscodeSetThisDeviceOnly",
                    "keychain authorize access=biometryAny thumb",
                    "keychain list",
                    "keychain delete api alice",
                ],
                details: [
                    "access flags (REFERENCE §9): userPresence, biometryAny, biometryCurrentSet, devicePasscode, companion,",
                    "or, and, privateKeyUsage, applicationPassword. errSecParam (-50), as Apple's SecAccessControl.m:",
                    "'or' with 'and', biometryAny with biometryCurrentSet, userPresence with anything but",
                    "privateKeyUsage and applicationPassword.",
                    "accessible: whenUnlocked (default), afterFirstUnlock, whenUnlockedThisDeviceOnly,",
                    "afterFirstUnlockThisDeviceOnly, whenPasscodeSetThisDeviceOnly.",
                    "get/update consume outcomes (as for evaluate) with the prompt the item's flags require;",
                    "authorize runs evaluateAccessControl(useItem) on the current context so later reads need no prompt;",
                    "likewise a context that already authenticated opens matching items again without asking",
                    "(as a reused LAContext does): 'context new' starts over.",
                    "add and delete never prompt. list never prints values. Errors show the OSStatus, e.g.",
                    "errSecItemNotFound (-25300) [invalidated] after an enrollment change for biometryCurrentSet.",
                    "Items print as service/account, quoted (\"a/b\" \"c\") when a name holds a '/', a quote or a space.",
                    "An item SecItem* stored in another access group, synchronizable, or (internet passwords) with a port, path...",
                    "has the rest of its key in its account after U+2400 (ann\u{2400}agrp=s:TEAM.shared): list shows it, and get/update/delete name it so.",
                    "list also shows the frameworks' own items: class key (RSA, P-384 and P-521 keys, service touchstone.keys),",
                    "class certificate (certificates, service touchstone.certificates) and class system (LARightStore's",
                    "rights, which the app's SecItem* queries never see).",
                ],
                completer: { session, previous in
                    switch previous.count {
                    case 0: return ["add", "get", "update", "delete", "list", "authorize"]
                    default:
                        let flags = "access=" + AccessControlFlags.named.map(\.name).joined(separator: ",")
                        let classes = Accessibility.allCases.map { "accessible=\($0.rawValue)" }
                        switch previous[0] {
                        case "add": return previous.count >= 4 ? [flags] + classes : []
                        case "get", "update": return previous.count >= 3 ? session.outcomeWords : []
                        case "authorize": return previous.count == 1 ? [flags] : session.outcomeWords
                        default: return []
                        }
                    }
                },
                redactor: Command.redacting(wordAt: 3, after: ["add", "update"])  // the value, and passcode outcomes
            ) { session, arguments in
                let verb = try arguments.required(0, "add, get, update, delete, list or authorize")
                switch verb {
                case "add": return try keychainAdd(session, arguments)
                case "get": return try await keychainGet(session, arguments)
                case "update": return try await keychainUpdate(session, arguments)
                case "delete": return try keychainDelete(session, arguments)
                case "list": return try keychainList(session, arguments)
                case "authorize": return try await keychainAuthorize(session, arguments)
                default: throw arguments.usageError("unknown keychain action '\(verb)'")
                }
            },
        ]
    }

    /// The `access=...` and `accessible=...` words from word `index` on, over the defaults
    /// (`keychain add` and `key create`).
    static func protection(_ arguments: CommandArguments, from index: Int, flags defaultFlags: AccessControlFlags,
                           accessibility defaultAccessibility: Accessibility,
                           skipping others: Set<String> = []) throws -> (AccessControlFlags, Accessibility) {
        var flags = defaultFlags
        var accessibility = defaultAccessibility
        for word in arguments.words.dropFirst(index) where !others.contains(word) {
            if word.hasPrefix("access=") {
                guard let parsed = AccessControlFlags(list: String(word.dropFirst("access=".count))) else {
                    throw arguments.usageError("'\(word)': flags are \(AccessControlFlags.named.map(\.name).joined(separator: ", "))")
                }
                flags.formUnion(parsed)
            } else if word.hasPrefix("accessible=") {
                guard let parsed = Accessibility(name: String(word.dropFirst("accessible=".count))) else {
                    throw arguments.usageError("'\(word)': classes are \(Accessibility.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                accessibility = parsed
            } else {
                throw arguments.usageError("unexpected '\(word)' (give access=... or accessible=...)")
            }
        }
        return (flags, accessibility)
    }

    private static func keychainAdd(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        let service = try arguments.required(1, "the service")
        let account = try arguments.required(2, "the account")
        let value = try arguments.required(3, "the value")
        let (flags, accessibility) = try protection(arguments, from: 4, flags: [], accessibility: .whenUnlocked)
        let access = try AccessControl(accessibility, flags: flags)
        try session.authenticator.keychain.add(value, service: service, account: account, accessControl: access,
                                               context: session.context)
        return CommandOutput("ok: added \(itemName(service, account)) (\(access))", result: itemJSON(service, account, access))
    }

    nonisolated(nonsending) private static func keychainGet(_ session: CommandSession, _ arguments: CommandArguments) async throws -> CommandOutput {
        let service = try arguments.required(1, "the service")
        let account = try arguments.required(2, "the account")
        let data = try await session.withScriptedOutcomes(arguments.words.dropFirst(3), arguments: arguments) { _ in
            try await session.authenticator.keychain.read(service: service, account: account, context: session.context,
                                                          reason: "Access \"\(service)\"")
        }
        let text = String(data: data, encoding: .utf8)
        return CommandOutput("ok: \(text ?? "<\(data.count) bytes, not UTF-8>")", result: [
            ("service", .string(service)), ("account", .string(account)),
            ("value", .optional(text)), ("bytes", .int(data.count)),
        ])
    }

    nonisolated(nonsending) private static func keychainUpdate(_ session: CommandSession, _ arguments: CommandArguments) async throws -> CommandOutput {
        let service = try arguments.required(1, "the service")
        let account = try arguments.required(2, "the account")
        let value = try arguments.required(3, "the new value")
        try await session.withScriptedOutcomes(arguments.words.dropFirst(4), arguments: arguments) { _ in
            try await session.authenticator.keychain.update(value, service: service, account: account, context: session.context,
                                                            reason: "Update \"\(service)\"")
        }
        return CommandOutput("ok: updated \(itemName(service, account))", result: [("service", .string(service)), ("account", .string(account))])
    }

    private static func keychainDelete(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        let service = try arguments.required(1, "the service")
        let account = try arguments.required(2, "the account")
        try arguments.expectAtMost(3)
        try session.authenticator.keychain.delete(service: service, account: account)
        return CommandOutput("ok: deleted \(itemName(service, account))", result: [("service", .string(service)), ("account", .string(account))])
    }

    /// An item's name as `service/account`; when either part holds a "/" (also one a combining
    /// mark leans on), a quote or a space, both are quoted and escaped, as they are typed:
    /// service "a/b" with account "c" prints `"a/b" "c"`, service "a" with account "b/c"
    /// `"a" "b/c"` — two items never print alike.
    static func itemName(_ service: String, _ account: String) -> String {
        func plain(_ part: String) -> Bool {
            !part.isEmpty && !part.unicodeScalars.contains { $0 == "/" || $0 == "\"" || $0.properties.isWhitespace }
        }
        if plain(service) && plain(account) { return "\(service)/\(account)" }
        return "\(service.debugDescription) \(account.debugDescription)"
    }

    private static func keychainList(_ session: CommandSession, _ arguments: CommandArguments) throws -> CommandOutput {
        try arguments.expectAtMost(2)
        let items = try session.authenticator.keychain.items(service: arguments[1])
        let lines = items.isEmpty ? ["no keychain items for \(session.authenticator.appID)"] : items.map { item in
            "\(itemName(item.service, item.account))  \(item.itemClass)  \(item.accessControl)"
                + (item.isInvalidated ? "  invalidated by an enrollment change" : "")
        }
        return CommandOutput(lines, result: [("items", .array(items.map { item in
            .object(itemJSON(item.service, item.account, item.accessControl) + [("invalidated", .bool(item.isInvalidated))])
        }))])
    }

    nonisolated(nonsending) private static func keychainAuthorize(_ session: CommandSession, _ arguments: CommandArguments) async throws -> CommandOutput {
        let word = try arguments.required(1, "access=flag,flag")
        guard word.hasPrefix("access="), let flags = AccessControlFlags(list: String(word.dropFirst("access=".count))) else {
            throw arguments.usageError("'\(word)' is not access=flag,flag")
        }
        let access = try AccessControl(flags: flags)
        let methods = try await session.withScriptedOutcomes(arguments.words.dropFirst(2), arguments: arguments) { _ in
            try await session.context.evaluateAccessControl(access, operation: .useItem, reason: "Authorize keychain access")
        }
        let used = methods.map(\.rawValue)
        return CommandOutput("ok: the context may now open \(flags) items" + (used.isEmpty ? "" : " (by \(used.joined(separator: " + ")))"),
                             result: [("access", .string(flags.description)), ("methods", .strings(used))])
    }

    private static func itemJSON(_ service: String, _ account: String, _ access: AccessControl) -> [(String, JSONValue)] {
        [("service", .string(service)), ("account", .string(account)),
         ("accessible", .string(access.accessibility.rawValue)), ("access", .string(access.flags.description)),
         ("accessRaw", .int(Int(access.flags.rawValue)))]
    }
}
