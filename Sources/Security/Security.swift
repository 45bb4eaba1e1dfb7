// The Security module: Apple's keychain names (SecItemAdd, SecAccessControlCreateWithFlags,
// SecTrust, kSec*, errSec*, OSStatus) and the few CoreFoundation shapes their call sites spell
// out, over the Touchstone engine, so that iOS code doing `import Security` compiles on Linux
// unchanged. The API is `TouchstoneSecurity`'s, re-exported whole; this module adds only the
// FoundationNetworking names that Apple's Foundation declares for Security's types
// (`FoundationNetworking+Security.swift`). `LocalAuthentication` re-exports the API, as Apple's
// does.
//
// On Apple platforms this module must never stand in for Apple's framework (the same two
// layers as `LocalAuthentication`, docs/LocalAuthentication.md, "Apple platforms"):
// 1. Depend on the product only on Linux:
//    `.product(name: "Security", package: "touchstone", condition: .when(platforms: [.linux]))`.
// 2. If it is built for an Apple platform anyway, every other file of the module compiles to
//    nothing (`#if !canImport(Darwin)`), and this file re-exports Apple's own Clang module:
//    inside a Swift module named `Security`, `import Security` names the underlying Clang
//    module of the same name.

#if canImport(Darwin)
@_exported import Security
#else
// Apple's Security module brings Foundation (through CoreFoundation) with it.
@_exported import Foundation
@_exported import TouchstoneSecurity
#endif
