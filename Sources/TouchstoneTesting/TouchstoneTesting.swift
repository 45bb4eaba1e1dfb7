// TouchstoneTesting: the test kit, as swift-metrics' MetricsTestKit is for metrics. Tests
// import this module (and `LocalAuthentication` when they test `LAContext` code) and get the
// simulated device, the scripted person, the manual clock, the trace vocabulary and the
// built-in plugin registry (`PluginRegistry.builtIn`, to register plugins of their own) with it.

@_exported import Touchstone
@_exported import TouchstoneBuiltins
@_exported import TouchstoneSimulation
