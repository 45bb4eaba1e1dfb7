import Foundation
import TouchstonePortable
import Touchstone

/// A simulated device for one test, in one line: an in-memory Touch ID device on a
/// `VirtualClock` with a `ScriptedInteraction` for the person in front of it, a passcode
/// (`1234`) and one enrolled finger (`thumb`), seeded randomness and fast passcode hashing.
///
/// ```swift
/// let device = try TestDevice()                                   // Touch ID, passcode, "thumb"
/// device.enqueue(.noMatch, .present("thumb"))                     // what the person will do
/// let result = try await device.evaluate(.biometrics)
/// #expect(result.methods == [.biometry])
/// device.expectLastEvaluation(.succeeded, endedBy: .matchResetsFailures)
/// ```
///
/// Every part stays reachable: ``authenticator`` (contexts, keychain, keys, change detection),
/// ``device`` (enrollment, passcode, counters), ``user`` and ``clock``. For `LAContext` code, run
/// the test under the ``Testing/Trait/touchstoneDevice(sensor:sensorOptions:passcode:enrolled:companion:storage:detector:eraseDataAfterTenFailedPasscodes:app:seed:)``
/// trait, or inside ``asDefaultDevice(isolation:_:)``.
public struct TestDevice: Sendable {
    /// The composed device and app.
    public let authenticator: Authenticator
    /// The person at the device: queue what they do at the next prompts.
    public let user: ScriptedInteraction
    /// The device's manual clock: lockouts and passcode delays run out only when it is advanced.
    public let clock: VirtualClock

    /// The device: enrollment, passcode, counters, lock state.
    public var device: Device { authenticator.device }
    /// The device's keychain, as the authenticator's app sees it.
    public var keychain: Keychain { authenticator.keychain }
    /// The device's simulated Secure Enclave keys.
    public var keys: KeyStore { authenticator.keys }

    /// A device built from plugin ids, the usual way:
    ///
    /// - Parameters:
    ///   - sensor: the biometric sensor's plugin id (`sim.touchid`, `sim.faceid`, `sim.opticid`),
    ///     or nil for a device without one.
    ///   - sensorOptions: the sensor's options (`["hardware": "absent"]`, `["removable": "true"]`).
    ///   - passcode: the device passcode to set, or nil for none.
    ///   - enrolled: identities to enroll, in order (already enrolled ones are skipped, so a
    ///     persistent store can be opened again with the same arguments).
    ///   - companion: options of a simulated companion (`sim.companion`), or nil for none.
    ///   - storage: the storage backend (`storage.encrypted-file` with a `path` and `key-file`,
    ///     `storage.sqlite` with a `path` and `registry: .builtIn`...); nil keeps the device in
    ///     memory.
    ///   - detector: the change detector's plugin id.
    ///   - eraseDataAfterTenFailedPasscodes: whether ten wrong passcodes erase the device.
    ///   - app: the app id the device's contexts act for.
    ///   - seed: the seed of the device's randomness (template ids, device secret).
    ///   - registry: the plugins the ids name: `PluginRegistry.portable` (what this kit is made
    ///     of), or `.builtIn` from `TouchstoneBuiltins` for SQLite stores and the Linux plugins.
    public init(
        sensor: String? = "sim.touchid",
        sensorOptions: [String: String] = [:],
        passcode: String? = "1234",
        enrolled: [String] = ["thumb"],
        companion: [String: String]? = nil,
        storage: PluginSelection? = nil,
        detector: String = "detector.domain-state",
        eraseDataAfterTenFailedPasscodes: Bool = false,
        app: String = "com.example.app",
        seed: UInt64 = 7,
        registry: PluginRegistry = .portable
    ) throws {
        var composition = Composition()
        composition.app = app
        composition.seed = seed
        composition.sensor = sensor.map { PluginSelection($0, options: sensorOptions) }
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        composition.companion = companion.map { PluginSelection("sim.companion", options: $0) }
        composition.detector = PluginSelection(detector)
        if let storage { composition.storage = storage }
        composition.eraseDataAfterTenFailedPasscodes = eraseDataAfterTenFailedPasscodes
        try self.init(registry: registry, composition: composition, passcode: passcode, enrolled: enrolled)
    }

