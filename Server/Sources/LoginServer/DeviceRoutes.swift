import Crypto
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TouchstoneAppAttestFormat

/// Device binding (key, token, App Attest), listing and revocation.
extension LoginAPI {
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
}
