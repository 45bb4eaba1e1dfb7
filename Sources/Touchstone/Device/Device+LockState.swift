import Foundation

/// The device's lock state, as the data-protection classes see it (REFERENCE §5, §9).
public struct LockState: Sendable, Equatable, CustomStringConvertible {
    /// Whether the device is locked now. A device without a passcode is never locked.
    public var isLocked: Bool
    /// Whether the device has been unlocked since it last restarted (afterFirstUnlock items
    /// are readable then).
    public var unlockedSinceRestart: Bool
    /// Why a lock-screen biometric unlock would be refused now, or nil when it would be allowed.
    public var passcodeRequiredReason: String?

    /// `locked (unlocked since restart); biometric unlock: allowed`.
    public var description: String {
        let state = isLocked ? "locked" : "unlocked"
        let restart = unlockedSinceRestart ? "unlocked since restart" : "not unlocked since restart"
        let biometric = passcodeRequiredReason.map { "passcode required (\($0))" } ?? "allowed"
        return "\(state) (\(restart)); biometric unlock: \(biometric)"
    }
}

extension Device {
    /// 48 hours without any unlock: the passcode is required (Apple Platform Security guide).
    public static let unlockIdleLimit: Duration = .seconds(48 * 3600)
    /// The passcode has not unlocked the device for 156 hours (6.5 days) ...
    public static let passcodeUnlockLimit: Duration = .seconds(156 * 3600)
    /// ... and biometry has not for 4 hours: the passcode is required.
    public static let biometricUnlockLimit: Duration = .seconds(4 * 3600)

    /// The lock state now.
    public func lockState() throws -> LockState {
        let snapshot = try snapshot()
        return lockState(snapshot)
    }

    func lockState(_ snapshot: Snapshot) -> LockState {
        let counters = snapshot.counters
        guard passcodeIsSet(snapshot.state) else {
            return LockState(isLocked: false, unlockedSinceRestart: true, passcodeRequiredReason: nil)
        }
        return LockState(isLocked: counters.lockedAt != nil, unlockedSinceRestart: counters.restartedAt == nil,
                         passcodeRequiredReason: passcodeRequiredReason(counters))
    }

    /// Why the lock screen would refuse a biometric unlock now (our reading of the Apple
    /// Platform Security guide; in-app evaluations are not affected, REFERENCE §5).
    private func passcodeRequiredReason(_ counters: DeviceCounters) -> String? {
        let now = clock.now
        if counters.restartedAt != nil { return "the device restarted" }
        if counters.passcodeRequiredToUnlock == true { return "the device was locked remotely" }
        let lastUnlock = [counters.lastPasscodeUnlock, counters.lastBiometricUnlock].compactMap { $0 }.max()
        if let lastUnlock, lastUnlock.duration(to: now) > Self.unlockIdleLimit {
            return "more than 48 hours since the last unlock"
        }
        if let passcode = counters.lastPasscodeUnlock, passcode.duration(to: now) > Self.passcodeUnlockLimit,
           counters.lastBiometricUnlock.map({ $0.duration(to: now) > Self.biometricUnlockLimit }) ?? true {
            return "the passcode has not unlocked the device for 156 hours and biometry not for 4 hours"
        }
        return nil
    }

    /// Locks the device (the side button, or auto-lock). Does nothing without a passcode.
    public func lock() throws {
        let now = clock.now
        try update { state, counters in
            guard passcodeIsSet(state), counters.lockedAt == nil else { return }
            counters.lockedAt = now
        }
    }

    /// Restarts the device: locked, not unlocked since restart, the reuse window closed, and
    /// the next unlock must use the passcode.
    public func restart() throws {
        try lockRequiringPasscode(restarting: true)
    }

    /// A remote lock (Find My): locked, the reuse window closed, the next unlock must use the
    /// passcode. Data stays available to afterFirstUnlock items.
    public func remoteLock() throws {
        try lockRequiringPasscode(restarting: false)
    }

    /// Closes the reuse window and, with a passcode set, locks the device so that the next
    /// unlock must use the passcode (a restart also marks "not unlocked since restart").
    private func lockRequiringPasscode(restarting: Bool) throws {
        let now = clock.now
        try update { state, counters in
            counters.lastBiometricUnlock = nil
            guard passcodeIsSet(state) else { return }
            counters.lockedAt = now
            if restarting { counters.restartedAt = now }
            counters.passcodeRequiredToUnlock = true
        }
    }

    /// Records a lock-screen unlock by the passcode (called for an accepted lock-screen entry).
    static func recordPasscodeUnlock(_ counters: inout DeviceCounters, at now: Timestamp) {
        counters.lockedAt = nil
        counters.restartedAt = nil
        counters.passcodeRequiredToUnlock = nil
        counters.lastPasscodeUnlock = now
    }
}
