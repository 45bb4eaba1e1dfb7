#if !canImport(Darwin)
import Foundation

extension CertificateItems {
    /// `SecItemAdd` of a `SecIdentity` as `kSecValueRef`, whatever `kSecClass` says, as Apple's
    /// `SecItem.m` does it (`explode_identity`, which `SecItemAdd` runs first): the identity's
    /// certificate is added with the call's other attributes (as `kSecClassCertificate`), then
    /// its private key (as `kSecClassKey`), each through `SecItemAdd` and its own rules. A
    /// certificate stored already is no failure, nor a key stored already beside a new
    /// certificate; both stored already is errSecDuplicateItem. The call gives no result:
    /// Apple's gives only an identity persistent reference, and `kSecReturnPersistentRef` is
    /// errSecUnimplemented here before anything is added (our limit: identities have no
    /// persistent references).
    static func addIdentity(_ identity: SecIdentity, _ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        result?.pointee = nil
        guard let partial = attributes.mutableCopy() as? NSMutableDictionary else { return errSecParam }
        if (partial[kSecReturnPersistentRef as String] as? Bool) == true { return errSecUnimplemented }
        partial[kSecClass as String] = kSecClassCertificate
        partial[kSecValueRef as String] = identity.certificate
        var status = SecItemAdd(partial, nil)
        let certificateWasStored = status == errSecDuplicateItem
        if certificateWasStored { status = errSecSuccess }
        guard status == errSecSuccess else { return status }
        partial[kSecClass as String] = kSecClassKey
        partial[kSecValueRef as String] = identity.privateKey
        partial[kSecReturnPersistentRef as String] = false
        status = SecItemAdd(partial, nil)
        if status == errSecDuplicateItem, !certificateWasStored { status = errSecSuccess }
        return status
    }
}
#endif
