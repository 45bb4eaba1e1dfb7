#if !canImport(Darwin)
import Foundation

// The CoreFoundation names the keychain API's Swift call sites spell out, which Foundation on
// Linux does not export. Each is the Foundation class CoreFoundation's type is toll-free
// bridged to on Apple platforms, so the usual call sites compile unchanged
// (docs/LocalAuthentication.md, "CF shapes", lists them):
//
//     let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, ...,
//                                 kSecReturnData as String: kCFBooleanTrue!]
//     var result: CFTypeRef?
//     let status = SecItemCopyMatching(query as CFDictionary, &result)
//     let data = result as? Data
//
//     let legacy: [String?: AnyObject] = [kSecClass as String: kSecClassGenericPassword]
//     SecItemDelete(legacy as CFDictionary)
//     SecItemAdd([kSecClass: kSecClassGenericPassword, kSecAttrAccount: "bob"] as CFDictionary, nil)

/// Any CoreFoundation object: `AnyObject`, as on Apple platforms. Results of
/// `SecItemCopyMatching` arrive as `NSData`, `NSDictionary` or `NSArray`, so `result as? Data`,
/// `result as? [String: Any]` and `result as? [[String: Any]]` work.
public typealias CFTypeRef = AnyObject

/// A CoreFoundation string: `NSString`. It is a class, so a `kSec*` constant goes wherever
/// `AnyObject` is expected (`[String: AnyObject]` values), and `kSecClass as String` is the
/// bridging conversion it is on Apple platforms.
public typealias CFString = NSString

/// A CoreFoundation dictionary: `NSDictionary`. `query as CFDictionary` is the bridging
/// conversion from any Swift dictionary — `[String: Any]`, `[String: AnyObject]`,
/// `[String?: AnyObject]`, `[String: Data]`, `[CFString: Any]`.
public typealias CFDictionary = NSDictionary

/// An `NSString` in an `AnyHashable` is its Swift `String`, as on Apple platforms, so a `kSec*`
/// constant finds its entry in a `[AnyHashable: Any]` result (`attributes[kSecAttrAccount]`)
/// and `AnyHashable(kSecClass) == AnyHashable("class")`. swift-corelibs-foundation leaves
/// `NSString` hashed as an object there; Apple's Foundation does this.
extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    /// `AnyHashable(self as String)`.
    public func _toCustomAnyHashable() -> AnyHashable? {
        AnyHashable(self as String)
    }
}

/// A CoreFoundation array: `NSArray`.
public typealias CFArray = NSArray

/// A CoreFoundation data object: `NSData` (`data as CFData`, `cfData as Data`).
public typealias CFData = NSData

/// A CoreFoundation number: `NSNumber`.
public typealias CFNumber = NSNumber

/// A CoreFoundation date: `NSDate`.
public typealias CFDate = NSDate

/// A CoreFoundation boolean: `NSNumber`, which it is toll-free bridged to on Apple platforms.
public typealias CFBoolean = NSNumber

/// A CoreFoundation error: `NSError`, which it is toll-free bridged to on Apple platforms, so
/// `error.takeRetainedValue() as Error` works.
public typealias CFError = NSError

/// The domain of a `CFError`: a `CFString`.
public typealias CFErrorDomain = CFString

/// A CoreFoundation index or count (`CFIndex`, a signed word).
public typealias CFIndex = Int

/// CoreFoundation option bits (`CFOptionFlags`, an unsigned word).
public typealias CFOptionFlags = UInt

/// CoreFoundation's time: seconds since 1 January 2001 (`Date.timeIntervalSinceReferenceDate`).
public typealias CFAbsoluteTime = Double

/// C's `Boolean` as the Darwin overlay imports it (an out-parameter such as
/// `SecTrustGetNetworkFetchAllowed`'s): a Bool in a struct, `boolValue` to read.
public struct DarwinBoolean: ExpressibleByBooleanLiteral, Equatable, Sendable, CustomStringConvertible {
    /// The value.
    public var boolValue: Bool

    /// `value` as a `DarwinBoolean`.
    public init(_ value: Bool) { boolValue = value }

    /// `true` or `false` as a `DarwinBoolean`.
    public init(booleanLiteral value: Bool) { boolValue = value }

    /// "true" or "false".
    public var description: String { boolValue.description }
}

/// The CoreFoundation `true` (an `NSNumber`), implicitly unwrapped as in Apple's SDK, so both
/// `kCFBooleanTrue` and `kCFBooleanTrue!` compile.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)

