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

/// The CoreFoundation `true` (an `NSNumber`), implicitly unwrapped as in Apple's SDK, so both
/// `kCFBooleanTrue` and `kCFBooleanTrue!` compile.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)

/// The CoreFoundation `false` (an `NSNumber`).
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

/// A CoreFoundation allocator. Only ``kCFAllocatorDefault`` exists; allocator arguments are
/// accepted and ignored.
public final class CFAllocator: Sendable {
    fileprivate init() {}
}

/// The default allocator, for `SecAccessControlCreateWithFlags(kCFAllocatorDefault, ...)`.
public let kCFAllocatorDefault: CFAllocator! = CFAllocator()

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
