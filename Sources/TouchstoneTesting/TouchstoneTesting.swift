// TouchstoneTesting: the test kit, as swift-metrics' MetricsTestKit is for metrics. Tests
// import this module (and `LocalAuthentication` when they test `LAContext` code) and get the
// simulated device, the scripted person, the manual clock and the trace vocabulary with it.

@_exported import Touchstone
@_exported import TouchstoneSimulation
