#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// A lookup by `kSecValueRef` of a key is a lookup by the key's attributes: iOS's client code
/// merges the ref's `SecKeyCopyAttributes` into the query (`SecItem.m`,
/// `SecItemAttributesPrepare`), and those carry `kSecAttrApplicationLabel` = the SHA-1 of the
/// public key (`SecKey.m`). (dm-zharov/swift-security's `testSecKey` asserts that a key it
/// stored under its own application label is not found by its ref.)
@Suite("Keys found by kSecValueRef")
struct KeyRefLookupTests {
    @Test("a key stored under an application label of the app's own is not found by its ref (with or without kSecClass), but is with that label named too; a key stored under its own digest is found by its ref (SecItem.m's SecItemAttributesPrepare merges the ref's klbl, the SHA-1 of its public key)")
    func keyRefLookupUsesTheRefsApplicationLabel() async throws {
        let device = try TestDevice(enrolled: [])
        let (relabelled, plain) = (P256.Signing.PrivateKey().x963Representation, P256.Signing.PrivateKey().x963Representation)
        let lines = await device.blocking { () -> [String] in
            func key(_ bytes: Data) -> SecKey? {
                SecKeyCreateWithData(bytes as CFData, [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                                                       kSecAttrKeyClass as String: kSecAttrKeyClassPrivate] as CFDictionary, nil)
            }
            guard let relabelledKey = key(relabelled), let plainKey = key(plain) else { return ["no keys"] }
            let label = Data("applicationLabel".utf8)
            var lines = [
                "add relabelled \(SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: relabelledKey, kSecAttrApplicationLabel as String: label] as CFDictionary, nil))",
                "add plain \(SecItemAdd([kSecClass as String: kSecClassKey, kSecValueRef as String: plainKey] as CFDictionary, nil))",
            ]
            for (name, ref) in [("relabelled", relabelledKey), ("plain", plainKey)] {
                let withClass = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecValueRef as String: ref] as CFDictionary, nil)
                let alone = SecItemCopyMatching([kSecValueRef as String: ref] as CFDictionary, nil)
                lines.append("\(name) by ref \(withClass) \(alone)")
            }
            let named = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecValueRef as String: relabelledKey,
                                             kSecAttrApplicationLabel as String: label] as CFDictionary, nil)
            lines.append("relabelled by ref and label \(named)")
            return lines
        }
        #expect(lines == ["add relabelled 0", "add plain 0", "relabelled by ref -25300 -25300", "plain by ref 0 0", "relabelled by ref and label 0"])
    }
}
#endif
