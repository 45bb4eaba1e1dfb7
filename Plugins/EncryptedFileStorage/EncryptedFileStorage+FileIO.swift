import Foundation
import Touchstone

/// POSIX file access for the store and its key file: reading, writing and syncing bytes, the
/// identity a file is recognised by (refusing anything but a regular file), and the bounded
/// wait for another process's `flock`.
extension EncryptedFileStorage {
    // MARK: Locking

    /// Takes the file lock `operation` (`LOCK_SH` or `LOCK_EX`) on `descriptor`, waiting at most
    /// `timeout` for another process that holds it: tried without blocking, then again after
    /// pauses growing from 1 to 20 ms. Past the timeout: an I/O failure naming the lock file
    /// (nothing is damaged; the operation may be retried).
    static func lock(_ descriptor: Int32, _ operation: Int32, path: String, within timeout: Duration) throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause: UInt32 = 1_000
        while flock(descriptor, operation | LOCK_NB) != 0 {
            let error = errno
            guard error == EWOULDBLOCK || error == EINTR else {
                throw StorageError.ioFailure(reason: "cannot lock '\(path)': \(String(cString: strerror(error)))")
            }
            guard clock.now < deadline else {
                throw StorageError.ioFailure(reason: "'\(path)' stayed locked by another process for \(timeout) (busy-timeout): "
                    + "the store is busy or another process is stopped while holding it; try again")
            }
            if error == EWOULDBLOCK {
                usleep(pause)
                pause = min(pause * 2, 20_000)
            }
        }
    }

    // MARK: File access

    /// The file's bytes and identity, or nil when it does not exist.
    static func readFile(_ path: String) throws -> (bytes: [UInt8], identity: FileIdentity)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw StorageError.ioFailure(reason: "cannot open '\(path)': \(lastError)")
        }
        defer { close(descriptor) }
        let identity = try identity(of: descriptor, path: path)
        return (try readAll(descriptor, path: path), identity)
    }

    /// Everything from the descriptor's current position to its end.
    static func readAll(_ descriptor: Int32, path: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw StorageError.ioFailure(reason: "cannot read '\(path)': \(lastError)")
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<count])
        }
    }

    /// Exactly `count` bytes at `offset` (fewer is a cut file).
    static func readAll(_ descriptor: Int32, from offset: UInt64, count: Int, path: String) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress?.advanced(by: done), count - done, off_t(offset) + off_t(done))
            }
            if read < 0 {
                if errno == EINTR { continue }
                throw StorageError.ioFailure(reason: "cannot read '\(path)': \(lastError)")
            }
            if read == 0 { throw StorageError.corruptStore(path: path, reason: "the file ends before its committed log does") }
            done += read
        }
        return bytes
    }

    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8], at offset: UInt64, path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = pwrite(descriptor, buffer.baseAddress?.advanced(by: done), buffer.count - done, off_t(offset) + off_t(done))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw StorageError.ioFailure(reason: "cannot write '\(path)': \(lastError)")
                }
                done += written
            }
        }
    }

    static func syncDirectory(of path: String) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return identity(of: info)
    }

    /// The identity of the file open at `descriptor`, which must be a regular file: a FIFO,
    /// a device such as `/dev/urandom` or a directory given as the store or key path is refused
    /// before it is read (it could block forever or never end). The store's files are opened
    /// with `O_NONBLOCK` for the same reason; a regular file ignores it.
    static func identity(of descriptor: Int32, path: String) throws -> FileIdentity {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw StorageError.ioFailure(reason: "cannot stat '\(path)': \(lastError)") }
        try StorageError.requireRegularFile(info, path: path)
        return identity(of: info)
    }


    private static func identity(of info: stat) -> FileIdentity {
        // Nanosecond times as (seconds, nanoseconds) pairs folded without overflow: only
        // equality matters.
        FileIdentity(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
            modified: Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec),
            changed: Int64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_ctim.tv_nsec))
    }

    static var lastError: String { String(cString: strerror(errno)) }
}
