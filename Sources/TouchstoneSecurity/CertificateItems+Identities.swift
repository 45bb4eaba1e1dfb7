#if !canImport(Darwin)
import Foundation
import Touchstone

/// Identities: a stored certificate joined to the stored private key whose application label
/// is the certificate's public key hash (`SecItemDb.c`'s identity join), and the calls that take
/// an identity apart into its certificate and its key (`SecItem.m`'s `explode_identity`).
extension CertificateItems {
    /// A stored certificate and its private key.
    struct IdentityMatch {
        let certificate: Found
        var key: SecKey
        let keyAttributes: [String: Any]
        /// The stored P-256 key (Secure Enclave or software), or nil for a stored RSA, P-384 or
        /// P-521 key, whose bytes are ``inMemoryKeyBytes``.
        let enclaveKey: EnclaveKey?
        let inMemoryKeyBytes: Data?
        /// Whether the certificate's key is the private key's public half: only then does the
        /// pair make a `SecIdentity`, as on iOS.
        let keyMatchesCertificate: Bool

        init(certificate: Found, key: SecKey, keyAttributes: [String: Any], enclaveKey: EnclaveKey? = nil, inMemoryKeyBytes: Data? = nil) {
            self.certificate = certificate
            self.key = key
            self.keyAttributes = keyAttributes
            self.enclaveKey = enclaveKey
            self.inMemoryKeyBytes = inMemoryKeyBytes
            let certificateKey = certificate.certificate?.publicKey.flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? }
            keyMatchesCertificate = certificateKey != nil
                && certificateKey == SecKeyCopyPublicKey(key).flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? }
        }

        /// The stored key when its access control guards its item: a lookup that returns the
        /// identity opens it (``KeyItems/accessControlGuardsItem(_:)``).
        var guardedKey: EnclaveKey? {
            enclaveKey.flatMap { KeyItems.accessControlGuardsItem($0) ? $0 : nil }
        }

        /// Whether the identity has data to give: its key's, as a lookup of the key gives them
        /// (``KeyItems/givesItemData(_:)``; a Secure Enclave key has none).
        var givesKeyData: Bool {
            enclaveKey.map(KeyItems.givesItemData) ?? true
        }

        /// The identity's data: its key's item data (iOS's identity join gives the key row's
        /// data, ``KeyItems/itemData(of:)``); nil when it has none.
        func keyData() throws -> Data? {
            enclaveKey == nil ? inMemoryKeyBytes : try KeyItems.itemData(of: key)
        }
    }

    /// The persistent reference of the identity of the stored certificate of `account`.
    static func identityReference(_ account: String) -> KeychainQuery.PersistentReference {
        KeychainQuery.PersistentReference(itemClass: .certificate, service: service, account: account, isIdentity: true)
    }

    /// The identities `query` selects: each stored certificate it matches (by label, issuer,
    /// serial number, subject key identifier and the match keys) with the stored private key
    /// whose application label is the certificate's public key hash.
    static func identities(_ query: CertificateQuery, on authenticator: Authenticator) throws -> [IdentityMatch] {
        // As iOS's join exposes them, only these certificate columns filter an identity.
        let filtering = query.attributes.filter {
            [kSecAttrLabel, kSecAttrIssuer, kSecAttrSerialNumber, kSecAttrSubjectKeyID].map { $0 as String }.contains($0.key)
        }
        // As iOS's join exposes the key's `sync` column, not the certificate's: the key's
        // synchronizability is what the query's kSecAttrSynchronizable (absent: false) filters.
        let everyKey = try KeyQuery([kSecAttrKeyClass as String: kSecAttrKeyClassPrivate as String,
                                     kSecAttrSynchronizable as String: kSecAttrSynchronizableAny as String])
        let enclaveKeys = try authenticator.keys.keys().filter {
            !($0.applicationTag?.starts(with: frameworkKeyTagPrefix) ?? false) && query.synchronizable.allows($0.isSynchronizable)
        }
        // Our limit: an RSA, P-384 or P-521 key whose access control guards its item makes no identity.
        let inMemory = try StoredInMemoryKeys.matching(everyKey, on: authenticator, opening: nil)
            .filter { $0.key.isPrivate && query.synchronizable.allows($0.item.attributes) }
        var pairs: [IdentityMatch] = []
        for certificate in try matching(query, attributes: filtering, synchronizable: .any, on: authenticator) {
            guard case let .data(hash)? = certificate.item.attributes[kSecAttrPublicKeyHash as String] else { continue }
            if let key = enclaveKeys.first(where: { $0.applicationLabel == hash }) {
                let secKey = SecKey(.enclave(key, authenticator), context: query.context, prompt: query.prompt,
                                    failsWithoutUI: query.failsWithoutUI)
                pairs.append(IdentityMatch(certificate: certificate, key: secKey, keyAttributes: KeyQuery.attributes(of: secKey),
                                           enclaveKey: key))
            } else if let stored = inMemory.first(where: { $0.applicationLabel == hash }) {
                let secKey = SecKey(.inMemory(stored.key))
                pairs.append(IdentityMatch(certificate: certificate, key: secKey, keyAttributes: StoredInMemoryKeys.attributes(of: stored, secKey: secKey),
                                           inMemoryKeyBytes: stored.key.externalRepresentation))
            }
        }
        return pairs
    }

    /// `SecItemCopyMatching` of identities (`kSecClassIdentity`, or no class and an identity's
    /// persistent reference): each gives its `SecIdentity`, its key's data, its persistent
    /// reference, or the key's attributes with the certificate's over them and its DER as
    /// "certdata" (``ReturnedParts/shape(ref:data:persistentRef:attributes:)``).
    static func copyIdentities(_ query: CertificateQuery, _ result: UnsafeMutablePointer<CFTypeRef?>?,
                               on authenticator: Authenticator) throws -> OSStatus {
        var pairs = try identities(query, on: authenticator)
        // A lookup of references alone gives only pairs that make an identity: the others are
        // left out before the limit counts and before any of them is opened.
        if query.returns.ref, !query.returns.attributes { pairs.removeAll { !$0.keyMatchesCertificate } }
        // As a lookup of keys: an identity whose key guards its item is opened by any lookup
        // that finds it (`ks_decrypt_data`), once for all through one context; under
        // `kSecUseAuthenticationUISkip` it is left out, before the limit counts.
        if query.authenticationUI == .skip { pairs.removeAll { $0.guardedKey != nil } }
        pairs = query.limit.cap(pairs)
        guard !pairs.isEmpty else { return errSecItemNotFound }
        // As for keys: the data alone of an identity whose key has none to give (a Secure
        // Enclave key) is refused before anything is opened.
        if query.returns.onlyData, pairs.contains(where: { !$0.givesKeyData }) { return errSecParam }
        let guarded = pairs.compactMap(\.guardedKey)
        if !guarded.isEmpty {
            let opened = try KeyItems.authenticate(guarded, context: query.context, prompt: query.prompt,
                                                   failsWithoutUI: query.failsWithoutUI, on: authenticator)
            for index in pairs.indices {
                guard let key = pairs[index].guardedKey else { continue }
                pairs[index].key = SecKey(.enclave(key, authenticator), context: opened, prompt: query.prompt,
                                          failsWithoutUI: query.failsWithoutUI)
            }
        }
        let shaped: [AnyObject] = try pairs.compactMap { pair in
            // As iOS: no identity when the certificate's key is not the private key's public half.
            let identity = pair.certificate.certificate.flatMap { certificate in
                pair.keyMatchesCertificate ? SecIdentity(certificate: certificate, privateKey: pair.key) : nil
            }
            return query.returns.shape(ref: identity, data: query.returns.data ? try pair.keyData() : nil,
                                       persistentRef: identityReference(pair.certificate.item.account).bytes) {
                var attributes = KeyQuery.returned(pair.keyAttributes).merging(Self.attributes(of: pair.certificate)) { $1 }
                attributes[kSecClass as String] = kSecClassIdentity as String
                attributes["certdata"] = pair.certificate.der
                return attributes
            }
        }
        if query.returns.any {
            result?.pointee = query.limit.returnsArray ? shaped as NSArray : shaped.first
        }
        return errSecSuccess
    }

    // MARK: Taking an identity apart (explode_identity)

    /// The calls that take a `SecIdentity` given as `kSecValueRef` apart.
    enum IdentityOperation {
        case add, copyMatching, delete
    }

    /// `SecItemAdd`, `SecItemCopyMatching` or `SecItemDelete` with a `SecIdentity` as
    /// `kSecValueRef`, whatever `kSecClass` says, as Apple's `SecItem.m` runs them
    /// (`explode_identity`, which each runs first): the call runs for the identity's
    /// certificate (as `kSecClassCertificate`, its ref in place of the identity's) with the
    /// call's other attributes, then — when that succeeded or found nothing — for its private
    /// key (as `kSecClassKey`, giving nothing back), whose status is the call's.
    /// - An add: a certificate stored already is no failure, nor a key stored already beside a
    ///   new certificate; both stored already is errSecDuplicateItem.
    /// - A delete leaves the key when another stored certificate still has its public key hash.
    /// - The one result given is the identity's persistent reference, when the certificate's
    ///   call gave its own alone (`kSecReturnPersistentRef` and no other `kSecReturn…`): a
    ///   lookup asking for data, attributes or a ref gives nothing (dm-zharov's swift-security
    ///   expects exactly this of iOS).
    static func explode(_ identity: SecIdentity, _ attributes: CFDictionary, _ operation: IdentityOperation,
                        _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        result?.pointee = nil
        guard let partial = attributes.mutableCopy() as? NSMutableDictionary else { return errSecParam }
        func run(_ query: NSDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
            switch operation {
            case .add: SecItemAdd(query, result)
            case .copyMatching: SecItemCopyMatching(query, result)
            case .delete: SecItemDelete(query)
            }
        }
        partial[kSecClass as String] = kSecClassCertificate
        partial[kSecValueRef as String] = identity.certificate
        var certificateResult: CFTypeRef?
        var status = result == nil ? run(partial, nil) : run(partial, &certificateResult)
        let certificateWasStored = operation == .add && status == errSecDuplicateItem
        if certificateWasStored { status = errSecSuccess }
        guard status == errSecSuccess || status == errSecItemNotFound else { return status }
        if operation == .delete, isStillUsed(identity.privateKey) { return status }
        partial[kSecClass as String] = kSecClassKey
        partial[kSecValueRef as String] = identity.privateKey
        partial[kSecReturnPersistentRef as String] = false
        status = run(partial, nil)
        if operation == .add, status == errSecDuplicateItem, !certificateWasStored { status = errSecSuccess }
        if status == errSecSuccess { result?.pointee = identityReference(ofCertificateReference: certificateResult) }
        return status
    }

    /// Whether a stored certificate has `key`'s application label as its public key hash.
    private static func isStillUsed(_ key: SecKey) -> Bool {
        guard let label = SecKeyCopyAttributes(key).flatMap({ ($0 as NSDictionary)[kSecAttrApplicationLabel as String] }) else { return false }
        return SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecAttrPublicKeyHash as String: label] as CFDictionary, nil)
            == errSecSuccess
    }

    /// The identity's persistent reference for `certificateResult`, when that is a certificate's
    /// persistent reference (the certificate's lookup or add gave it alone); else nil.
    private static func identityReference(ofCertificateReference certificateResult: CFTypeRef?) -> CFTypeRef? {
        guard let bytes = certificateResult as? Data,
              let reference = try? KeychainQuery.PersistentReference(parsing: bytes, itemClass: .certificate)
        else { return nil }
        return identityReference(reference.account).bytes as NSData
    }

    /// `SecItemDelete` of identities, as `SecItem.m` runs it, or nil when `query` names none:
    /// - an identity's persistent reference is first looked up as the identity's ref
    ///   (`explode_persistent_identity_ref`; its failure is the call's);
    /// - a `SecIdentity` as `kSecValueRef` deletes its certificate, then its key
    ///   (``explode(_:_:_:_:)``);
    /// - `kSecClassIdentity` without a ref deletes what the query selects as certificates,
    ///   then, when that succeeded, what it selects as keys.
    static func deleteIdentities(_ query: CFDictionary) -> OSStatus? {
        let identityBytes = query.object(forKey: kSecValuePersistentRef as String).flatMap(KeychainQuery.data)
            .flatMap { KeychainQuery.PersistentReference.namesIdentity($0) ? $0 : nil }
        // Every other delete goes on untouched (and uncopied).
        guard identityBytes != nil || query.object(forKey: kSecValueRef as String) is SecIdentity
                || (query.object(forKey: kSecClass as String) as? String) == kSecClassIdentity as String,
              let partial = query.mutableCopy() as? NSMutableDictionary
        else { return nil }
        if let bytes = identityBytes {
            var found: CFTypeRef?
            let status = SecItemCopyMatching([kSecReturnRef as String: true, kSecValuePersistentRef as String: bytes] as CFDictionary, &found)
            guard status == errSecSuccess else { return status }
            guard let identity = found as? SecIdentity else { return errSecItemNotFound }
            partial.removeObject(forKey: kSecValuePersistentRef as String)
            partial[kSecValueRef as String] = identity
        }
        if let identity = partial[kSecValueRef as String] as? SecIdentity { return explode(identity, partial, .delete, nil) }
        partial[kSecClass as String] = kSecClassCertificate
        let status = SecItemDelete(partial)
        guard status == errSecSuccess else { return status }
        partial[kSecClass as String] = kSecClassKey
        return SecItemDelete(partial)
    }
}
#endif
