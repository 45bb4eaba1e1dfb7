// The DeviceCheck module: Apple's App Attest and DeviceCheck names (`DCAppAttestService`,
// `DCDevice`, `DCError`) over Touchstone's App Attest (REFERENCE §12), so that iOS code doing
// `import DeviceCheck` compiles on Linux unchanged. As `Security` and `LocalAuthentication`:
// depend on the product only on Linux; built for an Apple platform anyway, every other file
// compiles to nothing and this one re-exports Apple's framework.

#if canImport(Darwin)
@_exported import DeviceCheck
#else
// Apple's DeviceCheck brings Foundation with it.
@_exported import Foundation
#endif
