import Crypto
import Foundation

/// What happened to one passcode entry (lock screen or in-app prompt).
public enum PasscodeEntryResult: Sendable, Equatable {
    /// Correct: the passcode failure count, the biometric failure count and any lockout are cleared.
    case accepted
    /// Wrong; `failures` is the new count and `delay` the wait it imposes (zero for 1–4).
    case rejected(failures: Int, delay: Duration)
    /// The same wrong passcode as the previous attempt: not counted again.
    case repeatedNotCounted(failures: Int)
    /// A delay is running: the entry was refused without being checked or counted.
    case refused(remaining: Duration)
    /// This wrong passcode was the tenth: the device is now disabled (and erased, when set so).
    case disabledNow(erased: Bool)
    /// The device was already disabled.
    case deviceDisabled
    /// No passcode is set.
    case notSet
}

extension Device {
    /// Whether a device passcode is set.
    public var isPasscodeSet: Bool {
        get throws { passcodeIsSet(try snapshot().state) }
    }

    /// Whether a passcode is set, given the stored `state`: a stored verifier, or the system's
    /// answer when the passcode is kept outside Touchstone.
    func passcodeIsSet(_ snapshot: Snapshot) -> Bool {
        if passcodeKeptInStore { return snapshot.hasPasscodeVerifier }
        if case let .external(_, isSet) = passcodeFactor.custody { return isSet }
        return snapshot.hasPasscodeVerifier
    }

    /// Whether a passcode is set, by `state` (or by the factor that keeps it outside).
    func passcodeIsSet(_ state: borrowing DeviceState) -> Bool {
        if passcodeKeptInStore { return state.passcodeVerifier != nil }
        if case let .external(_, isSet) = passcodeFactor.custody { return isSet }
        return state.passcodeVerifier != nil
    }

    /// Refuses to set or clear a passcode that the system keeps.
    private static func requirePasscodeKept(by factor: any PasscodeFactor) throws {
        if case let .external(description, _) = factor.custody {
            throw UsageError.passcodeKeptOutside(description)
        }
    }

