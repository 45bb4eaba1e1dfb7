/// A composition or configuration problem: an unknown plugin id, an unknown or malformed
/// option, a configuration file that cannot be read.
///
/// Every case names what was wrong and what would have been accepted.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No plugin with this id is registered for `kind`.
    case unknownPlugin(id: String, kind: PluginKind?, known: [String])
    /// The plugin exists but is of another kind than the slot it was put in.
    case wrongKind(id: String, expected: PluginKind, actual: PluginKind)
    /// The plugin has no option by this name.
    case unknownOption(plugin: String, option: String, known: [String])
    /// The option's value does not parse as the option's type.
    case badOptionValue(plugin: String, option: String, value: String, expected: String)
    /// Two plugins were registered under one id.
    case duplicatePlugin(id: String)
    /// A configuration file could not be read or parsed.
    case unreadableConfiguration(path: String, reason: String)
    /// A policy name or raw value that no registered policy answers to.
    case unknownPolicy(name: String, known: [String])
    /// A setting outside plugins (such as the app id) is invalid.
    case invalidSetting(name: String, reason: String)

    public var description: String {
        switch self {
        case let .unknownPlugin(id, kind, known):
            let what = kind.map { "\($0.rawValue) plugin" } ?? "plugin"
            return "unknown \(what) '\(id)'; known: \(known.sorted().joined(separator: ", "))"
        case let .wrongKind(id, expected, actual):
            return "plugin '\(id)' is a \(actual.rawValue), not a \(expected.rawValue)"
        case let .unknownOption(plugin, option, known):
            let list = known.isEmpty ? "it takes no options" : "known: \(known.sorted().joined(separator: ", "))"
            return "plugin '\(plugin)' has no option '\(option)'; \(list)"
        case let .badOptionValue(plugin, option, value, expected):
            return "option '\(option)' of plugin '\(plugin)': '\(value)' is not \(expected)"
        case let .duplicatePlugin(id):
            return "a plugin with id '\(id)' is already registered"
        case let .unreadableConfiguration(path, reason):
            return "cannot read configuration '\(path)': \(reason)"
        case let .unknownPolicy(name, known):
            return "unknown policy '\(name)'; known: \(known.joined(separator: ", "))"
        case let .invalidSetting(name, reason):
            return "setting '\(name)': \(reason)"
        }
    }
}

