import Foundation

/// An account: a username, its password hash and the profile ID apps see.
public struct AccountRecord: Sendable, Equatable {
    /// The stable identifier of the account (seed 003's `profileID`).
    public var profileID: String
    /// The unique user name.
    public var username: String
    /// The encoded slow salted hash (see ``PasswordHasher``), never the password.
    public var passwordHash: String
    /// When the account was created.
    public var createdAt: Date

    /// Creates a record.
    public init(profileID: String, username: String, passwordHash: String, createdAt: Date) {
        self.profileID = profileID
        self.username = username
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// How a device proves itself at login.
public enum DeviceKind: String, Sendable, Codable, Equatable {
    /// A P-256 key: the device signs a server challenge (the strong form of REFERENCE §11).
    case key
    /// A long random device token sent as is (seed 003 as written); only its hash is stored.
    case token
    /// An App Attest key (REFERENCE §12): bound with an attestation the server verified against
    /// its trusted roots, logging in with assertions whose counter must grow.
    case appattest
}

/// A device bound to an account.
public struct DeviceRecord: Sendable, Equatable {
    /// The device's identifier, chosen by the server.
    public var deviceID: String
    /// The account the device logs in to.
    public var profileID: String
    /// Key or token.
    public var kind: DeviceKind
    /// A name the user chose ("Ada's laptop").
    public var name: String
    /// SHA-256 over a kind label and the key or token: unique across all accounts.
    public var credentialHash: [UInt8]
    /// The 65-byte X9.63 public key for `.key` and `.appattest` devices, `nil` for `.token` devices.
    public var publicKey: [UInt8]?
    /// The counter of the last assertion of an `.appattest` device (0 after its attestation);
    /// `nil` for other kinds.
    public var signCount: UInt32?
    /// An `.appattest` device's receipt from its attestation, stored for Apple's fraud-metric
    /// service (REFERENCE §12: keep the key, counter and receipt); written, not read back by
    /// the repositories (`nil` in records they return).
    public var receipt: [UInt8]?
    /// When the device was bound.
    public var createdAt: Date
    /// When the device last logged in, if ever.
    public var lastUsedAt: Date?

    /// Creates a record.
    public init(
        deviceID: String, profileID: String, kind: DeviceKind, name: String,
        credentialHash: [UInt8], publicKey: [UInt8]?, createdAt: Date, lastUsedAt: Date?, signCount: UInt32? = nil,
        receipt: [UInt8]? = nil
    ) {
        self.deviceID = deviceID
        self.profileID = profileID
        self.kind = kind
        self.name = name
        self.credentialHash = credentialHash
        self.publicKey = publicKey
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.signCount = signCount
        self.receipt = receipt
    }
}

/// What a repository reports: a unique value taken, or a database it cannot use now.
public enum RepositoryError: Error, Equatable, CustomStringConvertible {
    /// The username (for accounts) or the key or token (for devices) already exists.
    case duplicate
    /// The database cannot be reached or did not answer in time (the reason, for the log and
    /// the operator; never sent to a client). The API answers 503 `database_unavailable`.
    case unavailable(String)
    /// A stored row does not hold what the schema says (the database was edited outside the
    /// server): the table and column, never the value. The API answers 500 `internal`; the
    /// operator repairs or removes the row.
    case damaged(String)

    public var description: String {
        switch self {
        case .duplicate: "the value exists already"
        case let .unavailable(reason): reason
        case let .damaged(what): "a stored row is damaged: \(what)"
        }
    }
}

/// The server's state, behind one protocol with a SQLite and a PostgreSQL implementation.
///
/// Every method is one atomic step; the server holds no other state, so several servers may
/// share one PostgreSQL database. Times are passed in, never read here, so the injected
/// ``LoginClock`` decides every expiry.
public protocol LoginRepository: Sendable {
    /// Creates or upgrades the tables. Safe to call on every start and from several servers.
    func migrate() async throws
    /// Asks the database a trivial question (`SELECT 1`): what `GET /health/ready` checks.
    func ping() async throws

    /// Stores a new account; throws ``RepositoryError/duplicate`` if the username exists.
    func createAccount(_ account: AccountRecord) async throws
    /// The account with this username, if any.
    func account(username: String) async throws -> AccountRecord?

    /// Stores a session token hash that is valid until `expiresAt`; when a device logged in,
    /// records `now` as its last use in the same transaction and ties the session to it
    /// (deleting the device ends the session). `false`, storing nothing, when that device was
    /// deleted meanwhile.
    @discardableResult
    func createSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, usedDeviceID: String?) async throws -> Bool
    /// The profile of a session that is still valid at `now`, if any.
    func sessionProfile(tokenHash: [UInt8], now: Date) async throws -> String?
    /// Ends a session (signing out); `false` when there was none with this token hash.
    func deleteSession(tokenHash: [UInt8]) async throws -> Bool
    /// Stores a session for a password login, only if the account's password hash is still
    /// `passwordHash` (the one the password was checked against); `false`, storing nothing,
    /// when a password change came in between — a session opened with the old password must
    /// not outlive the change that ended the others.
    func createPasswordSession(tokenHash: [UInt8], profileID: String, expiresAt: Date, now: Date, passwordHash: String) async throws -> Bool
    /// The account of a profile, if it exists.
    func account(profileID: String) async throws -> AccountRecord?
    /// Replaces a profile's password hash and ends every session of it but the one whose
    /// token hash is `keeping`, in one transaction; `false` (nothing changed) when the
    /// password hash is no longer `expected` (a concurrent change won) or the account is gone.
    func changePassword(profileID: String, from expected: String, to passwordHash: String, keeping: [UInt8]) async throws -> Bool
    /// Ends every session of a profile ("sign out everywhere"); how many there were.
    func deleteSessions(profileID: String) async throws -> Int

    /// Binds a device; throws ``RepositoryError/duplicate`` if its key or token is bound anywhere.
    func createDevice(_ device: DeviceRecord) async throws
    /// The devices of one account, oldest first.
    func devices(profileID: String) async throws -> [DeviceRecord]
    /// The device with this identifier, if it is bound.
    func device(id: String) async throws -> DeviceRecord?
    /// The device whose credential hash this is, if it is bound.
    func device(credentialHash: [UInt8]) async throws -> DeviceRecord?
    /// Unbinds a device of this account (and drops its challenges); `false` if there is none.
    func deleteDevice(id: String, profileID: String) async throws -> Bool

    /// Stores a challenge hash, valid until `expiresAt`, for a bound device of kind `.key`, asked
    /// for by `requester` (the client's address); now and then (see
    /// ``maximumChallengesPerRequester``) drops all but the newest 16 this requester asked for
    /// this device. `false` (and nothing stored) when there is no such device.
    func createChallenge(hash: [UInt8], deviceID: String, expiresAt: Date, now: Date, requestedBy requester: String) async throws -> Bool
    /// Deletes the challenge if it belongs to the device and is live at `now`, and returns the
    /// device, in one atomic step: of two concurrent calls with the same challenge, at most one
    /// gets the device; every other call gets `nil`.
    func consumeChallenge(hash: [UInt8], deviceID: String, now: Date) async throws -> DeviceRecord?

    /// The device with this identifier (if bound) and the failures recorded under `failureKey`
    /// after `since`, read together: what a signature login needs before it writes anything.
    func loginCheck(deviceID: String, failureKey: String, since: Date) async throws
        -> (device: DeviceRecord?, failures: Int, oldestFailure: Date?)
    /// Deletes the challenge if it belongs to the device and is live at `now` and, only if this
    /// call deleted it, records the device's last use and stores a session for the device's
    /// account, all in one transaction; returns that profile, or `nil` (nothing written) when
    /// the challenge was not there. Of two concurrent calls with one challenge at most one
    /// gets a profile. With `signCount` (an App Attest assertion's counter) the device's stored
    /// counter must be below it and becomes it in the same transaction; otherwise no session
    /// (`nil`) and the challenge is spent all the same: of two assertions with one counter, at
    /// most one logs in.
    func redeemChallenge(hash: [UInt8], deviceID: String, now: Date, sessionTokenHash: [UInt8], sessionExpiresAt: Date,
                         signCount: UInt32?) async throws -> String?

    /// Stores the hash of a one-use App Attest binding challenge for `profileID`, valid until
    /// `expiresAt`; now and then drops expired ones and all but this profile's newest 16.
    func createAttestChallenge(hash: [UInt8], profileID: String, expiresAt: Date, now: Date) async throws
    /// Deletes the binding challenge if it is `profileID`'s and live at `now`; `true` only for
    /// the call that deleted it.
    func consumeAttestChallenge(hash: [UInt8], profileID: String, now: Date) async throws -> Bool

    /// Records an attempt under each of `keys` (an account, an address) at `at`, counted as a
    /// failure until ``releaseAttempt(_:)`` removes it, and returns how many failures each key
    /// had after `since` before it — one atomic step per key: of attempts recorded at once,
    /// each sees every one recorded before it, so no more than a limit's worth of them find
    /// fewer than the limit. (Reading the count, doing the work, then recording let 50
    /// parallel attempts all pass a limit of 10.) Rows past `window` are pruned now and then.
    func recordAttempt(keys: [String], at: Date, since: Date, window: Duration) async throws -> RecordedAttempt
    /// Removes the failures `attempt` recorded: the attempt succeeded, or was refused before it
    /// was tried.
    func releaseAttempt(_ attempt: RecordedAttempt) async throws
    /// The failures recorded under `key` after `since`: their count and the oldest one.
    func failures(key: String, since: Date) async throws -> (count: Int, oldest: Date?)
}

extension LoginRepository {
    /// Two reads; repositories override it with one.
    public func loginCheck(deviceID: String, failureKey: String, since: Date) async throws
        -> (device: DeviceRecord?, failures: Int, oldestFailure: Date?) {
        let (count, oldest) = try await failures(key: failureKey, since: since)
        return (try await device(id: deviceID), count, oldest)
    }

