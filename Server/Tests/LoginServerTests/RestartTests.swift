import Foundation
import GRDB
import _CryptoExtras
import Crypto
import Hummingbird
@testable import LoginServer
import Testing

/// Restarts of the server: what it stored survives, and a database of the first schema migrates.
extension RobustnessTests {
    @Test("accounts, devices and sessions survive a restart", arguments: Backend.available)
    func restart(backend: Backend) async throws {
        let server = try await TestServer.make(backend)
        let device = try await server.run { client in try await EnrolledDevice.make(client) }
        try await server.run { client in
            #expect(try await client.send(.get, "/v1/devices", token: device.sessionToken).status == .ok)
            let challenge = try await client.challenge(device.deviceID)
            let reply = try await client.login(device.deviceID, challenge: challenge, signature: try device.key.sign(challenge))
            #expect(reply.status == .ok)
            #expect(reply.string("profileID") == device.profileID)
        }
    }

    @Test("a SQLite database of the first schema migrates: its sessions still work, device sessions end with their device")
    func migratesFirstSchema() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("touchstone-server-migration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("login.sqlite").path
        // The tables as the first release created them (migration "v1"), with an account, a
        // password session and a bound device.
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(sql: """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1');
                CREATE TABLE accounts (profile_id TEXT PRIMARY KEY NOT NULL, username TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL, created_at INTEGER NOT NULL);
                CREATE TABLE sessions (token_hash BLOB PRIMARY KEY NOT NULL,
                    profile_id TEXT NOT NULL REFERENCES accounts(profile_id) ON DELETE CASCADE, expires_at INTEGER NOT NULL);
                CREATE INDEX sessions_expires_at ON sessions(expires_at);
                CREATE TABLE devices (device_id TEXT PRIMARY KEY NOT NULL,
                    profile_id TEXT NOT NULL REFERENCES accounts(profile_id) ON DELETE CASCADE, kind TEXT NOT NULL,
                    name TEXT NOT NULL, credential_hash BLOB NOT NULL UNIQUE, public_key BLOB, created_at INTEGER NOT NULL,
                    last_used_at INTEGER);
                CREATE INDEX devices_profile_id ON devices(profile_id);
                CREATE TABLE challenges (challenge_hash BLOB PRIMARY KEY NOT NULL,
                    device_id TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE, expires_at INTEGER NOT NULL);
                CREATE INDEX challenges_expires_at ON challenges(expires_at);
                CREATE TABLE login_failures (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, at INTEGER NOT NULL);
                CREATE INDEX login_failures_key_at ON login_failures(key, at);
                CREATE INDEX login_failures_at ON login_failures(at);
                INSERT INTO accounts VALUES ('p1', 'ada', 'hash', 0);
                INSERT INTO sessions VALUES (x'01', 'p1', 9000000000000);
                INSERT INTO devices VALUES ('d1', 'p1', 'token', 'tablet', x'02', NULL, 0, NULL);
                """)
        }
        try old.close()

        let repository = try SQLiteLoginRepository(path: path)
        try await repository.migrate()
        let now = Date(timeIntervalSince1970: 1_000)
        #expect(try await repository.sessionProfile(tokenHash: [1], now: now) == "p1")
        #expect(try await repository.createSession(tokenHash: [3], profileID: "p1", expiresAt: now.addingTimeInterval(60), now: now, usedDeviceID: "d1"))
        #expect(try await repository.sessionProfile(tokenHash: [3], now: now) == "p1")
        #expect(try await repository.deleteDevice(id: "d1", profileID: "p1"))
        #expect(try await repository.sessionProfile(tokenHash: [3], now: now) == nil)
        #expect(try await repository.sessionProfile(tokenHash: [1], now: now) == "p1")
        // A device gone before its session was stored: no session.
        #expect(try await !repository.createSession(tokenHash: [4], profileID: "p1", expiresAt: now.addingTimeInterval(60), now: now, usedDeviceID: "d1"))
        #expect(try await repository.sessionProfile(tokenHash: [4], now: now) == nil)
    }
}
