import Foundation
import Touchstone

/// Small text helpers shared by the commands.
enum Format {
    /// Lowercase hex, or `nil`.
    static func hex(_ data: Data?) -> String {
        data.map(\.hexString) ?? "nil"
    }

    /// A JSON string of the hex, or null.
    static func hexJSON(_ data: Data?) -> JSONValue {
        .optional(data.map(\.hexString))
    }

    /// `a, b, c` or `none`.
    static func list(_ items: [String]) -> String {
        items.isEmpty ? "none" : items.joined(separator: ", ")
    }

    /// Words `key=value` as a dictionary; anything else is a usage error.
    static func options(_ words: ArraySlice<String>, arguments: CommandArguments) throws(CommandError) -> [String: String] {
        var options: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw arguments.usageError("'\(word)' is not an option written key=value")
            }
            options[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        return options
    }

    /// The human lines of the biometry status.
    static func biometry(_ status: BiometryStatus) -> String {
        if status.isLockedOut {
            return "biometry: locked out (\(status.consecutiveFailures) of \(status.lockoutThreshold) consecutive failures); "
                + (status.howToClear ?? "")
        }
        return "biometry: not locked (\(status.consecutiveFailures) of \(status.lockoutThreshold) consecutive failures, "
            + "\(status.failuresBeforeLockout) before lockout)"
    }

    /// The human line of the passcode status.
    static func passcode(_ status: PasscodeStatus) -> String {
        guard status.isSet || status.isDisabled else { return "passcode: not set" }
        if status.isDisabled { return "passcode: device disabled after \(PasscodeLadder.disableAfterFailures) wrong passcodes" }
        var text = "passcode: set, \(status.failures) wrong attempt\(status.failures == 1 ? "" : "s")"
        if let remaining = status.delayRemaining {
            text += ", delay running: \(remaining.compactDescription) remaining"
        } else {
            text += ", no delay running"
        }
        if let next = status.nextDelay {
            text += ", next wrong passcode: " + (next > .zero ? "\(next.compactDescription) delay" : "no delay")
        } else {
            text += ", next wrong passcode disables the device"
        }
        text += ", \(status.attemptsBeforeDisabled) before disabled"
        return text
    }

    static func biometryJSON(_ status: BiometryStatus) -> JSONValue {
        .object([
            ("biometryType", .string(status.biometryType.description)),
            ("enrolled", .int(status.enrolledCount)),
            ("consecutiveFailures", .int(status.consecutiveFailures)),
            ("lockoutThreshold", .int(status.lockoutThreshold)),
            ("lockedOut", .bool(status.isLockedOut)),
            ("failuresBeforeLockout", .int(status.failuresBeforeLockout)),
        ])
    }

    static func passcodeJSON(_ status: PasscodeStatus) -> JSONValue {
        .object([
            ("set", .bool(status.isSet)),
            ("failures", .int(status.failures)),
            ("delayRemaining", .optional(status.delayRemaining?.compactDescription)),
            ("nextDelay", .optional(status.nextDelay?.compactDescription)),
            ("disabled", .bool(status.isDisabled)),
            ("attemptsBeforeDisabled", .int(status.attemptsBeforeDisabled)),
        ])
    }

    static func trace(_ trace: Trace) -> JSONValue {
        .object([
            ("policy", .string(trace.policy)),
            ("app", .string(trace.appID)),
            ("result", .optional(trace.result?.name)),
            ("failure", .optional(trace.failure)),
            ("steps", .array(trace.steps.map { step in
                .object([
                    ("at", .string(step.at.description)),
                    ("event", .string(step.event.description)),
                    ("rule", .optional(step.rule?.rawValue)),
                    ("before", .string(step.before.description)),
                    ("after", .string(step.after.description)),
                ])
            })),
            ("rules", .strings(trace.rules.map(\.rawValue))),
        ])
    }
}

extension CommandSession {
    /// Policy names for completion: short names and raw values.
    package var policyNames: [String] {
        authenticator.policies.flatMap { policy in policy.names.prefix(1) + (policy.rawValue.map { [String($0)] } ?? []) }
    }

    /// Every spelling of every policy, for completion after a prefix.
    package var allPolicyNames: [String] {
        authenticator.policies.flatMap(\.names)
    }

    /// Enrolled identity names (empty when unreadable).
    package var enrolledNames: [String] {
        (try? device.enrolledNames()) ?? []
    }

    /// Outcome words for `evaluate` completion.
    package var outcomeWords: [String] {
        enrolledNames + ["nomatch", "cancel", "fallback", "passcode:", "systemcancel", "invalidate", "wait:", "companion"]
    }
}
