// TouchstoneTesting: the test kit, as swift-metrics' MetricsTestKit is for metrics. Tests
// import this module (and `LocalAuthentication` when they test `LAContext` code) and get the
// simulated device, the scripted person, the manual clock, the trace vocabulary and the
// portable plugin registry (`PluginRegistry.portable`, to register plugins of their own) with
// it. Like the Apple-named modules, it needs no system package; `TouchstoneBuiltins` adds
// SQLite stores and the Linux plugins (`PluginRegistry.builtIn`).

@_exported import Touchstone
@_exported import TouchstonePortable
@_exported import TouchstoneSimulation
