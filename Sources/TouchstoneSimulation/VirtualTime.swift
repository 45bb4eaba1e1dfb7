import Foundation
import Touchstone

extension Device {
    /// Where ``saveVirtualTime()`` keeps the virtual clock's reading: record `clock/virtual-now`.
    public static let virtualTimeRecord = RecordKey(.clock, "virtual-now")

    /// Shared coders for the reading (a new Foundation coder per save costs more than the value).
    private static let timeEncoder = JSONEncoder()
    private static let timeDecoder = JSONDecoder()

    /// Writes the current reading of the device's ``ManualClock`` (a ``VirtualClock``) to storage, so that another
    /// process opening the same storage (the next step of a test script, the REPL, an example
    /// app) continues at the same virtual time. Does nothing on a wall clock. A stored reading
    /// that cannot be decoded is replaced (it is only ever a lower bound for the next process).
    ///
    /// Lockout deadlines and passcode delays are stored as ``Timestamp``s; without this a new
    /// process would restart its virtual clock at the epoch and see them as far in the future.
    public func saveVirtualTime() throws {
        guard let clock = clock as? any ManualClock else { return }
        let now = clock.now
        let bytes = try Self.timeEncoder.encode(now)
        try storage.transaction { transaction in
            if let stored = try transaction.read(Self.virtualTimeRecord),
               let instant = try? Self.timeDecoder.decode(Timestamp.self, from: stored.value),
               instant >= now {
                return
            }
            transaction.put(Record(key: Self.virtualTimeRecord, value: bytes))
        }
    }

    /// Moves the device's ``ManualClock`` forward to the reading saved by
    /// ``saveVirtualTime()`` (never backwards). Does nothing on a wall clock or when nothing
    /// was saved; a damaged reading is reported as ``StorageError/corruptRecord(key:reason:)``.
    public func restoreVirtualTime() throws {
        guard let clock = clock as? any ManualClock, let record = try storage.read(Self.virtualTimeRecord) else { return }
        do {
            let saved = try Self.timeDecoder.decode(Timestamp.self, from: record.value)
            clock.advance(by: clock.now.duration(to: saved))
        } catch {
            throw StorageError.corruptRecord(key: record.key.description, reason: "\(error)")
        }
    }

    /// Simulates an OS upgrade: domain-state values of every app change although nothing was
    /// enrolled or removed (Apple warns this can happen).
    public func simulateOSUpgrade() throws {
        try bumpOSEpoch()
    }
}
