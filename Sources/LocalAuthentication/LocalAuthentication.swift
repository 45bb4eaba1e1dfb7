// The LocalAuthentication module: Apple's LocalAuthentication names (LAContext, LAPolicy,
// LAError, ...) over the Touchstone engine, so that iOS code compiles on Linux with its import
// lines unchanged. It re-exports this package's Security API (`TouchstoneSecurity`: SecItemAdd, kSec*, ...) and
// Foundation, as Apple's framework does: `import LocalAuthentication` alone is enough for
// `NSError`, `UserDefaults`, `SecItemCopyMatching` and `kSecClass`.
//
// On Apple platforms this module must never stand in for Apple's framework. Two layers see to
// that (docs/LocalAuthentication.md, "Apple platforms"):
// 1. Depend on the product only on Linux:
//    `.product(name: "LocalAuthentication", package: "touchstone", condition: .when(platforms: [.linux]))`
//    so SwiftPM never builds it for an Apple target and `import LocalAuthentication` finds the
//    SDK framework.
// 2. If it is built for an Apple platform anyway, every other file of the module compiles to
//    nothing (`#if !canImport(Darwin)`), and this file re-exports Apple's own Clang modules:
//    inside a Swift module named `LocalAuthentication`, `import LocalAuthentication` names the
//    underlying Clang module of the same name (the way Apple's Swift overlays re-export their
//    Objective-C halves), so the call sites still see Apple's LAContext and SecItem* API.

#if canImport(Darwin)
@_exported import LocalAuthentication
@_exported import Security
#else
@_exported import Foundation
@_exported import TouchstoneSecurity
#endif
