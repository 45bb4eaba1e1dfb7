import Foundation
import Touchstone

extension Device {
    /// Where ``saveVirtualTime()`` keeps the virtual clock's reading: record `clock/virtual-now`.
    public static let virtualTimeRecord = RecordKey(.clock, "virtual-now")

    /// The stored reading: the JSON a ``Timestamp`` encodes to — one integer, nanoseconds since
    /// the epoch — written without a Foundation coder (a REPL script saves after every command
    /// that moves the clock, and the coder cost more than the rest of the save).
    static func encodeReading(_ instant: Timestamp) -> Data {
        Data(String(instant.nanosecondsSinceEpoch).utf8)
    }

    /// Reads a stored reading: a plain integer directly (what ``encodeReading(_:)`` writes),
    /// any other JSON through `JSONDecoder`, with ``Timestamp``'s range check either way.
    static func decodeReading(_ bytes: Data) throws -> Timestamp {
        let digits = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
        if !digits.isEmpty, digits.count <= 19, digits.allSatisfy({ (0x30...0x39).contains($0) }),
           let nanoseconds = Int64(String(decoding: bytes, as: UTF8.self)),
           (-Timestamp.storedBound...Timestamp.storedBound).contains(nanoseconds) {
            return Timestamp(nanosecondsSinceEpoch: nanoseconds)
        }
        return try JSONDecoder().decode(Timestamp.self, from: bytes)
    }

    /// Writes the current reading of the device's ``ManualClock`` (a ``VirtualClock``) to storage, so that another
    /// process opening the same storage (the next step of a test script, the REPL, an example
    /// app) continues at the same virtual time. Does nothing on a wall clock. A stored reading
    /// that cannot be decoded is replaced (it is only ever a lower bound for the next process).
    ///
    /// Lockout deadlines and passcode delays are stored as ``Timestamp``s; without this a new
    /// process would restart its virtual clock at the epoch and see them as far in the future.
    public func saveVirtualTime() throws {
        guard let clock = clock.manual else { return }
        let now = clock.now
        let bytes = Self.encodeReading(now)
        try storage.transaction { transaction in
            if let stored = try transaction.read(Self.virtualTimeRecord),
               let instant = try? Self.decodeReading(stored.value),
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
        guard let clock = clock.manual, let record = try storage.read(Self.virtualTimeRecord) else { return }
        do {
            let saved = try Self.decodeReading(record.value)
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
