import Foundation
import Touchstone

extension CommandTable {
    /// `context`.
    static func contextCommands() -> [Command] {
        let settings = ["reuse", "fallback-title", "cancel-title", "interaction", "keeps-authentication", "credential"]
        return [
            Command(
                name: "context", summary: "show the current context, make a new one, invalidate it or set an option",
                usage: "context [new | invalidate | set reuse|fallback-title|cancel-title|interaction|keeps-authentication|credential <value>]",
                example: "context set reuse 60s",
                moreExamples: ["context set fallback-title \"\"", "context set interaction not-allowed", "context invalidate", "context new"],
                details: ["reuse: a duration, clamped to 300s; fallback-title: text, \"\" hides the button, nil restores the default;",
                          "cancel-title: text or nil (the Cancel button is always shown); interaction: allowed or not-allowed (interactionNotAllowed);",
                          "keeps-authentication: on or off; on, what a success proved satisfies later evaluations without asking, as an LAContext does (off: each evaluate asks);",
                          "credential: the application password (setCredential(_:type: .applicationPassword)) for applicationPassword keychain items, nil removes it."],
                completer: { _, previous in
                    switch previous.count {
                    case 0: return ["new", "invalidate", "set"]
                    case 1 where previous[0] == "set": return settings
                    case 2 where previous[1] == "interaction": return ["allowed", "not-allowed"]
                    case 2 where previous[1] == "keeps-authentication": return ["on", "off"]
                    default: return []
                    }
                },
                redactor: { words in
                    // The application password never reaches history, echo or --json input.
                    guard words.count >= 3, words[0] == "set", words[1] == "credential" else { return nil }
                    return Array(words.prefix(2)) + ["****"]
                }
            ) { session, arguments in
                switch arguments[0] {
                case nil:
                    return show(session.context, app: session.authenticator.appID)
                case "new":
                    try arguments.expectAtMost(1)
                    session.newContext()
                    return CommandOutput("new context for \(session.authenticator.appID)")
                case "invalidate":
                    try arguments.expectAtMost(1)
                    session.context.invalidate()
                    return CommandOutput("context invalidated: later calls fail with invalidContext (-10); context new makes another")
                case "set":
                    try arguments.expectAtMost(3)
                    let setting = try arguments.required(1, "the setting (\(settings.joined(separator: ", ")))")
                    let value = try arguments.required(2, "the value")
                    let context = session.context
                    switch setting {
                    case "reuse":
                        guard let duration = Duration(compact: value) else {
                            throw arguments.usageError("'\(value)' is not a duration from \(Duration.compactRangeDescription), such as 60s or 5m (the reuse duration is clamped to 300s)")
                        }
                        context.touchIDAuthenticationAllowableReuseDuration = duration
                        let clamped = context.touchIDAuthenticationAllowableReuseDuration
                        return CommandOutput("reuse duration: \(clamped.compactDescription)" + (clamped != duration ? " (clamped to the 300s maximum)" : ""),
                                             result: [("reuse", .string(clamped.compactDescription))])
                    case "fallback-title":
                        context.localizedFallbackTitle = value == "nil" ? nil : value
                        return CommandOutput("fallback title: \(describeFallbackTitle(context.localizedFallbackTitle))")
                    case "cancel-title":
                        context.localizedCancelTitle = value == "nil" || value.isEmpty ? nil : value
                        let title = context.localizedCancelTitle.map { "\"\($0)\"" }
                            ?? "default (\"\(AuthenticationContext.defaultCancelTitle)\")"
                        return CommandOutput("cancel title: \(title)" + (value.isEmpty ? " (the Cancel button cannot be hidden)" : ""))
                    case "credential":
                        let credential = value == "nil" ? nil : Data(value.utf8)
                        guard context.setCredential(credential, type: .applicationPassword) else {
                            throw AuthenticationError(.invalidContext)
                        }
                        return CommandOutput("application password: \(credential == nil ? "removed" : "set")",
                                             result: [("credentialSet", .bool(context.isCredentialSet(.applicationPassword)))])
                    case "interaction":
                        switch value {
                        case "allowed", "true", "on", "yes": context.interactionNotAllowed = false
                        case "not-allowed", "false", "off", "no": context.interactionNotAllowed = true
                        default: throw arguments.usageError("'\(value)' is not allowed or not-allowed")
                        }
                        return CommandOutput("interaction: \(context.interactionNotAllowed ? "not allowed" : "allowed")",
                                             result: [("interactionNotAllowed", .bool(context.interactionNotAllowed))])
                    case "keeps-authentication":
                        switch value {
                        case "on", "true", "yes": context.keepsItsAuthentication = true
                        case "off", "false", "no": context.keepsItsAuthentication = false
                        default: throw arguments.usageError("'\(value)' is not on or off")
                        }
                        return CommandOutput("keeps authentication: \(context.keepsItsAuthentication ? "yes (as an LAContext)" : "no")",
                                             result: [("keepsItsAuthentication", .bool(context.keepsItsAuthentication))])
                    default:
                        throw arguments.usageError("unknown setting '\(setting)'; settings: \(settings.joined(separator: ", "))")
                    }
                case let other?:
                    throw arguments.usageError("unknown sub-command '\(other)'")
                }
            },
        ]
    }

    private static func describeTitle(_ title: String?, default defaultTitle: String) -> String {
        guard let title else { return "default (\"\(defaultTitle)\")" }
        return title.isEmpty ? "hidden (\"\")" : "\"\(title)\""
    }

    /// The fallback title as the dialog will show it: its default depends on the policy.
    private static func describeFallbackTitle(_ title: String?) -> String {
        guard title == nil else { return describeTitle(title, default: "") }
        return "default (\"\(AuthenticationContext.defaultFallbackTitle)\"; \"\(AuthenticationContext.defaultPasscodeFallbackTitle)\" under deviceOwnerAuthentication)"
    }

    private static func show(_ context: AuthenticationContext, app: String) -> CommandOutput {
        CommandOutput([
            "app: \(app)",
            "invalidated: \(context.isInvalidated ? "yes" : "no")",
            "biometryType: \(context.biometryType)",
            "fallback title: \(describeFallbackTitle(context.localizedFallbackTitle))",
            "cancel title: \(describeTitle(context.localizedCancelTitle, default: AuthenticationContext.defaultCancelTitle))",
            "reuse duration: \(context.touchIDAuthenticationAllowableReuseDuration.compactDescription)",
            "interaction: \(context.interactionNotAllowed ? "not allowed" : "allowed")",
            "keeps authentication: \(context.keepsItsAuthentication ? "yes" : "no")",
            "evaluatedPolicyDomainState: \(Format.hex(context.evaluatedPolicyDomainState))",
        ], result: [
            ("app", .string(app)),
            ("invalidated", .bool(context.isInvalidated)),
            ("biometryType", .string(context.biometryType.description)),
            ("fallbackTitle", .optional(context.localizedFallbackTitle)),
            ("cancelTitle", .optional(context.localizedCancelTitle)),
            ("reuse", .string(context.touchIDAuthenticationAllowableReuseDuration.compactDescription)),
            ("interactionNotAllowed", .bool(context.interactionNotAllowed)),
            ("keepsItsAuthentication", .bool(context.keepsItsAuthentication)),
            ("evaluatedPolicyDomainState", Format.hexJSON(context.evaluatedPolicyDomainState)),
        ])
    }
}
