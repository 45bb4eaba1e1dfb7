/// A change to the enrolled set. Deliberately carries nothing about *what* changed: apps may
/// learn that the set changed, never which identity was added or removed.
public struct EnrollmentChange: Sendable, Equatable {
    /// Increases with every change.
    public var sequence: Int
    /// When it happened, in device time.
    public var at: Timestamp
}

extension Device {
    /// The most identities one sensor holds: 10 (**our rule**: a hand has ten fingers, and
    /// fprintd stores ten; iOS itself takes 5 fingerprints or 2 Face ID appearances). Past it,
    /// ``enroll(_:progress:)`` throws ``UsageError/tooManyIdentities(limit:)``, which also keeps
    /// every enrollment change a small, constant-size write.
    public static let maximumIdentities = 10

    /// The identities enrolled on the sensor, in enrollment order, as the sensor reports them.
    public func enrolledIdentities() throws -> [SensorIdentity] {
        try snapshot().state.identities
    }

    /// The ids of the identities enrolled on the sensor, in enrollment order.
    public func enrolledNames() throws -> [String] {
        try enrolledIdentities().map(\.id)
    }

    /// Enrolls a new identity `id` through the sensor (a fresh template), reporting each step
    /// the sensor reports. Enrolling changes every app's domain state. Blocks until the sensor
    /// is done; ``BiometricSensor/interrupt()`` cancels.
    @discardableResult
    public func enroll(_ id: String, progress: @escaping @Sendable (EnrollmentProgress) -> Void = { _ in }) throws -> SensorIdentity {
        let sensor = try enrollingSensor("enroll")
        try validate(id)
        let current = try enrolledIdentities()
        guard !current.contains(where: { $0.id == id }) else { throw UsageError.alreadyEnrolled(name: id) }
        guard current.count < Self.maximumIdentities else { throw UsageError.tooManyIdentities(limit: Self.maximumIdentities) }
        let identity = try sensor.enroll(id, replacing: false, progress: progress)
        try recordSensorChange(sensor)
        return identity
    }

    /// Removes the identity `id` from the sensor.
    public func unenroll(_ id: String) throws {
        let sensor = try enrollingSensor("unenroll")
        guard try enrolledIdentities().contains(where: { $0.id == id }) else { throw UsageError.notEnrolled(name: id) }
        try sensor.remove(id)
        try recordSensorChange(sensor)
    }

    /// Enrolls the identity `id` again: the same finger enrolled again is a different
    /// template (a new generation), so domain states change.
    @discardableResult
    public func reenroll(_ id: String, progress: @escaping @Sendable (EnrollmentProgress) -> Void = { _ in }) throws -> SensorIdentity {
        let sensor = try enrollingSensor("reenroll")
        guard try enrolledIdentities().contains(where: { $0.id == id }) else { throw UsageError.notEnrolled(name: id) }
        let identity = try sensor.enroll(id, replacing: true, progress: progress)
        try recordSensorChange(sensor)
        return identity
    }

    /// Records the set the sensor reports after a change made through it. Another process may
    /// have recorded it already; subscribers here still hear of the change.
    private func recordSensorChange(_ sensor: any EnrollingSensor) throws {
        let reported = try sensor.enrolledIdentities()
        if try recordEnrolledSet(reported) == nil {
            let state = try snapshot().state
            publish(EnrollmentChange(sequence: state.enrollmentSequence, at: clock.now))
        }
    }

    /// Simulates unlocking the device with the identity `name` now, which opens the reuse
    /// window (`touchIDAuthenticationAllowableReuseDuration`) and, as a successful match,
    /// resets the consecutive-failure count. Refused with
    /// ``UsageError/passcodeRequiredToUnlock(reason:)`` when the device wants its passcode first
    /// (after ``restart()`` or ``remoteLock()``, 48 hours without an unlock, or the 156 h / 4 h
    /// rule), so no reuse window opens then. A disabled device (ten wrong passcodes) unlocks
    /// with nothing: ``AuthenticationError/Code/authenticationFailed`` (REFERENCE §6).
    public func unlock(with name: String) throws {
        let snapshot = try snapshot()
        if snapshot.counters.isDisabled {
            throw AuthenticationError(.authenticationFailed, message: "The device is disabled after too many wrong passcodes.")
        }
        guard snapshot.state.identities.contains(where: { $0.id == name }) else {
            throw UsageError.notEnrolled(name: name)
        }
        if let error = biometricProblem(appID: "", snapshot: snapshot, requiresPasscodeSet: true) {
            throw error
        }
        if let reason = lockState(snapshot).passcodeRequiredReason {
            throw UsageError.passcodeRequiredToUnlock(reason: reason)
        }
        let now = clock.now
        try update { _, counters in
            counters.lastBiometricUnlock = now
            counters.consecutiveBiometricFailures = 0
            counters.lockedAt = nil
        }
    }

    /// A stream of enrolled-set changes, one element per change, for as long as the caller
    /// iterates. Nothing in an element tells what changed.
    public func enrollmentChanges() -> AsyncStream<EnrollmentChange> {
        subscribe(\.subscribers, buffering: .unbounded)
    }

    func publish(_ change: EnrollmentChange) {
        let subscribers = activity.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(change) }
    }

    private func enrollingSensor(_ operation: String) throws -> any EnrollingSensor {
        guard let sensor else {
            throw UsageError.notSimulated("\(operation) (this device has no biometric sensor)")
        }
        guard let enrolling = sensor as? any EnrollingSensor else {
            throw UsageError.enrollmentNotSupported(sensor: type(of: sensor).descriptor.id)
        }
        return enrolling
    }

    /// Ids every sensor must accept: short, printable, no spaces or colons, and no word that
    /// scripts use for an outcome (ids appear in scripts and traces).
    private func validate(_ id: String) throws {
        guard Self.isIdentityName(id) else { throw UsageError.invalidIdentityName(id) }
    }

    /// The words scripts use for outcomes (`TOUCHSTONE_OUTCOMES`, the REPL's `evaluate`), in
    /// any case: no identity takes one as its id.
    private static let outcomeWords: Set<String> = [
        "nomatch", "no-match", "mismatch", "cancel", "fallback", "systemcancel",
        "system-cancel", "invalidate", "companion", "approve",
    ]

    /// Whether `id` is an identity name every sensor accepts (see ``enroll(_:progress:)``).
    static func isIdentityName(_ id: String) -> Bool {
        UsageError.isPlainWord(id, maxBytes: 64) && !id.contains(":") && !outcomeWords.contains(id.lowercased())
    }
}

extension Device {
    /// The number of enrollment changes so far (increases with every enroll, unenroll,
    /// re-enroll). Reveals nothing about what changed.
    public func enrollmentSequence() throws -> Int {
        try snapshot().state.enrollmentSequence
    }
}
