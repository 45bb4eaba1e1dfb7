import Crypto
import Foundation
import Touchstone

/// Writing the log: appending one sealed transaction (announce, append, commit, each synced),
/// and writing a whole new file atomically for a new store, a migration or a compaction.
extension EncryptedFileStorage {
    // MARK: Writing the file

    func needsCompaction(_ file: FileState, liveBytes: Int) -> Bool {
        let log = file.end - UInt64(Format.framesStart)
        let live = UInt64(max(0, liveBytes)).multipliedReportingOverflow(by: UInt64(Self.compactionFactor))
        return log > Self.compactionFloor && (live.overflow || log > live.partialValue)
    }

    /// Appends one transaction: announce its end in the spare slot, append the frame, commit it
    /// in the commit slot, each step synced before the next.
    func append(_ transaction: Format.Transaction, to file: FileState) throws -> FileState {
        guard let keys = file.keys else { throw StorageError.ioFailure(reason: "the store's keys are missing") }
        let (frame, tag) = try Format.sealFrame(transaction, index: file.count, previousTag: file.lastTag,
                                                header: file.header, keys: keys)
        let (newEnd, overflow) = file.end.addingReportingOverflow(UInt64(frame.count))
        guard !overflow, file.count < UInt64.max else { throw StorageError.ioFailure(reason: "the store file is full") }
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw StorageError.ioFailure(reason: "cannot open '\(path)': \(Self.lastError)") }
        defer { close(descriptor) }
        // The file just read, not one put in its place since (nor a FIFO or a device): the
        // transaction is sealed to follow the frames read.
        let opened = try Self.identity(of: descriptor, path: path)
        guard opened.device == file.identity.device, opened.inode == file.identity.inode else {
            throw StorageError.ioFailure(reason: "'\(path)' was replaced by another file while it was being written; nothing was written (try again)")
        }
        // A killed writer's announced, uncommitted bytes go first.
        if UInt64(file.identity.size) > file.end, ftruncate(descriptor, off_t(file.end)) != 0 {
            throw StorageError.ioFailure(reason: "cannot cut '\(path)' back to its committed end: \(Self.lastError)")
        }
        let spare = 1 - file.slotIndex
        let announce = Format.Slot(count: file.count, end: file.end, tag: file.lastTag, pendingEnd: newEnd)
        try writeSynced(descriptor, announce.sealed(header: file.header, keys: keys), at: Self.slotOffset(spare))
        try writeSynced(descriptor, frame, at: file.end)
        let commit = Format.Slot(count: file.count + 1, end: newEnd, tag: tag, pendingEnd: 0)
        try writeSynced(descriptor, commit.sealed(header: file.header, keys: keys), at: Self.slotOffset(file.slotIndex))
        var updated = file
        updated.count += 1
        updated.end = newEnd
        updated.lastTag = tag
        updated.identity = try Self.identity(of: descriptor, path: path)
        return updated
    }

    private static func slotOffset(_ index: Int) -> UInt64 {
        UInt64(Format.headerSize + index * Format.slotSize)
    }

    private func writeSynced(_ descriptor: Int32, _ bytes: [UInt8], at offset: UInt64) throws {
        try Self.writeAll(descriptor, bytes, at: offset, path: path)
        guard fdatasync(descriptor) == 0 else { throw StorageError.ioFailure(reason: "fsync of '\(path)' failed: \(Self.lastError)") }
    }

    /// Writes a new file holding `records` as one transaction (a new store, a migration or a
    /// compaction), atomically: temporary file, fsync, rename, directory fsync.
    func rewrite(_ records: [RecordKey: Record], sequence: UInt64, keyHeader: Format.Header,
                         master: SymmetricKey) throws -> FileState {
        let header = keyHeader.renewed()
        let keys = Format.Keys(master: master, header: header)
        let puts = records.values.sorted { ($0.key.namespace, $0.key.name) < ($1.key.namespace, $1.key.name) }.map { RecordChange.put($0) }
        let (frame, tag) = try Format.sealFrame(Format.Transaction(sequence: sequence, changes: puts), index: 0,
                                                previousTag: Format.noTag, header: header, keys: keys)
        let end = UInt64(Format.framesStart + frame.count)
        let commit = Format.Slot(count: 1, end: end, tag: tag, pendingEnd: 0)
        let spare = Format.Slot(count: 0, end: UInt64(Format.framesStart), tag: Format.noTag, pendingEnd: 0)
        let bytes = header.bytes + commit.sealed(header: header, keys: keys) + spare.sealed(header: header, keys: keys) + frame
        try writeAtomically(bytes)
        guard let identity = Self.identity(path) else {
            throw StorageError.ioFailure(reason: "'\(path)' vanished right after it was written")
        }
        return FileState(identity: identity, header: header, version: Format.version, keys: keys, count: 1, end: end,
                         lastTag: tag, slotIndex: 0)
    }

    /// Temporary file, fsync, rename over the store, fsync of the directory.
    private func writeAtomically(_ bytes: [UInt8]) throws {
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StorageError.ioFailure(reason: "cannot create '\(temporary)': \(Self.lastError)") }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            try Self.writeAll(descriptor, bytes, at: 0, path: temporary)
            guard fsync(descriptor) == 0 else { throw StorageError.ioFailure(reason: "fsync of '\(temporary)' failed: \(Self.lastError)") }
        }
        guard rename(temporary, path) == 0 else {
            throw StorageError.ioFailure(reason: "cannot rename into '\(path)': \(Self.lastError)")
        }
        renamed = true
        Self.syncDirectory(of: path)
    }
}
