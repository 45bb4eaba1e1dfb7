import Crypto
import Foundation
import Touchstone

/// The bytes of an encrypted store (format version 2): a header, two commit slots and an
/// append-only log of sealed transactions.
///
/// ```
/// header   "TSES" · 2 · KDF (0 key file, 1 PBKDF2) · rounds (UInt32) · KDF salt (16) · file id (16)
/// slot 0   count (UInt64) · end (UInt64) · last tag (16) · pending end (UInt64) · HMAC-SHA256 (32)
/// slot 1   the same
/// frames   length (UInt32) · AES-GCM nonce (12) · ciphertext · tag (16)   ... repeated
/// ```
///
/// All integers are big-endian. The file's master key (from the key file or the passphrase)
/// gives, through HKDF-SHA256 salted with the file id, one key for the frames and one for the
/// slots; a compaction writes a new file with a new id, so keys are never reused across files.
///
/// - Frame `i` is sealed with the header, `i` and frame `i - 1`'s tag as additional data: a
///   frame moved, removed, replayed or taken from another file fails to open.
/// - The slot with the higher count names how many frames are committed, where they end and
///   the last one's tag: cutting whole frames off the end is detected. Both slots must verify.
/// - A write is three synced steps: the other slot announces the end of the frame about to be
///   appended (`pending end`); the frame is appended; the first slot commits it. Bytes after
///   the committed end are accepted only when a slot announced them (a writer killed mid-way);
///   any other extra byte is tampering.
enum EncryptedFileFormat {
    static let magic: [UInt8] = Array("TSES".utf8)
    static let version: UInt8 = 2
    static let legacyVersion: UInt8 = 1
    static let headerSize = 4 + 1 + 1 + 4 + 16 + 16
    static let legacyHeaderSize = 4 + 1 + 1 + 4 + 16
    static let slotSize = 8 + 8 + 16 + 8 + 32
    static let framesStart = headerSize + 2 * slotSize
    static let tagSize = 16
    static let nonceSize = 12
    static let noTag = [UInt8](repeating: 0, count: 16)

    /// The parsed header: how the master key is made and the file's own id.
    struct Header: Equatable {
        var kdf: UInt8
        var rounds: UInt32
        var kdfSalt: [UInt8]
        var fileID: [UInt8]

        /// Whether `other` derives the key as this header does (the file id aside).
        func derivesKey(like other: Header) -> Bool {
            kdf == other.kdf && rounds == other.rounds && kdfSalt == other.kdfSalt
        }

        var bytes: [UInt8] {
            var bytes = magic
            bytes.append(version)
            bytes.append(kdf)
            bytes.appendBigEndian(rounds)
            bytes += kdfSalt
            bytes += fileID
            return bytes
        }

        /// A header for a new file with the same key derivation as `self` and a new id.
        func renewed() -> Header {
            Header(kdf: kdf, rounds: rounds, kdfSalt: kdfSalt, fileID: randomBytes(16))
        }
    }

    /// The frame and slot keys of one file.
    struct Keys {
        var frame: SymmetricKey
        var slot: SymmetricKey

