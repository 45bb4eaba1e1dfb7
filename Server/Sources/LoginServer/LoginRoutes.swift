import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TouchstoneAppAttestFormat

/// Challenges and device logins (signature, App Attest assertion, token).
extension LoginAPI {
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
}
