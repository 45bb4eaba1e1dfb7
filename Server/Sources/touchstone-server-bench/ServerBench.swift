import ArgumentParser
import Crypto
import Foundation
import LoginServer
import LoopbackHTTP
import NIOCore

/// `touchstone-server-bench`: signature logins per second end to end on loopback (challenge +
/// login over HTTP/1.1 keep-alive) beside bare P-256 verifications per second measured in the
/// same run, their ratio, p50/p99 latency of one login, and the CPU time the server and the
/// load generator each spend per login. The server measured is the real `touchstone-server`
/// executable, run as a child process (``ServerProcess``); the load comes from plain threads
/// (``LoadGenerator``). Prints `name value unit` lines.
@main
struct ServerBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touchstone-server-bench",
        abstract: "Signature logins/s end to end on loopback beside bare P-256 verifications/s, with p50/p99 latency."
    )

    @Option(help: "Database URL (default: a SQLite file in a temporary folder).")
    var database: String?

    @Option(help: "Seconds of login traffic.")
    var seconds: Double = 5

    @Option(help: "Concurrent client connections, one device each.")
    var connections: Int = 4

    @Flag(help: "Also measure the parts: /health over all connections, P-256 signing, and SQLite's login steps without HTTP (old three-step and new two-step shape).")
    var breakdown = false

    @Option(help: "The touchstone-server executable to measure (default: the one beside this bench).")
    var server: String?

    func run() async throws {
        let verifyRate = Self.verificationsPerSecond(for: .seconds(2))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-server-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let databaseURL = database ?? "sqlite://\(folder.appendingPathComponent("login.sqlite").path)"
        let backend = if case .postgres = try DatabaseLocation(parsing: databaseURL) { "postgres" } else { "sqlite" }
        let executable = server.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("touchstone-server")
        let child = try ServerProcess(executable: executable, database: databaseURL)
        let measured: Measured
        do {
            try await Self.waitForHealth(port: child.port)
            measured = try await measure(port: child.port, server: child)
        } catch {
            _ = child.stop()
            throw error
        }
        let status = child.stop()
        guard status == 0 else { throw ValidationError("touchstone-server exited \(status) after SIGTERM") }

        let sorted = measured.latencies.sorted()
        let loginRate = Double(sorted.count) / measured.seconds
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
            return Double(sorted[max(0, index)]) / 1e6
        }
        let logins = Double(max(1, sorted.count))
        let serverMicroseconds = measured.serverCPU / logins * 1e6
        let clientMicroseconds = measured.clientCPU / logins * 1e6
        let verifyMicroseconds = 1e6 / verifyRate
        print("p256_verify_single_core \(Int(verifyRate)) verifications/s")
        print("p256_verify_cost \(String(format: "%.1f", verifyMicroseconds)) us")
        print("http_health_round_trips_one_connection \(Int(measured.health)) requests/s")
        print("login_\(backend)_end_to_end \(Int(loginRate)) logins/s")
        print("login_\(backend)_ratio_to_verify \(String(format: "%.3f", loginRate / verifyRate)) ratio")
        print("login_\(backend)_latency_p50 \(String(format: "%.2f", percentile(0.50))) ms")
        print("login_\(backend)_latency_p99 \(String(format: "%.2f", percentile(0.99))) ms")
        print("login_\(backend)_connections \(connections) connections")
        print("login_\(backend)_server_cpu_per_login \(String(format: "%.1f", serverMicroseconds)) us")
        print("login_\(backend)_load_generator_cpu_per_login \(String(format: "%.1f", clientMicroseconds)) us")
        print("login_\(backend)_server_logins_per_core \(Int(1e6 / serverMicroseconds)) logins/s")
        print("login_\(backend)_server_per_core_ratio_to_verify \(String(format: "%.3f", verifyMicroseconds / serverMicroseconds)) ratio")
        if breakdown {
            if let parallelHealth = measured.parallelHealth {
                print("http_health_round_trips_\(connections)_connections \(Int(parallelHealth)) requests/s")
            }
            print("p256_sign_single_core \(Int(Self.signaturesPerSecond(for: .seconds(1)))) signatures/s")
            for combined in [false, true] {
                let rate = try await Self.sqliteLoginSteps(seconds: min(seconds, 3), tasks: connections, combined: combined)
                print("sqlite_login_db_steps_\(combined ? "two_step" : "three_step")_\(connections)_tasks \(Int(rate)) logins/s")
            }
        }
    }

    /// What one run measured against the server.
    struct Measured {
        var latencies: [UInt64]
        var seconds: Double
        var serverCPU: Double
        var clientCPU: Double
        var health: Double
        var parallelHealth: Double?
    }

    func measure(port: Int, server: ServerProcess) async throws -> Measured {
        let health = try await Self.healthRoundTrips(port: port, seconds: min(seconds, 2))
        let parallelHealth = breakdown ? try await Self.healthRoundTrips(port: port, connections: connections, seconds: min(seconds, 2)) : nil
        let devices = try await Self.bindDevices(port: port, count: connections)
        let serverBefore = try server.cpuSeconds()
        let clientBefore = processCPUSeconds()
        let start = LoadGenerator.monotonicNanoseconds()
        let outcome = await LoadGenerator.running(port: port, devices: devices, seconds: seconds)
        let elapsed = Double(LoadGenerator.monotonicNanoseconds() - start) / 1e9
        let clientCPU = processCPUSeconds() - clientBefore
        let serverCPU = try server.cpuSeconds() - serverBefore
        if let failure = outcome.failure { throw ValidationError("load generator: \(failure)") }
        return Measured(
            latencies: outcome.latencies, seconds: elapsed, serverCPU: serverCPU, clientCPU: clientCPU,
            health: health, parallelHealth: parallelHealth
        )
    }

    /// Polls `/health` until the server answers 200 (up to 30 s).
    static func waitForHealth(port: Int) async throws {
        for _ in 0..<300 {
            if let reply = try? await LoopbackHTTP.send(port: port, method: .GET, path: "/health"), reply.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw ValidationError("touchstone-server did not answer /health on port \(port)")
    }

    /// Bare `isValidSignature` calls per second on one core.
    static func verificationsPerSecond(for duration: Duration) -> Double {
        let key = P256.Signing.PrivateKey()
        let message = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        guard let signature = try? key.signature(for: message) else { return 0 }
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        while clock.now - start < duration {
            for _ in 0..<50 where key.publicKey.isValidSignature(signature, for: message) { count += 1 }
        }
        return Double(count) / (clock.now - start).seconds
    }

    /// `GET /health` round trips per second on one keep-alive connection: the HTTP floor under
    /// a login, which is two round trips.
    static func healthRoundTrips(port: Int, seconds: Double) async throws -> Double {
        try await LoopbackHTTP.withConnection(port: port) { client in
            let clock = ContinuousClock()
            let start = clock.now
            var count = 0
            while (clock.now - start).seconds < seconds {
                let response = try await client.send(method: .GET, path: "/health")
                guard response.status == 200 else { throw ValidationError("/health: \(response.status)") }
                count += 1
            }
            return Double(count) / (clock.now - start).seconds
        }
    }

    /// Registers one user and binds `count` P-256 keys to it (one per load connection).
    static func bindDevices(port: Int, count: Int) async throws -> [LoadGenerator.BoundDevice] {
        try await LoopbackHTTP.withConnection(port: port) { setup in
            let user = "bench-\(UUID().uuidString.prefix(8))"
            _ = try await post(setup, "/v1/accounts", ["username": user, "password": "bench password 1"], expect: 201)
            let session = try await post(setup, "/v1/sessions", ["username": user, "password": "bench password 1"], expect: 200)
            guard let token = session["token"] as? String else { throw ValidationError("no session token") }
            var devices: [LoadGenerator.BoundDevice] = []
            for _ in 0..<count {
                let key = P256.Signing.PrivateKey()
                let bound = try await post(setup, "/v1/devices", ["kind": "key", "publicKey": key.publicKey.x963Representation.base64EncodedString()], token: token, expect: 201)
                guard let id = bound["deviceID"] as? String else { throw ValidationError("no device ID") }
                devices.append(LoadGenerator.BoundDevice(deviceID: id, rawKey: key.rawRepresentation))
            }
            return devices
        }
    }

    static func post(
        _ client: LoopbackHTTP.Connection, _ path: String, _ body: [String: String], token: String? = nil, expect status: Int
    ) async throws -> [String: Any] {
        var headers = [("Content-Type", "application/json")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        let data = try JSONSerialization.data(withJSONObject: body)
        let response = try await client.send(method: .POST, path: path, headers: headers, body: Array(data))
        guard response.status == status else {
            throw ValidationError("\(path): \(response.status), expected \(status)")
        }
        return (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    var milliseconds: Double { seconds * 1000 }
}

// MARK: - Where the time goes (--breakdown)

extension ServerBench {
    /// The database steps of signature logins alone, no HTTP, no JSON, no signatures, on a
    /// fresh SQLite file: `tasks` concurrent loops of challenge insert + the login's steps, in
    /// the old shape (failure count, consume, session: three steps) or the new one (one read,
    /// one redeeming transaction). Logins per second.
    static func sqliteLoginSteps(seconds: Double, tasks: Int, combined: Bool) async throws -> Double {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-server-bench-steps-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let repository = try SQLiteLoginRepository(path: folder.appendingPathComponent("login.sqlite").path)
        try await repository.migrate()
        let now = Date()
        let profile = UUID().uuidString
        try await repository.createAccount(AccountRecord(profileID: profile, username: "steps", passwordHash: "x", createdAt: now))
        var devices: [String] = []
        for _ in 0..<tasks {
            let id = UUID().uuidString
            let key = P256.Signing.PrivateKey().publicKey.x963Representation
            try await repository.createDevice(DeviceRecord(
                deviceID: id, profileID: profile, kind: .key, name: "", credentialHash: Array(SHA256.hash(data: key)),
                publicKey: Array(key), createdAt: now, lastUsedAt: nil
            ))
            devices.append(id)
        }
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let start = ContinuousClock.now
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for deviceID in devices {
                group.addTask {
                    var done = 0
                    while ContinuousClock.now < deadline {
                        let challenge = (0..<32).map { _ in UInt8.random(in: 0...255) }
                        let hash = Array(SHA256.hash(data: challenge))
                        let token = Array(SHA256.hash(data: hash))
                        let at = Date()
                        guard try await repository.createChallenge(hash: hash, deviceID: deviceID, expiresAt: at.addingTimeInterval(60), now: at,
                                                                             requestedBy: "bench") else {
                            throw ValidationError("no challenge")
                        }
                        if combined {
                            _ = try await repository.loginCheck(deviceID: deviceID, failureKey: "address:bench", since: at.addingTimeInterval(-600))
                            guard try await repository.redeemChallenge(hash: hash, deviceID: deviceID, now: at, sessionTokenHash: token,
                                                                       sessionExpiresAt: at.addingTimeInterval(3600)) != nil
                            else { throw ValidationError("not redeemed") }
                        } else {
                            _ = try await repository.failures(key: "address:bench", since: at.addingTimeInterval(-600))
                            guard let device = try await repository.consumeChallenge(hash: hash, deviceID: deviceID, now: at) else {
                                throw ValidationError("not consumed")
                            }
                            guard try await repository.createSession(tokenHash: token, profileID: device.profileID, expiresAt: at.addingTimeInterval(3600),
                                                                     now: at, usedDeviceID: deviceID)
                            else { throw ValidationError("no session") }
                        }
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(count) / (ContinuousClock.now - start).seconds
    }

    /// `GET /health` round trips per second over `connections` concurrent keep-alive
    /// connections: the HTTP ceiling on these cores (a login needs two).
    static func healthRoundTrips(port: Int, connections: Int, seconds: Double) async throws -> Double {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        let start = ContinuousClock.now
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<connections {
                group.addTask {
                    try await LoopbackHTTP.withConnection(port: port) { client in
                        var done = 0
                        while ContinuousClock.now < deadline {
                            guard try await client.send(method: .GET, path: "/health").status == 200 else { throw ValidationError("/health") }
                            done += 1
                        }
                        return done
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        return Double(count) / (ContinuousClock.now - start).seconds
    }

    /// P-256 signatures (what the load generator pays per login) per second on one core.
    static func signaturesPerSecond(for duration: Duration) -> Double {
        let key = P256.Signing.PrivateKey()
        let message = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        while clock.now - start < duration {
            for _ in 0..<50 where (try? key.signature(for: message)) != nil { count += 1 }
        }
        return Double(count) / (clock.now - start).seconds
    }
}