/// A mistake in the calling code that Apple's framework would crash on; Touchstone reports it
/// instead (REFERENCE §8, our rule).
public enum UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `localizedReason` was empty. Apple raises an exception; Touchstone throws this.
    case emptyLocalizedReason
    /// An identity name that is empty or otherwise unusable.
    case invalidIdentityName(String)
    /// The identity to remove or present is not enrolled.
    case notEnrolled(name: String)
    /// The identity is already enrolled under this name (use re-enroll to replace it).
    case alreadyEnrolled(name: String)
    /// A passcode that cannot be set (empty, or the factor's rules refuse it).
    case invalidPasscode(reason: String)
    /// The operation needs a simulated clock, sensor or interaction and the composition has a real one.
    case notSimulated(String)
    /// The sensor holds as many identities as it can (``Device/maximumIdentities``).
    case tooManyIdentities(limit: Int)
    /// A lock-screen biometric unlock was refused: the device wants its passcode first
    /// (after a restart or a remote lock, 48 hours without an unlock, or the 156 h / 4 h rule).
    case passcodeRequiredToUnlock(reason: String)
    /// The sensor does not enroll or remove identities through Touchstone (a reader whose
    /// system manages its prints).
    case enrollmentNotSupported(sensor: String)
    /// The passcode is kept outside Touchstone (the user's login password through PAM): it
    /// cannot be set or cleared here. The text says where it is kept.
    case passcodeKeptOutside(String)
    /// Advancing the simulated clock by this much would take it past
    /// ``Timestamp/latestReading``, the latest time a device clock reads.
    case clockLimit(requested: Duration, now: Timestamp)

    /// `name` in double quotes, with every control, format or unassigned character written as
    /// `\u{…}`: a refused name may hold the characters it is refused for, and a message must
    /// not pass them to the terminal. A name longer than ``shownNameCharacters`` is cut there
    /// and marked `…` (a refused name can be megabytes long).
    package static func escaped(_ name: String) -> String {
        // (Not `name.count`: that walks the whole of a megabyte name.)
        guard let cut = name.index(name.startIndex, offsetBy: shownNameCharacters, limitedBy: name.endIndex), cut < name.endIndex else {
            return "\"" + escapingUnprintable(name) + "\""
        }
        return "\"" + escapingUnprintable(String(name[..<cut])) + "\"…"
    }

    /// The most characters of a name a message shows.
    static let shownNameCharacters = 80

    /// `text` with every character ``isUnprintable(_:)`` finds written as `\u{…}`, except the
    /// line feeds and tabs listed in `keeping`: what a message that echoes input may pass to a
    /// terminal.
    package static func escapingUnprintable(_ text: String, keeping: Set<Unicode.Scalar> = []) -> String {
        // Printable ASCII (nearly every line) needs no look at the Unicode properties.
        let asciiOnly = text.utf8.allSatisfy { byte in
            (byte >= 0x20 && byte < 0x7F) || (byte < 0x20 && keeping.contains(Unicode.Scalar(byte)))
        }
        guard !asciiOnly, text.unicodeScalars.contains(where: { isUnprintable($0) && !keeping.contains($0) }) else {
            return text
        }
        var escaped = ""
        for scalar in text.unicodeScalars {
            if isUnprintable(scalar), !keeping.contains(scalar) {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// Whether `text` can be one word of a script and a name in a message: 1 to `maxBytes` UTF-8
    /// bytes, no whitespace and nothing ``isUnprintable(_:)`` finds (identity names, app ids).
    package static func isPlainWord(_ text: String, maxBytes: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maxBytes && !text.contains(where: \.isWhitespace)
            && !text.unicodeScalars.contains(where: isUnprintable)
    }

    /// Whether `scalar` is a control, format, unassigned or private-use character, or a line or
    /// paragraph separator: nothing a name should hold.
    static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .unassigned, .surrogate, .privateUse, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .emptyLocalizedReason:
            return "programmer error: localizedReason must be a non-empty string (Apple's framework crashes here)"
        case let .invalidIdentityName(name):
            return "invalid identity name \(Self.escaped(name)): use a non-empty name of at most 64 bytes, without spaces, ':' or control characters, "
                + "and not an outcome word (nomatch, cancel, fallback, systemcancel, invalidate, companion...)"
        case let .notEnrolled(name):
            return "no identity named '\(name)' is enrolled"
        case let .alreadyEnrolled(name):
            return "'\(name)' is already enrolled; use reenroll to replace its template"
        case let .invalidPasscode(reason):
            return "invalid passcode: \(reason)"
        case let .notSimulated(what):
            return "\(what) needs a simulated device"
        case let .tooManyIdentities(limit):
            return "the sensor holds at most \(limit) identities; remove one first (unenroll NAME)"
        case let .passcodeRequiredToUnlock(reason):
            return "the device needs its passcode to unlock (\(reason)); enter it first (passcode enter CODE)"
        case let .enrollmentNotSupported(sensor):
            return "the sensor \(sensor) does not enroll or remove identities through Touchstone; use the system's own tool"
        case let .passcodeKeptOutside(custodian):
            return "the passcode is \(custodian); it cannot be set or cleared here"
        case let .clockLimit(requested, now):
            return "the device clock cannot go past \(Timestamp.latestReading) (it reads \(now)); "
                + "\(requested.compactDescription) is more than the \(now.untilLatestReading.compactDescription) left"
        }
    }
}

/// A storage backend could not do what was asked: the store is corrupt, unreadable, or a write
/// failed. The stored data is left as it was.
public enum StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A record exists but its contents cannot be decoded.
    case corruptRecord(key: String, reason: String)
    /// The store as a whole is unusable (bad file, failed authentication, wrong key).
    case corruptStore(path: String, reason: String)
    /// The backend failed to read or write.
    case ioFailure(reason: String)

    /// Whether the store is damaged (a corrupt record or store), as against an I/O failure
    /// that may pass.
    public var isDamage: Bool {
        switch self {
        case .corruptRecord, .corruptStore: true
        case .ioFailure: false
        }
    }

    public var description: String {
        switch self {
        case let .corruptRecord(key, reason): "stored record '\(key)' is corrupt: \(reason)"
        case let .corruptStore(path, reason): "store '\(path)' is corrupt or unreadable: \(reason); nothing is written to it from here on"
        case let .ioFailure(reason): "storage failure: \(reason)"
        }
    }
}
