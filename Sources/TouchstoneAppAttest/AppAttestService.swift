import TouchstoneAppAttestFormat
import Crypto
import Foundation
import Touchstone

/// App Attest on a Touchstone device (REFERENCE §12): the Secure Enclave keys of one app, the
/// attestation objects and assertions Apple documents, byte for byte, chained to the device's
/// own test root, and the faults apps break on. `DeviceCheck`'s `DCAppAttestService` is this
/// under Apple's names.
///
/// ```swift
/// let appAttest = authenticator.appAttest
/// let keyID = try appAttest.generateKey()
/// let attestation = try appAttest.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
/// let assertion = try appAttest.generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: request)))
/// let rootPEM = try appAttest.testRootPEM()   // what a server under test trusts
/// ```
///
/// Keys are stored with the device (`appattest/key/<key id hex>`), sealed with AES-GCM under a
/// key derived from the device secret for the app; they are the app's alone and never appear
/// among its keychain keys. Each assertion's counter is stored before the assertion is signed,
/// so a crash can skip a value but never repeat one, across processes. An erase removes them.
public struct AppAttestService: Sendable {
    /// The storage namespace of App Attest's records.
    public static let namespace: RecordNamespace = "appattest"

    /// The device and app.
    public let authenticator: Authenticator

    /// App Attest for `authenticator`'s app.
    public init(_ authenticator: Authenticator) {
        self.authenticator = authenticator
    }

    private var device: Device { authenticator.device }

    /// The App ID attestations are for: `<teamID>.<app>` (the composition's `teamID`).
    public var appID: String { authenticator.composition.teamID + "." + authenticator.appID }

    /// The environment the app is signed for (the composition's `appAttestEnvironment`).
    public var environment: AppAttestEnvironment {
        authenticator.composition.appAttestEnvironment == .production ? .production : .development
    }

    /// Whether the device offers App Attest: false under the `unsupported` fault, and when the
    /// faults cannot be read (a damaged store: every call would fail).
    public var isSupported: Bool { (try? faults())?.unsupported == false }

    // MARK: Keys

    /// A key App Attest made, as the REPL lists it.
    public struct Key: Sendable, Equatable {
        /// The key id in base64, as `generateKey` returns it.
        public let id: String
        /// The public key, X9.63 (65 bytes).
        public let publicKey: Data
        /// Whether the key was attested.
        public let isAttested: Bool
        /// The last assertion's counter (0 before the first).
        public let counter: UInt32
    }

    /// Makes a new key (`generateKey`) and returns its id, base64 of SHA-256 of its public key.
    /// The key comes from the system's CSPRNG whatever the device's seed: a key derived from a
    /// seed could be rebuilt by anyone who knows it.
    public func generateKey() throws(AppAttestError) -> String {
        try requireSupported()
        let privateKey = P256.Signing.PrivateKey()
        let keyID = AppAttestDerivation.keyID(of: privateKey.publicKey)
        let stored = StoredKey(
            appID: authenticator.appID, publicKey: privateKey.publicKey.x963Representation,
            sealedPrivateKey: try seal(privateKey.rawRepresentation, keyID: keyID), counter: 0, attested: false)
        try translating { try device.storage.commit([.put(try stored.record(keyID))]) }
        return keyID.base64EncodedString()
    }

    /// This app's keys, oldest record name first.
    public func keys() throws(AppAttestError) -> [Key] {
        try translating {
            // Another app's records are not read (a damaged one is not this app's problem).
            try device.storage.list(namespace: Self.namespace, prefix: "key/").filter { $0.attributes["app"] == authenticator.appID }
                .compactMap { record -> Key? in
                let stored = try StoredKey.decode(record)
                guard stored.appID == authenticator.appID else { return nil }
                let id = Data(SHA256.hash(data: stored.publicKey)).base64EncodedString()
                return Key(id: id, publicKey: stored.publicKey, isAttested: stored.attested, counter: stored.counter)
            }
        }
    }

    // MARK: Attestation and assertions

