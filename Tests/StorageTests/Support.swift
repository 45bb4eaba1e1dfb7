import Foundation
import Testing
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

    /// Opens the store in `directory` through the registry, as a composition would.
    func open(in directory: URL) throws -> any StorageBackend {
        let environment = PluginEnvironment(clock: VirtualClock(), random: RandomSource(seed: 1), interaction: ScriptedInteraction())
        return try PluginRegistry.builtIn.make(PluginSelection(rawValue, options: options(in: directory)), kind: .storage,
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

/// A simulated device on `backend` in `directory`: virtual clock, scripted user, fast passcode.
struct StorageRig {
    let authenticator: Authenticator
    let user: ScriptedInteraction
    let clock: VirtualClock
    var device: Device { authenticator.device }
    var keychain: Keychain { authenticator.keychain }

    init(_ backend: Backend = .memory, directory: URL? = nil, passcode: String? = "1234", enrolled: [String] = ["thumb"],
         app: String = "com.example.app", detector: String = "detector.domain-state", sensor: String? = "sim.touchid") throws {
        var composition = Composition()
        composition.app = app
        composition.seed = 7
        composition.sensor = sensor.map { PluginSelection($0) }
        composition.passcode = PluginSelection("passcode.sim", options: ["rounds": "1000"])
        composition.detector = PluginSelection(detector)
        if let directory {
            composition.storage = PluginSelection(backend.rawValue, options: backend.options(in: directory))
        }
        let user = ScriptedInteraction()
        let clock = VirtualClock()
        authenticator = try AuthenticatorBuilder(registry: .builtIn, composition: composition).build(clock: clock, interaction: user)
        self.user = user
        self.clock = clock
        if let passcode, try !authenticator.device.isPasscodeSet { try authenticator.device.setPasscode(passcode) }
        for name in enrolled where try !authenticator.device.enrolledNames().contains(name) {
            try authenticator.device.enroll(name)
        }
    }

    /// Reads an item with `actions` queued for the prompt; returns the value or the error.
    func read(_ service: String, _ account: String, _ actions: [UserAction] = [], context: AuthenticationContext? = nil)
        async -> Result<String, KeychainError>
    {
        user.enqueue(actions)
        do {
            return .success(try await keychain.readString(service: service, account: account, context: context, reason: "Read"))
        } catch let error as KeychainError {
            return .failure(error)
        } catch {
            Issue.record("unexpected error \(error)")
            return .failure(KeychainError(.storageFailure, message: "\(error)"))
        }
    }
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