/// The CoreFoundation `false` (an `NSNumber`).
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// A CoreFoundation allocator. Allocator arguments are accepted and ignored: memory is
/// Swift's.
public final class CFAllocator: Sendable {
    fileprivate init() {}
}

/// The default allocator, for `SecAccessControlCreateWithFlags(kCFAllocatorDefault, ...)`.
public let kCFAllocatorDefault: CFAllocator! = CFAllocator()

/// The system allocator (the same as ``kCFAllocatorDefault`` here).
public let kCFAllocatorSystemDefault: CFAllocator! = kCFAllocatorDefault

/// The allocator that does not free, for `CFDataCreateWithBytesNoCopy(…, kCFAllocatorNull)`.
public let kCFAllocatorNull: CFAllocator! = CFAllocator()

/// A CoreFoundation type's identifier (`CFTypeID`), as returned by ``CFGetTypeID(_:)`` and the
/// `…GetTypeID()` functions. The values are Touchstone's; compare them, do not store them.
public typealias CFTypeID = UInt

/// The kinds ``CFGetTypeID(_:)`` tells apart, with their identifiers.
enum CFTypeKind: CFTypeID {
    case unknown = 0, string = 7, number = 22, boolean = 21, data = 20, dictionary = 18, array = 19, date = 42
    case error = 30, secKey = 0x5EC0, secAccessControl = 0x5EC1, secCertificate = 0x5EC2, secIdentity = 0x5EC3, secPolicy = 0x5EC4, secTrust = 0x5EC5
}

/// The type of a CoreFoundation object, to compare with a `…GetTypeID()` such as
/// `SecKeyGetTypeID()` (`CFGetTypeID(item) == SecKeyGetTypeID()`). `kCFBooleanTrue` and
/// `kCFBooleanFalse` are booleans, other numbers numbers. Objects that are not of a
/// CoreFoundation type give 0.
public func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID {
    guard let cf else { return CFTypeKind.unknown.rawValue }
    let kind: CFTypeKind = switch cf {
    case is SecKey: .secKey
    case is SecAccessControl: .secAccessControl
    case is SecCertificate: .secCertificate
    case is SecIdentity: .secIdentity
    case is SecPolicy: .secPolicy
    case is SecTrust: .secTrust
    case let number as NSNumber: number === kCFBooleanTrue || number === kCFBooleanFalse ? .boolean : .number
    case is NSString: .string
    case is NSData: .data
    case is NSDictionary: .dictionary
    case is NSArray: .array
    case is NSDate: .date
    case is NSError: .error
    default: .unknown
    }
    return kind.rawValue
}

/// The type identifier of `CFString`.
public func CFStringGetTypeID() -> CFTypeID { CFTypeKind.string.rawValue }
/// The type identifier of `CFNumber`.
public func CFNumberGetTypeID() -> CFTypeID { CFTypeKind.number.rawValue }
/// The type identifier of `CFBoolean`.
public func CFBooleanGetTypeID() -> CFTypeID { CFTypeKind.boolean.rawValue }
/// The type identifier of `CFData`.
public func CFDataGetTypeID() -> CFTypeID { CFTypeKind.data.rawValue }
/// The type identifier of `CFDictionary`.
public func CFDictionaryGetTypeID() -> CFTypeID { CFTypeKind.dictionary.rawValue }
/// The type identifier of `CFArray`.
public func CFArrayGetTypeID() -> CFTypeID { CFTypeKind.array.rawValue }
/// The type identifier of `CFDate`.
public func CFDateGetTypeID() -> CFTypeID { CFTypeKind.date.rawValue }
/// The type identifier of `CFError`.
public func CFErrorGetTypeID() -> CFTypeID { CFTypeKind.error.rawValue }

/// A `CFData` holding a copy of `length` bytes at `bytes` (nil when `bytes` is nil and
/// `length` is not 0, or `length` is negative).
public func CFDataCreate(_ allocator: CFAllocator!, _ bytes: UnsafePointer<UInt8>!, _ length: CFIndex) -> CFData! {
    guard length >= 0 else { return nil }
    guard length > 0 else { return NSData() }
    guard let bytes else { return nil }
    return NSData(bytes: bytes, length: length)
}

