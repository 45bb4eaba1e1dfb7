// Seed002DomainStateLogin — port of seed `002_e3c0e062945423bb.txt`,
// 《LocalAuthentication开发实践》 (Objective-C): basic usage; the "best practice" switch /
// verify flow with evaluatedPolicyDomainState; the Face ID reason via biometryType; keychain
// items protected by an application password (setCredential); reuse of the device unlock
// (touchIDAuthenticationAllowableReuseDuration); evaluateAccessControl with four flag sets;
// and the rewrite of the switch / verify flow on a biometryCurrentSet keychain item.
//
// Changes from the iOS original, one line each:
// - Objective-C → Swift of the same shape; method and variable names kept (`switchChangedHandler`, `validationButtonClickedHandler`, `doAppAuthentication`, `saveDictionary`, `loadDictionary`, ...).
// - `#import`s → `import Foundation` + `import LocalAuthentication` (which also provides SecItem*/kSec* on Linux).
// - UIKit removed: the UISwitch becomes a Bool and `policyDomainState` a property, both kept in the keychain, because each run is a new process (the article: "原则上要将该值进行本地保存").
// - The article writes the two switch/verify versions as one view controller; here they are two classes so both can be run.
// - `NSLog` → `print`; `(__bridge id)kSecX` → `kSecX as String`; `(CFDictionaryRef)dict` → `dict as CFDictionary`; `@(YES)` → `true`; `noErr` → `errSecSuccess` (Swift's `noErr` is an Int).
// - `CFRelease(acl)` / `CFRelease(data)` dropped (ARC manages CF objects in Swift); the CFStringCreateWithBytes round trip (which read an undeclared `passwordData`) → `String(data:encoding:)`.
// - `SecAccessControlCreateWithFlags` returns an optional in Swift, so `if (acl)` → `if let acl` / `guard let acl`.
// - `kSecAccessControlTouchIDAny` / `kSecAccessControlTouchIDCurrentSet` → `.biometryAny` / `.biometryCurrentSet` (the article itself says the TouchID names are deprecated); `LAAccessControlOperationUserItem` (typo) → `.useItem`.
// - The rewritten validation handler uses `acl` from switchChangedHandler, out of scope there: both handlers build it with `makeAccessControl()`.
// - Swift 6: the view controllers are `final class ...: Sendable` (no stored mutable state) because the reply closures capture `self`.
// - Lines marked `[driver]` print the raw outcome (LAError / OSStatus by name and value); `Replies.pending` lets the driver wait for replies. Nothing else added.

import Foundation
import LocalAuthentication
import TouchstoneCommands  // [driver] Linux only: SQLite stores and TOUCHSTONE_SETUP

// [driver] The test harness keeps the device in SQLite and changes it with TOUCHSTONE_SETUP:
// both come with every built-in plugin, which this program opts in to (docs/ADOPTING.md).
LocalAuthenticationSystem.bootstrap(.builtIn)
Driver.run(Array(CommandLine.arguments.dropFirst()))
