#if !canImport(Darwin)
import Foundation

// The few CoreFoundation names the keychain API's Swift call sites spell out, which Foundation
// on Linux does not provide. Each is the closest Swift type that lets the usual call sites
// compile unchanged (docs/LocalAuthentication.md lists the differences):
//
//     let query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, ...,
//                                 kSecReturnData as String: kCFBooleanTrue!]
//     var result: CFTypeRef?
//     let status = SecItemCopyMatching(query as CFDictionary, &result)
//     let data = result as? Data

/// Any CoreFoundation object: `AnyObject`, as on Apple platforms. Results of
/// `SecItemCopyMatching` arrive as `NSData`, `NSDictionary` or `NSArray`, so `result as? Data`,
/// `result as? [String: Any]` and `result as? [[String: Any]]` work.
public typealias CFTypeRef = AnyObject

/// A CoreFoundation string. On Linux it is Swift's `String`, so `kSecClass as String` is a
/// no-op and the `kSec*` constants can be dictionary keys and values directly.
public typealias CFString = String

/// A CoreFoundation dictionary. On Linux it is `[String: Any]`, so the usual
/// `query as CFDictionary` (from `[String: Any]`, `[String: AnyObject]`, `[String: String]`...)
/// compiles as a plain coercion.
public typealias CFDictionary = [String: Any]

/// A CoreFoundation boolean: `NSNumber`, which it is toll-free bridged to on Apple platforms.
public typealias CFBoolean = NSNumber

/// A CoreFoundation error: `NSError`, which it is toll-free bridged to on Apple platforms, so
/// `error.takeRetainedValue() as Error` works.
public typealias CFError = NSError

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

/// A keychain / Security result code (`Int32`), as on Apple platforms.
public typealias OSStatus = Int32
#endif
