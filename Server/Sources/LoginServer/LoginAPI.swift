import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TouchstoneAppAttestFormat

/// The HTTP API of seed 003's fingerprint login (REFERENCE §11): accounts, password sessions,
/// device binding, challenges and device logins. Stateless apart from the repository.
struct LoginAPI: Sendable {
    let repository: any LoginRepository
    let clock: any LoginClock
    let configuration: LoginServerConfiguration
    let hasher: PasswordHasher
    let hashing: AdmissionGate
    let metrics: LoginMetrics

    init(repository: any LoginRepository, clock: any LoginClock, configuration: LoginServerConfiguration,
         metrics: LoginMetrics = LoginMetrics()) {
        self.repository = repository
        self.metrics = metrics
        self.clock = clock
        self.configuration = configuration
        self.hasher = PasswordHasher(rounds: configuration.passwordRounds)
        self.hashing = AdmissionGate(limit: configuration.maxPendingPasswordHashes)
    }

    /// Adds every route to `router`.
    func addRoutes(to router: Router<LoginRequestContext>) {
        // Liveness: the process serves requests (it answers while the database is down).
        let health: @Sendable (Request, LoginRequestContext) async throws -> Response = { _, _ in
            try json(["status": "ok"])
        }
        // Readiness: the database answers too (503 `database_unavailable` when it does not),
        // what a load balancer should route by.
        let ready: @Sendable (Request, LoginRequestContext) async throws -> Response = { _, _ in
            try await repository.ping()
            return try json(["status": "ready"])
        }
        let listDevices: @Sendable (Request, LoginRequestContext) async throws -> Response = { request, context in
            try await self.listDevices(request, context)
        }
        // Prometheus text for the addresses allowed to scrape it; for the rest the 404 of a path
        // that does not exist.
        let metricsText: @Sendable (Request, LoginRequestContext) async throws -> Response = { _, context in
            guard configuration.metricsClients.contains(context.remoteAddress) else { throw HTTPError(.notFound) }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(string: metrics.text())))
        }
        for (path, handler) in [("/health", health), ("/health/ready", ready), ("/metrics", metricsText), ("/v1/devices", listDevices)] {
            router.get(RouterPath(path), use: handler)
            // HEAD wherever GET works (RFC 9110 §9.3.2): the same status and headers, no body.
            // (A response's headers already hold its body's length, which HEAD keeps.)
            router.head(RouterPath(path)) { request, context in try await handler(request, context).createHeadResponse() }
        }
        let v1 = router.group("v1")
        v1.post("accounts") { request, context in try await createAccount(request, context) }
        v1.post("sessions") { request, context in try await createSession(request, context) }
        v1.delete("sessions") { request, context in try await endSession(request, context) }
        v1.put("accounts/password") { request, context in try await changePassword(request, context) }
        v1.delete("accounts/sessions") { request, context in try await endAllSessions(request, context) }
        v1.post("devices") { request, context in try await bindDevice(request, context) }
        v1.post("devices/attest-challenges") { request, context in try await createAttestChallenge(request, context) }
        v1.delete("devices/:id") { request, context in try await deleteDevice(request, context) }
        v1.post("challenges") { request, context in try await createChallenge(request, context) }
        v1.post("logins") { request, context in try await signatureLogin(request, context) }
        v1.post("logins/token") { request, context in try await tokenLogin(request, context) }
        // A known path with another method is 405 with `Allow`, not 404: the client has the
        // right address and the wrong verb. OPTIONS answers 204 with the same `Allow`.
        for (path, allowed) in Self.routes {
            let advertised = Self.advertised(allowed)
            let list = advertised.map(\.rawValue).joined(separator: ", ")
            router.on(RouterPath(path), method: .options) { _, _ -> Response in
                Response(status: .noContent, headers: [.allow: list])
            }
            for method in [HTTPRequest.Method.get, .head, .post, .put, .patch, .delete] where !advertised.contains(method) {
                router.on(RouterPath(path), method: method) { _, _ -> Response in throw APIError.methodNotAllowed(advertised) }
            }
        }
    }

    /// The methods a path answers as `Allow` lists them: its own, HEAD beside GET, and OPTIONS.
    static func advertised(_ allowed: [HTTPRequest.Method]) -> [HTTPRequest.Method] {
        var methods = allowed
        if let get = methods.firstIndex(of: .get) { methods.insert(.head, at: get + 1) }
        return methods + [.options]
    }

    /// Every path and the methods it answers (kept beside the routes above; a test checks
    /// that each is served).
    static let routes: [(String, [HTTPRequest.Method])] = [
        ("/health", [.get]), ("/health/ready", [.get]), ("/metrics", [.get]), ("/v1/accounts", [.post]), ("/v1/sessions", [.post, .delete]), ("/v1/devices", [.get, .post]),
        ("/v1/devices/:id", [.delete]), ("/v1/challenges", [.post]), ("/v1/logins", [.post]), ("/v1/logins/token", [.post]),
        ("/v1/accounts/password", [.put]), ("/v1/accounts/sessions", [.delete]), ("/v1/devices/attest-challenges", [.post]),
    ]

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

    /// Throws 429 with `Retry-After` when `key` has `limit` failures in the window: the quick
    /// refusal while a limit is reached. It decides nothing under concurrency (the count may
    /// change right after); ``recordAttempt(_:_:uncountIfRefused:message:)`` does.
    func checkRateLimit(_ key: String, limit: Int, message: String = APIError.tooManyFailures) async throws {
        let now = clock.now()
        let window = configuration.failureWindow.timeInterval
        let (count, oldest) = try await repository.failures(key: key, since: now.addingTimeInterval(-window))
        try enforceRateLimit(failures: count, oldest: oldest, now: now, limit: limit, message: message)
    }

    /// Records this request as a failure under each key, then judges it against the failures
    /// recorded before it: 429 with `Retry-After` when a key had its limit already. Recorded
    /// first, so of requests made at once no more than a limit's worth get through, on either
    /// backend and across servers. A request refused here is uncounted (it was never tried)
    /// unless `uncountIfRefused` is false (account creation counts every attempt).
    func recordAttempt(_ limits: [(key: String, limit: Int)], _ context: LoginRequestContext, uncountIfRefused: Bool = true,
                       message: String = APIError.tooManyFailures) async throws -> RecordedAttempt {
        let now = clock.now()
        let window = configuration.failureWindow
        let attempt = try await repository.recordAttempt(keys: limits.map(\.key), at: now,
                                                         since: now.addingTimeInterval(-window.timeInterval), window: window)
        do {
            for (limit, earlier) in zip(limits, attempt.earlier) {
                try enforceRateLimit(failures: earlier.count, oldest: earlier.oldest, now: now, limit: limit.limit, message: message)
            }
        } catch {
            if uncountIfRefused { await uncount(attempt, context) }
            throw error
        }
        return attempt
    }

    /// Whether `password` matches `stored`, checked as every password is: the attempt is counted
    /// as a failure under `limits` before the hash runs (429 past them), and uncounted when the
    /// password is right or the hash could not run (no hashing slot: 503).
    func verifyPassword(_ password: String, against stored: String, countingUnder limits: [(key: String, limit: Int)],
                        _ context: LoginRequestContext) async throws -> Bool {
        let attempt = try await recordAttempt(limits, context)
        let hasher = self.hasher
        let matches: Bool
        do {
            matches = try await hashPassword { hasher.verify(password, against: stored) }
        } catch {
            await uncount(attempt, context)
            throw error
        }
        if matches { await uncount(attempt, context) }
        return matches
    }

    /// Removes `attempt`'s failures (it succeeded, or was never tried). When the database does
    /// not answer, they stay counted: the safe side, logged.
    func uncount(_ attempt: RecordedAttempt, _ context: LoginRequestContext) async {
        do {
            try await repository.releaseAttempt(attempt)
        } catch {
            context.logger.warning("an attempt could not be uncounted; it counts as a failure", metadata: ["error": .string("\(error)")])
        }
    }

    /// Throws 429 with `Retry-After` when `failures` (in the window ending `now`) reach `limit`.
    func enforceRateLimit(failures count: Int, oldest: Date?, now: Date, limit: Int,
                          message: String = APIError.tooManyFailures) throws {
        let window = configuration.failureWindow.timeInterval
        guard count >= limit else { return }
        let freeAt = (oldest ?? now).addingTimeInterval(window)
        let seconds = max(1, Int(freeAt.timeIntervalSince(now).rounded(.up)))
        throw APIError(.tooManyRequests, "rate_limited", message, retryAfter: seconds)
    }

    // MARK: Devices

    struct BindRequest: Decodable {
        var kind: DeviceKind
        var publicKey: String?
        var deviceToken: String?
        var name: String?
        /// `appattest`: the key id, the attestation object and the binding challenge, base64.
        var keyID: String?
        var attestation: String?
        var challenge: String?
    }

    func bindDevice(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let profileID = try await authenticatedProfile(request)
        let body = try await decode(BindRequest.self, from: request)
        let name = body.name ?? ""
        // Bytes are bounded too: a character can carry any number of combining marks, and
        // every device list repeats the name.
        guard name.count <= 100, name.utf8.count <= 400, Self.isAcceptableDeviceName(name) else {
            throw APIError.badRequest("invalid_name",
                                      "A device name is at most 100 characters and 400 bytes (UTF-8), without control or format characters.")
        }
        if configuration.requireAppAttest, body.kind != .appattest {
            throw APIError.badRequest("app_attest_required", "This server binds only App Attest keys: kind must be \"appattest\".")
        }
        let credential: [UInt8]
        let publicKey: [UInt8]?
        var receipt: [UInt8]?
        switch body.kind {
        case .key:
            guard let text = body.publicKey else { throw APIError.badRequest("malformed_request", "The field 'publicKey' is missing.") }
            guard let bytes = Self.canonicalBase64(text), bytes.count == 65,
                  (try? P256.Signing.PublicKey(x963Representation: bytes)) != nil
            else {
                throw APIError.badRequest("invalid_public_key", "publicKey must be a base64 65-byte X9.63 P-256 public key.")
            }
            publicKey = Array(bytes)
            credential = credentialHash(kind: .key, bytes: Array(bytes))
        case .token:
            guard let text = body.deviceToken else { throw APIError.badRequest("malformed_request", "The field 'deviceToken' is missing.") }
            guard let bytes = Self.canonicalBase64(text), bytes.count >= 32, bytes.count <= 1024 else {
                throw APIError.badRequest("invalid_device_token", "deviceToken must be base64 of 32 to 1024 random bytes.")
            }
            publicKey = nil
            credential = credentialHash(kind: .token, bytes: Array(bytes))
        case .appattest:
            let attested = try await verifyAttestation(body, profileID: profileID, context)
            publicKey = Array(attested.publicKey)
            credential = credentialHash(kind: .appattest, bytes: Array(attested.keyID))
            receipt = Array(attested.receipt)
        }
        let device = DeviceRecord(
            deviceID: UUID().uuidString.lowercased(), profileID: profileID, kind: body.kind, name: name,
            credentialHash: credential, publicKey: publicKey, createdAt: clock.now(), lastUsedAt: nil,
            signCount: body.kind == .appattest ? 0 : nil, receipt: receipt
        )
        do {
            try await repository.createDevice(device)
        } catch RepositoryError.duplicate {
            throw APIError(.conflict, "device_bound", "That device is already bound to an account.")
        }
        context.logger.info("device bound", metadata: [
            "profileID": .string(profileID), "deviceID": .string(device.deviceID), "kind": .string(device.kind.rawValue),
        ])
        return try json(["deviceID": device.deviceID], status: .created)
    }

    /// Checks an `appattest` binding: the one-use challenge this profile asked for (spent here
    /// whatever follows), then the attestation, every step Apple documents (REFERENCE §12)
    /// against the configured roots, with clientDataHash = SHA-256 of the challenge's bytes.
    func verifyAttestation(_ body: BindRequest, profileID: String, _ context: LoginRequestContext) async throws -> AppAttestVerifier.AttestedKey {
        guard let verifier = configuration.appAttest else { throw APIError.appAttestNotConfigured }
        guard let keyText = body.keyID, let attestationText = body.attestation, let challengeText = body.challenge else {
            throw APIError.badRequest("malformed_request", "An appattest device needs 'keyID', 'attestation' and 'challenge'.")
        }
        guard let keyID = Self.canonicalBase64(keyText), keyID.count == 32,
              let attestation = Self.canonicalBase64(attestationText), let challenge = Self.canonicalBase64(challengeText),
              challenge.count == 32
        else {
            throw APIError.badRequest("invalid_base64", "keyID (32 bytes), attestation and challenge (32 bytes) must be standard base64.")
        }
        guard try await repository.consumeAttestChallenge(hash: sha256(challenge), profileID: profileID, now: clock.now()) else {
            throw APIError.badRequest("invalid_challenge",
                                      "The challenge is unknown, used, expired or another account's: ask POST /v1/devices/attest-challenges for a new one.")
        }
        do {
            return try verifier.verifyAttestation(attestation, keyID: keyID, clientDataHash: Data(SHA256.hash(data: challenge)),
                                                  now: clock.now())
        } catch {
            context.logger.notice("attestation refused", metadata: ["profileID": .string(profileID), "step": .string(error.step.rawValue)])
            throw APIError.badRequest("invalid_attestation", "The attestation failed the \(error.step.rawValue) check: \(error.detail)")
        }
    }

    /// `POST /v1/devices/attest-challenges`: a one-use challenge (60 s) to attest a key with.
    func createAttestChallenge(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let profileID = try await authenticatedProfile(request)
        guard configuration.appAttest != nil else { throw APIError.appAttestNotConfigured }
        let challenge = randomBytes(32)
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(configuration.challengeLifetime.timeInterval)
        try await repository.createAttestChallenge(hash: sha256(challenge), profileID: profileID, expiresAt: expiresAt, now: now)
        return try json(ChallengeResponse(challenge: Data(challenge).base64EncodedString(), expiresAt: expiresAt))
    }

    struct DeviceList: Encodable {
        struct Device: Encodable {
            var deviceID: String
            var kind: DeviceKind
            var name: String
            var createdAt: Date
            var lastUsedAt: Date?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(deviceID, forKey: .deviceID)
                try container.encode(kind, forKey: .kind)
                try container.encode(name, forKey: .name)
                try container.encode(createdAt, forKey: .createdAt)
                try container.encode(lastUsedAt, forKey: .lastUsedAt)  // null when never used
            }

            enum CodingKeys: String, CodingKey { case deviceID, kind, name, createdAt, lastUsedAt }
        }

        var devices: [Device]
    }

    func listDevices(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let profileID = try await authenticatedProfile(request)
        let devices = try await repository.devices(profileID: profileID).map {
            DeviceList.Device(deviceID: $0.deviceID, kind: $0.kind, name: $0.name, createdAt: $0.createdAt, lastUsedAt: $0.lastUsedAt)
        }
        return try json(DeviceList(devices: devices))
    }

    func deleteDevice(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let profileID = try await authenticatedProfile(request)
        guard let id = context.parameters.get("id").map(Self.deviceID), id.utf8.count <= 64,
              try await repository.deleteDevice(id: id, profileID: profileID)
        else { throw APIError(.notFound, "unknown_device", "No such device on this account.") }
        context.logger.info("device unbound", metadata: ["profileID": .string(profileID), "deviceID": .string(id)])
        return Response(status: .noContent)
    }

    // MARK: Challenges and logins

    struct ChallengeRequest: Decodable {
        var deviceID: String
    }

    struct ChallengeResponse: Encodable {
        var challenge: String
        var expiresAt: Date
    }

    /// A device ID as stored: the server issues lowercase UUIDs, and a UUID is the same in
    /// either case (RFC 9562 §4), so an uppercase copy names the same device.
    static func deviceID(_ text: String) -> String {
        UUID(uuidString: text) != nil ? text.lowercased() : text
    }

    func createChallenge(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        var body = try await decode(ChallengeRequest.self, from: request)
        body.deviceID = Self.deviceID(body.deviceID)
        let challenge = randomBytes(32)
        let now = clock.now()
        let expiresAt = now.addingTimeInterval(configuration.challengeLifetime.timeInterval)
        guard body.deviceID.utf8.count <= 64,
              try await repository.createChallenge(hash: sha256(challenge), deviceID: body.deviceID, expiresAt: expiresAt, now: now,
                                                   requestedBy: context.remoteAddress)
        else {
            throw APIError(.notFound, "unknown_device", "No signing device with that ID is bound.")
        }
        return try json(ChallengeResponse(challenge: Data(challenge).base64EncodedString(), expiresAt: expiresAt))
    }

    struct SignatureLogin: Decodable {
        var deviceID: String
        var challenge: String
        /// A `key` device's DER signature over the challenge.
        var signature: String?
        /// An `appattest` device's assertion over SHA-256 of the challenge.
        var assertion: String?
    }

    func signatureLogin(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        var body = try await decode(SignatureLogin.self, from: request)
        body.deviceID = Self.deviceID(body.deviceID)
        guard (body.signature == nil) != (body.assertion == nil) else {
            throw APIError.badRequest("malformed_request", "Give 'signature' (a key device) or 'assertion' (an appattest device).")
        }
        guard let challenge = Self.canonicalBase64(body.challenge), let signature = Self.canonicalBase64(body.signature ?? body.assertion ?? "")
        else {
            throw APIError.badRequest("invalid_base64", "challenge and signature (or assertion) must be standard base64.")
        }
        let addressKey = "address:" + context.remoteAddress
        let now = clock.now()
        let wellFormed = body.deviceID.utf8.count <= 64 && challenge.count == 32
        // One read brings the device's key and the address's failure count.
        let device: DeviceRecord?
        if wellFormed {
            let check = try await repository.loginCheck(
                deviceID: body.deviceID, failureKey: addressKey, since: now.addingTimeInterval(-configuration.failureWindow.timeInterval)
            )
            try enforceRateLimit(failures: check.failures, oldest: check.oldestFailure, now: now, limit: configuration.addressFailureLimit)
            device = check.device
        } else {
            try await checkRateLimit(addressKey, limit: configuration.addressFailureLimit)
            device = nil
        }

        // The signature is checked against the bound key before anything is written. Either
        // way the challenge is consumed: a good signature redeems it in one transaction that
        // deletes it and, only if that delete removed it, starts the session, so of two
        // concurrent logins with one challenge at most one wins; a forged attempt burns it too.
        var signCount: UInt32?
        let kind: LoginMetrics.LoginKind = body.assertion != nil ? .appattest : .signature
        // nil: verified; else why not (for the metrics; the client gets one answer).
        let failure: LoginMetrics.FailureReason? = device.map { device -> LoginMetrics.FailureReason? in
            if device.kind == .appattest {
                // The assertion over SHA-256 of the challenge's bytes, by the attested key, with
                // a counter above the stored one (checked again where it is stored).
                guard body.assertion != nil, let verifier = configuration.appAttest, let keyBytes = device.publicKey,
                      let previous = device.signCount
                else { return .badSignature }
                do {
                    signCount = try verifier.verifyAssertion(signature, clientDataHash: Data(SHA256.hash(data: challenge)),
                                                             publicKey: Data(keyBytes), previousCounter: previous)
                    return nil
                } catch let error as AppAttestVerificationError where error.step == .counterMismatch {
                    // docs/SERVER.md: a counter that does not grow is a cloned key or a replay.
                    context.logger.warning("App Attest counter did not grow: a cloned key or a replayed assertion", metadata: [
                        "deviceID": .string(device.deviceID), "profileID": .string(device.profileID),
                    ])
                    return .counterNotIncreased
                } catch {
                    return .badSignature
                }
            }
            guard device.kind == .key, body.signature != nil, let keyBytes = device.publicKey,
                  let key = try? P256.Signing.PublicKey(x963Representation: keyBytes),
                  let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature),
                  // DER has one encoding per value: integers padded with extra zero bytes (which
                  // the parser accepts) are refused, so one signature has one spelling.
                  parsed.derRepresentation == signature,
                  key.isValidSignature(parsed, for: challenge)
            else { return .badSignature }
            return nil
        } ?? .unknownDevice
        let challengeHash = sha256(challenge)
        if failure == nil, let device {
            let token = randomBytes(32)
            let expiresAt = now.addingTimeInterval(configuration.sessionLifetime.timeInterval)
            if let profileID = try await repository.redeemChallenge(
                hash: challengeHash, deviceID: device.deviceID, now: now, sessionTokenHash: sha256(token), sessionExpiresAt: expiresAt,
                signCount: signCount
            ) {
                metrics.loggedIn(kind)
                context.logger.info("signature login", metadata: ["profileID": .string(profileID), "deviceID": .string(device.deviceID)])
                return try json(SessionResponse(token: Data(token).base64EncodedString(), profileID: profileID, expiresAt: expiresAt))
            }
            if signCount != nil {
                // A valid assertion that opened nothing: its challenge was spent, or a concurrent
                // assertion stored this counter or a higher one first (a replay, a cloned key).
                context.logger.warning("App Attest assertion refused: challenge spent or counter taken by another assertion", metadata: [
                    "deviceID": .string(device.deviceID), "profileID": .string(device.profileID),
                ])
            }
        } else if wellFormed {
            _ = try await repository.consumeChallenge(hash: challengeHash, deviceID: body.deviceID, now: now)
        }
        metrics.loginFailed(kind, failure ?? .challengeSpent)
        // Recorded, then judged against the failures before it: of failures at once, no more
        // than the limit's worth are answered 401, the rest 429.
        _ = try await recordAttempt([(addressKey, configuration.addressFailureLimit)], context, uncountIfRefused: false)
        context.logger.notice("signature login failed", metadata: [
            // Only an ID of the form the server issues is logged: a client's text could hold a
            // new line and forge a log line.
            "deviceID": .string(UUID(uuidString: body.deviceID) != nil ? body.deviceID : "(not a device ID)"),
            "address": .string(context.remoteAddress),
        ])
        throw APIError.loginFailed
    }

    struct TokenLogin: Decodable {
        var deviceToken: String
    }

    func tokenLogin(_ request: Request, _ context: LoginRequestContext) async throws -> Response {
        let body = try await decode(TokenLogin.self, from: request)
        guard let token = Self.canonicalBase64(body.deviceToken) else {
            throw APIError.badRequest("invalid_base64", "deviceToken must be standard base64.")
        }
        let addressKey = "address:" + context.remoteAddress
        try await checkRateLimit(addressKey, limit: configuration.addressFailureLimit)
        let presented = credentialHash(kind: .token, bytes: Array(token))
        // The lookup is by hash (an attacker learns nothing from its timing without a SHA-256
        // preimage); the final comparison is constant-time all the same.
        guard token.count >= 32, token.count <= 1024,
              let device = try await repository.device(credentialHash: presented), device.kind == .token,
              constantTimeEqual(device.credentialHash, presented)
        else {
            metrics.loginFailed(.token, .unknownDevice)
            // As for signature logins: recorded, then judged (401 within the limit, else 429).
            _ = try await recordAttempt([(addressKey, configuration.addressFailureLimit)], context, uncountIfRefused: false)
            context.logger.notice("token login failed", metadata: ["address": .string(context.remoteAddress)])
            throw APIError.loginFailed
        }
        let session: SessionResponse
        do {
            session = try await startSession(profileID: device.profileID, deviceID: device.deviceID)
        } catch let error as APIError {
            metrics.loginFailed(.token, .unknownDevice)  // deleted meanwhile
            throw error
        }
        metrics.loggedIn(.token)
        context.logger.info("token login", metadata: ["profileID": .string(device.profileID), "deviceID": .string(device.deviceID)])
        return try json(session)
    }

    /// Runs slow work (a PBKDF2 hash: tens of milliseconds) on NIO's blocking thread pool, so it
    /// never holds one of the few threads that run every request's async code.
    static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }

    /// Runs a password hash off the event loops (see ``offload(_:)``), when fewer than
    /// ``LoginServerConfiguration/maxPendingPasswordHashes`` wait or run; else 503 `server_busy`
    /// at once (the thread pool's queue has no bound of its own).
    func hashPassword<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try enterHashing()
        defer { hashing.leave() }
        return try await Self.offload(work)
    }

    /// Takes a slot for one password hash (`hashing.leave()` when done), or throws 503 `server_busy`.
    func enterHashing() throws {
        guard hashing.enter() else {
            throw APIError(.serviceUnavailable, "server_busy", "The server is busy checking passwords; try again shortly.", retryAfter: 1)
        }
    }

    // MARK: Bodies

    /// Whether `name` may name a device: no control or format character, except the zero-width
    /// joiner inside an emoji sequence ("👨‍👩‍👧 iPad" is a device name people give).
    static func isAcceptableDeviceName(_ name: String) -> Bool {
        let scalars = Array(name.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where isInvisibleControl(scalar) {
            guard scalar == "\u{200D}", index > 0, index + 1 < scalars.count,
                  isPictographic(scalars[index - 1]) || scalars[index - 1] == "\u{FE0F}",
                  isPictographic(scalars[index + 1])
            else { return false }
        }
        return true
    }

    /// An emoji a joiner may join: Unicode's Emoji property holds for digits, `#`, `*`, `©` and
    /// `®` too, which are left out.
    static func isPictographic(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0xFF && scalar.properties.isEmoji
    }

    /// Control, format (bidi overrides, zero-width characters) and line or paragraph separators:
    /// what a name shown to the user must not hold.
    static func isInvisibleControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate: true
        default: false
        }
    }

    /// The bytes of `text` when it is canonical standard base64 (the padding the length needs,
    /// zero unused bits): one value has one spelling, so a token is not accepted in several.
    static func canonicalBase64(_ text: String) -> Data? {
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text else { return nil }
        return data
    }

    /// Whether the JSON text holds a string with U+0000, written `\u0000` (a raw NUL byte is
    /// not valid JSON and fails decoding). No field accepts it: SQLite would cut a bound string
    /// at it and PostgreSQL refuses it, so it is a 400 before any field is read.
    static func containsEscapedNUL(_ bytes: Data) -> Bool {
        let zero = UInt8(ascii: "0")
        var index = bytes.startIndex
        while index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            let next = bytes.index(after: index)
            if next < bytes.endIndex, bytes[next] == UInt8(ascii: "u"), bytes.distance(from: next, to: bytes.endIndex) > 4,
               bytes[(next + 1)...(next + 4)].allSatisfy({ $0 == zero }) {
                return true
            }
            index += 2  // the escaped character is never the start of another escape
        }
        return false
    }

    /// Reads at most ``LoginServerConfiguration/maxBodySize`` bytes (413 past that) and decodes
    /// them; malformed JSON and wrong types are 400.
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        // A body declared larger than the limit is refused before any of it is read (a client
        // sending `Expect: 100-continue` learns it without sending the body).
        // (A length too large for an Int is over the limit too.)
        if let declared = request.headers[.contentLength].map({ Int($0) ?? .max }), declared > configuration.maxBodySize {
            throw APIError(.contentTooLarge, "body_too_large", "The request body is larger than 64 KiB.")
        }
        let buffer = try await request.body.collect(upTo: configuration.maxBodySize)
        let data = Data(buffer: buffer)
        // A zero byte is never in UTF-8 JSON, and always in UTF-16 or UTF-32 JSON (which
        // JSONDecoder would convert, hiding an escaped NUL from the scan below): bodies are
        // UTF-8 (RFC 8259 §8.1).
        if data.contains(0) {
            throw APIError.badRequest("malformed_request", "The body must be JSON in UTF-8.")
        }
        if Self.containsEscapedNUL(data) {
            throw APIError.badRequest("malformed_request", "A string in the body holds U+0000 (NUL), which no field accepts.")
        }
        do {
            try StrictJSON.check(data)
        } catch {
            throw APIError.badRequest("malformed_request", "The body is not valid JSON (RFC 8259): \(error).")
        }
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            throw APIError.badRequest("malformed_request", Self.describe(error))
        } catch {
            throw APIError.badRequest("malformed_request", "The body is not valid JSON.")
        }
    }

    /// A client-facing description of a decoding error that never quotes the body.
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "the body" : "'\(keys)'"
        }
        switch error {
        case .keyNotFound(let key, _): return "The field '\(key.stringValue)' is missing."
        case .typeMismatch(_, let context): return "Wrong type for \(path(context))."
        case .valueNotFound(_, let context): return "A value is missing for \(path(context))."
        case .dataCorrupted(let context): return context.codingPath.isEmpty ? "The body is not valid JSON." : "Invalid value for \(path(context))."
        @unknown default: return "The body is not valid JSON."
        }
    }
}

/// A JSON response.
func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    encoder.outputFormatting = [.sortedKeys]
    let data = try encoder.encode(value)
    return Response(
        status: status,
        headers: [.contentType: "application/json; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: data))
    )
}

/// A bound on work in progress: ``enter()`` admits up to `limit` at once (each admitted one
/// calls ``leave()`` when done), and refuses the rest instead of queueing them.
final class AdmissionGate: Sendable {
    private let inProgress = Atomic<Int>(0)
    let limit: Int

    /// A gate admitting `limit` at once (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Whether the work may start; when true, ``leave()`` must follow.
    func enter() -> Bool {
        var current = inProgress.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = inProgress.compareExchange(expected: current, desired: current + 1, ordering: .acquiring)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Ends admitted work.
    func leave() {
        inProgress.subtract(1, ordering: .releasing)
    }

    /// Work admitted and not yet left.
    var count: Int { inProgress.load(ordering: .relaxed) }
}
