import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema and its migrations: versioned, so that servers starting during logins
/// (a rolling deploy) take no lock when the schema is current (docs/SERVER.md, Running).
extension PostgresLoginRepository {
    /// `CREATE INDEX` only when the index is missing. (`CREATE INDEX IF NOT EXISTS` takes its
    /// table's SHARE lock before it looks, so it waits for every write in flight and every
    /// login waits behind it; two servers starting together deadlocked on it.)
    static func index(_ name: String, on definition: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: "DO $$ BEGIN IF to_regclass('\(name)') IS NULL THEN CREATE INDEX \(name) ON \(definition); END IF; END $$")
    }

    /// The schema, in order; each statement is idempotent and takes no table lock when what it
    /// makes is there already.
    static let schema: [PostgresQuery] = [
        """
        CREATE TABLE IF NOT EXISTS accounts (
            profile_id TEXT PRIMARY KEY,
            username TEXT NOT NULL UNIQUE,
            password_hash TEXT NOT NULL,
            created_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS sessions (
            token_hash BYTEA PRIMARY KEY,
            profile_id TEXT NOT NULL REFERENCES accounts(profile_id) ON DELETE CASCADE,
            expires_at BIGINT NOT NULL
        )
        """,
        index("sessions_expires_at", on: "sessions(expires_at)"),
        """
        CREATE TABLE IF NOT EXISTS devices (
            device_id TEXT PRIMARY KEY,
            profile_id TEXT NOT NULL REFERENCES accounts(profile_id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            credential_hash BYTEA NOT NULL UNIQUE,
            public_key BYTEA,
            created_at BIGINT NOT NULL,
            last_used_at BIGINT
        )
        """,
        index("devices_profile_id", on: "devices(profile_id)"),
        """
        CREATE TABLE IF NOT EXISTS challenges (
            challenge_hash BYTEA PRIMARY KEY,
            device_id TEXT NOT NULL REFERENCES devices(device_id) ON DELETE CASCADE,
            expires_at BIGINT NOT NULL
        )
        """,
        index("challenges_expires_at", on: "challenges(expires_at)"),
        // A challenge records the address that asked for it, in the order asked (`id`): each
        // address's live challenges for a device are bounded (``maximumChallengesPerRequester``).
        // Altered only when missing, as `sessions.device_id` below: ALTER TABLE and CREATE INDEX
        // lock the table before they look, even with IF NOT EXISTS, and every start would queue
        // the logins behind the lock.
        """
        DO $$
        BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'challenges' AND column_name = 'requested_by'
            ) THEN
                ALTER TABLE challenges ADD COLUMN requested_by TEXT, ADD COLUMN id BIGSERIAL;
                CREATE INDEX challenges_device_requester ON challenges(device_id, requested_by, id);
            END IF;
        END
        $$
        """,
        """
        CREATE TABLE IF NOT EXISTS login_failures (
            id BIGSERIAL PRIMARY KEY,
            key TEXT NOT NULL,
            at BIGINT NOT NULL
        )
        """,
        index("login_failures_key_at", on: "login_failures(key, at)"),
        index("login_failures_at", on: "login_failures(at)"),
        // A session a device logged in records that device and ends with it: deleting the
        // device (a lost phone) signs it out. Sessions from before have no device. Altered only
        // when the column is missing: ALTER TABLE locks the table against every session lookup
        // before it looks, even with IF NOT EXISTS.
        """
        DO $$
        BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'sessions' AND column_name = 'device_id'
            ) THEN
                ALTER TABLE sessions ADD COLUMN device_id TEXT REFERENCES devices(device_id) ON DELETE CASCADE;
                CREATE INDEX sessions_device_id ON sessions(device_id);
            END IF;
        END
        $$
        """,
        // App Attest: devices keep their assertion counter; binding challenges belong to a
        // profile. Created only when missing, as above.
        """
        DO $$
        BEGIN
            IF NOT EXISTS (
                SELECT 1 FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'devices' AND column_name = 'sign_count'
            ) THEN
                ALTER TABLE devices ADD COLUMN sign_count BIGINT, ADD COLUMN receipt BYTEA;
                CREATE TABLE attest_challenges (
                    challenge_hash BYTEA PRIMARY KEY,
                    profile_id TEXT NOT NULL REFERENCES accounts(profile_id) ON DELETE CASCADE,
                    expires_at BIGINT NOT NULL,
                    id BIGSERIAL
                );
                CREATE INDEX attest_challenges_profile_id ON attest_challenges(profile_id, id);
            END IF;
        END
        $$
        """,
    ]

    /// The schema's version: raise it with every change to ``schema``. A database at this
    /// version (or a newer one, which a newer server wrote during a rolling deploy) is left alone.
    static let schemaVersion = 5

    /// How long one try of a migration waits for a table lock (`lock_timeout`) before it gives
    /// way and tries again: while DDL waits for a lock, the logins that need the table queue
    /// behind it, so this bounds how long a start can stall them.
    static let migrationLockWait = Duration.milliseconds(500)
    /// How many times a migration tries before the start fails (about a minute in all).
    static let migrationTries = 60

    /// Brings the schema to ``schemaVersion``. A database already there takes one read and no
    /// lock at all, so servers (re)starting during logins never wait for them nor make them wait.
    /// Otherwise one server at a time (an advisory lock) runs the steps; each try waits at most
    /// ``migrationLockWait`` for a table lock and gives way (lock timeout or deadlock) to the
    /// logins before trying again, up to ``migrationTries`` times.
    public func migrate() async throws {
        try await probe()
        if try await storedSchemaVersion() >= Self.schemaVersion { return }
        var tries = 0
        while true {
            tries += 1
            do {
                try await migrateOnce()
                return
            } catch let error as PostgresTransactionError where (error.cause as? PSQLError).map(Self.isLockContention) == true
                                                                && tries < Self.migrationTries {
                let error = error.cause as? PSQLError
                logger.notice("the migration gave way to requests holding its tables; trying again", metadata: [
                    "try": .stringConvertible(tries), "sqlstate": .string(error?.serverInfo?[.sqlState] ?? ""),
                ])
                // Backs off a little more each time (10 ms to 500 ms), so the logins that queued
                // behind the lock run before the next try.
                try await Task.sleep(for: .milliseconds(min(500, 10 * tries)))
            }
        }
    }

    /// The schema version the database records (0 before the first versioned migration).
    func storedSchemaVersion() async throws -> Int {
        let exists = try await client.query("SELECT to_regclass('touchstone_schema') IS NOT NULL", logger: quiet).collect()
        guard try exists.first?.decode(Bool.self) == true else { return 0 }
        return try await client.withConnection { try await Self.recordedVersion($0, logger: quiet) }
    }

    /// The highest version in `touchstone_schema` (0 when it has none).
    static func recordedVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.query("SELECT max(version) FROM touchstone_schema", logger: logger).collect()
        return try rows.first?.decode(Int?.self) ?? 0
    }

    /// One try: every step and the new version in one transaction, after the advisory lock.
    func migrateOnce() async throws {
        try await client.withTransaction(logger: quiet) { connection in
            // No statement limit: waiting for another server's migration is expected.
            try await connection.query("SET LOCAL statement_timeout = 0", logger: quiet)
            try await connection.query("SELECT pg_advisory_xact_lock(7013013)", logger: quiet)
            // Another server may have finished while this one waited.
            try await connection.query("CREATE TABLE IF NOT EXISTS touchstone_schema (version INTEGER NOT NULL)", logger: quiet)
            if try await Self.recordedVersion(connection, logger: quiet) >= Self.schemaVersion { return }
            let wait = Self.milliseconds(Self.migrationLockWait) ?? 500
            try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = \(wait)"), logger: quiet)
            for statement in Self.schema {
                try await connection.query(statement, logger: quiet)
            }
            try await connection.query("DELETE FROM touchstone_schema", logger: quiet)
            try await connection.query("INSERT INTO touchstone_schema (version) VALUES (\(Self.schemaVersion))", logger: quiet)
        }
    }

    /// Whether a migration failed for want of a lock: `lock_timeout` (55P03) or a deadlock
    /// PostgreSQL broke by aborting it (40P01). Either way nothing of it was kept.
    static func isLockContention(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state == "55P03" || state == "40P01"
    }
}

extension PostgresTransactionError {
    /// What failed: the closure's error, else BEGIN's, COMMIT's or the rollback's.
    var cause: (any Error)? {
        closureError ?? beginError ?? commitError ?? rollbackError
    }
}