    /// Attests `keyID` (`attestKey`): the CBOR attestation object, whose credential certificate
    /// carries SHA-256(authData ‖ `clientDataHash`) and chains to the device's test root (or,
    /// under the `unknownRoot` fault, to a root nobody trusts). A key is attested once.
    public func attestKey(_ keyID: String, clientDataHash: Data) throws(AppAttestError) -> Data {
        try requireSupported()
        let id = try Self.keyID(keyID)
        // The authority first: a damaged one fails the call before the key is marked attested.
        let deviceAuthority = try translating { try TestCertificateAuthority.device(device) }
        let (stored, fault) = try translating {
            try device.storage.transaction { transaction -> (StoredKey, AttestFault) in
                let stored = try self.stored(id, in: transaction)
                guard !stored.attested else { throw AppAttestError(.invalidKey, "the key \(keyID) is attested already; make a new key to attest again") }
                var faults = try Self.faults(in: transaction)
                let fault: AttestFault
                if faults.serverUnavailable > 0 {
                    faults.serverUnavailable -= 1
                    fault = .serverUnavailable
                } else if faults.unknownRoot > 0 {
                    faults.unknownRoot -= 1
                    fault = .unknownRoot
                } else {
                    fault = .none
                }
                if fault != .none { transaction.put(try Self.record(of: faults)) }
                if fault != .serverUnavailable {
                    var attested = stored
                    attested.attested = true
                    transaction.put(try attested.record(id))
                }
                return (stored, fault)
            }
        }
        if fault == .serverUnavailable {
            throw AppAttestError(.serverUnavailable, "the attestation server is unavailable (a fault asked for); retry later with the same key")
        }
        let publicKey = try translating { try P256.Signing.PublicKey(x963Representation: stored.publicKey) }
        let authenticatorData = AuthenticatorData(
            rpIDHash: AppAttestDerivation.rpIDHash(appID: appID), flags: AuthenticatorData.attestedCredentialDataFlag,
            counter: 0, credential: .init(aaguid: environment.aaguid, credentialID: id, publicKey: publicKey)
        ).encoded
        let nonce = AppAttestDerivation.nonce(authenticatorData: authenticatorData, clientDataHash: clientDataHash)
        return try translating {
            let authority = fault == .unknownRoot ? try TestCertificateAuthority.unknown() : deviceAuthority
            let certificate = try authority.credentialCertificate(for: publicKey, keyID: id, nonce: nonce)
            return AttestationObject(
                certificates: [certificate.derEncoded, authority.intermediate.derEncoded],
                receipt: Self.receipt(keyID: id), authenticatorData: authenticatorData
            ).encoded
        }
    }

    /// An assertion by the attested key `keyID` (`generateAssertion`) over `clientDataHash`:
    /// CBOR `{signature, authenticatorData}` with a counter one above the last. The counter is
    /// stored before signing. Under the `repeatedCounter` fault the previous counter is
    /// repeated; under `badSignature` the signature covers other bytes.
    public func generateAssertion(_ keyID: String, clientDataHash: Data) throws(AppAttestError) -> Data {
        try requireTeamID()
        // One read of the faults, in the transaction (an assertion is a login's hot path).
        let (id, stored, counter, badSignature) = try translating {
            try device.storage.transaction { transaction -> (Data, StoredKey, UInt32, Bool) in
                var faults = try Self.supported(Self.faults(in: transaction))
                let original = faults
                let id = try Self.keyID(keyID)
                var stored = try self.stored(id, in: transaction)
                guard stored.attested else {
                    throw AppAttestError(.invalidKey, "the key \(keyID) is not attested; attest it before asking for assertions")
                }
                let counter: UInt32
                if faults.repeatedCounter > 0, stored.counter > 0 {
                    faults.repeatedCounter -= 1
                    counter = stored.counter
                } else {
                    guard stored.counter < UInt32.max else {
                        throw AppAttestError(.invalidKey, "the key's counter is at its largest value; make a new key")
                    }
                    counter = stored.counter + 1
                    stored.counter = counter
                    transaction.put(try stored.record(id))
                }
                let badSignature = faults.badSignature > 0
                if badSignature { faults.badSignature -= 1 }
                if faults != original { transaction.put(try Self.record(of: faults)) }
                return (id, stored, counter, badSignature)
            }
        }
        // The AT flag set, with no credential data after the counter, as devices write it
        // (recorded iOS 14 assertions: flags 0x40, 37 bytes).
        let authenticatorData = AuthenticatorData(rpIDHash: AppAttestDerivation.rpIDHash(appID: appID),
                                                  flags: AuthenticatorData.attestedCredentialDataFlag, counter: counter).encoded
        var nonce = AppAttestDerivation.nonce(authenticatorData: authenticatorData, clientDataHash: clientDataHash)
        if badSignature { nonce[nonce.startIndex] ^= 0xFF }
        let privateKey = try open(stored.sealedPrivateKey, keyID: id)
        let signature = try translating { try privateKey.signature(for: nonce).derRepresentation }
        return AssertionObject(signature: signature, authenticatorData: authenticatorData).encoded
    }

