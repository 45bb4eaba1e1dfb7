import Crypto
import Foundation
import GRDB
import Hummingbird
import LoginServer
import Synchronization
import Testing

/// A database that stops answering: every call but `migrate` waits until the test lets it go.
/// With a `latch`, the wait ignores cancellation, as a query already sent to PostgreSQL or a
/// SQLite write queued behind a locked file does; without one it is a cancellable sleep.
struct StalledRepository: LoginRepository {
    let base: any LoginRepository
    var latch: Latch?

    /// Holds every caller until ``release()``, whatever cancellation says.
    final class Latch: Sendable {
        private let state = Mutex<(released: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        func wait() async {
            await withCheckedContinuation { continuation in
                let released = state.withLock { state -> Bool in
                    if !state.released { state.waiters.append(continuation) }
                    return state.released
                }
                if released { continuation.resume() }
            }
        }

        func release() {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.released = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Every step throws `CancellationError` at once, as a database client does for a caller
    /// whose task was cancelled.
    var cancels = false

    private func stall() async throws -> Never {
        if cancels { throw CancellationError() }
        if let latch {
            await latch.wait()
        } else {
            try await Task.sleep(for: .seconds(3600))
        }
        throw CancellationError()
    }

    func migrate() async throws { try await base.migrate() }
    func ping() async throws { try await stall() }
    func createAccount(_ account: AccountRecord) async throws { try await stall() }
    func account(username: String) async throws -> AccountRecord? { try await stall() }
    func createSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, usedDeviceID: String?) async throws -> Bool {
        try await stall()
    }
    func sessionProfile(tokenHash: [UInt8], now: Date) async throws -> String? { try await stall() }
    func deleteSession(tokenHash: [UInt8]) async throws -> Bool { try await stall() }
    func createDevice(_ device: DeviceRecord) async throws { try await stall() }
    func devices(profileID: String) async throws -> [DeviceRecord] { try await stall() }
    func device(id: String) async throws -> DeviceRecord? { try await stall() }
    func device(credentialHash: [UInt8]) async throws -> DeviceRecord? { try await stall() }
    func deleteDevice(id: String, profileID: String) async throws -> Bool { try await stall() }
    func createChallenge(hash: [UInt8], deviceID: String, expiresAt: Date, now: Date, requestedBy requester: String) async throws -> Bool {
        try await stall()
    }
    func consumeChallenge(hash: [UInt8], deviceID: String, now: Date) async throws -> DeviceRecord? { try await stall() }
    func redeemChallenge(hash: [UInt8], deviceID: String, now: Date, sessionTokenHash: [UInt8], sessionExpiresAt: Date,
                         signCount: UInt32?) async throws -> String? { try await stall() }
    func createAttestChallenge(hash: [UInt8], profileID: String, expiresAt: Date, now: Date) async throws { try await stall() }
    func consumeAttestChallenge(hash: [UInt8], profileID: String, now: Date) async throws -> Bool { try await stall() }
    func createPasswordSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, passwordHash: String) async throws -> Bool {
        try await stall()
    }
    func account(profileID: String) async throws -> AccountRecord? { try await stall() }
    func changePassword(profileID: String, from expected: String, to passwordHash: String, keeping: [UInt8]) async throws -> Bool { try await stall() }
    func deleteSessions(profileID: String) async throws -> Int { try await stall() }
    func recordAttempt(keys: [String], at: Date, since: Date, window: Duration) async throws -> RecordedAttempt { try await stall() }
    func releaseAttempt(_ attempt: RecordedAttempt) async throws { try await stall() }
    func failures(key: String, since: Date) async throws -> (count: Int, oldest: Date?) { try await stall() }
}

@Suite("Operations: readiness, an unreachable database, HEAD and OPTIONS, file modes", .timeLimit(.minutes(2)))
struct OperationsTests {
    @Test("/health/ready answers 200 when the database answers", arguments: Backend.available)
    func readyWithDatabase(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let reply = try await client.send(.get, "/health/ready")
            #expect(reply.status == .ok)
            #expect(reply.string("status") == "ready")
        }
    }

