import Foundation
import Logging
import PostgresNIO

/// The repository for more than one server: all state in one PostgreSQL database.
///
/// The ``client`` is a swift-service-lifecycle `Service`: run it in the application's service
/// group (``LoginServer/makeApplication(configuration:repository:clock:logger:onServerRunning:)`` does). Every
/// method is one statement or one transaction, so any number of servers may share the database;
/// ``consumeChallenge(hash:deviceID:now:)`` is a single `DELETE … RETURNING`, which PostgreSQL
/// runs atomically (of two concurrent deletes of one row, one sees it gone). Every result is
/// collected whole, so each query hands its connection back to the pool at once.
public struct PostgresLoginRepository: LoginRepository {
    /// The connection pool.
    public let client: PostgresClient
    let quiet = Logger(label: "touchstone.server.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    private let location: DatabaseLocation.PostgresLocation
    /// For what an operator should see: a migration giving way to the logins.
    let logger: Logger

    /// Creates a repository (and its connection pool) for `location`.
    ///
    /// `statementTimeout` is set as each connection's `statement_timeout`: a statement still
    /// running past it is cancelled by PostgreSQL itself. The server gives up waiting for a step
    /// after ``LoginServerConfiguration/databaseTimeout``; without the same limit on the server
    /// side the statement would keep running and keep its pooled connection, and a slow spell
    /// would fill the pool with work nobody waits for. Migrations are exempt (they may wait for
    /// another server's).
    public init(location: DatabaseLocation.PostgresLocation, logger: Logger, statementTimeout: Duration? = .seconds(10)) {
        self.location = location
        self.logger = logger
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username,
            password: location.password, database: location.database, tls: .disable
        )
        if let statementTimeout, let milliseconds = Self.milliseconds(statementTimeout) {
            configuration.options.additionalStartupParameters = [("statement_timeout", "\(milliseconds)ms")]
        }
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// `duration` in whole milliseconds for PostgreSQL (at least 1: zero would mean no limit;
    /// at most what its setting takes, 2^31 - 1); nil for a duration that is not positive.
    static func milliseconds(_ duration: Duration) -> Int? {
        guard duration > .zero else { return nil }
        return Int(min(max(duration.milliseconds, 1), Int64(Int32.max)))
    }

    public func ping() async throws {
        try await client.query("SELECT 1", logger: quiet)
    }

    /// Opens one connection of its own, outside the pool, and closes it: a server that cannot
    /// reach its database, or is refused by it, says why at once. (The pool only logs failed
    /// connection attempts at info level and keeps retrying for about a minute before
    /// requests fail with an opaque circuit-breaker error.)
    func probe() async throws {
        let configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username,
            password: location.password, database: location.database, tls: .disable
        )
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet)
        } catch {
            // PSQLError's description is deliberately vague; its debug description names the
            // cause (connection refused, unknown database, authentication) and never the password.
            throw RepositoryError.unavailable(
                "cannot use PostgreSQL database '\(location.database)' at \(location.host):\(location.port) as '\(location.username)': "
                    + String(reflecting: error))
        }
        try? await connection.close()
    }

    public func createAccount(_ account: AccountRecord) async throws {
        try await insert(
            """
            INSERT INTO accounts (profile_id, username, password_hash, created_at)
            VALUES (\(account.profileID), \(account.username), \(account.passwordHash), \(account.createdAt.millisecondsSince1970))
            """
        )
    }

    public func account(username: String) async throws -> AccountRecord? {
        try await firstAccount("SELECT profile_id, username, password_hash, created_at FROM accounts WHERE username = \(username)")
    }

    public func account(profileID: String) async throws -> AccountRecord? {
        try await firstAccount("SELECT profile_id, username, password_hash, created_at FROM accounts WHERE profile_id = \(profileID)")
    }

    /// The account `query` finds (its columns: profile ID, username, hash, creation time).
    private func firstAccount(_ query: PostgresQuery) async throws -> AccountRecord? {
        for row in try await client.query(query, logger: quiet).collect() {
            let (profileID, name, hash, created) = try row.decode((String, String, String, Int64).self)
            return AccountRecord(profileID: profileID, username: name, passwordHash: hash, createdAt: Date(millisecondsSince1970: created))
        }
        return nil
    }

    public func createSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, usedDeviceID: String?) async throws -> Bool {
        if shouldPrune() {
            try await client.query("DELETE FROM sessions WHERE expires_at <= \(now.millisecondsSince1970)", logger: quiet)
        }
        guard let usedDeviceID else {
            try await client.query(
                """
                INSERT INTO sessions (token_hash, profile_id, expires_at)
                VALUES (\(Data(tokenHash)), \(profileID), \(expiresAt.millisecondsSince1970))
                """,
                logger: quiet
            )
            return true
        }
        // One statement: the device's last use and the session land together, and a device
        // deleted since it was looked up (nothing touched) gets no session.
        let rows = try await client.query(
            """
            WITH touched AS (
                UPDATE devices SET last_used_at = \(now.millisecondsSince1970) WHERE device_id = \(usedDeviceID)
                RETURNING device_id
            )
            INSERT INTO sessions (token_hash, profile_id, expires_at, device_id)
            SELECT \(Data(tokenHash)), \(profileID), \(expiresAt.millisecondsSince1970), device_id FROM touched
            RETURNING 1
            """,
            logger: quiet
        )
        return try await rows.collect().count == 1
    }

    public func sessionProfile(tokenHash: [UInt8], now: Date) async throws -> String? {
        let rows = try await client.query(
            """
            SELECT profile_id FROM sessions
            WHERE token_hash = \(Data(tokenHash)) AND expires_at > \(now.millisecondsSince1970)
            """,
            logger: quiet
        )
        for row in try await rows.collect() {
            return try row.decode(String.self)
        }
        return nil
    }

    public func deleteSession(tokenHash: [UInt8]) async throws -> Bool {
        let rows = try await client.query(
            "DELETE FROM sessions WHERE token_hash = \(Data(tokenHash)) RETURNING profile_id",
            logger: quiet
        )
        return try await rows.collect().count == 1
    }

    /// The insert share-locks the account row it checks: a password change's update waits
    /// for this session to commit (and its delete, a later statement, then sees it), or, when
    /// the change committed first, the recheck after the wait finds the new hash and nothing is
    /// stored.
    public func createPasswordSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, passwordHash: String) async throws -> Bool {
        let rows = try await client.query(
            """
            INSERT INTO sessions (token_hash, profile_id, expires_at)
            SELECT \(Data(tokenHash)), profile_id, \(expiresAt.millisecondsSince1970)
            FROM (SELECT profile_id FROM accounts WHERE profile_id = \(profileID) AND password_hash = \(passwordHash) FOR SHARE) a
            RETURNING 1
            """,
            logger: quiet
        )
        return try await rows.collect().count == 1
    }

    /// Two statements in one READ COMMITTED transaction: the update takes the account row
    /// (waiting for password sessions being stored against it), and the delete, with a
    /// snapshot of its own taken after, ends every other session, those included.
    public func changePassword(profileID: String, from expected: String, to passwordHash: String, keeping: [UInt8]) async throws -> Bool {
        try await client.withTransaction(logger: quiet) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", logger: quiet)
            let changed = try await connection.query(
                """
                UPDATE accounts SET password_hash = \(passwordHash)
                WHERE profile_id = \(profileID) AND password_hash = \(expected)
                RETURNING profile_id
                """,
                logger: quiet
            ).collect().count == 1
            guard changed else { return false }
            try await connection.query(
                "DELETE FROM sessions WHERE profile_id = \(profileID) AND token_hash <> \(Data(keeping))", logger: quiet
            )
            return true
        }
    }

    public func deleteSessions(profileID: String) async throws -> Int {
        let rows = try await client.query("DELETE FROM sessions WHERE profile_id = \(profileID) RETURNING token_hash", logger: quiet)
        return try await rows.collect().count
    }

    public func createDevice(_ device: DeviceRecord) async throws {
        try await insert(
            """
            INSERT INTO devices (device_id, profile_id, kind, name, credential_hash, public_key, created_at, last_used_at, sign_count, receipt)
            VALUES (\(device.deviceID), \(device.profileID), \(device.kind.rawValue), \(device.name),
                    \(Data(device.credentialHash)), \(device.publicKey.map { Data($0) }),
                    \(device.createdAt.millisecondsSince1970), \(device.lastUsedAt?.millisecondsSince1970),
                    \(device.signCount.map { Int64($0) }), \(device.receipt.map { Data($0) }))
            """
        )
    }

    private typealias DeviceRow = (String, String, String, String, Data, Data?, Int64, Int64?, Int64?)

    private func devices(_ query: PostgresQuery) async throws -> [DeviceRecord] {
        let rows = try await client.query(query, logger: quiet)
        var devices: [DeviceRecord] = []
        for raw in try await rows.collect() {
            let row = try raw.decode(DeviceRow.self)
            guard let kind = DeviceKind(rawValue: row.2) else { continue }
            devices.append(DeviceRecord(
                deviceID: row.0, profileID: row.1, kind: kind, name: row.3,
                credentialHash: Array(row.4), publicKey: row.5.map { Array($0) },
                createdAt: Date(millisecondsSince1970: row.6), lastUsedAt: row.7.map { Date(millisecondsSince1970: $0) },
                signCount: row.8.flatMap { UInt32(exactly: $0) }
            ))
        }
        return devices
    }

    public func devices(profileID: String) async throws -> [DeviceRecord] {
        try await devices(
            """
            SELECT device_id, profile_id, kind, name, credential_hash, public_key, created_at, last_used_at, sign_count
            FROM devices WHERE profile_id = \(profileID) ORDER BY created_at, device_id
            """
        )
    }

    public func device(id: String) async throws -> DeviceRecord? {
        try await devices(
            """
            SELECT device_id, profile_id, kind, name, credential_hash, public_key, created_at, last_used_at, sign_count
            FROM devices WHERE device_id = \(id)
            """
        ).first
    }

    public func device(credentialHash: [UInt8]) async throws -> DeviceRecord? {
        try await devices(
            """
            SELECT device_id, profile_id, kind, name, credential_hash, public_key, created_at, last_used_at, sign_count
            FROM devices WHERE credential_hash = \(Data(credentialHash))
            """
        ).first
    }

    public func deleteDevice(id: String, profileID: String) async throws -> Bool {
        // Challenges go with the device (ON DELETE CASCADE).
        let rows = try await client.query(
            "DELETE FROM devices WHERE device_id = \(id) AND profile_id = \(profileID) RETURNING device_id",
            logger: quiet
        )
        return try await rows.collect().count == 1
    }

    public func createChallenge(hash: [UInt8], deviceID: String, expiresAt: Date, now: Date, requestedBy requester: String) async throws -> Bool {
        if shouldPrune() {
            // The expired, and this address's challenges for the device but the newest (`id`
            // grows with each insert; one place is left for the one inserted below). Deleted by
            // primary key, not by `id`, which has no index of its own.
            try await client.query(
                """
                DELETE FROM challenges WHERE expires_at <= \(now.millisecondsSince1970) OR challenge_hash IN
                    (SELECT challenge_hash FROM challenges WHERE device_id = \(deviceID) AND requested_by = \(requester)
                     ORDER BY id DESC OFFSET \(maximumChallengesPerRequester - 1))
                """,
                logger: quiet
            )
        }
        let rows = try await client.query(
            """
            INSERT INTO challenges (challenge_hash, device_id, expires_at, requested_by)
            SELECT \(Data(hash)), device_id, \(expiresAt.millisecondsSince1970), \(requester) FROM devices
            WHERE device_id = \(deviceID) AND kind IN ('key', 'appattest')
            RETURNING device_id
            """,
            logger: quiet
        )
        return try await rows.collect().count == 1
    }

    public func consumeChallenge(hash: [UInt8], deviceID: String, now: Date) async throws -> DeviceRecord? {
        // One statement: the delete decides, and the device comes back with it.
        try await devices(
            """
            DELETE FROM challenges c USING devices d
            WHERE c.challenge_hash = \(Data(hash)) AND c.device_id = \(deviceID)
              AND c.expires_at > \(now.millisecondsSince1970) AND d.device_id = c.device_id
            RETURNING d.device_id, d.profile_id, d.kind, d.name, d.credential_hash, d.public_key, d.created_at, d.last_used_at, d.sign_count
            """
        ).first
    }

    public func loginCheck(deviceID: String, failureKey: String, since: Date) async throws
        -> (device: DeviceRecord?, failures: Int, oldestFailure: Date?) {
        // One round trip: the failure count rides along with the device row (a LEFT JOIN on a
        // one-row count, so an unknown device still brings the count).
        let rows = try await client.query(
            """
            SELECT d.device_id, d.profile_id, d.kind, d.name, d.credential_hash, d.public_key, d.created_at, d.last_used_at,
                   d.sign_count, f.count, f.oldest
            FROM (SELECT COUNT(*) AS count, MIN(at) AS oldest FROM login_failures
                  WHERE key = \(failureKey) AND at > \(since.millisecondsSince1970)) f
            LEFT JOIN devices d ON d.device_id = \(deviceID)
            """,
            logger: quiet
        )
        for raw in try await rows.collect() {
            let row = try raw.decode((String?, String?, String?, String?, Data?, Data?, Int64?, Int64?, Int64?, Int64, Int64?).self)
            var device: DeviceRecord?
            if let id = row.0, let profile = row.1, let kindText = row.2, let kind = DeviceKind(rawValue: kindText),
               let credential = row.4, let created = row.6 {
                device = DeviceRecord(
                    deviceID: id, profileID: profile, kind: kind, name: row.3 ?? "", credentialHash: Array(credential),
                    publicKey: row.5.map { Array($0) }, createdAt: Date(millisecondsSince1970: created),
                    lastUsedAt: row.7.map { Date(millisecondsSince1970: $0) }, signCount: row.8.flatMap { UInt32(exactly: $0) }
                )
            }
            return (device, Int(row.9), row.10.map { Date(millisecondsSince1970: $0) })
        }
        return (nil, 0, nil)
    }

    public func redeemChallenge(hash: [UInt8], deviceID: String, now: Date, sessionTokenHash: [UInt8], sessionExpiresAt: Date,
                                signCount: UInt32?) async throws -> String? {
        if shouldPrune() {
            try await client.query("DELETE FROM sessions WHERE expires_at <= \(now.millisecondsSince1970)", logger: quiet)
        }
        // One statement, so one transaction and one round trip: the session exists only if
        // this statement's DELETE removed the challenge (of two concurrent deletes of one row,
        // one sees it gone), and the device's last use lands with it.
        //
        // It locks in the order a device's deletion does — the device row, then its challenges
        // (ON DELETE CASCADE) — so the two never wait on each other in a cycle. `locked` takes
        // the device row, and the DELETE locks a challenge only once its WHERE, the EXISTS on
        // `locked` included, has passed. `NO KEY UPDATE` conflicts with the deletion's lock but
        // not with other logins' foreign-key checks on the device. (Locking the challenge
        // first deadlocked a deletion racing with logins: PostgreSQL aborted one side, 500.)
        let rows = try await client.query(
            """
            WITH locked AS (
                SELECT device_id FROM devices WHERE device_id = \(deviceID) FOR NO KEY UPDATE
            ), consumed AS (
                DELETE FROM challenges
                WHERE challenge_hash = \(Data(hash)) AND device_id = \(deviceID) AND expires_at > \(now.millisecondsSince1970)
                  AND EXISTS (SELECT 1 FROM locked)
                RETURNING device_id
            ), touched AS (
                -- An App Attest counter only grows: a repeat spends the challenge, opens nothing.
                UPDATE devices SET last_used_at = \(now.millisecondsSince1970), sign_count = COALESCE(\(signCount.map { Int64($0) }), sign_count)
                WHERE device_id IN (SELECT device_id FROM consumed)
                  AND (\(signCount.map { Int64($0) })::BIGINT IS NULL OR sign_count < \(signCount.map { Int64($0) }))
                RETURNING profile_id, device_id
            )
            INSERT INTO sessions (token_hash, profile_id, expires_at, device_id)
            SELECT \(Data(sessionTokenHash)), profile_id, \(sessionExpiresAt.millisecondsSince1970), device_id FROM touched
            RETURNING profile_id
            """,
            logger: quiet
        )
        for row in try await rows.collect() {
            return try row.decode(String.self)
        }
        return nil
    }

    public func createAttestChallenge(hash: [UInt8], profileID: String, expiresAt: Date, now: Date) async throws {
        if shouldPrune() {
            try await client.query(
                """
                DELETE FROM attest_challenges WHERE expires_at <= \(now.millisecondsSince1970) OR challenge_hash IN
                    (SELECT challenge_hash FROM attest_challenges WHERE profile_id = \(profileID)
                     ORDER BY id DESC OFFSET \(maximumChallengesPerRequester - 1))
                """,
                logger: quiet
            )
        }
        try await client.query(
            """
            INSERT INTO attest_challenges (challenge_hash, profile_id, expires_at)
            VALUES (\(Data(hash)), \(profileID), \(expiresAt.millisecondsSince1970))
            """,
            logger: quiet
        )
    }

    public func consumeAttestChallenge(hash: [UInt8], profileID: String, now: Date) async throws -> Bool {
        let rows = try await client.query(
            """
            DELETE FROM attest_challenges
            WHERE challenge_hash = \(Data(hash)) AND profile_id = \(profileID) AND expires_at > \(now.millisecondsSince1970)
            RETURNING 1
            """,
            logger: quiet
        )
        return try await rows.collect().count == 1
    }

    /// One transaction that first takes a transaction-scoped advisory lock per key (in sorted
    /// order, so two attempts on the same keys never wait on each other in a cycle), then
    /// inserts and counts in a statement of its own: its snapshot, taken after the lock, holds
    /// every attempt committed on that key before. (Under READ COMMITTED without the lock, two
    /// concurrent attempts each missed the other's row.)
    public func recordAttempt(keys: [String], at date: Date, since: Date, window: Duration) async throws -> RecordedAttempt {
        let horizon = date.millisecondsSince1970 - window.milliseconds
        if shouldPrune() {
            try await client.query("DELETE FROM login_failures WHERE at <= \(horizon)", logger: quiet)
        }
        return try await client.withTransaction(logger: quiet) { connection in
            // Each statement needs its own snapshot (the count's must be taken after the lock),
            // whatever the database's default isolation.
            try await connection.query("SET TRANSACTION ISOLATION LEVEL READ COMMITTED", logger: quiet)
            for key in Set(keys).sorted() {
                try await connection.query("SELECT pg_advisory_xact_lock(hashtextextended(\(key), 0))", logger: quiet)
            }
            var attempt = RecordedAttempt(rowIDs: [], earlier: [])
            for key in keys {
                let rows = try await connection.query(
                    """
                    WITH recorded AS (
                        INSERT INTO login_failures (key, at) VALUES (\(key), \(date.millisecondsSince1970)) RETURNING id
                    )
                    SELECT (SELECT id FROM recorded), COUNT(*), MIN(at) FROM login_failures
                    WHERE key = \(key) AND at > \(since.millisecondsSince1970)
                    """,
                    logger: quiet
                )
                // The count's snapshot is the statement's, which does not hold its own insert.
                for try await (rowID, count, oldest) in rows.decode((Int64, Int64, Int64?).self) {
                    attempt.rowIDs.append(rowID)
                    attempt.earlier.append(.init(count: Int(count), oldest: oldest.map { Date(millisecondsSince1970: $0) }))
                }
            }
            guard attempt.rowIDs.count == keys.count else {
                throw RepositoryError.unavailable("recording an attempt returned \(attempt.rowIDs.count) rows for \(keys.count) keys")
            }
            return attempt
        }
    }

    public func releaseAttempt(_ attempt: RecordedAttempt) async throws {
        guard !attempt.rowIDs.isEmpty else { return }
        try await client.query("DELETE FROM login_failures WHERE id = ANY(\(attempt.rowIDs))", logger: quiet)
    }

    public func failures(key: String, since: Date) async throws -> (count: Int, oldest: Date?) {
        let rows = try await client.query(
            "SELECT COUNT(*), MIN(at) FROM login_failures WHERE key = \(key) AND at > \(since.millisecondsSince1970)",
            logger: quiet
        )
        for row in try await rows.collect() {
            let (count, oldest) = try row.decode((Int64, Int64?).self)
            return (Int(count), oldest.map { Date(millisecondsSince1970: $0) })
        }
        return (0, nil)
    }

    /// Runs an insert, turning a unique-constraint violation (SQLSTATE 23505) into
    /// ``RepositoryError/duplicate``.
    private func insert(_ query: PostgresQuery) async throws {
        do {
            try await client.query(query, logger: quiet)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw RepositoryError.duplicate
        }
    }
}
