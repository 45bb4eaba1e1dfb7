#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// `SecItemAdd` of a `SecIdentity`, as Apple's `SecItem.m` runs it (`explode_identity`): the
/// certificate, then the key, each added with the call's other attributes. (dm-zharov/swift-security's
/// `Keychain.store(_ identity:query:)` adds one this way.)
@Suite("SecItemAdd of an identity ref")
struct IdentityAddTests {
    @Test("SecItemAdd of an identity ref adds its certificate, then its key, with the call's label (explode_identity); the identity is found again; with the certificate already stored it still adds the key; both stored already is errSecDuplicateItem; with kSecReturnPersistentRef alone the add gives the identity's persistent reference, which finds the identity")
    func identityRefAddsItsCertificateThenItsKey() async throws {
        let (certificate, privateBytes) = try CertificateItemTests.certificateAndKey("p256")
        let device = try TestDevice()
        let lines = await device.blocking { () -> [String] in
            // An identity ref, from a lookup of the certificate and key stored, which are then deleted.
            _ = SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate] as CFDictionary, nil)
            _ = SecItemAdd([kSecClass as String: kSecClassKey, kSecValueData as String: privateBytes,
                            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, nil)
            var found: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true] as CFDictionary, &found)
            guard let identity = found as? SecIdentity else { return ["no identity"] }
            var lines = ["deleted \(SecItemDelete([kSecClass as String: kSecClassIdentity] as CFDictionary))"]
            let add: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecValueRef as String: identity, kSecAttrLabel as String: "badssl"]
            var reference: CFTypeRef?
            lines.append("add \(SecItemAdd(add.merging([kSecReturnPersistentRef as String: true]) { $1 } as CFDictionary, &reference))")
            var byReference: CFTypeRef?
            let referenceStatus = SecItemCopyMatching([kSecValuePersistentRef as String: reference ?? Data(), kSecReturnRef as String: true] as CFDictionary, &byReference)
            lines.append("by its reference \(referenceStatus) \(byReference is SecIdentity)")
            lines.append("certificate \(SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "badssl"] as CFDictionary, nil))")
            lines.append("key \(SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "badssl"] as CFDictionary, nil))")
            lines.append("identity \(SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "badssl"] as CFDictionary, nil))")
            lines.append("again \(SecItemAdd(add as CFDictionary, nil))")
            lines.append("key deleted \(SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "badssl"] as CFDictionary))")
            lines.append("certificate stored, key added \(SecItemAdd(add as CFDictionary, nil))")
            return lines
        }
        #expect(lines == ["deleted 0", "add 0", "by its reference 0 true", "certificate 0", "key 0",
                          "identity 0", "again -25299", "key deleted 0", "certificate stored, key added 0"])
    }
}
#endif