    @Test("a database that stops answering: requests get 503 database_unavailable with Retry-After within the deadline, /health stays 200, /health/ready is 503, the log says why — also when the stalled step ignores cancellation",
          arguments: [false, true])
    func stalledDatabaseIs503(ignoresCancellation: Bool) async throws {
        let server = try await TestServer.make(.sqlite) { $0.databaseTimeout = .milliseconds(50) }
        let latch = ignoresCancellation ? StalledRepository.Latch() : nil
        defer { latch?.release() }
        try await server.run(wrap: { StalledRepository(base: $0, latch: latch) }) { client in
            #expect(try await client.send(.get, "/health").status == .ok)
            let ready = try await client.send(.get, "/health/ready")
            #expect(ready.status == .serviceUnavailable)
            #expect(ready.errorCode == "database_unavailable")
            let login = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"])
            #expect(login.status == .serviceUnavailable)
            #expect(login.errorCode == "database_unavailable")
            #expect(login.header("Retry-After") == "5")
            #expect(try await client.send(.post, "/v1/challenges", json: ["deviceID": UUID().uuidString]).status == .serviceUnavailable)
        }
        #expect(server.logs.text.contains("database unavailable"))
        #expect(server.logs.text.contains("did not answer within"))
    }

    @Test("a step cancelled under the request is 503 request_cancelled with Retry-After, logged at info, not a 500 logged as an error")
    func cancelledStepIs503() async throws {
        let server = try await TestServer.make(.sqlite)
        try await server.run(wrap: { StalledRepository(base: $0, cancels: true) }) { client in
            let login = try await client.send(.post, "/v1/sessions", json: ["username": "ada", "password": "correct horse battery"])
            #expect(login.status == .serviceUnavailable)
            #expect(login.errorCode == "request_cancelled")
            #expect(login.header("Retry-After") == "5")
        }
        #expect(server.logs.text.contains("request cancelled before it finished"))
        #expect(!server.logs.text.contains("request failed"))
    }

    @Test("a SQLite file another process keeps locked past the busy timeout is 503 database_unavailable, not 500; it answers again once released")
    func lockedSQLiteIs503() async throws {
        let server = try await TestServer.make(.sqlite)
        guard case let .sqlite(path) = server.database.location else { return }
        let repository = try SQLiteLoginRepository(path: path, busyTimeout: 0.05)
        try await server.run(wrap: { _ in repository }) { client in
            // Another connection holds the write lock on a thread of its own until released;
            // it says whether it got the lock.
            var options = GRDB.Configuration()
            options.busyMode = .timeout(5)
            let other = try DatabaseQueue(path: path, configuration: options)
            let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
            let gotLock = Mutex(false)
            DispatchQueue.global().async {
                do {
                    try other.inTransaction(.immediate) { _ in
                        gotLock.withLock { $0 = true }
                        holding.signal()
                        release.wait()
                        return .rollback
                    }
                } catch {
                    holding.signal()
                }
            }
            defer { release.signal() }
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { holding.wait(); continuation.resume() }
            }
            try #require(gotLock.withLock { $0 }, "the other connection did not get the write lock")
            let locked = try await client.send(.post, "/v1/accounts", json: ["username": "ada", "password": "correct horse battery"])
            release.signal()
            #expect(locked.status == .serviceUnavailable)
            #expect(locked.errorCode == "database_unavailable")
            let ready = try await client.send(.get, "/health/ready")
            #expect(ready.status == .ok)
        }
        #expect(server.logs.text.contains("database unavailable"))
    }

    @Test("HEAD works wherever GET does (status and headers, no body); OPTIONS is 204 with Allow")
    func headAndOptions() async throws {
        try await TestServer.make(.sqlite).run { client in
            let get = try await client.send(.get, "/health")
            let head = try await client.send(.head, "/health")
            #expect(head.status == .ok)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("Content-Type") == get.header("Content-Type"))
            // HEAD on a bearer route answers as GET would: 401 without a token.
            #expect(try await client.send(.head, "/v1/devices").status == .unauthorized)
            let options = try await client.send(.options, "/v1/devices")
            #expect(options.status == .noContent)
            #expect(options.header("Allow") == "GET, HEAD, POST, OPTIONS")
            #expect(try await client.send(.options, "/v1/logins").header("Allow") == "POST, OPTIONS")
        }
    }

    @Test("a new SQLite database is 0600 in a folder made 0700 (not the umask's 0644 and 0755): it holds password hashes")
    func databaseFileIsPrivate() async throws {
        let server = try await TestServer.make(.sqlite)
        guard case let .sqlite(path) = server.database.location else { return }
        try await server.run { client in
            let ready = try await client.send(.get, "/health/ready")
            #expect(ready.status == .ok)
        }
        let file = try FileManager.default.attributesOfItem(atPath: path)
        let folder = try FileManager.default.attributesOfItem(atPath: (path as NSString).deletingLastPathComponent)
        #expect((file[.posixPermissions] as? Int) == 0o600)
        #expect((folder[.posixPermissions] as? Int) == 0o700)
    }

    @Test("an unreachable PostgreSQL fails the start at once, saying where and why")
    func unreachablePostgresSaysWhy() async throws {
        let location = DatabaseLocation.PostgresLocation(host: "127.0.0.1", port: 1, username: "touchstone", password: "secret", database: "login")
        let repository = PostgresLoginRepository(location: location, logger: .init(label: "test"))
        do {
            try await repository.migrate()
            Issue.record("migrate succeeded against port 1")
        } catch let RepositoryError.unavailable(reason) {
            #expect(reason.contains("127.0.0.1:1"), "\(reason)")
            #expect(reason.contains("'login'"), "\(reason)")
            #expect(!reason.contains("secret"), "the password reached the message: \(reason)")
        }
    }
}

