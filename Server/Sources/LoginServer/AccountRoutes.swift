import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TouchstoneAppAttestFormat

/// Accounts and password sessions: sign up, sign in and out, password change.
extension LoginAPI {
    // MARK: Accounts and sessions

    /// A username as stored and looked up: Unicode NFC. Case is kept and matters (our rule).
    static func normalized(_ username: String) -> String {
        username.precomposedStringWithCanonicalMapping
    }

    /// Whether `username` (already NFC) may name an account: 1 to 64 characters, no leading or
    /// trailing space, and nothing that shows as nothing or could make two names look alike:
    /// no control, format (bidi overrides, zero-width spaces), private-use, unassigned or
    /// noncharacter code point, no default-ignorable one (variation selectors, the Hangul
    /// fillers, the combining grapheme joiner), no blank Braille cell, no space but U+0020, and
    /// no combining mark at the start (our rules).
    static func isAcceptableUsername(_ username: String) -> Bool {
        // At most 256 bytes too, the most a sign-in accepts: 64 characters stacked with
        // combining marks could pass the character limit and never sign in.
        guard !username.isEmpty, username.count <= 64, username.utf8.count <= 256,
              username.trimmingCharacters(in: .whitespaces) == username,
              let first = username.unicodeScalars.first
        else { return false }
        switch first.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return false
        default: break
        }
        return !username.unicodeScalars.contains { scalar in
            let properties = scalar.properties
            return isInvisibleControl(scalar) || properties.generalCategory == .privateUse
                || properties.generalCategory == .unassigned || (properties.isWhitespace && scalar != " ")
                || properties.isDefaultIgnorableCodePoint || properties.isNoncharacterCodePoint || scalar == "\u{2800}"
        }
    }

    struct Credentials: Decodable {
        var username: String
        var password: String
    }

    func createAccount(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let body = try await decode(Credentials.self, from: request)
        // Stored in NFC, so "é" typed precomposed or as e + accent is one account.
        let username = Self.normalized(body.username)
        guard Self.isAcceptableUsername(username) else {
            throw APIError.badRequest("invalid_username", "A username is 1 to 64 visible characters without leading or trailing spaces.")
        }
        try Self.requireAcceptablePassword(body.password, username: username)
        // Creating accounts is open to anyone and each costs a hash: counted per address. A
        // hashing slot first (a 503 is not an attempt), then the attempt is recorded and the
        // count read back with it: of attempts made at once, those past the limit see it
        // reached, so a burst cannot get more than the limit through.
        try enterHashing()
        defer { hashing.leave() }
        _ = try await recordAttempt([("signup:" + context.remoteAddress, configuration.accountCreationLimit)], context,
                                    uncountIfRefused: false, message: "Too many accounts created from this address; retry later.")
        let hasher = self.hasher
        let password = body.password
        let hash = try await Self.offload { try hasher.hash(password) }
        let account = AccountRecord(
            profileID: UUID().uuidString.lowercased(), username: username, passwordHash: hash, createdAt: clock.now()
        )
        do {
            try await repository.createAccount(account)
        } catch RepositoryError.duplicate {
            throw APIError(.conflict, "username_taken", "That username is taken.")
        }
        context.logger.info("account created", metadata: ["profileID": .string(account.profileID)])
        return try json(["profileID": account.profileID], status: .created)
    }

    /// Throws 400 `weak_password` unless `password` may be `username`'s: at most 1,024 bytes,
    /// at least 8 characters, 3 of them different, not the username. The rules apply to the
    /// password as it is hashed (NFKC): a full-width copy of the username is the username.
    static func requireAcceptablePassword(_ password: String, username: String) throws {
        guard password.utf8.count <= 1024 else {
            throw APIError.badRequest("weak_password", "A password is at most 1,024 bytes (UTF-8).")
        }
        let normalizedPassword = PasswordHasher.normalized(password)
        guard normalizedPassword.count >= 8,
              normalizedPassword != PasswordHasher.normalized(username), Set(normalizedPassword).count >= 3
        else {
            throw APIError.badRequest("weak_password", "A password needs at least 8 characters, 3 of them different, and must not be the username.")
        }
    }

    struct PasswordChange: Decodable {
        var currentPassword: String
        var newPassword: String
    }

    /// Changes the signed-in account's password (204). The current password is checked as a
    /// password login checks it — the same per-account and per-address limits, the attempt
    /// recorded before it is hashed — the new one must pass the account rules, and every other
    /// session of the account ends (a stolen token stops working); the session making the
    /// change stays. 409 `password_changed` when a concurrent change won.
    func changePassword(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let profileID = try await authenticatedProfile(request)
        guard let token = bearerToken(request) else { throw APIError.unauthorized }
        let body = try await decode(PasswordChange.self, from: request)
        guard body.currentPassword.utf8.count <= 1024 else {
            throw APIError.badRequest("invalid_credentials_format", "The current password is too long.")
        }
        guard let account = try await repository.account(profileID: profileID) else { throw APIError.unauthorized }
        try Self.requireAcceptablePassword(body.newPassword, username: account.username)
        let stored = account.passwordHash
        guard try await verifyPassword(body.currentPassword, against: stored,
                                       countingUnder: [("address:" + context.remoteAddress, configuration.addressFailureLimit),
                                                       ("account:" + account.username, configuration.accountFailureLimit)], context)
        else {
            context.logger.notice("password change refused: wrong current password", metadata: ["profileID": .string(profileID)])
            throw APIError.invalidCredentials
        }
        let (hasher, new) = (self.hasher, body.newPassword)
        let newHash = try await hashPassword { try hasher.hash(new) }
        guard try await repository.changePassword(profileID: profileID, from: stored, to: newHash, keeping: sha256(token)) else {
            throw APIError(.conflict, "password_changed", "The password was changed meanwhile; sign in with the new one.")
        }
        context.logger.info("password changed; other sessions ended", metadata: ["profileID": .string(profileID)])
        return Response(status: .noContent)
    }

    /// Signs out everywhere: ends every session of the signed-in account, this one too (204).
    func endAllSessions(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let profileID = try await authenticatedProfile(request)
        let ended = try await repository.deleteSessions(profileID: profileID)
        context.logger.info("signed out everywhere", metadata: ["profileID": .string(profileID), "sessions": .stringConvertible(ended)])
        return Response(status: .noContent)
    }

    struct SessionResponse: Encodable {
        var token: String
        var profileID: String
        var expiresAt: Date
    }

    func createSession(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let body = try await decode(Credentials.self, from: request)
        guard body.username.utf8.count <= 256, body.password.utf8.count <= 1024 else {
            throw APIError.badRequest("invalid_credentials_format", "The username or password is too long.")
        }
        let username = Self.normalized(body.username)
        let accountKey = "account:" + username
        let addressKey = "address:" + context.remoteAddress
        let account = try await repository.account(username: username)
        // Unknown users cost one hash too, so the two failures take about as long.
        let matches = try await verifyPassword(body.password, against: account?.passwordHash ?? hasher.decoy(),
                                               countingUnder: [(addressKey, configuration.addressFailureLimit),
                                                               (accountKey, configuration.accountFailureLimit)], context)
        guard let account, matches else {
            metrics.loginFailed(.password, .wrongPassword)
            context.logger.notice("password login failed", metadata: ["address": .string(context.remoteAddress)])
            throw APIError.invalidCredentials
        }
        let session: SessionResponse
        do {
            session = try await startSession(profileID: account.profileID, checkedPasswordHash: account.passwordHash)
        } catch let error as APIError {
            metrics.loginFailed(.password, .passwordChanged)
            throw error
        }
        metrics.loggedIn(.password)
        context.logger.info("password login", metadata: ["profileID": .string(account.profileID)])
        return try json(session)
    }

    /// Makes a new bearer token, stores its hash (with the device's last use, if a device logged
    /// in: the session ends with the device) and returns it; a device deleted meanwhile is a
    /// failed login. A password login passes the hash its password was checked against: the
    /// session is stored only while it is still the account's (a password change that came in
    /// between ended every other session, and this one must not slip past it; 401).
    func startSession(profileID: String, deviceID: String? = nil, checkedPasswordHash: String? = nil) async throws -> SessionResponse {
        let token = randomBytes(32)
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(configuration.sessionLifetime.timeInterval)
        if let checkedPasswordHash {
            guard try await repository.createPasswordSession(tokenHash: sha256(token), profileID: profileID, expiresAt: expiresAt,
                                                             now: now, passwordHash: checkedPasswordHash)
            else { throw APIError.invalidCredentials }
        } else {
            guard try await repository.createSession(tokenHash: sha256(token), profileID: profileID, expiresAt: expiresAt,
                                                     now: now, usedDeviceID: deviceID)
            else { throw APIError.loginFailed }
        }
        return SessionResponse(token: Data(token).base64EncodedString(), profileID: profileID, expiresAt: expiresAt)
    }

    /// Signs out: ends the request's bearer session (204); its token is refused from then on.
    func endSession(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let profileID = try await authenticatedProfile(request)
        guard let token = bearerToken(request), try await repository.deleteSession(tokenHash: sha256(token)) else {
            throw APIError.unauthorized
        }
        context.logger.info("signed out", metadata: ["profileID": .string(profileID)])
        return Response(status: .noContent)
    }

    /// The 32-byte token of the request's `Authorization: Bearer` header, if it has one.
    func bearerToken(_ request: Request) -> Data? {
        // The scheme name is case-insensitive (RFC 9110 §11.1): "bearer" and "BEARER" are Bearer.
        guard let header = request.headers[.authorization], header.prefix(7).lowercased() == "bearer ",
              let token = Self.canonicalBase64(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)),
              token.count == 32
        else { return nil }
        return token
    }

    /// The profile of the request's bearer session, or 401.
    func authenticatedProfile(_ request: Request) async throws -> String {
        guard let token = bearerToken(request),
              let profileID = try await repository.sessionProfile(tokenHash: sha256(token), now: clock.now())
        else { throw APIError.unauthorized }
        return profileID
    }
}
