#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// `SecPKCS12Import` over PKCS #12 files that pyca/cryptography and the openssl command make
/// (scripts/seckey-check.py pkcs12), read as iOS's `SecImportExport.c` reads them.
@Suite("SecPKCS12Import")
struct PKCS12ImportTests {
    /// One file of the script's: its bytes and passphrase, and what the import should give.
    struct File {
        let p12: Data
        let password: String
        let leaf: Data?
        let chain: [Data]
        let privateKey: Data?

        init(_ fields: [String: Any]) throws {
            p12 = try IndependentKeyCheck.bytes(fields["p12"])
            password = try #require(fields["password"] as? String)
            leaf = try fields["leaf"].map { try IndependentKeyCheck.bytes($0) }
            chain = try (fields["chain"] as? [Any] ?? []).map { try IndependentKeyCheck.bytes($0) }
            privateKey = try fields["privateKey"].map { try IndependentKeyCheck.bytes($0) }
        }
    }

    /// Whether `value` is the import's trust: of `leaf`, not trusted with the system's roots
    /// alone (errSecNotTrusted: the file's root is unknown), trusted with `root` as anchor.
    static func trustHolds(_ value: Any?, leaf: SecCertificate, root: Data?) -> Bool {
        guard let trust = value as? SecTrust, CFGetTypeID(trust) == SecTrustGetTypeID(), let root,
              let anchor = SecCertificateCreateWithData(nil, root as CFData) else { return false }
        var error: CFError?
        let unknownRoot = !SecTrustEvaluateWithError(trust, &error) && error?.code == Int(errSecNotTrusted)
        SecTrustSetAnchorCertificates(trust, [anchor] as CFArray)
        return SecTrustGetCertificateAtIndex(trust, 0) == leaf && unknownRoot && SecTrustEvaluateWithError(trust, nil)
    }

    static func files() throws -> [String: File] {
        let made = try #require(try IndependentKeyCheck.run(["pkcs12"]) as? [String: [String: Any]])
        return try made.mapValues(File.init)
    }

    /// Imports `p12` with `options`: the status and the items.
    static func importFile(_ p12: Data, _ options: [String: Any]) -> (OSStatus, [[String: Any]]?) {
        var items: CFArray?
        let status = SecPKCS12Import(p12 as CFData, options as CFDictionary, &items)
        return (status, items as? [[String: Any]])
    }

    @Test("a PKCS #12 file gives one item: its identity (the key and its certificate) and its chain (the certificate, then its issuers among the file's certificates, an unrelated one left out), and its trust (basic X.509: the file's root is no system root, so not trusted until it is made an anchor); AES-256/PBKDF2, triple DES, the legacy RC2-40 bags, an empty and a non-ASCII passphrase; nothing is added to the keychain", arguments: ["aes", "tripleDES", "legacy", "emptyPassword"])
    func pkcs12ImportGivesTheIdentityAndItsChain(name: String) async throws {
        let file = try #require(try Self.files()[name])
        let device = try TestDevice()
        let outcome = await device.blocking { () -> [String] in
            let (status, items) = Self.importFile(file.p12, [kSecImportExportPassphrase as String: file.password])
            guard status == errSecSuccess, let items, items.count == 1, let item = items.first,
                  let identity = item[kSecImportItemIdentity as String].flatMap({ $0 as? SecIdentity })
            else { return ["status \(status), items \(String(describing: items))"] }
            var certificate: SecCertificate?, key: SecKey?
            _ = SecIdentityCopyCertificate(identity, &certificate)
            _ = SecIdentityCopyPrivateKey(identity, &key)
            guard let certificate, let key else { return ["an identity without its parts"] }
            let chain = (item[kSecImportItemCertChain as String] as? [SecCertificate] ?? []).map { SecCertificateCopyData($0) as Data }
            let message = Data("touchstone p12".utf8)
            let algorithm: SecKeyAlgorithm = SecKeyIsAlgorithmSupported(key, .sign, .rsaSignatureMessagePKCS1v15SHA256)
                ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA256
            let signature = SecKeyCreateSignature(key, algorithm, message as CFData, nil)
            let verifies = signature.flatMap { signature in
                SecCertificateCopyKey(certificate).map { SecKeyVerifySignature($0, algorithm, message as CFData, signature, nil) }
            } ?? false
            return ["leaf \(SecCertificateCopyData(certificate) as Data == file.leaf)",
                    "chain \(chain == file.chain)",
                    "key \(SecKeyCopyExternalRepresentation(key, nil) as Data? == file.privateKey)",
                    "pair \(verifies)",
                    "trust \(Self.trustHolds(item[kSecImportItemTrust as String], leaf: certificate, root: chain.last))",
                    "keychain \(SecItemCopyMatching([kSecClass as String: kSecClassCertificate] as CFDictionary, nil))"]
        }
        #expect(outcome == ["leaf true", "chain true", "key true", "pair true", "trust true", "keychain -25300"])
    }