    /// Whether `passcode` may be set on a device whose passcode `factor` keeps: the device
    /// keeps it (not PAM), and it is 1 to ``maximumPasscodeBytes`` UTF-8 bytes without
    /// control characters. Throws the `UsageError` that says why not.
    static func checkPasscodeText(_ passcode: String, factor: any PasscodeFactor) throws {
        try requirePasscodeKept(by: factor)
        guard !passcode.isEmpty else { throw UsageError.invalidPasscode(reason: "it is empty") }
        guard passcode.utf8.count <= maximumPasscodeBytes else {
            throw UsageError.invalidPasscode(reason: "it is longer than \(maximumPasscodeBytes) bytes")
        }
        // Nothing a keypad or a terminal could type, and nothing that would reach a terminal
        // from a script's echo or a store's dump.
        guard !passcode.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw UsageError.invalidPasscode(reason: "it contains a control character")
        }
    }

    /// The longest passcode ``setPasscode(_:)`` accepts, in UTF-8 bytes: PAM's limit for a
    /// response (`PAM_MAX_RESP_SIZE`), so a passcode set here could also be typed there (our rule).
    public static let maximumPasscodeBytes = 512

    /// Sets (or changes) the device passcode: 1 to ``maximumPasscodeBytes`` UTF-8 bytes without
    /// control characters. Only a salted slow hash is stored. Clears the passcode failure
    /// count and delays.
    public func setPasscode(_ passcode: String) throws {
        try Self.checkPasscodeText(passcode, factor: passcodeFactor)
        let verifier = try passcodeFactor.makeVerifier(for: passcode, random: random)
        try update { state, counters in
            state.passcodeVerifier = verifier
            counters.passcodeFailures = 0
            counters.passcodeRetryAt = nil
            counters.lastWrongPasscodeDigest = nil
        }
    }

    /// Removes the device passcode (biometric and device-owner policies then report
    /// `passcodeNotSet`) and runs the registered removal hooks.
    public func clearPasscode() throws {
        try Self.requirePasscodeKept(by: passcodeFactor)
        try update { state, counters in
            state.passcodeVerifier = nil
            counters.passcodeFailures = 0
            counters.passcodeRetryAt = nil
            counters.lastWrongPasscodeDigest = nil
            counters.isDisabled = false
        }
        let hooks = activity.withLock { $0.passcodeRemovalHooks }
        for hook in hooks { try hook() }
    }

    /// Enters a passcode on the lock screen. In-app entries (device-owner policy) go through
    /// the same rule and the same device-wide count. A lock-screen unlock by passcode is the
    /// latest device unlock, so it closes the biometric reuse window.
    public func enterPasscode(_ entry: String) throws -> PasscodeEntryResult {
        try submitPasscode(entry, unlocksDevice: true)
    }

    /// The passcode rule of REFERENCE §6: delays refuse without counting, a repeat of the last
    /// wrong passcode is not counted, wrong entries climb the ladder, the tenth disables, a
    /// correct one clears every failure count and the biometric lockout.
    func submitPasscode(_ entry: String, unlocksDevice: Bool = false) throws -> PasscodeEntryResult {
        let snapshot = try snapshot()
        if snapshot.counters.isDisabled { return .deviceDisabled }
        guard passcodeIsSet(snapshot.state) else { return .notSet }
        let now = clock.now
        if let retryAt = snapshot.counters.passcodeRetryAt, now < retryAt {
            return .refused(remaining: now.duration(to: retryAt))
        }
        let check = try passcodeFactor.check(entry, against: snapshot.state.passcodeVerifier)
        let digest = check.digest ?? entryDigest(entry, key: snapshot.secretKey)
        let erase = erasesDataAfterTenFailures
        // What an erase wipes, when this entry may be the tenth wrong one: listed before the
        // commit that counts it, and deleted in it. (Another process may have counted the ninth
        // since the snapshot: then the commit is given up and made again with the list.)
        var wiped: [RecordKey]? = erase && !check.isCorrect && snapshot.counters.passcodeFailures >= PasscodeLadder.disableAfterFailures - 1
            ? try keysWipedByErase() : nil
        let result: PasscodeEntryResult
        while true {
            do {
                result = try count(entry: check, digest: digest, at: now, unlocksDevice: unlocksDevice, erase: erase, wiping: wiped)
                break
            } catch is WipeNotListed {
                wiped = try keysWipedByErase()
            }
        }
        if case .disabledNow(erased: true) = result {
            // Records another process added between the listing and the commit go too.
            let stragglers = try keysWipedByErase()
            if !stragglers.isEmpty { try storage.commit(stragglers.map { .delete($0) }) }
            // The sensor's identities go with the data (its own store; the recorded set is
            // already empty).
            try (sensor as? any EnrollingSensor)?.removeAll()
            let hooks = activity.withLock { $0.passcodeRemovalHooks }
            for hook in hooks { try hook() }
        }
        return result
    }

    /// The erase's commit would have wiped nothing: the records to wipe were not listed.
    private struct WipeNotListed: Error {}

    /// Counts one checked entry in one commit (see ``submitPasscode(_:unlocksDevice:)``);
    /// `wiping` is what the erase deletes in that commit, nil when it was not listed.
    private func count(entry check: PasscodeCheck, digest: Data, at now: Timestamp, unlocksDevice: Bool,
                       erase: Bool, wiping wiped: [RecordKey]?) throws -> PasscodeEntryResult {
        try update({ state, counters -> PasscodeEntryResult in
            if counters.isDisabled { return .deviceDisabled }
            if let retryAt = counters.passcodeRetryAt, now < retryAt {
                return .refused(remaining: now.duration(to: retryAt))
            }
            if check.isCorrect {
                counters.passcodeFailures = 0
                counters.passcodeRetryAt = nil
                counters.lastWrongPasscodeDigest = nil
                counters.consecutiveBiometricFailures = 0
                if unlocksDevice {
                    counters.lastBiometricUnlock = nil
                    Device.recordPasscodeUnlock(&counters, at: now)
                }
                return .accepted
            }
            if counters.lastWrongPasscodeDigest == digest {
                return .repeatedNotCounted(failures: counters.passcodeFailures)
            }
            counters.passcodeFailures += 1
            counters.lastWrongPasscodeDigest = digest
            guard let delay = PasscodeLadder.delay(afterFailures: counters.passcodeFailures) else {
                counters.isDisabled = true
                counters.passcodeRetryAt = nil
                if erase {
                    state.legacyEnrollments = nil
                    state.enrolled = []
                    state.enrollmentSequence += 1
                    state.passcodeVerifier = nil
                    counters = DeviceCounters()
                }
                return .disabledNow(erased: erase)
            }
            counters.passcodeRetryAt = delay > .zero ? now.advanced(by: delay) : nil
            return .rejected(failures: counters.passcodeFailures, delay: delay)
        }, alsoInCommit: { result, transaction in
            guard case .disabledNow(erased: true) = result else { return }
            guard let wiped else { throw WipeNotListed() }
            for key in wiped { transaction.delete(key) }
        })
    }

    /// The records an erase after the tenth wrong passcode wipes: every app's keychain items,
    /// keys, rights and baselines — everything but the device records (which the erase
    /// rewrites), the clock (virtual time never goes back) and the sensor's records (the
    /// sensor removes its identities itself).
    private func keysWipedByErase() throws -> [RecordKey] {
        try storage.namespaces().filter { ![.device, .clock, .sensor].contains($0) }
            .flatMap { try storage.list(namespace: $0) }.map(\.key)
    }

    /// A digest of a wrong entry for factors that leave it to the core: HMAC-SHA256 under the
    /// device secret, so the entry itself is never stored.
    private func entryDigest(_ entry: String, key: SymmetricKey) -> Data {
        var hmac = HMAC<SHA256>(key: key)
        hmac.update(data: Array("passcode-entry\u{0}".utf8))
        hmac.update(data: Array(entry.utf8))
        return Data(hmac.finalize())
    }
}
