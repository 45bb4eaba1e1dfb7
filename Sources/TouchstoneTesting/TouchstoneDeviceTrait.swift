import Testing
#if !canImport(Darwin)
import LocalAuthentication
import Touchstone
#endif

/// A Swift Testing trait that gives each test (each case of a parameterized test, each test
/// of a suite) a fresh ``TestDevice``, reachable as ``TestDevice/current``, and makes it the
/// default device of `LAContext()` and `SecItem*` for the test's task (task-local, so tests
/// running in parallel never share one). A scripting mistake on the device (an outcome the
/// dialog could not produce, a prompt with nothing queued), which app code sees only as a
/// system cancel, is recorded as an issue of the test.
///
/// ```swift
/// @Test(.touchstoneDevice(enrolled: ["thumb"]))
/// func lockoutAfterFiveFailures() async throws {
///     let device = try TestDevice.current
///     _ = try? await device.evaluate(.biometrics, .failures(3))   // Touch ID ends a prompt after 3
///     _ = try? await device.evaluate(.biometrics, .failures(2))   // the 5th in a row locks out
///     device.expectLastEvaluation(.failed(.biometryLockout), endedBy: .fiveFailuresLockOut)
/// }
/// ```
public struct TouchstoneDeviceTrait: TestTrait, SuiteTrait, TestScoping {
    private let make: @Sendable () throws -> TestDevice

    /// A trait that builds its device with `make` before each test.
    public init(_ make: @escaping @Sendable () throws -> TestDevice) {
        self.make = make
    }

    /// Applied to a suite, each of its tests gets its own device.
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let device = try make()
        try await TestDevice.$scoped.withValue(device) {
            #if !canImport(Darwin)
            try await LocalAuthenticationSystem.withAuthenticator(device.authenticator) {
                try await function()
            }
            // App code sees a scripting mistake as a system cancel and carries on; the test
            // should not pass by accident.
            for mistake in device.scriptingMistakes {
                Issue.record("scripting mistake on this test's device: \(mistake)")
            }
            #else
            try await function()
            #endif
        }
    }
}

extension Trait where Self == TouchstoneDeviceTrait {
    /// A fresh ``TestDevice`` for each test, with the arguments of
    /// ``TestDevice/init(sensor:sensorOptions:passcode:enrolled:companion:storage:detector:eraseDataAfterTenFailedPasscodes:app:seed:registry:)``.
    public static func touchstoneDevice(
        sensor: String? = "sim.touchid",
        sensorOptions: [String: String] = [:],
        passcode: String? = "1234",
        enrolled: [String] = ["thumb"],
        companion: [String: String]? = nil,
        storage: PluginSelection? = nil,
        detector: String = "detector.domain-state",
        eraseDataAfterTenFailedPasscodes: Bool = false,
        app: String = "com.example.app",
        seed: UInt64 = 7
    ) -> Self {
        TouchstoneDeviceTrait {
            try TestDevice(sensor: sensor, sensorOptions: sensorOptions, passcode: passcode, enrolled: enrolled,
                           companion: companion, storage: storage, detector: detector,
                           eraseDataAfterTenFailedPasscodes: eraseDataAfterTenFailedPasscodes, app: app, seed: seed)
        }
    }

    /// A fresh ``TestDevice`` for each test, built by `make` (your own registry or composition).
    public static func touchstoneDevice(_ make: @escaping @Sendable () throws -> TestDevice) -> Self {
        TouchstoneDeviceTrait(make)
    }
}

extension TestDevice {
    /// The device of the running test's ``TouchstoneDeviceTrait``.
    @TaskLocal static var scoped: TestDevice?

    /// The device the ``TouchstoneDeviceTrait`` made for the running test. Throws
    /// ``TestDeviceError/noDeviceForThisTest`` when the test has no such trait.
    public static var current: TestDevice {
        get throws {
            guard let device = scoped else { throw TestDeviceError.noDeviceForThisTest }
            return device
        }
    }
}

/// A misuse of the test kit.
public enum TestDeviceError: Error, CustomStringConvertible {
    /// ``TestDevice/current`` was read in a test without the `.touchstoneDevice()` trait.
    case noDeviceForThisTest

    public var description: String {
        switch self {
        case .noDeviceForThisTest: "TestDevice.current: this test has no device; add the trait: @Test(.touchstoneDevice())"
        }
    }
}
