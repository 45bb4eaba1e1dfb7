// TouchstoneTesting: the test kit, as swift-metrics' MetricsTestKit is for metrics. Tests
// import this module (and `LocalAuthentication` when they test `LAContext` code) and get the
// simulated device (`TestDevice`, the `.touchstoneDevice()` trait), the scripted person and
// the trace expectations. Like the Apple-named modules, it needs no system package;
// `TouchstoneBuiltins` adds SQLite stores and the Linux plugins (`PluginRegistry.builtIn`).
//
// It does not re-export the engine (`Touchstone`) or the simulation: their public types have
// plain names (`Device`, `Record`, `Policy`, `Rule`, `Keychain`, `Accessibility`, `Prompt`,
// `Trace`...) that an app's own types share, and a test file importing both would find every
// such name ambiguous. A test that names an engine type imports `Touchstone` (and
// `TouchstoneSimulation` for `ScriptedInteraction` or `VirtualClock`, `TouchstonePortable`
// for `PluginRegistry.portable`); members and cases (`.present("thumb")`, `trace.rules`) need
// no import. (This file declares nothing: each of the kit's files imports what it uses.)
