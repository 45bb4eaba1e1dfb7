import Foundation

extension Device {
    /// Where ``saveVirtualTime()`` keeps the virtual clock's reading: record `clock/virtual-now`.
    public static let virtualTimeRecord = RecordKey("clock", "virtual-now")

    /// Writes the current reading of the device's ``VirtualClock`` to storage, so that another
    /// process opening the same storage (the next step of a test script, the REPL, an example
    /// app) continues at the same virtual time. Does nothing on a wall clock.
    ///
    /// Lockout deadlines and passcode delays are stored as ``Timestamp``s; without this a new
    /// process would restart its virtual clock at the epoch and see them as far in the future.
    public func saveVirtualTime() throws {
        guard let clock = clock as? VirtualClock else { return }
        let now = clock.now
        try storage.transaction { transaction in
            if let stored = try transaction.read(Self.virtualTimeRecord),
               let instant = try? JSONDecoder().decode(Timestamp.self, from: stored.value),
               instant >= now {
                return
            }
            transaction.put(Record(key: Self.virtualTimeRecord, value: try RecordCoding.encode(now)))
        }
    }

    /// Moves the device's ``VirtualClock`` forward to the reading saved by
    /// ``saveVirtualTime()`` (never backwards). Does nothing on a wall clock or when nothing
    /// was saved.
    public func restoreVirtualTime() throws {
        guard let clock = clock as? VirtualClock, let record = try storage.read(Self.virtualTimeRecord) else { return }
        clock.advance(to: try RecordCoding.decode(Timestamp.self, from: record))
    }
}