    @Test("as iOS: a wrong or missing passphrase is errSecAuthFailed (the MAC does not verify), bytes that are no PKCS #12 file errSecDecode, an Ed25519 key errSecDecode, and certificates alone give no item (errSecSuccess, an empty array)")
    func pkcs12ImportFailsAsIOSDoes() async throws {
        let files = try Self.files()
        let aes = try #require(files["aes"]), ed25519 = try #require(files["ed25519"])
        let certificatesOnly = try #require(files["certificatesOnly"])
        let device = try TestDevice()
        let outcome = await device.blocking { () -> [String] in
            func status(_ p12: Data, _ options: [String: Any]) -> String {
                let (status, items) = Self.importFile(p12, options)
                return "\(status) \(items.map { "\($0.count)" } ?? "nil")"
            }
            return [status(aes.p12, [kSecImportExportPassphrase as String: "wrong"]),
                    status(aes.p12, [:]),
                    status(Data("not a pkcs12 file".utf8), [kSecImportExportPassphrase as String: aes.password]),
                    status(aes.p12.prefix(aes.p12.count / 2), [kSecImportExportPassphrase as String: aes.password]),
                    status(ed25519.p12, [kSecImportExportPassphrase as String: ed25519.password]),
                    status(certificatesOnly.p12, [kSecImportExportPassphrase as String: certificatesOnly.password])]
        }
        #expect(outcome == ["-25293 nil", "-25293 nil", "-26275 nil", "-26275 nil", "-26275 nil", "0 0"])
    }

    @Test("a failed import logs why at debug, as a failed SecItem call does: a wrong passphrase names the MAC")
    func aFailedImportIsLoggedWithItsReason() throws {
        let file = try #require(try Self.files()["tripleDES"])
        var status: OSStatus = 0
        let handler = SecItemLoggingTests.capturingCallLog {
            status = Self.importFile(file.p12, [kSecImportExportPassphrase as String: "wrong"]).0
        }
        #expect(status == errSecAuthFailed)
        let entry = handler.entries.first { $0.metadata["security.osstatus"] == "\(errSecAuthFailed)" }
        #expect(entry.map { "\($0.message)" } == "a PKCS #12 import failed")
        #expect(entry?.error.map { "\($0)" } == "the passphrase does not verify the file's MAC")
    }

    @Test("with kSecUseDataProtectionKeychain true the import also adds its identity and the certificates of its chain to the keychain, with the other options (SecImportExport.c's SecPKCS12ImportToModernKeychain); importing again is no failure")
    func pkcs12ImportAddsToTheKeychainWhenAsked() async throws {
        let file = try #require(try Self.files()["aes"])
        let device = try TestDevice()
        let outcome = await device.blocking { () -> [String] in
            let options: [String: Any] = [kSecImportExportPassphrase as String: file.password, kSecUseDataProtectionKeychain as String: true,
                                          kSecAttrLabel as String: "imported"]
            let first = Self.importFile(file.p12, options).0
            var found: CFTypeRef?
            let identity = SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true] as CFDictionary, &found)
            var certificates: CFTypeRef?
            _ = SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecMatchLimit as String: kSecMatchLimitAll,
                                     kSecReturnRef as String: true] as CFDictionary, &certificates)
            let stored = Set((certificates as? [SecCertificate] ?? []).map { SecCertificateCopyData($0) as Data })
            let labelled = SecItemCopyMatching([kSecClass as String: kSecClassKey, kSecAttrLabel as String: "imported"] as CFDictionary, nil)
            return ["first \(first)", "identity \(identity) \(found is SecIdentity)", "certificates \(stored == Set(file.chain))",
                    "key labelled \(labelled)", "again \(Self.importFile(file.p12, options).0)"]
        }
        #expect(outcome == ["first 0", "identity 0 true", "certificates true", "key labelled 0", "again 0"])
    }
}
#endif
