import Touchstone
import TouchstoneSimulation

/// Keeps a session's virtual time in the device's storage: restored when the session starts,
/// saved after a command that moved the clock. The record is the simulation's
/// (`Device.virtualTimeRecord`), so the REPL, `TOUCHSTONE_SETUP` and programs using the
/// `LocalAuthentication` module on the same store share one device time. Nothing to do on a
/// wall clock.
///
/// ```swift
/// var time = try VirtualTimeKeeper(restoring: device)
/// device.clock.manual?.advance(by: .seconds(300))
/// try time.save(device)   // written once; unchanged time is not written again
/// ```
public struct VirtualTimeKeeper: Sendable {
    /// The reading last restored or saved.
    private var saved: Timestamp?

    /// Moves `device`'s virtual clock forward to the time stored in its storage (never back).
    public init(restoring device: Device) throws {
        try device.restoreVirtualTime()
        saved = device.clock.manual?.now
    }

    /// Stores `device`'s virtual time when it moved since last restored or saved.
    public mutating func save(_ device: Device) throws {
        guard let clock = device.clock.manual else { return }
        let now = clock.now
        guard now != saved else { return }
        try device.saveVirtualTime()
        saved = now
    }
}
