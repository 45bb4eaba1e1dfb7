import Dispatch
import Foundation
import LocalAuthentication
import Security
import Testing
import Touchstone
import TouchstonePortable
import TouchstoneSimulation
import TouchstoneTesting

/// Many threads and tasks on one device at once. Each test asserts the exact outcome (no lost
/// update, no lost item); run under ThreadSanitizer (`scripts/tsan.sh --ci`, part of
/// `make test`) it also proves that no two of them touched shared state without a lock.
@Suite("Parallel use of one device")
struct ParallelUseTests {
    /// The stores the device can live in without a system package.
    enum Store: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case memory = "storage.memory"
        case encryptedFile = "storage.encrypted-file"

        var testDescription: String { rawValue }

        func selection(in directory: URL) -> PluginSelection {
            switch self {
            case .memory:
                PluginSelection(rawValue)
            case .encryptedFile:
                PluginSelection(rawValue, options: [
                    "path": directory.appendingPathComponent("device.store").path,
                    "key-file": directory.appendingPathComponent("device.key").path,
                ])
            }
        }
    }

    /// A fresh folder, removed when the test ends.
    final class Folder: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-tsan-\(UUID().uuidString)")

        init() throws {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        deinit {
            try? FileManager.default.removeItem(at: url)
        }
    }

    @Test("keychain adds and reads from 16 tasks keep all 160 items", arguments: Store.allCases)
    func keychainAddsAndReads(_ store: Store) async throws {
        let folder = try Folder()
        let device = try TestDevice(storage: store.selection(in: folder.url))
        let keychain = device.keychain
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

    @Test("read-modify-write transactions from 8 threads lose no update", arguments: Store.allCases)
    func transactionsLoseNoUpdate(_ store: Store) throws {
        let folder = try Folder()
        let environment = PluginEnvironment(clock: VirtualClock(), random: RandomSource(seed: 1), interaction: ScriptedInteraction())
        let storage: any StorageBackend = try PluginRegistry.portable.make(store.selection(in: folder.url), kind: .storage, environment: environment)
        let key = RecordKey("t", "counter")
        let failures = Counter()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<25 {
                do {
                    try storage.transaction { transaction in
                        let current = try transaction.read(key).flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } ?? 0
                        transaction.put(Record(key: key, value: Data(String(current + 1).utf8)))
                    }
                } catch {
                    failures.add()
                }
            }
        }
        #expect(failures.value == 0)
        #expect(try storage.read(key).flatMap { Int(String(decoding: $0.value, as: UTF8.self)) } == 200)
    }

    @Test("24 protected reads granted by one evaluation run in parallel and all return the item", arguments: Store.allCases)
    func grantedReadsInParallel(_ store: Store) async throws {
        let folder = try Folder()
        let device = try TestDevice(storage: store.selection(in: folder.url))
        try device.keychain.add("secret", service: "s", account: "a", accessControl: AccessControl(flags: .biometryAny))
        let context = device.authenticator.makeContext()
        device.user.enqueue(.present("thumb"))
        try await context.evaluateAccessControl(AccessControl(flags: .biometryAny), operation: .useItem, reason: "x")
        let keychain = device.keychain
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<24 {
                group.addTask {
                    let value = try await keychain.readString(service: "s", account: "a", context: context)
                    #expect(value == "secret")
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("evaluations on 16 devices at once, each with its own person and clock, all succeed")
    func evaluationsOnManyDevices() async throws {
        let devices = try (0..<16).map { _ in try TestDevice() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for device in devices {
                group.addTask {
                    for _ in 0..<5 {
                        device.enqueue(.noMatch, .present("thumb"))
                        let context = device.authenticator.makeContext()
                        _ = try await context.evaluate(device.authenticator.policy(named: "biometrics"), reason: "x")
                        device.advance(by: .seconds(1))
                    }
                }
            }
            try await group.waitForAll()
        }
        for device in devices {
            #expect(try device.device.counters.consecutiveBiometricFailures == 0)
        }
    }

    @Test("the virtual clock advanced from 8 threads by 100 one-second steps each ends 800 s later")
    func clockAdvancedFromManyThreads() throws {
        let device = try TestDevice()
        let start = device.clock.now
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<100 {
                device.advance(by: .seconds(1))
                _ = device.clock.now
            }
        }
        #expect(start.duration(to: device.clock.now) == .seconds(800))
    }

    @Test("SecItemAdd and SecItemCopyMatching from 8 threads on the default device keep all 80 items")
    func secItemCallsFromManyThreads() throws {
        let device = try TestDevice()
        let authenticator = device.authenticator
        let collected = Collected<OSStatus>()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            // The device is task-local: each thread names it for its own calls.
            LocalAuthenticationSystem.withAuthenticator(authenticator) {
                for index in 0..<10 {
                    let account = "a-\(thread)-\(index)"
                    collected.append(SecItemAdd([
                        kSecClass as String: kSecClassGenericPassword,
                        kSecAttrService as String: "s",
                        kSecAttrAccount as String: account,
                        kSecValueData as String: Data(account.utf8),
                    ] as CFDictionary, nil))
                    var result: CFTypeRef?
                    let status = SecItemCopyMatching([
                        kSecClass as String: kSecClassGenericPassword,
                        kSecAttrService as String: "s",
                        kSecAttrAccount as String: account,
                        kSecReturnData as String: true,
                    ] as CFDictionary, &result)
                    collected.append(status == errSecSuccess && (result as? Data) == Data(account.utf8) ? errSecSuccess : status)
                    _ = LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil)
                }
            }
        }
        let statuses = collected.values
        #expect(statuses == Array(repeating: errSecSuccess, count: 160))
        #expect(try device.keychain.items(service: "s").count == 80)
    }
}

