#if !canImport(Darwin)
import Foundation
import Touchstone

/// Access-control flags for `SecAccessControlCreateWithFlags`, with Apple's bit values
/// (REFERENCE §9). `or` and `and` cannot be combined.
public struct SecAccessControlCreateFlags: OptionSet, Sendable, Hashable {
    /// The flags' bits.
    public let rawValue: UInt

    /// Creates flags from bits.
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Biometry or the device passcode; survives enrollment changes.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    /// Any enrolled biometric identity (biometry must be enrolled); survives enrollment changes.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    /// The enrolled set at creation: the item is invalidated when it changes (reads then
    /// return `errSecItemNotFound`).
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    /// The device passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    /// A paired companion device (watch / Mac).
    public static let companion = SecAccessControlCreateFlags(rawValue: 1 << 5)
    /// At least one constraint must be satisfied.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    /// Every constraint must be satisfied.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    /// A private key used inside secure hardware (stored, not enforced).
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    /// An extra encryption factor: the application password set with
    /// `LAContext.setCredential(_:type:)`.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)

    /// The iOS 9 name of ``biometryAny``.
    @available(iOS, deprecated: 11.3, renamed: "biometryAny")
    @available(macOS, deprecated: 10.13.4, renamed: "biometryAny")
    public static var touchIDAny: SecAccessControlCreateFlags { .biometryAny }
    /// The iOS 9 name of ``biometryCurrentSet``.
    @available(iOS, deprecated: 11.3, renamed: "biometryCurrentSet")
    @available(macOS, deprecated: 10.13.4, renamed: "biometryCurrentSet")
    public static var touchIDCurrentSet: SecAccessControlCreateFlags { .biometryCurrentSet }
    /// The macOS 10.15 name of ``companion``.
    @available(macOS, deprecated: 15.0, renamed: "companion")
    public static var watch: SecAccessControlCreateFlags { .companion }
}

/// An item's protection, made by `SecAccessControlCreateWithFlags`: an accessibility class and
/// access-control flags. Put it in an item's attributes under `kSecAttrAccessControl`, or pass
/// it to `LAContext.evaluateAccessControl(_:operation:localizedReason:reply:)`.
public final class SecAccessControl: Sendable, Hashable, CustomStringConvertible {
    /// The Touchstone access control it stands for.
    public let touchstoneAccessControl: AccessControl

    package init(_ accessControl: AccessControl) {
        touchstoneAccessControl = accessControl
    }

    package var accessControl: AccessControl { touchstoneAccessControl }

    /// Equal when accessibility and flags are equal.
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.touchstoneAccessControl == rhs.touchstoneAccessControl
    }

    /// Hashes accessibility and flags.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(touchstoneAccessControl)
    }

    /// `<SecAccessControl afterFirstUnlockThisDeviceOnly [biometryCurrentSet]>`.
    public var description: String { "<SecAccessControl \(touchstoneAccessControl)>" }
}

/// Makes an access control from an accessibility class (a `kSecAttrAccessible*` value) and
/// `flags`. Returns nil, and an `errSecParam` error (domain `NSOSStatusErrorDomain`) through
/// `error`, when the class is unknown or the flags break one of Apple's rules: `or` with
/// `and`, both biometry flags, or `userPresence` with anything but `applicationPassword` and
/// `privateKeyUsage` (``AccessControlFlags/validate()``). Bits no flag has are ignored, as
/// Apple's, except with `userPresence`, which Apple's rule refuses with any other bit.
///
/// ```swift
/// var error: Unmanaged<CFError>?
/// let access = SecAccessControlCreateWithFlags(kCFAllocatorDefault,
///                                              kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
///                                              .biometryCurrentSet, &error)
/// ```
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?, _ protection: CFTypeRef, _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    let name = (protection as? String) ?? "\(protection)"
    guard let accessibility = accessibilityClass(named: name) else {
        // Apple's text (Security's SecAccessControl.c), with the protection given.
        error?.pointee = Unmanaged.passRetained(osStatusError(errSecParam, "SecAccessControl: invalid protection: \(name)"))
        return nil
    }
    do {
        // Apple's function checks its rules on every bit (userPresence with an unknown bit is
        // refused), then reads the bits it knows and ignores the rest (dropping bits breaks no
        // rule, so the flags kept are checked).
        let given = AccessControlFlags(rawValue: flags.rawValue)
        try given.validateCombinations()
        return SecAccessControl(AccessControl(validated: accessibility, flags: given.intersection(.knownFlags)))
    } catch let failure {
        error?.pointee = Unmanaged.passRetained(osStatusError(failure.osStatus, failure.message))
        return nil
    }
}

