import Foundation
import TestSupport
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// Several processes on one store file at once, in overlapping waves: a process that exits
/// (and closes the store) while others still write must not take their writes with it. Before
/// the fix, SQLite's POSIX locks were dropped by a stray descriptor of the database file, the
/// exiting process checkpointed and deleted the write-ahead log under the others, and
/// acknowledged failed matches and keychain items vanished.
@Suite("Multi-process stress", .serialized)
struct MultiProcessStressTests {
    /// One started `StorageCrashChild wave` process.
    final class Child {
        let process: SpawnedProcess
        let input = Pipe()
        let output = Pipe()
        /// What the child says when it fails (read only once it exited).
        let errors = Pipe()
        private var buffer = Data()

        init(_ arguments: [String]) throws {
            guard let executable = ChildProcess.executable else { throw CocoaError(.fileNoSuchFile) }
            process = SpawnedProcess()
            process.executableURL = executable
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            // A child that died must fail the test, not kill the test process with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            try process.run()
        }

        /// Blocks until the child printed `ready` (false if it exited first).
        func waitUntilReady() -> Bool {
            while !String(decoding: buffer, as: UTF8.self).contains("ready\n") {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { return false }
                buffer.append(chunk)
            }
            return true
        }

        func go() {
            // A child that already died shows in its results; EPIPE here is not the failure.
            try? input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
        }

        /// Every line the child printed, after it exited.
        func finish() -> [String] {
            process.waitUntilExit()
            buffer.append(output.fileHandleForReading.readDataToEndOfFile())
            return String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    /// Starts `count` wave processes and releases them together once all have opened the store.
    func startWave(_ names: [String], failures: Int, items: Int, backend: Backend, directory: URL) throws -> [Child] {
        let children = try names.map { name in
            try Child(["wave", name, String(failures), String(items)] + ChildProcess.storageArguments(backend, directory))
        }
        for child in children where !child.waitUntilReady() {
            child.process.waitUntilExit()
            let message = String(decoding: child.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("a wave process exited before it was ready (status \(child.process.terminationStatus)): \(message)")
        }
        for child in children { child.go() }
        return children
    }

    @Test("six processes that open one new encrypted store at once all open it and lose no item, keyed by a passphrase (each process picks a salt before the file exists: the store's is the first writer's) or by a key file (each would make the key)",
          arguments: ["passphrase", "key-file"])
    func newEncryptedStoreOpenedByManyProcessesAtOnce(_ keying: String) throws {
        try #require(ChildProcess.executable != nil, "the StorageCrashChild helper is built with the tests")
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let path = directory.appendingPathComponent("device.store").path
        let key = keying == "passphrase" ? ["passphrase": "correct horse"] : ["key-file": directory.appendingPathComponent("device.key").path]
        let storage = PluginSelection("storage.encrypted-file", options: key.merging(["path": path]) { $1 })
        let arguments = [storage.id] + storage.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        // Started together: each opens the device (creating it, or finding it created) before it says ready.
        let children = try (0..<6).map { try Child(["wave", "p\($0)", "0", "3"] + arguments) }
        for child in children where !child.waitUntilReady() {
            child.process.waitUntilExit()
            let message = String(decoding: child.errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("a process could not open the new store (status \(child.process.terminationStatus)): \(message)")
        }
        for child in children { child.go() }
        var items: [String] = []
        for child in children {
            items += child.finish().filter { $0.hasPrefix("item ") }.map { String($0.dropFirst(5)) }
            #expect(child.process.terminationStatus == 0)
        }
        #expect(items.count == 18)
        let rig = try TestDevice(storage: storage, registry: .builtIn)
        #expect(Set(try rig.keychain.items(service: "stress").map(\.account)) == Set(items))
    }

    @Test("processes in overlapping waves lose no failed match and no keychain item", arguments: [Backend.sqlite, .encrypted])
    func overlappingWavesLoseNothing(_ backend: Backend) async throws {
        try #require(ChildProcess.executable != nil, "the StorageCrashChild helper is built with the tests")
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        _ = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)   // passcode 1234, one identity
        let rounds = 6
        var tried = 0, lost = 0
        for round in 0..<rounds {
            // A correct passcode clears the failure count: each round starts from zero.
            do { _ = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn).device.enterPasscode("1234") }

            // Wave 1: four processes at once. Wave 2 starts when the first of wave 1 exits, wave
            // 3 when the first of wave 2 exits, so stores are closed while others still write.
            // Even rounds: only wave 1 fails a match (4, below the lockout). Odd rounds: every
            // process does (10 attempts: exactly 5 count, then biometry is locked).
            let laterFailures = round % 2
            var all: [Child] = []
            let first = try startWave((0..<4).map { "r\(round)-a\($0)" }, failures: 1, items: 5, backend: backend, directory: directory)
            all += first
            first[0].process.waitUntilExit()
            let second = try startWave((0..<4).map { "r\(round)-b\($0)" }, failures: laterFailures, items: 5,
                                       backend: backend, directory: directory)
            all += second
            second[0].process.waitUntilExit()
            all += try startWave((0..<2).map { "r\(round)-c\($0)" }, failures: laterFailures, items: 5,
                                 backend: backend, directory: directory)

            var attempts = 0
            var items: [String] = []
            for child in all {
                for line in child.finish() {
                    if line.hasPrefix("fail ") { attempts += 1 }
                    if line.hasPrefix("item ") { items.append(String(line.dropFirst(5))) }
                }
                #expect(child.process.terminationStatus == 0)
            }
            let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
            let stored = try rig.device.counters.consecutiveBiometricFailures
            let present = Set(try rig.keychain.items(service: "stress").map(\.account))
            let missing = items.filter { !present.contains($0) }
            let expected = min(attempts, 5)
            tried += items.count + attempts
            lost += missing.count + max(0, expected - stored)
            #expect(attempts == 4 + 6 * laterFailures)
            #expect(stored == expected, "round \(round): the store holds \(stored) failures after \(attempts) acknowledged attempts")
            #expect(try rig.device.biometryStatus().isLockedOut == (expected == 5), "round \(round): lockout state")
            #expect(missing.isEmpty, "round \(round): acknowledged items missing: \(missing.prefix(5))")
            #expect(items.count == 50)
        }
        print("multi-process stress \(backend.rawValue): \(rounds) rounds, 10 processes each, \(tried) acknowledged writes, \(lost) lost")
    }
}
