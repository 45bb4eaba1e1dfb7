#if !canImport(Darwin)
import Foundation
import Touchstone

extension KeychainQuery {
    // MARK: Persistent references

    /// A persistent reference (`kSecReturnPersistentRef`, `kSecValuePersistentRef`): opaque
    /// `Data` naming one item of this app's keychain by class, service and account, as stored.
    /// It stays valid while the item exists; renaming the item (a new service or account)
    /// makes a new one (our rule: Apple's survives a rename). A key's names where the key is
    /// kept (``KeyQuery/reference(toEnclaveKey:)`` and its siblings). An identity's names its
    /// certificate's item under the identity class, as iOS's is its certificate's row under
    /// `idnt` (`SecItem.m`'s `explode_identity`, `SecItemDb.c`'s `certpersistref`).
    struct PersistentReference: Equatable {
        static let magic = Data("TSPR".utf8)
        /// The magic, the version and class bytes, and the service's length.
        static let headerLength = magic.count + 2 + 4
        /// The class byte of an identity's reference.
        private static let identityClassByte: UInt8 = 4
        /// The class of the stored item: `.certificate` for an identity's reference.
        let itemClass: KeychainItemClass
        let service: String
        let account: String
        /// Whether the reference names the identity of its certificate item.
        let isIdentity: Bool

        init(_ item: Found) {
            (itemClass, service, account, isIdentity) = (item.itemClass, item.service, item.account, false)
        }

        init(itemClass: KeychainItemClass, service: String, account: String, isIdentity: Bool = false) {
            (self.itemClass, self.service, self.account, self.isIdentity) = (itemClass, service, account, isIdentity)
        }

        /// The class of item `bytes` refer to (`.certificate` for an identity's reference, see
        /// ``namesIdentity(_:)``); nil when they are no reference.
        static func itemClass(of bytes: Data) -> KeychainItemClass? {
            guard bytes.count >= headerLength, bytes.prefix(magic.count) == magic, bytes[bytes.startIndex + 4] == 1 else {
                return nil
            }
            switch bytes[bytes.startIndex + 5] {
            case 0: return .genericPassword
            case 1: return .internetPassword
            case 2: return .key
            case 3, identityClassByte: return .certificate
            default: return nil
            }
        }

        /// Whether `bytes` are an identity's reference.
        static func namesIdentity(_ bytes: Data) -> Bool {
            itemClass(of: bytes) != nil && bytes[bytes.startIndex + 5] == identityClassByte
        }

        /// The reference a query's `kSecValuePersistentRef` names, for a query of items of
        /// `itemClass`: nil when it names none. As iOS's securityd reads one
        /// (`SecDbQuery.c`): bytes that are no reference (or not `Data`) are errSecParam, and a
        /// reference to an item of another class is errSecNoSuchClass.
        static func named(in dictionary: [String: Any], itemClass: KeychainItemClass, identity: Bool = false) throws -> PersistentReference? {
            try dictionary[kSecValuePersistentRef as String].map { raw in
                guard let bytes = KeychainQuery.data(raw) else { throw Invalid(reason: "kSecValuePersistentRef must be Data") }
                return try PersistentReference(parsing: bytes, itemClass: itemClass, identity: identity)
            }
        }

        /// Reads `bytes` as a reference to an item of `itemClass`, or to an identity when
        /// `identity` (see ``named(in:itemClass:identity:)`` for the errors).
        init(parsing bytes: Data, itemClass: KeychainItemClass, identity: Bool = false) throws {
            let bytes = Data(bytes)
            let notAReference = Invalid(reason: "kSecValuePersistentRef is not a persistent reference")
            guard let named = Self.itemClass(of: bytes) else { throw notAReference }
            let namesIdentity = Self.namesIdentity(bytes)
            guard named == itemClass, namesIdentity == identity else {
                func spelled(_ itemClass: KeychainItemClass, _ identity: Bool) -> String { identity ? "identity" : "\(itemClass) item" }
                throw NoSuchClass(description: "kSecValuePersistentRef names a \(spelled(named, namesIdentity)), not a \(spelled(itemClass, identity))")
            }
            let header = Self.headerLength
            let length = bytes.dropFirst(6).prefix(4).reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - header,
                  let service = String(data: bytes.dropFirst(header).prefix(length), encoding: .utf8),
                  let account = String(data: bytes.dropFirst(header + length), encoding: .utf8)
            else { throw notAReference }
            (self.itemClass, self.service, self.account, isIdentity) = (itemClass, service, account, identity)
        }

        /// Whether a query naming `named` (``named(in:itemClass:)``) selects the item this
        /// reference names: every item when it names none.
        func isSelected(by named: PersistentReference?) -> Bool {
            named.map { $0 == self } ?? true
        }

        /// "TSPR", version 1, the class, the service's length (4 bytes, big-endian), service, account.
        var bytes: Data {
            let service = Data(service.utf8)
            let length = UInt32(truncatingIfNeeded: service.count)
            let classByte: UInt8 = switch itemClass {
            case .genericPassword: 0
            case .internetPassword: 1
            case .key: 2
            case .certificate: isIdentity ? Self.identityClassByte : 3
            // No SecItem call returns a framework's own records, so none is given a reference;
            // bytes of this class name a generic password, never a system record.
            case .system: 0
            }
            return Self.magic + Data([1, classByte])
                + withUnsafeBytes(of: length.bigEndian) { Data($0) } + service + Data(account.utf8)
        }
    }
}

extension KeyQuery {
    // A key's persistent reference names where it is kept: a keychain item of the stored keys'
    // service (RSA, P-384, P-521, symmetric and attribute-only keys) by its account; a Secure
    // Enclave or software P-256 private key, or a stored P-256 public key, by its public key.

    /// The place a P-256 private key's reference names.
    static let privateKeyPlace = "touchstone.keystore.private"
    /// The place a stored P-256 public key's reference names.
    static let publicKeyPlace = "touchstone.keystore.public"

    /// The persistent reference of a stored P-256 private key.
    static func reference(toEnclaveKey key: EnclaveKey) -> KeychainQuery.PersistentReference {
        KeychainQuery.PersistentReference(itemClass: .key, service: privateKeyPlace, account: key.publicKeyData.hexString)
    }

    /// The persistent reference of a stored P-256 public key.
    static func reference(toPublicKey key: StoredPublicKey) -> KeychainQuery.PersistentReference {
        KeychainQuery.PersistentReference(itemClass: .key, service: publicKeyPlace, account: key.publicKeyData.hexString)
    }

    /// The persistent reference of a key item of the stored keys' service.
    static func reference(toItem account: String) -> KeychainQuery.PersistentReference {
        KeychainQuery.PersistentReference(itemClass: .key, service: StoredInMemoryKeys.service, account: account)
    }

    /// Whether the query's `kSecValuePersistentRef`, if it names one, is `reference`.
    func referenceAllows(_ reference: KeychainQuery.PersistentReference) -> Bool {
        reference.isSelected(by: persistentRef)
    }
}
#endif
