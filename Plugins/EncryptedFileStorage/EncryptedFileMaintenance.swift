import Crypto
import Foundation
import Touchstone

/// `touchstone --check-store` and `--export-store` for encrypted stores: the check opens the
/// store exactly as a device would (every byte is authenticated) without writing it; the
/// export copies the records of every transaction that still opens, in order, up to the first
/// damaged one, into a new store with the same key.
extension EncryptedFileStorage: StorageMaintenance {
    public static func check(options: PluginOptions) -> StorageCheckReport {
        let location = options.string("path") ?? ""
        do {
            let (path, source) = try configuration(options)
            guard FileManager.default.fileExists(atPath: path) else {
                return .missing(at: path)
            }
            do {
                let store = try EncryptedFileStorage(path: path, key: source)
                let problems = DeviceRecordPair.problems(try store.list(namespace: .device))
                return StorageCheckReport(location: path, intactRecords: try store.recordCount, problems: problems)
            } catch let error as StorageError where !error.isDamage {
                // Not opened, and nothing says the file is damaged (a wrong key, no permission).
                var report = StorageCheckReport(location: path, intactRecords: 0, problems: ["\(error)"])
                report.unreadable = "\(error)"
                return report
            } catch {
                let salvage = try? salvage(path: path, source: source)
                let device = salvage.map { DeviceRecordPair.problems(Array($0.records.values)) } ?? []
                return StorageCheckReport(location: path, intactRecords: salvage?.records.count ?? 0,
                                          problems: ["\(error)"] + (salvage?.problems ?? []) + device)
            }
        } catch {
            return StorageCheckReport(location: location, intactRecords: 0, problems: ["\(error)"])
        }
    }

    public static func export(options: PluginOptions, to destination: String) throws -> StorageExportReport {
        let (path, source) = try configuration(options)
        try StorageError.refuseOwnFile(destination: destination, store: path)
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StorageError.ioFailure(reason: "'\(destination)' exists already; export writes a new store only")
        }
        let salvage = try salvage(path: path, source: source)
        let (records, repaired) = DeviceRecordPair.exportable(Array(salvage.records.values))
        // A store is written by its first commit: with nothing to copy there would be none,
        // only its lock file beside an export that says it was made.
        guard !records.isEmpty else {
            let why = (salvage.problems + repaired).first.map { ": \($0)" } ?? ""
            throw StorageError.ioFailure(reason: "no record of '\(path)' could be read\(why); nothing was written to '\(destination)'")
        }
        let target = try EncryptedFileStorage(path: destination, key: source)
        try target.commit(records.map { .put($0) })
        return StorageExportReport(destination: destination, copied: records.count, skipped: salvage.problems + repaired)
    }

    /// The records of every transaction that opens, from the start of the log to the first
    /// one that does not, and a line for what could not be read.
    static func salvage(path: String, source: KeySource) throws -> (records: [RecordKey: Record], problems: [String]) {
        guard let file = try readFile(path) else { throw StorageError.ioFailure(reason: "there is no store at '\(path)'") }
        let bytes = file.bytes
        let header: EncryptedFileFormat.Header
        let version: UInt8
        switch EncryptedFileFormat.parseHeader(bytes[...]) {
        case let .success(parsed): (header, version) = parsed
        case let .failure(problem): throw StorageError.corruptStore(path: path, reason: problem.reason)
        }
        let (_, master) = try key(source, storedHeader: header, storeExists: true, path: path)
        if version == EncryptedFileFormat.legacyVersion {
            switch EncryptedFileFormat.openLegacy(bytes, key: master) {
            case let .success(legacy): return (legacy.records, [])
            case let .failure(problem): return ([:], ["nothing could be read: \(problem.reason)"])
            }
        }
        let keys = EncryptedFileFormat.Keys(master: master, header: header)
        var problems: [String] = []
        var committed: UInt64?
        switch EncryptedFileFormat.commit(in: bytes[...], header: header, keys: keys) {
        case let .success(commit): committed = commit.slot.count
        case let .failure(problem): problems.append("the commit records: \(problem.reason)")
        }
        guard bytes.count >= EncryptedFileFormat.framesStart else { return ([:], problems + ["the file holds no transactions"]) }
        let frames = EncryptedFileFormat.openFrames(
            bytes[EncryptedFileFormat.framesStart...], offset: UInt64(EncryptedFileFormat.framesStart), index: 0,
            previousTag: EncryptedFileFormat.noTag, limit: .max, header: header, keys: keys)
        var records: [RecordKey: Record] = [:]
        for frame in frames { records.apply(frame.transaction.changes) }
        let readEnd = frames.last?.end ?? UInt64(EncryptedFileFormat.framesStart)
        if let committed, UInt64(frames.count) < committed {
            problems.append("transactions \(frames.count + 1) to \(committed) of \(committed) could not be read (the log is damaged from byte \(readEnd))")
        } else if readEnd < UInt64(bytes.count), committed == nil || UInt64(frames.count) == committed {
            if UInt64(frames.count) != committed {
                problems.append("\(UInt64(bytes.count) - readEnd) bytes after transaction \(frames.count) could not be read")
            }
        }
        return (records, problems)
    }
}
