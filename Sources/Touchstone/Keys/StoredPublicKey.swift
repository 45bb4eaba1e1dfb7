import Crypto
import Foundation

/// A P-256 public key an app stored in its keychain (`SecItemAdd` of `kSecClassKey` with a
/// public `SecKey` as `kSecValueRef`, or its X9.63 bytes as `kSecValueData`) — a server's key,
/// or the public half of a Secure Enclave key kept under its own label. Public keys are not
/// secret: no access control, never a prompt.
public struct StoredPublicKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The app the key belongs to.
    public let appID: String
    /// The key, X9.63 uncompressed (`04 || X || Y`, 65 bytes).
    public let publicKeyData: Data
    /// `kSecAttrApplicationTag`, when given.
    public let applicationTag: Data?
    /// `kSecAttrLabel`, when given.
    public let label: String?
    /// When it was stored (device time).
    public let creationDate: Timestamp
    /// True when the item synchronizes (`kSecAttrSynchronizable`); nil (absent from records)
    /// when it does not.
    let synchronizable: Bool?

    /// Whether the key's keychain item synchronizes (`kSecAttrSynchronizable` true when it was
    /// stored); a lookup that does not name it does not find such a key, as on iOS.
    public var isSynchronizable: Bool { synchronizable ?? false }

    /// `kSecAttrApplicationLabel`: the SHA-1 of the public key, as Apple computes it for EC keys.
    public var applicationLabel: Data { Data(Insecure.SHA1.hash(data: publicKeyData)) }

    /// `public key 1a2b… tag=… label=…`.
    public var description: String {
        var text = "public key \(applicationLabel.hexString.prefix(16))"
        if let applicationTag { text += " tag=\(String(data: applicationTag, encoding: .utf8) ?? applicationTag.hexString)" }
        if let label { text += " label=\(label)" }
        return text
    }
}

extension KeyStore {
    /// Stores a P-256 public key (65-byte X9.63) with `tag` and `label`, as an item that
    /// synchronizes when `synchronizable`; errSecParam when the bytes are not a P-256 public
    /// key, errSecDuplicateItem when this app stored it already. Never prompts.
    @discardableResult
    public func storePublicKey(_ publicKeyData: Data, tag: Data? = nil, label: String? = nil,
                               synchronizable: Bool = false) throws -> StoredPublicKey {
        guard (try? P256.Signing.PublicKey(x963Representation: publicKeyData)) != nil else {
            throw KeychainError(.invalidParameter, message: "not a P-256 public key in X9.63 form (65 bytes)")
        }
        let key = StoredPublicKey(appID: authenticator.appID, publicKeyData: Data(publicKeyData), applicationTag: tag,
                                  label: label, creationDate: authenticator.device.clock.now,
                                  synchronizable: synchronizable ? true : nil)
        let record = try publicRecord(of: key)
        try authenticator.keychain.translatingErrors {
            try authenticator.device.storage.transaction { transaction in
                if try transaction.read(record.key) != nil {
                    throw KeychainError(.duplicateItem, message: "the public key is stored already")
                }
                transaction.put(record)
            }
        }
        return key
    }

    /// The public keys this app stored with `tag` and / or `label` (all when both are nil),
    /// oldest first.
    public func publicKeys(tag: Data? = nil, label: String? = nil) throws -> [StoredPublicKey] {
        try authenticator.keychain.translatingErrors {
            try authenticator.device.storage.list(namespace: Self.namespace, prefix: Self.publicPrefix(authenticator.appID))
                .map(Self.decodePublic)
                .filter { key in (tag.map { $0 == key.applicationTag } ?? true) && (label.map { $0 == key.label } ?? true) }
                .sorted { ($0.creationDate, $0.applicationLabel.hexString) < ($1.creationDate, $1.applicationLabel.hexString) }
        }
    }

    /// Deletes a stored public key; errSecItemNotFound when it is not stored. Never prompts.
    public func deletePublicKey(_ key: StoredPublicKey) throws {
        let recordKey = publicRecordKey(key.publicKeyData)
        try authenticator.keychain.translatingErrors {
            try authenticator.device.storage.transaction { transaction in
                guard try transaction.read(recordKey) != nil else { throw KeychainError(.itemNotFound) }
                transaction.delete(recordKey)
            }
        }
    }

    // MARK: Records

    /// `keys/<app>/public/<application label hex>`: beside the app's private keys
    /// (`keys/<app>/<hex>`), which ``keys(tag:label:includingInvalidated:)`` tells apart by the
    /// extra path part.
    static func publicPrefix(_ appID: String) -> String {
        Keychain.escape(appID) + "/public/"
    }

    private func publicRecordKey(_ publicKeyData: Data) -> RecordKey {
        RecordKey(Self.namespace, Self.publicPrefix(authenticator.appID) + Data(Insecure.SHA1.hash(data: publicKeyData)).hexString)
    }

    private func publicRecord(of key: StoredPublicKey) throws -> Record {
        do {
            return Record(key: publicRecordKey(key.publicKeyData), value: try RecordCoding.encoder.encode(key),
                          attributes: ["app": key.appID, "class": "public"])
        } catch {
            throw KeychainError(.storageFailure, message: "the public key could not be encoded")
        }
    }

    private static func decodePublic(_ record: Record) throws -> StoredPublicKey {
        do {
            return try RecordCoding.decoder.decode(StoredPublicKey.self, from: record.value)
        } catch {
            throw KeychainError(.corrupt, message: "stored public key '\(record.key.name)' cannot be decoded")
        }
    }
}
