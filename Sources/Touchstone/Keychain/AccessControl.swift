import Foundation

/// Access-control flags of a keychain item (`SecAccessControlCreateFlags`), with Apple's bit
/// values (REFERENCE §9).
///
/// Constraints say who must authenticate: ``userPresence`` (biometry or the device passcode),
/// ``biometryAny``, ``biometryCurrentSet``, ``devicePasscode``, ``companion``. Several
/// constraints are combined with ``or`` or ``and`` — never both. Without either, several
/// constraints must all be satisfied (our rule, as `and`). ``userPresence`` stands alone, and
/// only one of the biometry flags may be set (``validate()``). ``applicationPassword`` is not a
/// constraint but an extra encryption factor; ``privateKeyUsage`` is accepted and stored.
///
/// ```swift
/// let access: AccessControlFlags = [.biometryCurrentSet, .or, .devicePasscode]
/// try access.validate()          // fine; [.or, .and] would throw errSecParam
/// ```
public struct AccessControlFlags: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: UInt

    /// Creates flags from Apple's bit values.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Biometry or the device passcode; survives enrollment changes (LAPolicy 2 rules).
    public static let userPresence = AccessControlFlags(rawValue: 1 << 0)
    /// Any enrolled biometric identity; biometry must be enrolled; survives enrollment changes.
    public static let biometryAny = AccessControlFlags(rawValue: 1 << 1)
    /// The biometric set enrolled when the item was created: the item is invalidated when the
    /// enrolled set changes (reads then return errSecItemNotFound, our rule).
    public static let biometryCurrentSet = AccessControlFlags(rawValue: 1 << 3)
    /// The device passcode.
    public static let devicePasscode = AccessControlFlags(rawValue: 1 << 4)
    /// A paired companion device (watch / Mac).
    public static let companion = AccessControlFlags(rawValue: 1 << 5)
    /// At least one constraint must be satisfied.
    public static let or = AccessControlFlags(rawValue: 1 << 14)
    /// Every constraint must be satisfied.
    public static let and = AccessControlFlags(rawValue: 1 << 15)
    /// The item is a private key usable only inside the secure hardware (stored, not enforced).
    public static let privateKeyUsage = AccessControlFlags(rawValue: 1 << 30)
    /// The value is additionally encrypted with a key derived from the application password set
    /// on the context (``AuthenticationContext/setCredential(_:type:)``).
    public static let applicationPassword = AccessControlFlags(rawValue: 1 << 31)

    /// Deprecated alias of ``biometryAny``.
    public static let touchIDAny = biometryAny
    /// Deprecated alias of ``biometryCurrentSet``.
    public static let touchIDCurrentSet = biometryCurrentSet

    /// Every flag with its name, in bit order.
    public static let named: [(name: String, flag: AccessControlFlags)] = [
        ("userPresence", .userPresence), ("biometryAny", .biometryAny),
        ("biometryCurrentSet", .biometryCurrentSet), ("devicePasscode", .devicePasscode),
        ("companion", .companion), ("or", .or), ("and", .and),
        ("privateKeyUsage", .privateKeyUsage), ("applicationPassword", .applicationPassword),
    ]

    /// The bits of the flags this type names.
    package static let knownFlags: AccessControlFlags = named.reduce(into: []) { $0.formUnion($1.flag) }
    private static let allConstraints: AccessControlFlags = [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode, .companion]

    /// Looks a flag up by name (case-insensitive; `touchIDAny`, `touchIDCurrentSet` accepted),
    /// or by its bit value written as a number.
    public init?(name: String) {
        let lowered = name.lowercased()
        if let raw = UInt(name) {
            self.init(rawValue: raw)
            return
        }
        let aliases = ["touchidany": AccessControlFlags.biometryAny, "touchidcurrentset": .biometryCurrentSet]
        if let flag = aliases[lowered] ?? Self.named.first(where: { $0.name.lowercased() == lowered })?.flag {
            self = flag
        } else {
            return nil
        }
    }

    /// Only the constraint flags (who must authenticate).
    public var constraints: AccessControlFlags { intersection(Self.allConstraints) }

    /// Whether reading an item with these flags needs an authentication.
    public var requiresAuthentication: Bool { !constraints.isEmpty }

    /// Checks that the flags can be used, with the rules and texts of Apple's
    /// `SecAccessControlCreateWithFlags` (its published `SecAccessControl.m`); each broken rule
    /// is errSecParam:
    /// - `or` with `and`;
    /// - ``biometryAny`` with ``biometryCurrentSet`` (one biometry constraint);
    /// - ``userPresence`` with anything but ``applicationPassword`` and ``privateKeyUsage``
    ///   (`[.userPresence, .or, .devicePasscode]` is refused on iOS: ``userPresence`` already
    ///   means biometry or the passcode);
    /// - a bit no flag has (our rule: Apple's function ignores such a bit unless it comes with
    ///   ``userPresence``; the `Security` module checks Apple's rules on every bit with
    ///   ``validateCombinations()``, then drops the unknown ones).
    public func validate() throws(KeychainError) {
        try validateCombinations()
        let unknown = subtracting(Self.knownFlags)
        if !unknown.isEmpty {
            throw KeychainError(.invalidParameter, message: "unknown access-control bits \(unknown.rawValue)")
        }
    }

    /// Apple's rules of ``validate()`` alone, which count every bit, unknown ones too (as
    /// `userPresence` with a bit no flag has is refused on iOS).
    package func validateCombinations() throws(KeychainError) {
        if contains(.or), contains(.and) {
            throw KeychainError(.invalidParameter, message: "only one logical operation can be set")
        }
        if contains(.biometryAny), contains(.biometryCurrentSet) {
            throw KeychainError(.invalidParameter, message: "only one bio constraint can be set")
        }
        if contains(.userPresence), !subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty {
            throw KeychainError(.invalidParameter, message: "kSecAccessControlUserPresence can be combined only with kSecAccessControlApplicationPassword and kSecAccessControlPrivateKeyUsage")
        }
    }

    /// Whether an authentication that used `methods` satisfies these constraints: biometry
    /// (or the reuse window) for the biometry flags, the passcode for ``devicePasscode``,
    /// either for ``userPresence``, the companion for ``companion``; all of them, or any with
    /// ``or``. Flags without constraints are always satisfied.
    public func isSatisfied(by methods: Set<AuthenticationMethod>) -> Bool {
        let biometric = methods.contains(.biometry) || methods.contains(.reuse)
        var results: [Bool] = []
        if contains(.userPresence) { results.append(biometric || methods.contains(.passcode)) }
        if contains(.biometryAny) || contains(.biometryCurrentSet) { results.append(biometric) }
        if contains(.devicePasscode) { results.append(methods.contains(.passcode)) }
        if contains(.companion) { results.append(methods.contains(.companion)) }
        guard !results.isEmpty else { return true }
        return contains(.or) ? results.contains(true) : !results.contains(false)
    }

    /// The policy rule an evaluation for these constraints runs, or nil when there is none.
    ///
    /// - biometryAny / biometryCurrentSet: biometrics only (LAPolicy 1 rules);
    /// - userPresence: biometrics with the passcode as fallback (LAPolicy 2 rules);
    /// - devicePasscode: the passcode alone;
    /// - companion: the companion;
    /// - `or`: one biometric step whose fallback is the passcode when the passcode (or user
    ///   presence) is allowed, and that a companion approval satisfies when allowed;
    /// - `and` (or several constraints): one step per constraint, in the order above.
    public var policyRule: PolicyRule? {
        let biometric = contains(.biometryAny) || contains(.biometryCurrentSet)
        let presence = contains(.userPresence)
        let passcode = contains(.devicePasscode)
        let companion = contains(.companion)
        guard biometric || presence || passcode || companion else { return nil }
        if contains(.or) {
            if biometric || presence {
                return PolicyRule(steps: [.biometry(passcodeFallback: presence || passcode, orCompanion: companion)],
                                  requiresPasscodeSet: true)
            }
            // passcode or companion: the passcode (our rule: no prompt offers both).
            return passcode ? PolicyRule(steps: [.passcode], requiresPasscodeSet: true)
                : PolicyRule(steps: [.companion], requiresPasscodeSet: false)
        }
        var steps: [FactorStep] = []
        if biometric {
            steps.append(.biometry(passcodeFallback: false, orCompanion: false))
        } else if presence {
            steps.append(.biometry(passcodeFallback: true, orCompanion: false))
        }
        if passcode { steps.append(.passcode) }
        if companion { steps.append(.companion) }
        return PolicyRule(steps: steps, requiresPasscodeSet: biometric || presence || passcode)
    }

    /// `biometryCurrentSet|or|devicePasscode`; `none` when empty.
    public var description: String {
        let names = Self.named.filter { contains($0.flag) }.map(\.name)
        let unknown = subtracting(Self.knownFlags)
        let all = names + (unknown.isEmpty ? [] : [String(unknown.rawValue)])
        return all.isEmpty ? "none" : all.joined(separator: "|")
    }

    /// Parses `biometryAny,or,devicePasscode` (commas or `|`); nil when a name is unknown.
    public init?(list: String) {
        var flags: AccessControlFlags = []
        for part in list.split(whereSeparator: { $0 == "," || $0 == "|" }) {
            guard let flag = AccessControlFlags(name: String(part).trimmingCharacters(in: .whitespaces)) else { return nil }
            flags.formUnion(flag)
        }
        self = flags
    }
}

