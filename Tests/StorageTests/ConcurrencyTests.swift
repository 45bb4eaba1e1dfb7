import Foundation
import Testing
import TouchstoneTesting
@testable import Touchstone
import TouchstoneBuiltins

/// Many tasks on one device: parallel keychain reads and adds, and counter updates, with no
/// lost update.
@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("parallel keychain adds and reads from many tasks", arguments: Backend.allCases)
    func parallelKeychain(_ backend: Backend) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
        let keychain = rig.keychain
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for index in 0..<10 {
                        try keychain.add("value-\(task)-\(index)", service: "s", account: "a-\(task)-\(index)")
                        let value = try await keychain.readString(service: "s", account: "a-\(task)-\(index)")
                        #expect(value == "value-\(task)-\(index)")
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try keychain.items(service: "s").count == 160)
    }

    @Test("parallel read-modify-write transactions lose no update", arguments: Backend.allCases)
    func parallelIncrements(_ backend: Backend) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let store = try backend.open(in: directory)
        let key = RecordKey("t", "counter")
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<25 {
                        _ = try? store.transaction { transaction in
                            let current = try transaction.read(key).flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } ?? 0
                            transaction.put(Record(key: key, value: Data(String(current + 1).utf8)))
                        }
                    }
                }
            }
        }
        #expect(try store.read(key).flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } == 200)
    }

    @Test("parallel evaluations and protected reads on one device count every failure", arguments: Backend.allCases)
    func parallelEvaluations(_ backend: Backend) async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let rig = try TestDevice(storage: backend.selection(in: directory), registry: .builtIn)
        try rig.keychain.add("secret", service: "s", account: "a", accessControl: AccessControl(flags: .biometryAny))
        let context = rig.authenticator.makeContext()
        rig.user.enqueue(.present("thumb"))
        try await context.evaluateAccessControl(AccessControl(flags: .biometryAny), operation: .useItem, reason: "x")
        let keychain = rig.keychain
        // Granted reads need no prompt, so they can run in parallel with anything.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    let value = try await keychain.readString(service: "s", account: "a", context: context)
                    #expect(value == "secret")
                }
            }
            try await group.waitForAll()
        }
        // Four failed matches, each in its own evaluation, run one after another by the device.
        for _ in 0..<4 {
            rig.user.enqueue([.noMatch, .cancel])
            _ = try? await rig.authenticator.makeContext().evaluate(rig.authenticator.policy(named: "biometrics"), reason: "x")
        }
        #expect(try rig.device.counters.consecutiveBiometricFailures == 4)
    }
}
