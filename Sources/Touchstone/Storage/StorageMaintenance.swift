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

    /// Why the store could not be read at all although nothing shows it damaged — a passphrase
    /// or key file that is not the store's, a file this user may not read — or nil. Then
    /// ``problems`` holds that reason, and salvage would read nothing either.
    public var unreadable: String?

    /// True when nothing is wrong.
    public var isSound: Bool { problems.isEmpty && !isMissing && unreadable == nil }

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
/// transaction on: a store that holds one without the other (intact) lost a record, and the
/// device refuses to open on it (fresh counters would lift a lockout or a passcode delay; a
/// fresh state would replace the passcode, secret and enrollments). A store check reports such
/// a lone record, and an export repairs the pair as far as it can (our rule):
/// - counters without their state: the state, with the device secret, is gone, so the
///   counters are left behind and the device starts afresh in the new store — keys and items
///   bound to biometry or the passcode no longer open there;
/// - a state without its counters: the state is kept (passcode, enrollments, secret, so keys
///   and items still open) with new counters that lock biometry out and ask for the passcode at
///   the next unlock; the passcode failure count and any delay start again.
public enum DeviceRecordPair {
    /// A line for a device record whose partner is not among `keys` (the intact records), or
    /// nil when both or neither are there.
    public static func problem(keys: some Sequence<RecordKey>) -> String? {
        let present = Set(keys)
        switch (present.contains(.deviceState), present.contains(.deviceCounters)) {
        case (true, false):
            return "record '\(RecordKey.deviceState)' is there without an intact '\(RecordKey.deviceCounters)': the device will not open on this store. "
                + "--export-store keeps the state and gives it counters that lock biometry out and ask for the passcode "
                + "(the passcode failure count and any delay start again)"
        case (false, true):
            return "record '\(RecordKey.deviceCounters)' is there without an intact '\(RecordKey.deviceState)': the device will not open on this store. "
                + "--export-store leaves the counters behind and the device starts afresh in the new store: "
                + "a new secret, so keys and items bound to biometry or the passcode will not open there"
        default:
            return nil
        }
    }

    /// What a store check says of the device records among `records` (its intact ones): a
    /// record whose numbers are out of range (altered by hand, or damage its checksum missed),
    /// and a record without its partner.
    public static func problems(_ records: [Record]) -> [String] {
        let found = DeviceRecordRanges.problems(in: records)
        let damaged = Set(found.filter(\.isDamage).map(\.key))
        return found.map(\.line) + (problem(keys: records.map(\.key).filter { !damaged.contains($0) }).map { [$0] } ?? [])
    }

    /// `records` with the device pair repaired (see the type's rules) — a device record out of
    /// range counts as lost — and a line for what was changed.
    public static func exportable(_ records: [Record]) -> (records: [Record], changes: [String]) {
        // A damaged device record counts as lost; a newer version's is copied as it is.
        let damaged = DeviceRecordRanges.problems(in: records).filter(\.isDamage)
        guard damaged.isEmpty else {
            let keys = Set(damaged.map(\.key))
            let (repaired, changes) = exportable(records.filter { !keys.contains($0.key) })
            return (repaired, damaged.map { $0.line + " (left behind)" } + changes)
        }
        guard let problem = problem(keys: records.map(\.key)) else { return (records, []) }
        guard records.contains(where: { $0.key == .deviceState }) else {
            return (records.filter { $0.key != .deviceCounters }, [problem])
        }
        var counters = DeviceCounters()
        counters.consecutiveBiometricFailures = AttemptRules.touchID.lockoutThreshold
        counters.passcodeRequiredToUnlock = true
        return (records + [Record(key: .deviceCounters, value: counters.storedJSON())], [problem])
    }
}