/// When a keychain item is readable (`kSecAttrAccessible*`). Touchstone does not model the
/// lock screen, so the unlock classes are stored and reported; ``whenPasscodeSetThisDeviceOnly``
/// is enforced: such an item cannot be stored without a device passcode (errSecNotAvailable,
/// our rule) and removing the passcode deletes it.
public enum Accessibility: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// While the device is unlocked.
    case whenUnlocked
    /// After the first unlock since boot.
    case afterFirstUnlock
    /// While unlocked; never migrated to another device.
    case whenUnlockedThisDeviceOnly
    /// After the first unlock; never migrated to another device.
    case afterFirstUnlockThisDeviceOnly
    /// Only while a device passcode is set; deleted when it is removed.
    case whenPasscodeSetThisDeviceOnly
    /// Whatever the lock state (`kSecAttrAccessibleAlways`, deprecated in iOS 12 but still
    /// honoured and read back as written).
    case always
    /// Whatever the lock state; never migrated to another device (`kSecAttrAccessibleAlwaysThisDeviceOnly`).
    case alwaysThisDeviceOnly

    /// Looks a class up by name (case-insensitive).
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
        self = match
    }

    public var description: String { rawValue }
}

/// A keychain item's protection: its accessibility class and access-control flags — what
/// `SecAccessControlCreateWithFlags` makes.
///
/// ```swift
/// let access = try AccessControl(.whenPasscodeSetThisDeviceOnly, flags: .biometryCurrentSet)
/// try await context.evaluateAccessControl(access, operation: .useItem, reason: "Unlock notes")
/// ```
public struct AccessControl: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The accessibility class.
    public var accessibility: Accessibility
    /// The access-control flags.
    public var flags: AccessControlFlags

    /// Creates an access control; flags that break one of ``AccessControlFlags/validate()``'s
    /// rules (`or` with `and`, both biometry flags, `userPresence` with another constraint, an
    /// unknown bit) are errSecParam.
    public init(_ accessibility: Accessibility = .whenUnlocked, flags: AccessControlFlags = []) throws(KeychainError) {
        try flags.validate()
        self.accessibility = accessibility
        self.flags = flags
    }

    /// An access control from flags checked before (stored items, fixed combinations).
    package init(validated accessibility: Accessibility, flags: AccessControlFlags) {
        self.accessibility = accessibility
        self.flags = flags
    }

    public var description: String { "\(accessibility) [\(flags)]" }
}

/// What an access control is evaluated for (`LAAccessControlOperation`).
public enum AccessControlOperation: Int, Sendable, Codable, CaseIterable {
    /// Creating a new item.
    case createItem = 0
    /// Using (reading, updating) an existing item.
    case useItem = 1
    /// Creating a new key.
    case createKey = 2
    /// Signing with an existing key.
    case useKeySign = 3
    /// Decrypting with an existing key.
    case useKeyDecrypt = 4
    /// Key exchange with an existing key.
    case useKeyKeyExchange = 5
}
