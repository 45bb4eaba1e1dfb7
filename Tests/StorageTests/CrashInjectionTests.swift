import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// Crash injection: a child process writes counters, keychain items and biometric failures;
/// it is killed with SIGKILL at random moments, many times. Every reopened store must open,
/// hold every change acknowledged before the kill, and never show a reset lockout.
@Suite("Crash injection", .serialized)
struct CrashInjectionTests {
    /// The highest value of each acknowledged kind (`counter`, `item`, `bio`).
    struct Acknowledged {
        var counter = 0
        var items: [Int] = []
        var bio = 0
    }

    @Test("SIGKILL at random points never loses an acknowledged change", arguments: [Backend.sqlite, .encrypted])
    func killedWritersLoseNothing(_ backend: Backend) async throws {
        try #require(ChildProcess.executable != nil, "the StorageCrashChild helper is built with the tests")
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        _ = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)   // device with passcode and one identity
        var acknowledged = Acknowledged()
        var generator = SystemRandomNumberGenerator()
        let deadline = ContinuousClock.now + .seconds(9)
        var runs = 0
        var failures: [String] = []
        while runs < 15 || (ContinuousClock.now < deadline && runs < 200) {
            runs += 1
            let (process, pipe) = try ChildProcess.start(["stream"] + ChildProcess.storageArguments(backend, directory))
            let delay = Int.random(in: 20...250, using: &generator)
            try await Task.sleep(for: .milliseconds(delay))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            for line in ChildProcess.lines(pipe) {
                let parts = line.split(separator: " ")
                guard parts.count == 2, let value = Int(parts[1]) else { continue }
                switch parts[0] {
                case "counter": acknowledged.counter = max(acknowledged.counter, value)
                case "item": acknowledged.items.append(value)
                case "bio": acknowledged.bio = max(acknowledged.bio, value)
                default: break
                }
            }
            // Reopen and check.
            do {
                let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
                let stored = try rig.device.storage.read(RecordKey("crash", "counter"))
                    .flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } ?? 0
                if stored < acknowledged.counter { failures.append("run \(runs): counter \(stored) < acknowledged \(acknowledged.counter)") }
                let failuresNow = try rig.device.counters.consecutiveBiometricFailures
                if failuresNow < acknowledged.bio { failures.append("run \(runs): biometric failures \(failuresNow) < acknowledged \(acknowledged.bio)") }
                if acknowledged.bio >= 5, try !rig.device.biometryStatus().isLockedOut {
                    failures.append("run \(runs): lockout was reset")
                }
                let items = Set(try rig.keychain.items(service: "crash").map(\.account))
                for item in acknowledged.items where !items.contains("item-\(item)") {
                    failures.append("run \(runs): acknowledged item-\(item) is missing")
                }
            } catch {
                failures.append("run \(runs): reopening failed: \(error)")
            }
        }
        print("crash injection \(backend.rawValue): \(runs) runs, \(failures.count) failures, counter \(acknowledged.counter), items \(acknowledged.items.count), biometric failures \(acknowledged.bio)")
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(acknowledged.counter > 0, "the child made progress")
        // Spot-check a value.
        if let last = acknowledged.items.last {
            let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
            #expect(await rig.read("crash", "item-\(last)") == .success("v\(last)"))
        }
    }

    @Test("two processes incrementing one SQLite file lose no update")
    func twoProcessesNoLostUpdate() async throws {
        try #require(ChildProcess.executable != nil)
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        _ = try TestDevice(storage: Backend.sqlite.selection(in: directory), registry: .builtIn)
        let count = 150
        let children = try (0..<2).map { _ in
            try ChildProcess.start(["increment", String(count)] + ChildProcess.storageArguments(.sqlite, directory))
        }
        for (process, _) in children { process.waitUntilExit() }
        for (process, _) in children { #expect(process.terminationStatus == 0) }
        let store = try Backend.sqlite.open(in: directory)
        let total = try store.read(RecordKey("crash", "counter")).flatMap { Int(String(decoding: $0.value, as: UTF8.self)) }
        #expect(total == 2 * count)
    }

    @Test("two processes incrementing one encrypted file lose no update")
    func twoProcessesEncryptedNoLostUpdate() async throws {
        try #require(ChildProcess.executable != nil)
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        _ = try TestDevice(storage: Backend.encrypted.selection(in: directory), registry: .builtIn)
        let count = 60
        let children = try (0..<2).map { _ in
            try ChildProcess.start(["increment", String(count)] + ChildProcess.storageArguments(.encrypted, directory))
        }
        for (process, _) in children { process.waitUntilExit() }
        let store = try Backend.encrypted.open(in: directory)
        let total = try store.read(RecordKey("crash", "counter")).flatMap { Int(String(decoding: $0.value, as: UTF8.self)) }
        #expect(total == 2 * count)
    }
}
