import Foundation
import Logging

extension Composition {
    /// The default composition: a simulated Touch ID device (`sim.touchid`, `passcode.sim`)
    /// on a virtual clock, in memory (`storage.memory`), with the domain-state detector —
    /// what `touchstone` starts with and what a configuration file's missing keys mean.
    public init() {
        self.init(
            sensor: PluginSelection("sim.touchid"), passcode: PluginSelection("passcode.sim"),
            storage: PluginSelection("storage.memory"), detector: PluginSelection("detector.domain-state"),
            clock: .virtual)
    }

    /// Parses JSON configuration text; `path` names it in errors. Missing keys take the
    /// values of `Composition()`.
    public static func parse(_ data: Data, path: String = "<configuration>") throws -> Composition {
        try parse(data, path: path, defaults: Composition())
    }

    /// Reads a JSON configuration file (at most ``maximumFileBytes``). Unknown keys are
    /// rejected by name; missing keys take the values of `defaults`.
    public static func load(from url: URL, defaults: Composition = Composition()) throws -> Composition {
        // A device or FIFO would be read without end (or block): only plain files, of a size a
        // configuration can have.
        // Symbolic links are followed (dotfile setups, mounted configuration maps use them).
        if let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path),
           let type = attributes[.type] as? FileAttributeType, type != .typeDirectory {
            guard type == .typeRegular else {
                throw ConfigurationError.unreadableConfiguration(
                    path: url.path, reason: "it is not a regular file; give the path of a JSON file (as `config` prints)")
            }
            if let size = attributes[.size] as? Int, size > maximumFileBytes {
                throw ConfigurationError.unreadableConfiguration(
                    path: url.path, reason: "it holds \(size) bytes; a configuration file is at most \(maximumFileBytes)")
            }
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ConfigurationError.unreadableConfiguration(path: url.path, reason: readFailure(url.path, error))
        }
        return try parse(data, path: url.path, defaults: defaults)
    }

    /// The largest configuration file ``load(from:defaults:)`` reads: 1 MiB (one is a few
    /// hundred bytes).
    public static let maximumFileBytes = 1 << 20

    /// Why a configuration file could not be read, in words (Foundation's own message on Linux
    /// can be a bare "NSCocoaErrorDomain error 256").
    private static func readFailure(_ path: String, _ error: any Error) -> String {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) { return "there is no such file" }
        if isDirectory.boolValue { return "it is a directory; give the path of a JSON file (as `config` prints)" }
        if !FileManager.default.isReadableFile(atPath: path) { return "permission denied" }
        return error.localizedDescription
    }
}

extension AuthenticatorBuilder {
    /// A builder over `registry`, starting from `Composition()`: a simulated Touch ID device
    /// on a virtual clock, in memory, logging through `logger`.
    public init(registry: PluginRegistry, logger: Logger = .touchstoneSilent) {
        self.init(registry: registry, composition: Composition(), logger: logger)
    }
}
