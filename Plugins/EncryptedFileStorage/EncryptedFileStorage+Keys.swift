import _CryptoExtras
import Crypto
import Foundation
import Touchstone

/// Key custody: the store file and key source a configuration names, and the master key,
/// read from a key file (created with a new store, refused when others may read it) or
/// derived from a passphrase with PBKDF2-SHA256.
extension EncryptedFileStorage {
    /// The store file and key source that `options` name.
    static func configuration(_ options: PluginOptions) throws -> (path: String, source: KeySource) {
        guard let path = options.string("path"), !path.isEmpty else {
            throw ConfigurationError.invalidSetting(name: "path", reason: "storage.encrypted-file needs path=<file>")
        }
        let rounds = options.integer("kdf-rounds") ?? 210_000
        var passphrase = options.given["passphrase"]
        if let variable = options.given["passphrase-env"] {
            guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
                throw ConfigurationError.invalidSetting(name: "passphrase-env", reason: "the environment variable '\(variable)' is not set")
            }
            passphrase = value
        }
        if passphrase?.isEmpty == true {
            throw ConfigurationError.invalidSetting(name: "passphrase", reason: "it is empty; an empty passphrase would protect nothing")
        }
        switch (options.given["key-file"], passphrase) {
        case let (keyFile?, nil): return (path, .keyFile(keyFile))
        case let (nil, passphrase?): return (path, .passphrase(passphrase, rounds: rounds))
        case (nil, nil):
            throw ConfigurationError.invalidSetting(name: "key-file", reason: "storage.encrypted-file needs key-file=<file> or a passphrase")
        case (.some, .some):
            throw ConfigurationError.invalidSetting(name: "key-file", reason: "give either key-file or a passphrase, not both")
        }
    }

    // MARK: Keys

    /// The master key and the key-derivation header of a new file. `storedHeader` is the
    /// existing file's header, when it has one that parses.
    static func key(_ source: KeySource, storedHeader: Format.Header?, storeExists: Bool,
                            path: String) throws -> (Format.Header, SymmetricKey) {
        switch source {
        case let .keyFile(keyPath):
            if let storedHeader, storedHeader.kdf != 0 {
                throw StorageError.corruptStore(path: path, reason: "the store is keyed by a passphrase, not a key file")
            }
            let key = try storeExists ? loadKeyFile(keyPath, store: path) : loadOrCreateKeyFile(keyPath)
            return (Format.Header(kdf: 0, rounds: 0, kdfSalt: Format.noTag, fileID: []), key)
        case let .passphrase(passphrase, rounds):
            if let storedHeader {
                guard storedHeader.kdf == 1 else {
                    throw StorageError.corruptStore(path: path, reason: "the store is keyed by a key file, not a passphrase")
                }
                guard allowedRounds.contains(Int(storedHeader.rounds)) else {
                    throw StorageError.corruptStore(path: path, reason: "the header is damaged")
                }
                return (storedHeader, try derive(passphrase, salt: storedHeader.kdfSalt, rounds: Int(storedHeader.rounds)))
            }
            guard allowedRounds.contains(rounds), let stored = UInt32(exactly: rounds) else {
                throw ConfigurationError.invalidSetting(name: "kdf-rounds", reason: "\(rounds) is outside \(allowedRounds)")
            }
            let salt = Format.randomBytes(16)
            return (Format.Header(kdf: 1, rounds: stored, kdfSalt: salt, fileID: []), try derive(passphrase, salt: salt, rounds: rounds))
        }
    }

    private static func derive(_ passphrase: String, salt: [UInt8], rounds: Int) throws -> SymmetricKey {
        do {
            return try KDF.Insecure.PBKDF2.deriveKey(
                from: Array(passphrase.utf8), salt: salt, using: .sha256, outputByteCount: 32,
                unsafeUncheckedRounds: rounds)
        } catch {
            throw StorageError.ioFailure(reason: "the passphrase key could not be derived")
        }
    }

    /// Creates a key file for a new store (mode 0600), or reads the one there. The key is
    /// written and synced under a temporary name, then linked into place, which fails when the
    /// name exists: a process that opens a new store beside another one reads that one's whole
    /// key, never a file still being written.
    private static func loadOrCreateKeyFile(_ keyPath: String) throws -> SymmetricKey {
        if access(keyPath, F_OK) == 0 { return try loadKeyFile(keyPath, store: nil) }
        let temporary = keyPath + ".new-\(getpid())-\(Data(Format.randomBytes(4)).hexString)"
        let created = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard created >= 0 else { throw StorageError.ioFailure(reason: "cannot create key file '\(keyPath)': \(lastError)") }
        defer { unlink(temporary) }
        let key = Format.randomBytes(32)
        do {
            defer { close(created) }
            try writeAll(created, key, at: 0, path: keyPath)
            guard fsync(created) == 0 else { throw StorageError.ioFailure(reason: "fsync of '\(keyPath)' failed") }
        }
        guard link(temporary, keyPath) == 0 else {
            guard errno == EEXIST else { throw StorageError.ioFailure(reason: "cannot create key file '\(keyPath)': \(lastError)") }
            return try loadKeyFile(keyPath, store: nil)
        }
        syncDirectory(of: keyPath)
        return SymmetricKey(data: key)
    }

    /// Reads an existing key file; when the store exists a missing key file is an error (a new
    /// key could not read the store), and none is created.
    private static func loadKeyFile(_ keyPath: String, store: String?) throws -> SymmetricKey {
        var info = stat()
        guard stat(keyPath, &info) == 0 else {
            if errno == ENOENT, let store {
                throw StorageError.ioFailure(reason: "key file '\(keyPath)' is missing, but the store '\(store)' exists: restore the key file (a new key cannot read the store; no key was created)")
            }
            throw StorageError.ioFailure(reason: "cannot stat key file '\(keyPath)': \(lastError)")
        }
        try StorageError.requireRegularFile(info, path: keyPath)
        guard info.st_mode & 0o077 == 0 else {
            throw StorageError.ioFailure(reason: "key file '\(keyPath)' may be read by other users; run chmod 600 on it")
        }
        guard let file = try readFile(keyPath), file.bytes.count == 32 else {
            throw StorageError.ioFailure(reason: "key file '\(keyPath)' is not a key: a key file holds exactly 32 bytes (the store was left untouched; give the key file that goes with it)")
        }
        return SymmetricKey(data: file.bytes)
    }
}
