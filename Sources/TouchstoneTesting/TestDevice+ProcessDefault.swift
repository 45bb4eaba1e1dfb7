#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import TouchstoneSecurity
import Touchstone
import TouchstoneSimulation

extension TestDevice {
    /// The process's default device as a `TestDevice`: the device `LAContext()` and the
    /// `SecItem*` functions use outside a test's own device — in XCTest suites, in work a
    /// library hands to a `DispatchQueue`, and in an `LAContext` an XCTest case makes while its
    /// instances are created, before any test runs.
    ///
    /// It is the bootstrapped device, used as it was made, or the one built from the
    /// `TOUCHSTONE_*` environment on first use (without `TOUCHSTONE_CONFIG`, an in-memory Touch
    /// ID device on a virtual clock), which the first call prepares: it sets `passcode` and
    /// enrolls `enrolled` where they are not already. Later calls change nothing. Every call
    /// returns the same device, which its tests share — its keychain, counters, enrollments,
    /// clock and queued actions carry over from one test to the next (`user.clear()` drops the
    /// queue) —, so run them one at a time: XCTest does; in Swift Testing, put every such test in
    /// one `.serialized` suite, since other suites run beside it. A test's own device (the trait,
    /// ``asDefaultDevice(isolation:_:)``) does not change what this returns. A scripting
    /// mistake on it ends the app's call as a system cancel and is listed in
    /// ``scriptingMistakes``; it does not stop the process. For a suite that scripts no prompt,
    /// ``answerUnscriptedPrompts(passcode:identity:)``.
    ///
    /// ```swift
    /// let device = try TestDevice.processDefault()
    /// device.enqueue(.present("thumb"))
    /// DispatchQueue.global().async {
    ///     LAContext().evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in") { success, _ in
    ///         print(success)  // true: the queue's context asked this device's person
    ///     }
    /// }
    /// ```
    ///
    /// Throws what made the default device unusable (its `TOUCHSTONE_CONFIG`), or a
    /// `TouchstoneError` when its person or its clock is not simulated (a composition with a wall
    /// clock, a device bootstrapped with another interaction).
    public static func processDefault(passcode: String? = "1234", enrolled: [String] = ["thumb"]) throws -> TestDevice {
        let authenticator = try LocalAuthenticationSystem.$taskAuthenticator.withValue(nil) {
            try LocalAuthenticationSystem.authenticator
        }
        guard let user = authenticator.device.interaction as? ScriptedInteraction,
              let clock = authenticator.device.clock as? VirtualClock
        else {
            throw TouchstoneError(.simulation,
                                  "the process's default device has no scripted person and virtual clock to test with: leave TOUCHSTONE_CONFIG's clock virtual, or bootstrap(authenticator:) a TestDevice's")
        }
        // A scripting mistake is then the test's: the call ends as a system cancel and
        // `scriptingMistakes` lists it, instead of the process stopping as for TOUCHSTONE_OUTCOMES.
        if LocalAuthenticationSystem.takeOverForTests(authenticator) {
            try prepare(authenticator.device, passcode: passcode, enrolled: enrolled)
        }
        return TestDevice(authenticator: authenticator, user: user, clock: clock)
    }
}
#endif