    /// A device built from `composition` over `registry` (a registry with your own plugins, a
    /// composition loaded from a file), always on a fresh `VirtualClock` and
    /// `ScriptedInteraction`. The composition's own passcode factor is kept (the convenience
    /// initializer picks fast hashing instead).
    ///
    /// ```swift
    /// var registry = PluginRegistry.portable
    /// try registry.register(AcmeReader.self)
    /// var composition = Composition()
    /// composition.sensor = PluginSelection("acme.reader")
    /// let device = try TestDevice(registry: registry, composition: composition, enrolled: [])
    /// ```
    public init(
        registry: PluginRegistry = .portable,
        composition: Composition,
        passcode: String? = "1234",
        enrolled: [String] = ["thumb"]
    ) throws {
        let user = ScriptedInteraction()
        let clock = VirtualClock()
        authenticator = try AuthenticatorBuilder(registry: registry, composition: composition)
            .build(clock: clock, interaction: user)
        self.user = user
        self.clock = clock
        try Self.prepare(authenticator.device, passcode: passcode, enrolled: enrolled)
    }

    /// Sets `passcode` and enrolls `enrolled` on `device` where they are not already (so a
    /// persistent store, or the process's device, can be prepared again with the same arguments).
    static func prepare(_ device: Device, passcode: String?, enrolled: [String]) throws {
        if let passcode, try !device.isPasscodeSet {
            try device.setPasscode(passcode)
        }
        let already = try device.enrolledNames()
        for name in enrolled where !already.contains(name) {
            try device.enroll(name)
        }
    }

    /// This kit's view of a device built elsewhere (``processDefault(passcode:enrolled:)``).
    init(authenticator: Authenticator, user: ScriptedInteraction, clock: VirtualClock) {
        self.authenticator = authenticator
        self.user = user
        self.clock = clock
    }

    // MARK: The person and the clock

    /// Queues what the person does at the next prompts, in order (see `UserAction`).
    public func enqueue(_ actions: UserAction...) {
        user.enqueue(actions)
    }

    /// Queues a list of actions (`.failures(3)`).
    public func enqueue(contentsOf actions: [UserAction]) {
        user.enqueue(actions)
    }

    /// Has the person answer every prompt nothing is queued for as the device's owner would:
    /// `identity` at a biometric prompt, the fallback button (else Cancel) once scanning has
    /// stopped, `passcode` at the keypad — once: a keypad that turned it down (a wrong
    /// passcode, a delay still running) is cancelled —, an approval at a companion's. For a
    /// library's own suite, whose tests script no prompt; queued actions still come first, and
    /// `user.whenNothingIsQueued = nil` stops it.
    public func answerUnscriptedPrompts(passcode: String = "1234", identity: String = "thumb") {
        user.whenNothingIsQueued = { prompt in
            switch prompt.kind {
            case .biometric, .biometricTryAgain: .present(identity)
            case .biometricButtonsOnly: prompt.fallbackButton != nil ? .fallback : .cancel
            case .passcode: prompt.failuresSoFar == 0 ? .passcode(passcode) : .cancel
            case .companion: .approveOnCompanion
            }
        }
    }

    /// Moves the device's clock forward: lockouts, passcode delays and the reuse window run out.
    public func advance(by duration: Duration) {
        clock.advance(by: duration)
    }

    /// Waits, by yielding and never sleeping, until an evaluation is on screen with nothing
    /// to answer it (set `ScriptedInteraction/waitsForActions` first). Then a test can cancel,
    /// invalidate or start a second evaluation against the open prompt.
    public func untilEvaluationIsOnScreen() async {
        while !user.isWaitingForAction { await Task.yield() }
    }

    // MARK: Enrollment

    /// Enrolls the identity `id` on the device's sensor (an enrollment change).
    @discardableResult
    public func enroll(_ id: String) throws -> SensorIdentity {
        try device.enroll(id)
    }

    /// Removes the identity `id` from the device's sensor (an enrollment change).
    public func unenroll(_ id: String) throws {
        try device.unenroll(id)
    }
}

extension Array where Element == UserAction {
    /// `count` failed matches in a row: `.failures(3)` ends a Touch ID prompt with
    /// `authenticationFailed`; five in a row, across prompts, lock biometry out.
    public static func failures(_ count: Int) -> [UserAction] {
        Array(repeating: .noMatch, count: Swift.max(0, count))
    }
}