        init(master: SymmetricKey, header: Header) {
            let salt = Data(header.fileID)
            frame = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt,
                                           info: Data("touchstone encrypted-file frames".utf8), outputByteCount: 32)
            slot = HKDF<SHA256>.deriveKey(inputKeyMaterial: master, salt: salt,
                                          info: Data("touchstone encrypted-file commit slots".utf8), outputByteCount: 32)
        }
    }

    /// One commit slot.
    struct Slot: Equatable {
        /// Frames committed.
        var count: UInt64
        /// The file offset just past the last committed frame.
        var end: UInt64
        /// The last committed frame's tag (zeros for none).
        var tag: [UInt8]
        /// The end of a frame being appended by a writer that has not committed it yet (0: none).
        var pendingEnd: UInt64

        func sealed(header: Header, keys: Keys) -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.appendBigEndian(count)
            bytes.appendBigEndian(end)
            bytes += tag
            bytes.appendBigEndian(pendingEnd)
            let mac = HMAC<SHA256>.authenticationCode(for: header.bytes + bytes, using: keys.slot)
            return bytes + Array(mac)
        }

        /// The slot in `bytes`, or nil when its MAC does not verify (torn or altered).
        static func open(_ bytes: ArraySlice<UInt8>, header: Header, keys: Keys) -> Slot? {
            guard bytes.count == slotSize else { return nil }
            let body = Array(bytes.prefix(slotSize - 32))
            let mac = bytes.suffix(32)
            guard HMAC<SHA256>.isValidAuthenticationCode(Data(mac), authenticating: header.bytes + body, using: keys.slot) else {
                return nil
            }
            var reader = ByteReader(body[...])
            guard let count = reader.uint64(), let end = reader.uint64(), let tag = reader.bytes(16),
                  let pending = reader.uint64() else { return nil }
            return Slot(count: count, end: end, tag: Array(tag), pendingEnd: pending)
        }
    }

    /// What the two slots say together.
    struct Commit: Equatable {
        /// The slot with the higher count (the one the next commit overwrites).
        var index: Int
        var slot: Slot
        /// The end announced by a writer that did not finish, when one did.
        var pendingEnd: UInt64?
    }

    /// One decoded transaction.
    struct Transaction {
        var sequence: UInt64
        var changes: [RecordChange]
    }

    // MARK: Header

    /// The header in `bytes` (either version), or the reason it is not one.
    static func parseHeader(_ bytes: ArraySlice<UInt8>) -> Result<(header: Header, version: UInt8), StorageProblem> {
        guard !bytes.isEmpty else { return .failure(.init("the file is empty, not a Touchstone store (remove it to start a new one)")) }
        guard bytes.count >= legacyHeaderSize else { return .failure(.init("the file is too short to be a store")) }
        guard Array(bytes.prefix(4)) == magic else { return .failure(.init("it is not a Touchstone encrypted store")) }
        var reader = ByteReader(bytes.dropFirst(4))
        guard let version = reader.uint8(), let kdf = reader.uint8(), let rounds = reader.uint32(),
              let salt = reader.bytes(16) else { return .failure(.init("the header is damaged")) }
        switch version {
        case legacyVersion:
            return .success((Header(kdf: kdf, rounds: rounds, kdfSalt: Array(salt), fileID: []), version))
        case Self.version:
            guard let fileID = reader.bytes(16) else { return .failure(.init("the file is too short to be a store")) }
            return .success((Header(kdf: kdf, rounds: rounds, kdfSalt: Array(salt), fileID: Array(fileID)), version))
        default:
            return .failure(.init("unknown format version \(version) (written by a newer Touchstone?)"))
        }
    }

    // MARK: Slots

    /// Reads both slots from `file` (the whole file or at least its first ``framesStart`` bytes).
    static func commit(in file: ArraySlice<UInt8>, header: Header, keys: Keys) -> Result<Commit, StorageProblem> {
        guard file.count >= framesStart else { return .failure(.init("the file is too short to be a store")) }
        let base = file.startIndex + headerSize
        let slots = (0..<2).map { index in
            Slot.open(file[(base + index * slotSize)..<(base + (index + 1) * slotSize)], header: header, keys: keys)
        }
        // Both slots must verify: each is written whole by one 72-byte write inside the
        // file's first disk sector, so a torn slot is damage, not an interrupted write.
        guard let first = slots[0], let second = slots[1] else {
            return .failure(slots[0] == nil && slots[1] == nil
                ? keyMismatch : .init("authentication failed: a commit record was altered"))
        }
        let valid = [(0, first), (1, second)]
        guard let best = valid.max(by: { $0.1.count < $1.1.count }) else { return .failure(keyMismatch) }
        let pending = valid.filter { $0.1.count == best.1.count && $0.1.pendingEnd != 0 }.map(\.1.pendingEnd).max()
        return .success(Commit(index: best.0, slot: best.1, pendingEnd: pending))
    }

    /// Neither commit record opens: each is written whole by its own write, so damage to both
    /// at once is rare, while a passphrase or key file that is not this store's fails both.
    static let keyMismatch = StorageProblem(
        "neither commit record opens with this key: most likely the passphrase or key file is not this store's "
            + "(check passphrase-env or key-file); if it is, the file was altered",
        keyMismatch: true)

    // MARK: Frames

    /// Seals `transaction` as frame `index` following the frame tagged `previousTag`: the bytes
    /// to append and the new frame's tag.
    static func sealFrame(_ transaction: Transaction, index: UInt64, previousTag: [UInt8], header: Header,
                          keys: Keys) throws -> (bytes: [UInt8], tag: [UInt8]) {
        var plaintext: [UInt8] = []
        plaintext.appendBigEndian(transaction.sequence)
        try encode(transaction.changes, into: &plaintext)
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(plaintext, using: keys.frame,
                                   authenticating: frameData(header: header, index: index, previousTag: previousTag))
        } catch {
            throw StorageError.ioFailure(reason: "sealing a transaction failed: \(error)")
        }
        let sealedCount = nonceSize + box.ciphertext.count + tagSize
        guard let length = UInt32(exactly: sealedCount) else {
            throw StorageError.ioFailure(reason: "a transaction of \(sealedCount) bytes is too large for one frame")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4 + sealedCount)
        bytes.appendBigEndian(length)
        bytes += Array(box.nonce)
        bytes += box.ciphertext
        let tag = Array(box.tag)
        bytes += tag
        return (bytes, tag)
    }

    /// The frames in `bytes` (which start at file offset `offset`, with frame `index` following
    /// `previousTag`), read until `limit` frames, the end of the bytes or the first frame that
    /// does not open. Each comes with its tag and the file offset just past it.
    static func openFrames(_ bytes: ArraySlice<UInt8>, offset: UInt64, index: UInt64, previousTag: [UInt8], limit: UInt64,
                           header: Header, keys: Keys) -> [(transaction: Transaction, tag: [UInt8], end: UInt64)] {
        var frames: [(transaction: Transaction, tag: [UInt8], end: UInt64)] = []
        var reader = ByteReader(bytes)
        var previous = previousTag
        var position = offset
        while UInt64(frames.count) < limit, let length = reader.uint32() {
            guard Int(length) >= nonceSize + tagSize, let sealed = reader.bytes(Int(length)) else { break }
            let nonceEnd = sealed.startIndex + nonceSize
            let tagStart = sealed.endIndex - tagSize
            let frameIndex = index + UInt64(frames.count)
            guard let nonce = try? AES.GCM.Nonce(data: Data(sealed[sealed.startIndex..<nonceEnd])),
                  let box = try? AES.GCM.SealedBox(nonce: nonce, ciphertext: Data(sealed[nonceEnd..<tagStart]),
                                                   tag: Data(sealed[tagStart...])),
                  let plaintext = try? AES.GCM.open(box, using: keys.frame,
                                                    authenticating: frameData(header: header, index: frameIndex, previousTag: previous)),
                  let transaction = decodeTransaction(Array(plaintext))
            else { break }
            previous = Array(sealed[tagStart...])
            position += 4 + UInt64(length)
            frames.append((transaction, previous, position))
        }
        return frames
    }

    private static func frameData(header: Header, index: UInt64, previousTag: [UInt8]) -> Data {
        var data = header.bytes
        data.appendBigEndian(index)
        data += previousTag
        return Data(data)
    }

    // MARK: Transactions

    private static func encode(_ changes: [RecordChange], into bytes: inout [UInt8]) throws {
        try bytes.appendCount(changes.count)
        for change in changes {
            switch change {
            case let .put(record):
                bytes.append(1)
                try bytes.appendField(Array(record.key.namespace.rawValue.utf8))
                try bytes.appendField(Array(record.key.name.utf8))
                try bytes.appendField(Array(record.value))
                try bytes.appendCount(record.attributes.count)
                for (name, value) in record.attributes.sorted(by: { $0.key < $1.key }) {
                    try bytes.appendField(Array(name.utf8))
                    try bytes.appendField(Array(value.utf8))
                }
            case let .delete(key):
                bytes.append(2)
                try bytes.appendField(Array(key.namespace.rawValue.utf8))
                try bytes.appendField(Array(key.name.utf8))
            }
        }
    }

    private static func decodeTransaction(_ bytes: [UInt8]) -> Transaction? {
        var reader = ByteReader(bytes[...])
        guard let sequence = reader.uint64(), let count = reader.uint32() else { return nil }
        var changes: [RecordChange] = []
        for _ in 0..<count {
            guard let kind = reader.uint8(), let namespace = reader.string(), let name = reader.string() else { return nil }
            let key = RecordKey(RecordNamespace(rawValue: namespace), name)
            switch kind {
            case 1:
                guard let value = reader.field(), let attributeCount = reader.uint32() else { return nil }
                var attributes: [String: String] = [:]
                for _ in 0..<attributeCount {
                    guard let name = reader.string(), let value = reader.string() else { return nil }
                    attributes[name] = value
                }
                changes.append(.put(Record(key: key, value: Data(value), attributes: attributes)))
            case 2:
                changes.append(.delete(key))
            default:
                return nil
            }
        }
        guard reader.isAtEnd else { return nil }
        return Transaction(sequence: sequence, changes: changes)
    }

    /// The bytes a record adds to a compacted file, roughly: what decides when to compact.
    static func encodedSize(_ record: Record) -> Int {
        record.key.namespace.rawValue.utf8.count + record.key.name.utf8.count + record.value.count
            + record.attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 8 } + 17
    }

    // MARK: Version 1

    /// Records and sequence of a version-1 file (one sealed JSON document), which is read and
    /// rewritten as version 2 by the first write.
    static func openLegacy(_ file: [UInt8], key: SymmetricKey) -> Result<(records: [RecordKey: Record], sequence: UInt64), StorageProblem> {
        guard file.count >= legacyHeaderSize + nonceSize + tagSize else { return .failure(.init("the file is too short to be a store")) }
        let plaintext: Data
        do {
            let box = try AES.GCM.SealedBox(combined: Data(file[legacyHeaderSize...]))
            plaintext = try AES.GCM.open(box, using: key, authenticating: Data(file[..<legacyHeaderSize]))
        } catch {
            return .failure(.init("authentication failed: the passphrase or key file is not this store's, or the file was altered",
                                  keyMismatch: true))
        }
        struct StoredRecord: Decodable {
            var namespace: String
            var name: String
            var value: Data
            var attributes: [String: String]
        }
        struct Contents: Decodable {
            var sequence: UInt64
            var records: [StoredRecord]
        }
        guard let contents = try? JSONDecoder().decode(Contents.self, from: plaintext) else {
            return .failure(.init("the decrypted contents are not a record set"))
        }
        var records: [RecordKey: Record] = [:]
        for stored in contents.records {
            let key = RecordKey(RecordNamespace(rawValue: stored.namespace), stored.name)
            records[key] = Record(key: key, value: stored.value, attributes: stored.attributes)
        }
        return .success((records, contents.sequence))
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

/// Why a store file was refused (becomes ``StorageError/corruptStore(path:reason:)``).
struct StorageProblem: Error, Equatable {
    var reason: String
    /// Nothing opened with the key: a wrong passphrase or key file is far likelier than damage
    /// that struck both commit records at once (see ``EncryptedFileFormat/keyMismatch``).
    var keyMismatch = false
    init(_ reason: String, keyMismatch: Bool = false) {
        self.reason = reason
        self.keyMismatch = keyMismatch
    }
}

/// Bounds-checked big-endian reading; every read past the end is nil, never a trap.
struct ByteReader {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { bytes.isEmpty }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= bytes.count else { return nil }
        let result = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return result
    }

    mutating func uint8() -> UInt8? { bytes(1)?.first }

    mutating func uint32() -> UInt32? {
        bytes(4).map { $0.reduce(0) { $0 << 8 | UInt32($1) } }
    }

    mutating func uint64() -> UInt64? {
        bytes(8).map { $0.reduce(0) { $0 << 8 | UInt64($1) } }
    }

    /// A UInt32-length-prefixed field.
    mutating func field() -> ArraySlice<UInt8>? {
        guard let length = uint32() else { return nil }
        return bytes(Int(length))
    }

    mutating func string() -> String? {
        field().flatMap { String(validating: $0, as: UTF8.self) }
    }
}

extension [UInt8] {
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        let big = value.bigEndian
        Swift.withUnsafeBytes(of: big) { append(contentsOf: $0) }
    }

    /// Appends a count as a UInt32; a larger one is an error, never a truncation.
    mutating func appendCount(_ count: Int) throws {
        guard let value = UInt32(exactly: count) else {
            throw StorageError.ioFailure(reason: "a record field of \(count) bytes or entries is too large to store")
        }
        appendBigEndian(value)
    }

    mutating func appendField(_ field: [UInt8]) throws {
        try appendCount(field.count)
        append(contentsOf: field)
    }
}