/// Readable while the device is unlocked.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlocked: CFString = "ak"
/// Readable after the first unlock since boot.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlock: CFString = "ck"
/// Readable while unlocked; never migrated to another device.
nonisolated(unsafe) public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly: CFString = "aku"
/// Readable after the first unlock; never migrated to another device.
nonisolated(unsafe) public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
/// Only while a device passcode is set: cannot be stored without one (`errSecNotAvailable`),
/// deleted when it is removed.
nonisolated(unsafe) public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: CFString = "akpu"
/// Deprecated by Apple; treated as ``kSecAttrAccessibleAfterFirstUnlock``.
@available(iOS, deprecated: 12.0, message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlock")
nonisolated(unsafe) public let kSecAttrAccessibleAlways: CFString = "dk"
/// Deprecated by Apple; treated as ``kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly``.
@available(iOS, deprecated: 12.0, message: "Use an accessibility level that provides some user protection, such as kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly")
nonisolated(unsafe) public let kSecAttrAccessibleAlwaysThisDeviceOnly: CFString = "dku"

/// The accessibility class a `kSecAttrAccessible*` value names.
package func accessibilityClass(named value: String) -> Accessibility? {
    switch value {
    case "ak": .whenUnlocked
    case "ck": .afterFirstUnlock
    case "dk": .always
    case "aku": .whenUnlockedThisDeviceOnly
    case "cku": .afterFirstUnlockThisDeviceOnly
    case "dku": .alwaysThisDeviceOnly
    case "akpu": .whenPasscodeSetThisDeviceOnly
    default: nil
    }
}

/// The `kSecAttrAccessible*` value of an accessibility class.
package func accessibleValue(_ accessibility: Accessibility) -> String {
    switch accessibility {
    case .whenUnlocked: "ak"
    case .afterFirstUnlock: "ck"
    case .whenUnlockedThisDeviceOnly: "aku"
    case .afterFirstUnlockThisDeviceOnly: "cku"
    case .whenPasscodeSetThisDeviceOnly: "akpu"
    case .always: "dk"
    case .alwaysThisDeviceOnly: "dku"
    }
}

/// The type identifier of `SecAccessControl`, for `CFGetTypeID(value) == SecAccessControlGetTypeID()`.
public func SecAccessControlGetTypeID() -> CFTypeID { CFTypeKind.secAccessControl.rawValue }

/// An `NSError` in `NSOSStatusErrorDomain`, as Security reports `CFError`s. Apple's `SecError`
/// keeps the message under `kCFErrorDescriptionKey` ("NSDescription", `SecCFError.c`) beside
/// how many errors it wraps (`numberOfErrorsDeep`, 0 for one that wraps none), and
/// CoreFoundation makes the localized description of it (`CFError.c`,
/// `_CFErrorCreateLocalizedDescription`, the domain localized as "OSStatus"): "The operation
/// couldn’t be completed. (OSStatus error -50 - RSAdecrypt wrong input (err -27))". Linux's
/// Foundation reads `NSLocalizedDescriptionKey` alone, so that sentence is stored there too.
package func osStatusError(_ status: OSStatus, _ message: String) -> NSError {
    NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: [
        "NSDescription": message,
        "numberOfErrorsDeep": NSNumber(value: 0),
        NSLocalizedDescriptionKey: "The operation couldn\u{2019}t be completed. (OSStatus error \(status) - \(message))",
    ])
}
#endif