/// A `CFData` of `length` bytes at `bytes`. It **copies** them (Foundation on Linux cannot
/// borrow memory it does not free safely), so it behaves as on Apple platforms for callers that
/// keep the bytes alive while the data is used, as Apple requires, and costs one copy. The
/// deallocator is ignored (with ``kCFAllocatorNull``, the usual one, nothing is freed on Apple
/// platforms either).
public func CFDataCreateWithBytesNoCopy(_ allocator: CFAllocator!, _ bytes: UnsafePointer<UInt8>!, _ length: CFIndex,
                                        _ bytesDeallocator: CFAllocator!) -> CFData! {
    CFDataCreate(allocator, bytes, length)
}

/// The number of bytes in `data`.
public func CFDataGetLength(_ data: CFData!) -> CFIndex {
    data?.length ?? 0
}

/// A pointer to the bytes of `data`, valid while `data` lives (an `NSData` does not move its
/// bytes).
public func CFDataGetBytePtr(_ data: CFData!) -> UnsafePointer<UInt8>! {
    data?.bytes.assumingMemoryBound(to: UInt8.self)
}

/// A `CFError` (an `NSError`) with `domain`, `code` and `userInfo`, as `CFErrorCreate` makes
/// one: `CFErrorCreate(nil, NSOSStatusErrorDomain as CFErrorDomain, CFIndex(errSecVerifyFailed), nil)`.
public func CFErrorCreate(_ allocator: CFAllocator!, _ domain: CFErrorDomain!, _ code: CFIndex, _ userInfo: CFDictionary!) -> CFError! {
    NSError(domain: (domain as String?) ?? "", code: code, userInfo: (userInfo as? [String: Any]) ?? [:])
}

/// The domain of POSIX errors (`errno` values): `"NSPOSIXErrorDomain"`, as on Apple platforms.
nonisolated(unsafe) public let kCFErrorDomainPOSIX: CFErrorDomain = "NSPOSIXErrorDomain"
/// The domain of `OSStatus` errors, Security's: `"NSOSStatusErrorDomain"`, as on Apple platforms:
/// `CFErrorCreate(nil, kCFErrorDomainOSStatus, CFIndex(errSecParam), nil)`.
nonisolated(unsafe) public let kCFErrorDomainOSStatus: CFErrorDomain = "NSOSStatusErrorDomain"
/// The domain of Mach errors: `"NSMachErrorDomain"`, as on Apple platforms.
nonisolated(unsafe) public let kCFErrorDomainMach: CFErrorDomain = "NSMachErrorDomain"
/// The domain of Cocoa errors: `"NSCocoaErrorDomain"`, as on Apple platforms.
nonisolated(unsafe) public let kCFErrorDomainCocoa: CFErrorDomain = "NSCocoaErrorDomain"

/// The `Info.plist` key of the bundle identifier (`"CFBundleIdentifier"`), which keychain
/// libraries use to name their default service:
/// `Bundle.main.infoDictionary?[String(kCFBundleIdentifierKey)]`.
nonisolated(unsafe) public let kCFBundleIdentifierKey: CFString = "CFBundleIdentifier"
/// The `Info.plist` key of the bundle name (`"CFBundleName"`).
nonisolated(unsafe) public let kCFBundleNameKey: CFString = "CFBundleName"
/// The `Info.plist` key of the bundle version (`"CFBundleVersion"`).
nonisolated(unsafe) public let kCFBundleVersionKey: CFString = "CFBundleVersion"

/// A keychain / Security result code (`Int32`), as on Apple platforms.
public typealias OSStatus = Int32

/// Four characters packed into 32 bits, big-endian (`'genp'`), as MacTypes.h declares it:
/// the item classes and attribute tags of Security's older keychain calls.
public typealias FourCharCode = UInt32
/// A four-character code naming a type, as MacTypes.h declares it.
public typealias OSType = FourCharCode

/// The domain of an error (`CFErrorGetDomain`).
public func CFErrorGetDomain(_ error: CFError) -> CFErrorDomain! {
    NSString(string: error.domain)
}

/// The code of an error (`CFErrorGetCode`).
public func CFErrorGetCode(_ error: CFError) -> CFIndex {
    error.code
}

/// The user-info dictionary of an error (`CFErrorCopyUserInfo`).
public func CFErrorCopyUserInfo(_ error: CFError) -> CFDictionary! {
    error.userInfo as NSDictionary
}

/// The error's description (`CFErrorCopyDescription`): its localized description.
public func CFErrorCopyDescription(_ error: CFError) -> CFString! {
    NSString(string: error.localizedDescription)
}

#endif
