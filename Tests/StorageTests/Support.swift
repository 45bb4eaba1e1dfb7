import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// The backends every contract test runs against.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory = "storage.memory"
    case sqlite = "storage.sqlite"
    case encrypted = "storage.encrypted-file"

    var testDescription: String { rawValue }

    /// Options for a store in `directory` (nothing for memory).
    func options(in directory: URL) -> [String: String] {
        switch self {
        case .memory: [:]
        case .sqlite: ["path": directory.appendingPathComponent("device.sqlite").path]
        case .encrypted: ["path": directory.appendingPathComponent("device.store").path,
                          "key-file": directory.appendingPathComponent("device.key").path]
        }
    }

    /// The data file of a file-backed store.
    func file(in directory: URL) -> URL? {
        options(in: directory)["path"].map { URL(fileURLWithPath: $0) }
    }

    /// The storage selection of a store in `directory`, for `TestDevice(storage:registry:)` with `.builtIn`.
    func selection(in directory: URL) -> PluginSelection {
        PluginSelection(rawValue, options: options(in: directory))
    }

    /// A SQLite store in `directory` written through a device (the keychain items
    /// `values[n]` under service "s", accounts "a", "b"...) and closed again; its data file, for
    /// a test to edit behind the backend's back.
    static func sqliteStore(in directory: URL, values: [String] = ["value"]) throws -> URL {
        let file = try #require(Backend.sqlite.file(in: directory))
        let rig = try TestDevice(storage: Backend.sqlite.selection(in: directory), registry: .builtIn)
        for (index, value) in values.enumerated() {
            try rig.keychain.add(value, service: "s", account: String(UnicodeScalar(UInt8(ascii: "a") + UInt8(index))))
        }
        return file
    }

    /// Opens the store in `directory` through the registry, as a composition would.
    func open(in directory: URL) throws -> any StorageBackend {
        let environment = PluginEnvironment(clock: VirtualClock(), random: RandomSource(seed: 1), interaction: ScriptedInteraction())
        return try PluginRegistry.builtIn.make(selection(in: directory), kind: .storage,
                                               environment: environment)
    }
}

/// A fresh temporary directory, removed by the caller with ``removeTemporaryDirectory(_:)``.
func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-storage-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func removeTemporaryDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}

extension Result where Failure == KeychainError {
    /// The keychain error's kind, or nil on success.
    var kind: KeychainError.Kind? {
        if case let .failure(error) = self { return error.kind }
        return nil
    }

    var status: Int32 {
        if case let .failure(error) = self { return error.osStatus }
        return 0
    }
}
