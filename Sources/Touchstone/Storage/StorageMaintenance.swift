/// A storage backend whose store can be checked and salvaged without being opened for
/// writing: what `touchstone --check-store` and `--export-store` use.
///
/// Both work on a store that no longer opens: ``check(options:)`` never changes a byte of it,
/// and ``export(options:to:)`` only reads it.
public protocol StorageMaintenance: StorageBackend {
    /// The full read-only check of the store that `options` name.
    static func check(options: PluginOptions) -> StorageCheckReport

    /// Copies every record of the store that `options` name that still reads back intact into
    /// a new store of the same kind at `destination` (which must not exist yet).
    static func export(options: PluginOptions, to destination: String) throws -> StorageExportReport
}

/// What a full store check found.
public struct StorageCheckReport: Sendable, Equatable {
    /// The store checked.
    public var location: String
    /// Records that read back intact.
    public var intactRecords: Int
    /// Everything wrong, one line each; empty when the store is sound.
    public var problems: [String]
    /// What is worth knowing but is not damage (such as the remains of a transaction whose
    /// writer stopped before it committed), one line each.
    public var notes: [String]

    /// True when there is no store at ``location`` at all (nothing to check, nothing damaged).
    public var isMissing: Bool

    /// True when nothing is wrong.
    public var isSound: Bool { problems.isEmpty && !isMissing }

    /// The report on a store that does not exist.
    public static func missing(at location: String) -> StorageCheckReport {
        var report = StorageCheckReport(location: location, intactRecords: 0, problems: [])
        report.isMissing = true
        return report
    }

    /// Creates a report.
    public init(location: String, intactRecords: Int, problems: [String], notes: [String] = []) {
        self.location = location
        self.intactRecords = intactRecords
        self.problems = problems
        self.notes = notes
        self.isMissing = false
    }
}

/// What an export salvaged.
public struct StorageExportReport: Sendable, Equatable {
    /// The new store.
    public var destination: String
    /// Records copied.
    public var copied: Int
    /// Records (or parts of the store) that could not be read back intact, one line each.
    public var skipped: [String]

    /// Creates a report.
    public init(destination: String, copied: Int, skipped: [String]) {
        self.destination = destination
        self.copied = copied
        self.skipped = skipped
    }
}

/// The device's two records, its state and its counters, are written together from its first
/// transaction on: a store that holds one without the other lost a record, and the device
/// refuses to open on it (fresh counters would lift a lockout or a passcode delay; a fresh
/// state would replace the passcode, secret and enrollments). A store check reports such a
/// lone record; an export leaves it behind, so the exported store opens as a new device.
public enum DeviceRecordPair {
    /// A line for a device record whose partner is not among `keys`, or nil when both or
    /// neither are there.
    public static func problem(keys: some Sequence<RecordKey>) -> String? {
        let present = Set(keys)
        let state = present.contains(.deviceState), counters = present.contains(.deviceCounters)
        guard state != counters else { return nil }
        let (kept, lost) = state ? (RecordKey.deviceState, RecordKey.deviceCounters) : (.deviceCounters, .deviceState)
        return "record '\(kept)' is there without '\(lost)': the device will not open on this store. "
            + "--export-store leaves '\(kept)' behind, and the device starts afresh in the new store"
    }

    /// `records` without a device record whose partner is not among them, and a line for what
    /// was left behind.
    public static func exportable(_ records: [Record]) -> (records: [Record], leftBehind: [String]) {
        guard let problem = problem(keys: records.map(\.key)) else { return (records, []) }
        let kept = records.filter { $0.key != .deviceState && $0.key != .deviceCounters }
        return (kept, [problem])
    }
}
