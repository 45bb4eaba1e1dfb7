import Foundation

/// A new, empty directory under the system's temporary directory, named `prefix` and a UUID;
/// the caller removes it (`defer { try? FileManager.default.removeItem(at: directory) }`).
public func makeScratchDirectory(_ prefix: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}