    /// A DeviceCheck token (`DCDevice.generateToken`). Apple's is opaque, for Apple's server
    /// only; Touchstone's is CBOR `{appID, issued, nonce, signature}`: the App ID, the wall-clock
    /// Unix time in seconds, 16 random bytes, and a DER ECDSA P-384 SHA-384 signature by the
    /// device's test CA over the CBOR map of the other three.
    public func deviceToken() throws(AppAttestError) -> Data {
        try requireSupported()
        let issued = UInt64(max(0, Date().timeIntervalSince1970))
        var pairs: [(key: CBOR, value: CBOR)] = [
            (.text("nonce"), .bytes(device.random.bytes(16))), (.text("appID"), .text(appID)), (.text("issued"), .unsigned(issued)),
        ]
        return try translating {
            let authority = try TestCertificateAuthority.device(device)
            let signature = try authority.intermediateKey.signature(for: CBOR.map(pairs).encoded).derRepresentation
            pairs.append((.text("signature"), .bytes(signature)))
            return CBOR.map(pairs).encoded
        }
    }

    // MARK: The test root and faults

    /// The device's App Attest test root certificate (made on first use, kept with the device).
    public func testRoot() throws(AppAttestError) -> Certificate {
        try translating { try TestCertificateAuthority.device(device).root }
    }

    /// The test root in PEM, for a server's `--app-attest-root`.
    public func testRootPEM() throws(AppAttestError) -> String {
        try testRoot().pem
    }

    /// The faults set on the device.
    public func faults() throws(AppAttestError) -> AppAttestFaults {
        try translating { try Self.faults(in: device.storage.read(Self.faultsKey)) }
    }

    /// Changes the device's faults in one transaction.
    public func updateFaults(_ change: @Sendable (inout AppAttestFaults) -> Void) throws(AppAttestError) {
        try translating {
            try device.storage.transaction { transaction in
                var faults = try Self.faults(in: transaction)
                change(&faults)
                transaction.put(try Self.record(of: faults.validated()))
            }
        }
    }

    // MARK: Records

    private static let faultsKey = RecordKey(namespace, "faults")

    private enum AttestFault { case none, serverUnavailable, unknownRoot }

    private struct StoredKey: Codable {
        var appID: String
        var publicKey: Data
        var sealedPrivateKey: Data
        var counter: UInt32
        var attested: Bool

        func record(_ keyID: Data) throws -> Record {
            Record(key: StoredKey.recordKey(keyID), value: try JSONEncoder().encode(self), attributes: ["app": appID])
        }

        static func recordKey(_ keyID: Data) -> RecordKey {
            RecordKey(AppAttestService.namespace, "key/" + keyID.map { String(format: "%02x", $0) }.joined())
        }

        static func decode(_ record: Record) throws(AppAttestError) -> StoredKey {
            guard let key = try? JSONDecoder().decode(StoredKey.self, from: record.value), key.publicKey.count == 65 else {
                throw AppAttestError(.unknownSystemFailure, "the App Attest key record \(record.key) is damaged; run `touchstone store check`")
            }
            return key
        }
    }

