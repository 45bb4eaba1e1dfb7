#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// Identities by persistent reference and by `SecIdentity` ref, and identity deletes, as Apple's
/// `SecItem.m` runs them (`explode_identity`, `explode_persistent_identity_ref`) over
/// `SecItemDb.c`'s identity join. (dm-zharov/swift-security's `testSecIdentity` asserts these
/// of iOS.)
@Suite("Identities by reference")
struct IdentityReferenceTests {
    /// pyca's P-256 certificate and its private key, stored; the identity's ref.
    static func storeP256Identity(certificate: SecCertificate, privateBytes: Data) -> SecIdentity? {
        _ = CertificateItemTests.add(certificate)
        _ = SecItemAdd([kSecClass as String: kSecClassKey, kSecValueData as String: privateBytes,
                        kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, nil)
        var found: CFTypeRef?
        _ = SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true] as CFDictionary, &found)
        return found.flatMap { $0 as? SecIdentity }
    }

    static func lookup(_ query: [String: Any]) -> (OSStatus, CFTypeRef?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    @Test("an identity's persistent reference (its certificate's item, under the identity class) finds that identity, with kSecClassIdentity or without: its ref, its key's data, its attributes, or all of them; a certificate or key query with it is errSecNoSuchClass; SecItemDelete with it deletes the certificate and the key")
    func identityPersistentReferenceNamesItsIdentity() async throws {
        let (certificate, privateBytes) = try CertificateItemTests.certificateAndKey("p256")
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            guard Self.storeP256Identity(certificate: certificate, privateBytes: privateBytes) != nil else { return ["no identity"] }
            let (status, found) = Self.lookup([kSecClass as String: kSecClassIdentity, kSecReturnPersistentRef as String: true])
            guard let reference = found as? Data else { return ["no reference \(status)"] }
            let certificateReference = Self.lookup([kSecClass as String: kSecClassCertificate, kSecReturnPersistentRef as String: true]).1 as? Data
            var lines = ["own reference \(certificateReference != nil && certificateReference != reference)"]
            let (refStatus, ref) = Self.lookup([kSecValuePersistentRef as String: reference, kSecReturnRef as String: true])
            lines.append("ref \(refStatus) \(ref is SecIdentity)")
            let (dataStatus, data) = Self.lookup([kSecClass as String: kSecClassIdentity, kSecValuePersistentRef as String: reference,
                                                  kSecReturnData as String: true])
            lines.append("data \(dataStatus) \((data as? Data) == privateBytes)")
            let (allStatus, all) = Self.lookup([kSecValuePersistentRef as String: reference, kSecReturnRef as String: true,
                                                kSecReturnData as String: true, kSecReturnAttributes as String: true,
                                                kSecReturnPersistentRef as String: true])
            let dictionary = all as? [String: Any] ?? [:]
            lines.append("all \(allStatus) \(dictionary[kSecValueRef as String] is SecIdentity) \((dictionary[kSecValueData as String] as? Data) == privateBytes) \((dictionary[kSecValuePersistentRef as String] as? Data) == reference) \(dictionary[kSecClass as String] as? String ?? "-") \(dictionary["certdata"] != nil)")
            lines.append("as certificate \(SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecValuePersistentRef as String: reference] as CFDictionary, nil))")
            lines.append("as key \(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecValuePersistentRef as String: reference] as CFDictionary, nil))")
            lines.append("certificate's as identity \(SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecValuePersistentRef as String: certificateReference ?? Data()] as CFDictionary, nil))")
            lines.append("delete \(SecItemDelete([kSecValuePersistentRef as String: reference] as CFDictionary))")
            lines.append("certificate \(SecItemCopyMatching([kSecClass as String: kSecClassCertificate] as CFDictionary, nil))")
            lines.append("key \(SecItemCopyMatching([kSecClass as String: kSecClassKey] as CFDictionary, nil))")
            lines.append("delete again \(SecItemDelete([kSecValuePersistentRef as String: reference] as CFDictionary))")
            return lines
        }
        #expect(lines == ["own reference true", "ref 0 true", "data 0 true", "all 0 true true true idnt true",
                          "as certificate -25306", "as key -25306", "certificate's as identity -25306",
                          "delete 0", "certificate -25300", "key -25300", "delete again -25300"])
    }

    @Test("a lookup by a SecIdentity ref runs for its certificate, then its key (explode_identity): it gives the identity's persistent reference when that alone is asked, nothing for data, attributes or a ref (errSecSuccess), and its status is the key lookup's once the certificate is gone")
    func identityRefLookupGivesOnlyItsPersistentReference() async throws {
        let (certificate, privateBytes) = try CertificateItemTests.certificateAndKey("p256")
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            guard let identity = Self.storeP256Identity(certificate: certificate, privateBytes: privateBytes) else { return ["no identity"] }
            let reference = Self.lookup([kSecClass as String: kSecClassIdentity, kSecReturnPersistentRef as String: true]).1 as? Data
            var lines: [String] = []
            let (status, found) = Self.lookup([kSecValueRef as String: identity, kSecReturnPersistentRef as String: true])
            lines.append("persistent ref \(status) \(reference != nil && (found as? Data) == reference)")
            for (name, flag) in [("data", kSecReturnData), ("attributes", kSecReturnAttributes), ("ref", kSecReturnRef)] {
                let (status, found) = Self.lookup([kSecClass as String: kSecClassIdentity, kSecValueRef as String: identity, flag as String: true])
                lines.append("\(name) \(status) \(found == nil)")
            }
            _ = SecItemDelete([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as CFDictionary)
            let (keyStatus, nothing) = Self.lookup([kSecValueRef as String: identity, kSecReturnPersistentRef as String: true])
            lines.append("certificate gone \(keyStatus) \(nothing == nil)")
            _ = SecItemDelete([kSecClass as String: kSecClassKey] as CFDictionary)
            lines.append("both gone \(SecItemCopyMatching([kSecValueRef as String: identity] as CFDictionary, nil))")
            return lines
        }
        #expect(lines == ["persistent ref 0 true", "data 0 true", "attributes 0 true", "ref 0 true", "certificate gone 0 true", "both gone -25300"])
    }

    @Test("SecItemDelete of a SecIdentity ref deletes its certificate, then its key unless another stored certificate still has the key's public key hash (explode_identity's \"if the key is still in use, skip deleting it\")")
    func identityDeleteKeepsAKeyAnotherCertificateStillUses() async throws {
        // One run of the script: its certificates and keys are made afresh at each.
        let all = try CertificateItemTests.certificates()
        let p256 = try #require(all["p256"])
        let (certificate, privateBytes) = (try CertificateItemTests.certificate(p256), try IndependentKeyCheck.bytes(p256["privateKey"]))
        let extra = try #require(all["extra"])
        let sameKey = try #require(SecCertificateCreateWithData(nil, try IndependentKeyCheck.bytes(extra["p256SameKey"]) as CFData))
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            guard let identity = Self.storeP256Identity(certificate: certificate, privateBytes: privateBytes) else { return ["no identity"] }
            _ = CertificateItemTests.add(sameKey)
            var lines = ["delete \(SecItemDelete([kSecValueRef as String: identity] as CFDictionary))"]
            lines.append("its certificate \(SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as CFDictionary, nil))")
            lines.append("the other \(SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecValueRef as String: sameKey] as CFDictionary, nil))")
            lines.append("key \(SecItemCopyMatching([kSecClass as String: kSecClassKey] as CFDictionary, nil))")
            var other: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true] as CFDictionary, &other)
            guard let otherIdentity = other.flatMap({ $0 as? SecIdentity }) else { return lines + ["no other identity"] }
            lines.append("delete the other \(SecItemDelete([kSecValueRef as String: otherIdentity] as CFDictionary))")
            lines.append("key after \(SecItemCopyMatching([kSecClass as String: kSecClassKey] as CFDictionary, nil))")
            return lines
        }
        #expect(lines == ["delete 0", "its certificate -25300", "the other 0", "key 0", "delete the other 0", "key after -25300"])
    }

    @Test("SecItemDelete of kSecClassIdentity without a ref deletes what the query selects as certificates, then, when that succeeded, as keys (SecItem.m): every certificate and every key, paired or not; with no certificate it is errSecItemNotFound and the keys stay")
    func identityClassDeleteDeletesCertificatesThenKeys() async throws {
        let (certificate, privateBytes) = try CertificateItemTests.certificateAndKey("p256")
        let (unpaired, _) = try CertificateItemTests.certificateAndKey("rsa")
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            let attributesOnly: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrLabel as String: "unpaired",
                                                 kSecAttrApplicationTag as String: Data("unpaired".utf8)]
            var lines = ["no certificate \(SecItemDelete([kSecClass as String: kSecClassIdentity] as CFDictionary))"]
            lines.append("attribute-only key \(SecItemAdd(attributesOnly as CFDictionary, nil))")
            lines.append("keys stay \(SecItemDelete([kSecClass as String: kSecClassIdentity] as CFDictionary)) \(SecItemCopyMatching([kSecClass as String: kSecClassKey] as CFDictionary, nil))")
            guard Self.storeP256Identity(certificate: certificate, privateBytes: privateBytes) != nil else { return lines + ["no identity"] }
            _ = CertificateItemTests.add(unpaired)
            lines.append("delete \(SecItemDelete([kSecClass as String: kSecClassIdentity] as CFDictionary))")
            lines.append("certificates \(SecItemCopyMatching([kSecClass as String: kSecClassCertificate] as CFDictionary, nil))")
            lines.append("keys \(SecItemCopyMatching([kSecClass as String: kSecClassKey] as CFDictionary, nil))")
            return lines
        }
        #expect(lines == ["no certificate -25300", "attribute-only key 0", "keys stay -25300 0", "delete 0", "certificates -25300", "keys -25300"])
    }
}
#endif