/// One SecTrust on many threads: evaluations while another thread moves its verify date.
@Suite("Parallel use of one SecTrust")
struct ParallelTrustTests {
    /// A P-256 root and a leaf it issued for www.example.test, valid 2026-01-01 to 2028-03-11.
    static let root = "MIIBKDCB0KADAgECAgEBMAoGCCqGSM49BAMCMBQxEjAQBgNVBAMMCVRTYW4gUm9vdDAeFw0yNjAxMDEwMDAwMDBaFw0zNTEyMzAwMDAwMDBaMBQxEjAQBgNVBAMMCVRTYW4gUm9vdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABIhPSH9mNL/FRL+JW3zTU+GE4vfzrBs3YtzqHrdR65+SzE6ULFGD4QYKhdNCG0K0+cU+zXQiMAUvkUy+BfRSElKjEzARMA8GA1UdEwEB/wQFMAMBAf8wCgYIKoZIzj0EAwIDRwAwRAIgBMigUXyRV4sSGwtZA08PguOszJ/8lMKL/uCsQKffsRkCIH+i837b6IhLIKiIASIGgAvPlgTO4opZPLShY8d/UPkL"
    static let leaf = "MIIBYDCCAQagAwIBAgIBAjAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAlUU2FuIFJvb3QwHhcNMjYwMTAxMDAwMDAwWhcNMjgwMzExMDAwMDAwWjAbMRkwFwYDVQQDDBB3d3cuZXhhbXBsZS50ZXN0MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEHVPpVr4yA3sXlEdgaf1NlkQHh1SD/UwwGaU4RiCbThmzmhwyc2R/v1Q/sVFBrJeJmgPpeAygOgosPJaUkPM3yaNCMEAwDAYDVR0TAQH/BAIwADAbBgNVHREEFDASghB3d3cuZXhhbXBsZS50ZXN0MBMGA1UdJQQMMAoGCCsGAQUFBwMBMAoGCCqGSM49BAMCA0gAMEUCIQCOSqkt3FfBTqeTCCaUWat1ldClu//IMfb5eTDci5CNpQIgbVICFAYqJY35qYHo2hnmEODHyk4C4S/Wd4GVcj6XbUk="

    @Test("8 threads evaluate one trust while a ninth moves its date in and out of the leaf's validity: each verdict is one of the two, and the last evaluation follows the last date")
    func evaluationsWhileSettingsChange() throws {
        let certificates = try [Self.leaf, Self.root].map { text in
            try #require(Data(base64Encoded: text).flatMap { SecCertificateCreateWithData(nil, $0 as CFData) })
        }
        var made: SecTrust?
        #expect(SecTrustCreateWithCertificates(certificates[0], SecPolicyCreateSSL(true, "www.example.test" as CFString), &made) == errSecSuccess)
        let trust = try #require(made)
        SecTrustSetAnchorCertificates(trust, [certificates[1]] as CFArray)
        let inside = Date(timeIntervalSince1970: 1_780_000_000)  // June 2026
        let outside = Date(timeIntervalSince1970: 2_000_000_000)  // 2033
        let verdicts = Collected<Int>()
        DispatchQueue.concurrentPerform(iterations: 9) { thread in
            for index in 0..<40 {
                if thread == 8 {
                    SecTrustSetVerifyDate(trust, (index.isMultiple(of: 2) ? outside : inside) as NSDate)
                } else {
                    var error: CFError?
                    verdicts.append(SecTrustEvaluateWithError(trust, &error) ? 0 : error?.code ?? -1)
                }
            }
        }
        #expect(Set(verdicts.values).isSubset(of: [0, Int(errSecCertificateExpired)]))
        #expect(verdicts.values.count == 320)
        // The thread's last date (index 39, odd) is inside the validity.
        #expect(SecTrustEvaluateWithError(trust, nil))
    }
}

/// A count several threads add to. (`NSLock`, a pthread mutex: ThreadSanitizer sees it.)
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func add() { lock.withLock { count += 1 } }

    var value: Int { lock.withLock { count } }
}

/// Values several threads append to.
final class Collected<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Value] = []

    func append(_ value: Value) { lock.withLock { storage.append(value) } }

    var values: [Value] { lock.withLock { storage } }
}