    /// The key `keyID` of this app, as `transaction` sees it; invalidKey when there is none.
    private func stored(_ keyID: Data, in transaction: StorageTransaction) throws -> StoredKey {
        guard let record = try transaction.read(StoredKey.recordKey(keyID)) else {
            throw AppAttestError(.invalidKey, "no App Attest key \(keyID.base64EncodedString()) on this device")
        }
        let stored = try StoredKey.decode(record)
        guard stored.appID == authenticator.appID else {
            throw AppAttestError(.invalidKey, "the key \(keyID.base64EncodedString()) belongs to another app")
        }
        return stored
    }

    private static func faults(in transaction: StorageTransaction) throws -> AppAttestFaults {
        try faults(in: transaction.read(faultsKey))
    }

    private static func faults(in record: Record?) throws(AppAttestError) -> AppAttestFaults {
        guard let record else { return AppAttestFaults() }
        guard let faults = try? JSONDecoder().decode(AppAttestFaults.self, from: record.value) else {
            throw AppAttestError(.unknownSystemFailure, "the App Attest faults record is damaged; clear it with `attest fault clear`")
        }
        return try faults.validated()
    }

    private static func record(of faults: AppAttestFaults) throws -> Record {
        Record(key: faultsKey, value: try JSONEncoder().encode(faults))
    }

    /// The key id's 32 bytes; invalidInput for anything else.
    private static func keyID(_ text: String) throws(AppAttestError) -> Data {
        guard let id = AppAttestVerifier.keyID(base64: text) else {
            throw AppAttestError(.invalidInput, "'\(text)' is not a key id (base64 of 32 bytes, as generateKey returns)")
        }
        return id
    }

    /// The receipt: Touchstone cannot make Apple's (a CMS structure signed by Apple for its
    /// fraud-metric service); this marker names the key, so a server stores something real.
    private static func receipt(keyID: Data) -> Data {
        Data("touchstone-receipt-v1:".utf8) + keyID
    }

    private func requireSupported() throws(AppAttestError) {
        try requireTeamID()
        _ = try Self.supported(faults())
    }

    private func requireTeamID() throws(AppAttestError) {
        guard Composition.isTeamID(authenticator.composition.teamID) else {
            throw AppAttestError(.unknownSystemFailure, "the composition's teamID '\(authenticator.composition.teamID)' is not a team id (ten characters, A-Z and 0-9)")
        }
    }

    /// `faults`, unless they make the device unsupported (featureUnsupported).
    private static func supported(_ faults: AppAttestFaults) throws(AppAttestError) -> AppAttestFaults {
        if faults.unsupported {
            throw AppAttestError(.featureUnsupported, "App Attest is unsupported on this device (the `unsupported` fault is set)")
        }
        return faults
    }

    // MARK: Sealing

    private func sealingKey() throws -> SymmetricKey {
        try device.derivedKey(salt: "touchstone.appattest.keys.v1", info: Data(authenticator.appID.utf8))
    }

    private func seal(_ scalar: Data, keyID: Data) throws(AppAttestError) -> Data {
        try translating {
            guard let combined = try AES.GCM.seal(scalar, using: sealingKey(), authenticating: keyID).combined else {
                throw AppAttestError(.unknownSystemFailure, "sealing the key failed")
            }
            return combined
        }
    }

    private func open(_ sealed: Data, keyID: Data) throws(AppAttestError) -> P256.Signing.PrivateKey {
        do {
            let scalar = try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: sealingKey(), authenticating: keyID)
            let key = try P256.Signing.PrivateKey(rawRepresentation: scalar)
            guard AppAttestDerivation.keyID(of: key.publicKey) == keyID else { throw AppAttestError(.unknownSystemFailure, "") }
            return key
        } catch {
            throw AppAttestError(.unknownSystemFailure, "the App Attest key \(keyID.base64EncodedString()) cannot be opened on this device; its record is damaged")
        }
    }

    /// Runs `body`, turning storage and other failures into `unknownSystemFailure`.
    private func translating<T>(_ body: () throws -> T) throws(AppAttestError) -> T {
        do {
            return try body()
        } catch let error as AppAttestError {
            throw error
        } catch {
            throw AppAttestError(.unknownSystemFailure, "\(error)")
        }
    }
}

extension Authenticator {
    /// App Attest for this app on this device.
    public var appAttest: AppAttestService { AppAttestService(self) }
}