@Suite("What a client author meets: missing fields, DER, long passwords, ID case, emoji names, challenge floods", .timeLimit(.minutes(2)))
struct ClientDetailTests {
    @Test("binding without its credential field is 400 malformed_request naming the field", arguments: Backend.available)
    func missingCredentialField(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada")
            for (kind, field) in [("key", "publicKey"), ("token", "deviceToken")] {
                let reply = try await client.send(.post, "/v1/devices", json: ["kind": kind, "name": "x"], token: token)
                #expect(reply.status == .badRequest)
                #expect(reply.errorCode == "malformed_request")
                #expect(reply.string("message")?.contains(field) == true, "\(reply.json)")
            }
        }
    }

    @Test("a DER signature with padded integers is 401 (one signature, one spelling); the canonical one logs in", arguments: Backend.available)
    func paddedDERIsRefused(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let device = try await EnrolledDevice.make(client)
            let challenge = try await client.challenge(device.deviceID)
            let canonical = try #require(Data(base64Encoded: try device.key.sign(challenge)))
            let padded = try #require(Self.padIntegers(canonical))
            let refused = try await client.login(device.deviceID, challenge: challenge, signature: padded.base64EncodedString())
            #expect(refused.status == .unauthorized)
            let fresh = try await client.challenge(device.deviceID)
            #expect(try await client.login(device.deviceID, challenge: fresh, signature: try device.key.sign(fresh)).status == .ok)
        }
    }

    /// The same ECDSA signature with a zero byte put before r and before s (short-form lengths).
    static func padIntegers(_ der: Data) -> Data? {
        let bytes = [UInt8](der)
        guard bytes.count > 8, bytes[0] == 0x30, bytes[2] == 0x02 else { return nil }
        let rLength = Int(bytes[3])
        let r = Array(bytes[4..<(4 + rLength)])
        let sStart = 4 + rLength
        guard bytes.count > sStart + 2, bytes[sStart] == 0x02 else { return nil }
        let s = Array(bytes[(sStart + 2)...])
        let body = [0x02, UInt8(r.count + 1), 0] + r + [0x02, UInt8(s.count + 1), 0] + s
        guard body.count < 128 else { return nil }
        return Data([0x30, UInt8(body.count)] + body)
    }

    @Test("a password over 1,024 bytes is refused with a message about its length, not its strength", arguments: Backend.available)
    func longPasswordMessage(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let reply = try await client.send(.post, "/v1/accounts", json: ["username": "ada", "password": String(repeating: "ab", count: 513)])
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "weak_password")
            #expect(reply.string("message")?.contains("1,024") == true, "\(reply.json)")
        }
    }

    @Test("a device ID in upper case names the same device (RFC 9562): challenge, login and delete", arguments: Backend.available)
    func deviceIDsIgnoreCase(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let device = try await EnrolledDevice.make(client)
            let upper = device.deviceID.uppercased()
            #expect(upper != device.deviceID)
            let challenge = try await client.challenge(upper)
            let login = try await client.login(upper, challenge: challenge, signature: try device.key.sign(challenge))
            #expect(login.status == .ok)
            #expect(try await client.send(.delete, "/v1/devices/\(upper)", token: device.sessionToken).status == .noContent)
        }
    }

    @Test("an emoji sequence joined by ZWJ is a device name; a lone zero-width joiner is not", arguments: Backend.available)
    func emojiDeviceNames(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            try await client.register("ada")
            let token = try await client.signIn("ada")
            let family = try await client.send(.post, "/v1/devices",
                                               json: ["kind": "key", "publicKey": P256Key().publicKeyBase64, "name": "👨\u{200D}👩\u{200D}👧 iPad"], token: token)
            #expect(family.status == .created)
            for name in ["a\u{200D}b", "1\u{200D}2", "\u{200D}👩", "phone\u{202E}"] {
                let reply = try await client.send(.post, "/v1/devices",
                                                  json: ["kind": "key", "publicKey": P256Key().publicKeyBase64, "name": name], token: token)
                #expect(reply.errorCode == "invalid_name", "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
            }
            // 100 characters, each carrying 300 combining accents: 60,100 bytes.
            let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 300), count: 100)
            let refused = try await client.send(.post, "/v1/devices",
                                                json: ["kind": "key", "publicKey": P256Key().publicKeyBase64, "name": heavy], token: token)
            #expect(refused.errorCode == "invalid_name")
            #expect(refused.string("message")?.contains("400 bytes") == true)
            let atLimit = String(repeating: "é", count: 100)  // 100 characters, 200 bytes
            #expect(try await client.send(.post, "/v1/devices",
                                          json: ["kind": "key", "publicKey": P256Key().publicKeyBase64, "name": atLimit], token: token).status == .created)
        }
    }

    @Test("a SQLite database that cannot be made says which path and why")
    func sqliteStartErrors() throws {
        func message(_ path: String) -> String {
            do {
                _ = try SQLiteLoginRepository(path: path)
                return "opened"
            } catch {
                return "\(error)"
            }
        }
        #expect(message("/proc/touchstone-nope/login.sqlite").contains("cannot create the folder '/proc/touchstone-nope'"))
        #expect(message("/proc/touchstone-nope/login.sqlite").contains("No such file or directory"))
        let folder = FileManager.default.temporaryDirectory.path
        #expect(message(folder).contains("is a folder; name the database file in it"))
        let notDatabase = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-db-\(UUID().uuidString)").path
        try #require(FileManager.default.createFile(atPath: notDatabase, contents: Data("hello, this is text".utf8)))
        defer { try? FileManager.default.removeItem(atPath: notDatabase) }
        #expect(message(notDatabase).contains("cannot use the SQLite database '\(notDatabase)': file is not a database"))
    }

    @Test("one address keeps a bounded number of challenges per device: a flood loses its oldest, the newest still log in", arguments: Backend.available)
    func challengesPerDeviceAreCapped(backend: Backend) async throws {
        try await TestServer.make(backend).run { client in
            let device = try await EnrolledDevice.make(client)
            var challenges: [String] = []
            // Pruning runs on about one insert in 32: 400 asks leave no chance (< 1e-5) that the
            // first survives; the 16 newest always do.
            for _ in 0..<400 {
                challenges.append(try await client.challenge(device.deviceID))
            }
            let oldest = try await client.login(device.deviceID, challenge: challenges[0], signature: try device.key.sign(challenges[0]))
            #expect(oldest.status == .unauthorized)
            for challenge in challenges[384...] {
                let login = try await client.login(device.deviceID, challenge: challenge, signature: try device.key.sign(challenge))
                #expect(login.status == .ok)
            }
        }
    }

    @Test("a flood of challenges from another address never pushes out the one the owner asked for", arguments: Backend.available)
    func anotherAddressCannotEvict(backend: Backend) async throws {
        let database = try await TestDatabase.make(backend)
        try await database.withRepository { repository in
            let now = Date(timeIntervalSince1970: 1_700_000_000)
            try await repository.createAccount(AccountRecord(profileID: "p", username: "u", passwordHash: "x", createdAt: now))
            try await repository.createDevice(DeviceRecord(
                deviceID: "d", profileID: "p", kind: .key, name: "", credentialHash: Array(repeating: 1, count: 32),
                publicKey: Array(repeating: 4, count: 65), createdAt: now, lastUsedAt: nil
            ))
            let expiry = now.addingTimeInterval(60)
            func hash(_ index: Int) -> [UInt8] { [UInt8(index & 0xFF), UInt8(index >> 8)] + Array(repeating: 0, count: 30) }
            let owners = Array(repeating: UInt8(0xAA), count: 32)
            #expect(try await repository.createChallenge(hash: owners, deviceID: "d", expiresAt: expiry, now: now, requestedBy: "10.0.0.1"))
            for index in 0..<400 {
                #expect(try await repository.createChallenge(hash: hash(index), deviceID: "d", expiresAt: expiry, now: now, requestedBy: "10.0.0.66"))
            }
            #expect(try await repository.consumeChallenge(hash: owners, deviceID: "d", now: now)?.deviceID == "d")
            // The flooding address lost its oldest and kept its 16 newest.
            #expect(try await repository.consumeChallenge(hash: hash(0), deviceID: "d", now: now) == nil)
            for index in 384..<400 {
                #expect(try await repository.consumeChallenge(hash: hash(index), deviceID: "d", now: now)?.deviceID == "d")
            }
        }
    }
}
