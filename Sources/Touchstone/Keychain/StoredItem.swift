import Crypto
import Foundation

/// What the shared protection rules (``Keychain/enforce(_:storedAt:context:reason:)``) read of
/// a stored item or key.
protocol ProtectedRecord: Sendable {
    var accessibility: Accessibility { get }
    var flags: AccessControlFlags { get }
    /// The enrolled-set hash at creation (biometryCurrentSet only).
    var enrolledSetHash: Data? { get }
    /// The device's enrollment-change count at creation (biometryCurrentSet only).
    var enrollmentSequence: Int? { get }
}

/// The stored form of an item (record `keychain/<app>/<class>/<service>/<account>`).
struct StoredItem: Codable, Sendable, Equatable, ProtectedRecord {
    var itemClass: KeychainItemClass
    var service: String
    var account: String
    var accessibility: Accessibility
    var flags: AccessControlFlags
    /// The enrolled-set hash at creation (biometryCurrentSet only).
    var enrolledSetHash: Data?
    /// The device's enrollment-change count at creation (biometryCurrentSet only). Any change
    /// since invalidates the item for good, even one undone later (add a finger, remove it).
    var enrollmentSequence: Int?
    /// The value, or an AES-GCM sealed box (nonce, ciphertext, tag) when `salt` is set.
    var value: Data
    /// HKDF salt of the application-password key; nil when the value is not sealed.
    var salt: Data?
    /// Descriptive attributes (labels, comments, ports...); nil when none.
    var attributes: [String: KeychainAttributeValue]?
    /// When the item was added (nil in records written before dates were kept).
    var created: Timestamp?
    /// When the item was last changed.
    var modified: Timestamp?
    /// The item's place in the order of adds (see ``KeychainItemInfo/insertionOrder``).
    var order: UInt64?
    /// True for an item added without a value (`value` is then empty); nil otherwise.
    var valueless: Bool?

    var accessControl: AccessControl {
        AccessControl(validated: accessibility, flags: flags)
    }

    func sameProtection(as other: StoredItem) -> Bool {
        flags == other.flags && accessibility == other.accessibility && enrolledSetHash == other.enrolledSetHash
            && enrollmentSequence == other.enrollmentSequence
    }

    func record(key: RecordKey, appID: String) -> Record {
        Record(key: key, value: json(), attributes: [
            "app": appID, "class": itemClass.rawValue, "service": service, "account": account,
            "accessible": accessibility.rawValue, "access": String(flags.rawValue),
        ])
    }

    static func decode(_ record: Record) throws -> StoredItem {
        if let item = StoredItem(fastJSON: record.value) { return item }
        do {
            return try RecordCoding.decoder.decode(StoredItem.self, from: record.value)
        } catch {
            // Never echo the decoder's message: it may quote stored bytes.
            throw KeychainError(.corrupt, message: "stored item '\(record.key.name)' cannot be decoded")
        }
    }

    private static let info = Data("touchstone.keychain.application-password.v1".utf8)

    private static func key(credential: Data, salt: Data) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: credential), salt: salt, info: info, outputByteCount: 32)
    }

    /// Seals `plaintext` under the application password, bound to the item's name.
    mutating func seal(_ plaintext: Data, credential: Data, aad: String) throws {
        var saltBytes = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in saltBytes.indices { saltBytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        let salt = Data(saltBytes)
        do {
            let box = try AES.GCM.seal(plaintext, using: Self.key(credential: credential, salt: salt), authenticating: Data(aad.utf8))
            guard let combined = box.combined else { throw KeychainError(.storageFailure, message: "sealing failed") }
            value = combined
            self.salt = salt
        } catch let error as KeychainError {
            throw error
        } catch {
            throw KeychainError(.storageFailure, message: "sealing the item failed")
        }
    }

    /// The plaintext value; for sealed items, opened with `credential`.
    func open(credential: Data?, aad: String) throws -> Data {
        guard let salt else { return value }
        guard let credential else {
            throw KeychainError(.authenticationFailed, message: "the item needs the application password")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: value)
            return try AES.GCM.open(box, using: Self.key(credential: credential, salt: salt), authenticating: Data(aad.utf8))
        } catch {
            throw KeychainError(.authenticationFailed, message: "wrong application password, or the item was altered")
        }
    }
}
