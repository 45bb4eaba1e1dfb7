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
    /// ``enroll(_:)`` throws ``UsageError/tooManyIdentities(limit:)``, which also keeps every
    /// enrollment change a small, constant-size write.
    public static let maximumIdentities = 10

    /// Names of the identities enrolled on the sensor, in enrollment order.
    public func enrolledNames() throws -> [String] {
        try snapshot().state.templates(for: biometryType).map(\.name)
    }

    /// Enrolls a new identity under `name`: a fresh template. Enrolling changes every app's
    /// domain state.
    public func enroll(_ name: String) throws {
        try validate(name)
        let templateID = random.hex(16)
        try changeEnrollment("enroll") { templates in
            guard !templates.contains(where: { $0.name == name }) else { throw UsageError.alreadyEnrolled(name: name) }
            guard templates.count < Self.maximumIdentities else { throw UsageError.tooManyIdentities(limit: Self.maximumIdentities) }
            templates.append(EnrolledTemplate(name: name, templateID: templateID))
        }
    }

    /// Removes the identity enrolled under `name`.
    public func unenroll(_ name: String) throws {
        try changeEnrollment("unenroll") { templates in
            guard let index = templates.firstIndex(where: { $0.name == name }) else { throw UsageError.notEnrolled(name: name) }
            templates.remove(at: index)
        }
    }

    /// Replaces the template of `name` with a fresh one: the same finger enrolled again is a
    /// different template, so domain states change.
    public func reenroll(_ name: String) throws {
        let templateID = random.hex(16)
        try changeEnrollment("reenroll") { templates in
            guard let index = templates.firstIndex(where: { $0.name == name }) else { throw UsageError.notEnrolled(name: name) }
            templates[index].templateID = templateID
        }
    }

    /// Applies `change` to the sensor's templates in one durable write, bumps the enrollment
    /// sequence and publishes the event.
    private func changeEnrollment(_ operation: String, _ change: (inout [EnrolledTemplate]) throws -> Void) throws {
        try requireSensor(operation)
        let type = biometryType
        let now = clock.now
        let event = try update { state, _ -> EnrollmentChange in
            var templates = state.templates(for: type)
            try change(&templates)
            state.enrollments[type.description] = templates
            state.enrollmentSequence += 1
            return EnrollmentChange(sequence: state.enrollmentSequence, at: now)
        }
        publish(event)
    }

    /// Simulates unlocking the device with the identity `name` now, which opens the reuse
    /// window (`touchIDAuthenticationAllowableReuseDuration`) and, as a successful match,
    /// resets the consecutive-failure count. Refused with
    /// ``UsageError/passcodeRequiredToUnlock(reason:)`` when the device wants its passcode first
    /// (after ``restart()`` or ``remoteLock()``, 48 hours without an unlock, or the 156 h / 4 h
    /// rule), so no reuse window opens then.
    public func unlock(with name: String) throws {
        let snapshot = try snapshot()
        guard snapshot.state.templates(for: biometryType).contains(where: { $0.name == name }) else {
            throw UsageError.notEnrolled(name: name)
        }
        if let error = biometricProblem(appID: nil, snapshot: snapshot, requiresPasscodeSet: true) {
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

    private func publish(_ change: EnrollmentChange) {
        let subscribers = activity.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(change) }
    }

    private func requireSensor(_ operation: String) throws {
        guard sensor != nil else {
            throw UsageError.notSimulated("\(operation) (this device has no biometric sensor)")
        }
    }

    private func validate(_ name: String) throws {
        guard !name.isEmpty, name.utf8.count <= 64, !name.contains(where: { $0.isWhitespace || $0 == ":" }) else {
            throw UsageError.invalidIdentityName(name)
        }
        let reserved = ["nomatch", "no-match", "mismatch", "cancel", "fallback", "systemcancel",
                        "system-cancel", "invalidate", "companion", "approve"]
        guard !reserved.contains(name.lowercased()) else { throw UsageError.invalidIdentityName(name) }
    }
}

extension Device {
    /// The number of enrollment changes so far (increases with every enroll, unenroll,
    /// re-enroll). Reveals nothing about what changed.
    public func enrollmentSequence() throws -> Int {
        try snapshot().state.enrollmentSequence
    }
}