    /// A key login's redemption: ``redeemChallenge(hash:deviceID:now:sessionTokenHash:sessionExpiresAt:signCount:)``
    /// without a counter.
    public func redeemChallenge(hash: [UInt8], deviceID: String, now: Date, sessionTokenHash: [UInt8], sessionExpiresAt: Date) async throws -> String? {
        try await redeemChallenge(hash: hash, deviceID: deviceID, now: now, sessionTokenHash: sessionTokenHash,
                                  sessionExpiresAt: sessionExpiresAt, signCount: nil)
    }
}

extension Duration {
    /// The duration in milliseconds, rounded down; saturating at `Int64`'s ends (a configured
    /// window of a billion years is the longest there is, not a trap).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, sumOverflow) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return sumOverflow ? (scaled < 0 ? .min : .max) : sum
    }

    /// The duration in seconds as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The live challenges one client address keeps for one device: the pruning that about one
/// insert in 32 does (``shouldPrune()``, with the expired rows) drops that address's older ones
/// for the device (our rule). A client asking without end cannot fill the table — it holds 16
/// plus those asked since the last pruning, 32 on average — and cannot push out a challenge
/// another address asked for (the owner's, mid-prompt). A real app asks for one per login.
/// Pruning on every insert cost a statement per login: 10–15% of SQLite logins/s and, as a
/// round trip, about 25% on PostgreSQL.
let maximumChallengesPerRequester = 16

/// Whether this write should also delete expired rows: about one write in 32. Every read
/// filters on expiry, so pruning is housekeeping, not correctness; doing it on every write
/// would cost a statement (a round trip on PostgreSQL) per request.
func shouldPrune() -> Bool {
    UInt8.random(in: 0..<32) == 0
}

/// An attempt recorded before it was judged (``LoginRepository/recordAttempt(keys:at:since:window:)``).
public struct RecordedAttempt: Sendable, Equatable {
    /// The failures one key had in the window before this attempt.
    public struct Earlier: Sendable, Equatable {
        /// How many.
        public var count: Int
        /// When the oldest was recorded (when the window frees a place).
        public var oldest: Date?

        public init(count: Int, oldest: Date?) {
            self.count = count
            self.oldest = oldest
        }
    }

    /// The rows recorded, one per key (what ``LoginRepository/releaseAttempt(_:)`` removes).
    public var rowIDs: [Int64]
    /// Per key, in the order they were given: the failures before this attempt.
    public var earlier: [Earlier]

    public init(rowIDs: [Int64], earlier: [Earlier]) {
        self.rowIDs = rowIDs
        self.earlier = earlier
    }
}
