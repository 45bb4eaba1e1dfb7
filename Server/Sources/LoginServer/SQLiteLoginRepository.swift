import Foundation
import GRDB

/// The default repository: one SQLite file through GRDB (WAL mode, one writer at a time).
///
/// Every statement runs on one serial queue, grouped into shared transactions under load
/// (``SQLiteGroupCommit``, each write in its own savepoint), so ``consumeChallenge(hash:deviceID:now:)`` — one `DELETE`
/// whose changed-row count decides — is atomic.
public struct SQLiteLoginRepository: LoginRepository {
    private let writer: any DatabaseWriter
    /// Every read and write after the migration goes through here (group commit).
    private let writes: SQLiteGroupCommit

    /// Opens (creating if needed) the database file at `path`, and its folder.
    ///
    /// The file holds password hashes and session hashes: a new one is made readable by its
    /// owner only (0600; SQLite gives its `-wal` and `-shm` files the same mode), and folders
    /// made for it are 0700, whatever the umask. An existing file keeps its mode. A step waits
    /// up to `busyTimeout` seconds for a file another process holds locked, then fails (the
    /// API answers 503 `database_unavailable`); a step that waits longer than `maximumWait` for
    /// its turn (queued behind such waits, or a slow disk) fails the same way without running.
    public init(path: String, busyTimeout: TimeInterval = 5, maximumWait: Duration? = .seconds(10)) throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw RepositoryError.unavailable("cannot create the folder '\(folder)' for the SQLite database '\(path)': "
                    + (Self.posixReason(error) ?? error.localizedDescription))
            }
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw RepositoryError.unavailable("'\(path)' is a folder; name the database file in it (sqlite://\(path)/login.sqlite)")
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
            // A new, empty file: SQLite takes it as an empty database. fchmod, as the umask
            // may have taken bits off the mode asked for (it never adds any).
            _ = fchmod(descriptor, 0o600)
            close(descriptor)
        } else {
            let error = errno
            if error != EEXIST {
                throw RepositoryError.unavailable("cannot create the database file '\(path)': \(String(cString: strerror(error)))")
            }
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        // WAL with synchronous=NORMAL: a commit survives a crash of the process, and only the
        // last commits can be lost on power failure (a challenge, a session, a failure count:
        // all short-lived). FULL would fsync every commit, four times per login.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            self.writer = try DatabasePool(path: path, configuration: configuration)
        } catch let error as DatabaseError {
            throw RepositoryError.unavailable("cannot use the SQLite database '\(path)': \(error.message ?? "\(error)")")
        }
        self.writes = SQLiteGroupCommit(writer: writer, maximumWait: maximumWait)
    }

    /// The POSIX reason under a Foundation file error (`"No such file or directory"`), if any.
    private static func posixReason(_ error: any Error) -> String? {
        var current: (any Error)? = error
        while let error = current {
            let nsError = error as NSError
            if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
            current = nsError.userInfo[NSUnderlyingErrorKey] as? any Error
        }
        return nil
    }

    /// An in-memory database that lives as long as the repository (for tests and trials).
    public init() throws {
        self.writer = try DatabaseQueue()
        self.writes = SQLiteGroupCommit(writer: writer)
    }

    public func ping() async throws {
        try await writes.read { db in try db.execute(sql: "SELECT 1") }
    }

    public func migrate() async throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE accounts (
                    profile_id TEXT PRIMARY KEY NOT NULL,
                    username TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE sessions (
                    token_hash BLOB PRIMARY KEY NOT NULL,
                    profile_id TEXT NOT NULL REFERENCES accounts(profile_id) ON DELETE CASCADE,
                    expires_at INTEGER NOT NULL
                );
                CREATE INDEX sessions_expires_at ON sessions(expires_at);
                CREATE TABLE devices (
                    device_id TEXT PRIMARY KEY NOT NULL,
                    profile_id TEXT NOT NULL REFERENCES accounts(profile_id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    name TEXT NOT NULL,
                    credential_hash BLOB NOT NULL UNIQUE,
                    public_key BLOB,
                    created_at INTEGER NOT NULL,
                    last_used_at INTEGER
                );
                CREATE INDEX devices_profile_id ON devices(profile_id);
                CREATE TABLE challenges (
                    challenge_hash BLOB PRIMARY KEY NOT NULL,
                    device_id TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
                    expires_at INTEGER NOT NULL
                );
                CREATE INDEX challenges_expires_at ON challenges(expires_at);
                CREATE TABLE login_failures (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    key TEXT NOT NULL,
                    at INTEGER NOT NULL
                );
                CREATE INDEX login_failures_key_at ON login_failures(key, at);
                CREATE INDEX login_failures_at ON login_failures(at);
                """)
        }
        // v2: a session a device logged in records that device and ends with it: deleting the
        // device (a lost phone) signs it out. Sessions from before have no device.
        migrator.registerMigration("v2-session-device") { db in
            try db.execute(sql: """
                ALTER TABLE sessions ADD COLUMN device_id TEXT REFERENCES devices(device_id) ON DELETE CASCADE;
                CREATE INDEX sessions_device_id ON sessions(device_id);
                """)
        }
        // v3: a challenge records the address that asked for it; each address's live challenges
        // for a device are capped (``maximumChallengesPerRequester``).
        migrator.registerMigration("v3-challenge-requester") { db in
            try db.execute(sql: """
                ALTER TABLE challenges ADD COLUMN requested_by TEXT;
                CREATE INDEX challenges_device_requester ON challenges(device_id, requested_by);
                """)
        }
        // v4: App Attest devices keep their assertion counter; binding challenges belong to a
        // profile (no device exists yet).
        migrator.registerMigration("v4-app-attest") { db in
            try db.execute(sql: """
                ALTER TABLE devices ADD COLUMN sign_count INTEGER;
                ALTER TABLE devices ADD COLUMN receipt BLOB;
                CREATE TABLE attest_challenges (
                    challenge_hash BLOB PRIMARY KEY NOT NULL,
                    profile_id TEXT NOT NULL REFERENCES accounts(profile_id) ON DELETE CASCADE,
                    expires_at INTEGER NOT NULL
                );
                CREATE INDEX attest_challenges_profile_id ON attest_challenges(profile_id);
                """)
        }
        try migrator.migrate(writer)
    }

    public func createAccount(_ account: AccountRecord) async throws {
        try await insert { db in
            try db.execute(
                sql: "INSERT INTO accounts (profile_id, username, password_hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [account.profileID, account.username, account.passwordHash, account.createdAt.millisecondsSince1970]
            )
        }
    }

    public func account(username: String) async throws -> AccountRecord? {
        try await account(where: "username", is: username)
    }

    public func account(profileID: String) async throws -> AccountRecord? {
        try await account(where: "profile_id", is: profileID)
    }

    /// The account whose `column` (a unique one: `username` or `profile_id`) is `value`.
    private func account(where column: StaticString, is value: String) async throws -> AccountRecord? {
        let sql = "SELECT profile_id, username, password_hash, created_at FROM accounts WHERE \(column) = ?"
        return try await writes.read { db in
            try Row.fetchOne(db, sql: sql, arguments: [value]).map { row in
                AccountRecord(profileID: try Self.column(row, 0, of: "accounts"), username: try Self.column(row, 1, of: "accounts"),
                              passwordHash: try Self.column(row, 2, of: "accounts"),
                              createdAt: Date(millisecondsSince1970: try Self.column(row, 3, of: "accounts")))
            }
        }
    }

    public func createSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, usedDeviceID: String?) async throws -> Bool {
        try await writes.write { db -> Bool in
            if let usedDeviceID {
                try db.execute(
                    sql: "UPDATE devices SET last_used_at = ? WHERE device_id = ?",
                    arguments: [now.millisecondsSince1970, usedDeviceID]
                )
                // Deleted since it was looked up: no session for it.
                guard db.changesCount == 1 else { return false }
            }
            if shouldPrune() {
                try db.execute(sql: "DELETE FROM sessions WHERE expires_at <= ?", arguments: [now.millisecondsSince1970])
            }
            try db.execute(
                sql: "INSERT INTO sessions (token_hash, profile_id, expires_at, device_id) VALUES (?, ?, ?, ?)",
                arguments: [Data(tokenHash), profileID, expiresAt.millisecondsSince1970, usedDeviceID]
            )
            return true
        }
    }

    public func sessionProfile(tokenHash: [UInt8], now: Date) async throws -> String? {
        try await writes.read { db in
            try String.fetchOne(
                db, sql: "SELECT profile_id FROM sessions WHERE token_hash = ? AND expires_at > ?",
                arguments: [Data(tokenHash), now.millisecondsSince1970]
            )
        }
    }

    public func deleteSession(tokenHash: [UInt8]) async throws -> Bool {
        try await writes.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [Data(tokenHash)])
            return db.changesCount == 1
        }
    }

    /// One write: SQLite's single writer orders it wholly before or after a password change.
    public func createPasswordSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, passwordHash: String) async throws -> Bool {
        try await writes.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (token_hash, profile_id, expires_at)
                    SELECT ?, profile_id, ? FROM accounts WHERE profile_id = ? AND password_hash = ?
                    """,
                arguments: [Data(tokenHash), expiresAt.millisecondsSince1970, profileID, passwordHash]
            )
            return db.changesCount == 1
        }
    }

    public func changePassword(profileID: String, from expected: String, to passwordHash: String, keeping: [UInt8]) async throws -> Bool {
        try await writes.write { db in
            try db.execute(sql: "UPDATE accounts SET password_hash = ? WHERE profile_id = ? AND password_hash = ?",
                           arguments: [passwordHash, profileID, expected])
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "DELETE FROM sessions WHERE profile_id = ? AND token_hash <> ?", arguments: [profileID, Data(keeping)])
            return true
        }
    }

    public func deleteSessions(profileID: String) async throws -> Int {
        try await writes.write { db in
            try db.execute(sql: "DELETE FROM sessions WHERE profile_id = ?", arguments: [profileID])
            return db.changesCount
        }
    }

    public func createDevice(_ device: DeviceRecord) async throws {
        try await insert { db in
            try db.execute(
                sql: """
                    INSERT INTO devices (device_id, profile_id, kind, name, credential_hash, public_key, created_at, last_used_at, sign_count, receipt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    device.deviceID, device.profileID, device.kind.rawValue, device.name,
                    Data(device.credentialHash), device.publicKey.map { Data($0) },
                    device.createdAt.millisecondsSince1970, device.lastUsedAt?.millisecondsSince1970,
                    device.signCount.map { Int64($0) }, device.receipt.map { Data($0) },
                ]
            )
        }
    }

    private static let deviceColumns =
        "device_id, profile_id, kind, name, credential_hash, public_key, created_at, last_used_at, sign_count"

    private static func device(from row: Row) throws -> DeviceRecord? {
        func column<Value: DatabaseValueConvertible>(_ index: Int) throws -> Value { try Self.column(row, index, of: "devices") }
        guard let kind = DeviceKind(rawValue: try column(2)) else { return nil }
        let credential: Data = try column(4)
        let key: Data? = try column(5)
        let lastUsed: Int64? = try column(7)
        let signCount: Int64? = try column(8)
        return DeviceRecord(
            deviceID: try column(0), profileID: try column(1), kind: kind, name: try column(3),
            credentialHash: Array(credential), publicKey: key.map { Array($0) },
            createdAt: Date(millisecondsSince1970: try column(6)), lastUsedAt: lastUsed.map { Date(millisecondsSince1970: $0) },
            signCount: signCount.flatMap { UInt32(exactly: $0) }
        )
    }

    /// Column `index` of a row read from `table`, as `Value`. A value of another type (text in
    /// an integer column: SQLite stores what it is given, and the file may have been edited)
    /// throws ``RepositoryError/damaged(_:)`` naming the table and column, never the value:
    /// GRDB's subscript would stop the server, and its own error quotes the whole row.
    static func column<Value: DatabaseValueConvertible>(_ row: Row, _ index: Int, of table: String) throws -> Value {
        do {
            return try row.decode(Value.self, atIndex: index)
        } catch {
            let name = index < row.count ? Array(row.columnNames)[index] : "#\(index)"
            throw RepositoryError.damaged("\(table).\(name) holds a value of the wrong type")
        }
    }

    /// The count and oldest time of a `SELECT COUNT(*), MIN(at) FROM login_failures` row
    /// (none: no failures).
    private static func failureCount(_ row: Row?) throws -> (count: Int, oldest: Date?) {
        guard let row else { return (0, nil) }
        let count: Int = try column(row, 0, of: "login_failures")
        let oldest: Int64? = try column(row, 1, of: "login_failures")
        return (count, oldest.map { Date(millisecondsSince1970: $0) })
    }

    public func devices(profileID: String) async throws -> [DeviceRecord] {
        try await writes.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.deviceColumns) FROM devices WHERE profile_id = ? ORDER BY created_at, device_id",
                arguments: [profileID]
            ).compactMap(Self.device(from:))
        }
    }

    public func device(id: String) async throws -> DeviceRecord? {
        try await writes.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.deviceColumns) FROM devices WHERE device_id = ?", arguments: [id])
                .flatMap(Self.device(from:))
        }
    }

    public func device(credentialHash: [UInt8]) async throws -> DeviceRecord? {
        try await writes.read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.deviceColumns) FROM devices WHERE credential_hash = ?",
                arguments: [Data(credentialHash)]
            ).flatMap(Self.device(from:))
        }
    }

    public func deleteDevice(id: String, profileID: String) async throws -> Bool {
        try await writes.write { db in
            try db.execute(sql: "DELETE FROM challenges WHERE device_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM devices WHERE device_id = ? AND profile_id = ?", arguments: [id, profileID])
            return db.changesCount == 1
        }
    }

    public func createChallenge(hash: [UInt8], deviceID: String, expiresAt: Date, now: Date, requestedBy requester: String) async throws -> Bool {
        try await writes.write { db in
            if shouldPrune() {
                // The expired, and this address's challenges for the device but the newest (rowids
                // grow with each insert; one place is left for the one inserted below).
                try db.execute(sql: """
                    DELETE FROM challenges WHERE expires_at <= ? OR rowid IN
                        (SELECT rowid FROM challenges WHERE device_id = ? AND requested_by = ? ORDER BY rowid DESC LIMIT -1 OFFSET ?)
                    """, arguments: [now.millisecondsSince1970, deviceID, requester, maximumChallengesPerRequester - 1])
            }
            try db.cachedStatement(sql: """
                INSERT INTO challenges (challenge_hash, device_id, expires_at, requested_by)
                SELECT ?, device_id, ?, ? FROM devices WHERE device_id = ? AND kind IN ('key', 'appattest')
                """).execute(arguments: [Data(hash), expiresAt.millisecondsSince1970, requester, deviceID])
            return db.changesCount == 1
        }
    }

    public func consumeChallenge(hash: [UInt8], deviceID: String, now: Date) async throws -> DeviceRecord? {
        try await writes.write { db in
            try db.execute(
                sql: "DELETE FROM challenges WHERE challenge_hash = ? AND device_id = ? AND expires_at > ?",
                arguments: [Data(hash), deviceID, now.millisecondsSince1970]
            )
            guard db.changesCount == 1 else { return nil }
            return try Row.fetchOne(db, sql: "SELECT \(Self.deviceColumns) FROM devices WHERE device_id = ?", arguments: [deviceID])
                .flatMap(Self.device(from:))
        }
    }

    public func loginCheck(deviceID: String, failureKey: String, since: Date) async throws
        -> (device: DeviceRecord?, failures: Int, oldestFailure: Date?) {
        try await writes.read { db in
            let device = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(Self.deviceColumns) FROM devices WHERE device_id = ?"), arguments: [deviceID]
            ).flatMap(Self.device(from:))
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(*), MIN(at) FROM login_failures WHERE key = ? AND at > ?"),
                arguments: [failureKey, since.millisecondsSince1970]
            )
            let (count, oldest) = try Self.failureCount(row)
            return (device, count, oldest)
        }
    }

    public func redeemChallenge(hash: [UInt8], deviceID: String, now: Date, sessionTokenHash: [UInt8], sessionExpiresAt: Date,
                                signCount: UInt32?) async throws -> String? {
        try await writes.write { db in
            let nowMilliseconds = now.millisecondsSince1970
            try db.cachedStatement(sql: "DELETE FROM challenges WHERE challenge_hash = ? AND device_id = ? AND expires_at > ?")
                .execute(arguments: [Data(hash), deviceID, nowMilliseconds])
            guard db.changesCount == 1,
                  let profileID = try String.fetchOne(
                      db.cachedStatement(sql: "SELECT profile_id FROM devices WHERE device_id = ?"), arguments: [deviceID]
                  )
            else { return nil }
            if let signCount {
                // The counter only grows: a repeat (a cloned key, a replay) spends the challenge
                // and opens nothing.
                try db.cachedStatement(sql: "UPDATE devices SET sign_count = ? WHERE device_id = ? AND sign_count < ?")
                    .execute(arguments: [Int64(signCount), deviceID, Int64(signCount)])
                guard db.changesCount == 1 else { return nil }
            }
            try db.cachedStatement(sql: "UPDATE devices SET last_used_at = ? WHERE device_id = ?").execute(arguments: [nowMilliseconds, deviceID])
            if shouldPrune() {
                try db.execute(sql: "DELETE FROM sessions WHERE expires_at <= ?", arguments: [nowMilliseconds])
            }
            try db.cachedStatement(sql: "INSERT INTO sessions (token_hash, profile_id, expires_at, device_id) VALUES (?, ?, ?, ?)")
                .execute(arguments: [Data(sessionTokenHash), profileID, sessionExpiresAt.millisecondsSince1970, deviceID])
            return profileID
        }
    }

    public func createAttestChallenge(hash: [UInt8], profileID: String, expiresAt: Date, now: Date) async throws {
        try await writes.write { db in
            if shouldPrune() {
                try db.execute(sql: """
                    DELETE FROM attest_challenges WHERE expires_at <= ? OR rowid IN
                        (SELECT rowid FROM attest_challenges WHERE profile_id = ? ORDER BY rowid DESC LIMIT -1 OFFSET ?)
                    """, arguments: [now.millisecondsSince1970, profileID, maximumChallengesPerRequester - 1])
            }
            try db.execute(sql: "INSERT INTO attest_challenges (challenge_hash, profile_id, expires_at) VALUES (?, ?, ?)",
                           arguments: [Data(hash), profileID, expiresAt.millisecondsSince1970])
        }
    }

    public func consumeAttestChallenge(hash: [UInt8], profileID: String, now: Date) async throws -> Bool {
        try await writes.write { db in
            try db.execute(sql: "DELETE FROM attest_challenges WHERE challenge_hash = ? AND profile_id = ? AND expires_at > ?",
                           arguments: [Data(hash), profileID, now.millisecondsSince1970])
            return db.changesCount == 1
        }
    }

    /// One write transaction, and SQLite has one writer at a time: each attempt's count sees
    /// every attempt written before it.
    public func recordAttempt(keys: [String], at date: Date, since: Date, window: Duration) async throws -> RecordedAttempt {
        try await writes.write { db in
            let horizon = date.millisecondsSince1970 - window.milliseconds
            if shouldPrune() {
                try db.execute(sql: "DELETE FROM login_failures WHERE at <= ?", arguments: [horizon])
            }
            var attempt = RecordedAttempt(rowIDs: [], earlier: [])
            for key in keys {
                try db.cachedStatement(sql: "INSERT INTO login_failures (key, at) VALUES (?, ?)")
                    .execute(arguments: [key, date.millisecondsSince1970])
                let rowID = db.lastInsertedRowID
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*), MIN(at) FROM login_failures WHERE key = ? AND at > ? AND rowid <> ?"),
                    arguments: [key, since.millisecondsSince1970, rowID]
                )
                let (count, oldest) = try Self.failureCount(row)
                attempt.rowIDs.append(rowID)
                attempt.earlier.append(.init(count: count, oldest: oldest))
            }
            return attempt
        }
    }

    public func releaseAttempt(_ attempt: RecordedAttempt) async throws {
        guard !attempt.rowIDs.isEmpty else { return }
        try await writes.write { db in
            for rowID in attempt.rowIDs {
                try db.cachedStatement(sql: "DELETE FROM login_failures WHERE rowid = ?").execute(arguments: [rowID])
            }
        }
    }

    public func failures(key: String, since: Date) async throws -> (count: Int, oldest: Date?) {
        try await writes.read { db in
            try Self.failureCount(Row.fetchOne(
                db, sql: "SELECT COUNT(*), MIN(at) FROM login_failures WHERE key = ? AND at > ?",
                arguments: [key, since.millisecondsSince1970]
            ))
        }
    }

    /// Runs an insert, turning a unique-constraint violation into ``RepositoryError/duplicate``.
    private func insert(_ body: @escaping @Sendable (Database) throws -> Void) async throws {
        do {
            try await writes.write(body)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw RepositoryError.duplicate
        }
    }
}
