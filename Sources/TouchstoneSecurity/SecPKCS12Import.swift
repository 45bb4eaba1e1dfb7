#if !canImport(Darwin)
import Crypto
import Foundation
import Logging
import Touchstone
import TouchstoneOpenSSL

// MARK: SecImportExport.h

/// The passphrase of a PKCS #12 file (a `String`); none is the empty passphrase, as on iOS.
nonisolated(unsafe) public let kSecImportExportPassphrase: CFString = "passphrase"
/// Declared; a PKCS #12 import here keeps nothing but what `kSecUseDataProtectionKeychain` asks for.
nonisolated(unsafe) public let kSecImportToMemoryOnly: CFString = "memory"
/// Declared: iOS's import gives no label (`SecImportExport.c` sets identity, trust and chain).
nonisolated(unsafe) public let kSecImportItemLabel: CFString = "label"
/// Declared: iOS's import gives no key ID (`SecImportExport.c` sets identity, trust and chain).
nonisolated(unsafe) public let kSecImportItemKeyID: CFString = "keyid"
/// An import item's ``SecTrust``: its certificate and the file's others, under the basic X.509
/// policy, evaluated.
nonisolated(unsafe) public let kSecImportItemTrust: CFString = "trust"
/// An import item's certificate chain (`[SecCertificate]`): the identity's certificate, then
/// its issuers among the file's certificates and the system's roots (its trust's chain).
nonisolated(unsafe) public let kSecImportItemCertChain: CFString = "chain"
/// An import item's `SecIdentity`.
nonisolated(unsafe) public let kSecImportItemIdentity: CFString = "identity"

/// Reads a PKCS #12 file (.p12, .pfx) as iOS's `SecImportExport.c` does: `items` receives one
/// dictionary for the identity in it, with its `SecIdentity` (``kSecImportItemIdentity``) and
/// its certificate chain (``kSecImportItemCertChain``); none for a file without a key and its
/// certificate (iOS gives no item for certificates alone), and its trust (``kSecImportItemTrust``). `options` may give the passphrase
/// (``kSecImportExportPassphrase``; none is the empty one) and, with `kSecUseDataProtectionKeychain`
/// true, asks for the identity and its chain to be added to the keychain too (a duplicate is no
/// failure; the other options go to `SecItemAdd`).
///
/// Statuses, as iOS's: errSecAuthFailed for a wrong passphrase (the file's MAC does not
/// verify), errSecDecode for bytes that are no PKCS #12 file or a key that is neither RSA nor
/// EC. The file is decrypted by the system's OpenSSL 3 (``LibCrypto``: every cipher PKCS #12
/// files use, RC2 and triple DES included); without it the call is errSecUnimplemented.
///
/// Our difference: a file with several keys gives the identity of the first (OpenSSL's
/// `PKCS12_parse`).
///
/// ```swift
/// var items: CFArray?
/// let status = SecPKCS12Import(p12 as CFData, [kSecImportExportPassphrase as String: "secret"] as CFDictionary, &items)
/// let identity = (items as? [[String: Any]])?.first?[kSecImportItemIdentity as String]
/// ```
public func SecPKCS12Import(_ pkcs12Data: CFData, _ options: CFDictionary, _ items: UnsafeMutablePointer<CFArray?>) -> OSStatus {
    items.pointee = nil
    let passphrase = (options.object(forKey: kSecImportExportPassphrase as String) as? String) ?? ""
    let imported: PKCS12File
    switch PKCS12File.read(pkcs12Data as Data, passphrase: passphrase) {
    case let .success(file): imported = file
    case let .failure(failure):
        // The status does not say why; the log does, at debug, as for a failed SecItem call.
        LocalAuthenticationSystem.callLogger.withLock { $0 }
            .debug("a PKCS #12 import failed", error: failure, metadata: ["security.osstatus": "\(failure.status)"])
        return failure.status
    }
    let dictionaries = imported.items()
    items.pointee = dictionaries as NSArray
    return PKCS12File.addToKeychain(dictionaries, options: options)
}

/// What a PKCS #12 file holds, as OpenSSL's `PKCS12_parse` reads it: its private key and the
/// key's certificate (nil when it lacks either), and its other certificates.
struct PKCS12File {
    let identity: SecIdentity?
    let others: [SecCertificate]

    /// Why a file was not read, with the status iOS gives.
    struct Failure: Error, CustomStringConvertible {
        let status: OSStatus
        let reason: String
        var description: String { reason }
    }

    // OpenSSL's numbers: EVP_PKEY_RSA, EVP_PKEY_RSA_PSS, EVP_PKEY_EC; ERR_LIB_PKCS12 and
    // PKCS12_R_MAC_VERIFY_FAILURE.
    private static let (rsaKey, rsaPSSKey, ecKey) = (Int32(6), Int32(912), Int32(408))
    private static let (pkcs12Library, macVerifyFailure) = (35, 113)

    /// Reads `bytes` with `passphrase`.
    static func read(_ bytes: Data, passphrase: String) -> Result<PKCS12File, Failure> {
        let openssl: LibCrypto
        switch LibCrypto.shared {
        case let .success(library): openssl = library
        case let .failure(error): return .failure(Failure(status: errSecUnimplemented, reason: error.description))
        }
        return openssl.withContext {
            let decoded: OpaquePointer? = bytes.withUnsafeBytes { buffer in
                var cursor = buffer.bindMemory(to: UInt8.self).baseAddress.map { UnsafePointer($0) }
                return cursor == nil ? nil : openssl.decodePKCS12(nil, &cursor, buffer.count)
            }
            guard let file = decoded else { return .failure(Failure(status: errSecDecode, reason: "not a PKCS #12 file")) }
            defer { openssl.freePKCS12(file) }
            var key: OpaquePointer?, certificate: OpaquePointer?, others: OpaquePointer?
            let parsed = openssl.parsePKCS12(file, passphrase, &key, &certificate, &others)
            defer {
                openssl.freeKey(key)
                openssl.freeCertificate(certificate)
                if let others {
                    for index in 0..<max(openssl.stackCount(others), 0) { openssl.freeCertificate(openssl.stackValue(others, index)) }
                    openssl.freeStack(others)
                }
            }
            guard parsed == 1 else {
                let wrongPassphrase = openssl.queuedErrors().contains { $0 == (pkcs12Library, macVerifyFailure) }
                return .failure(wrongPassphrase ? Failure(status: errSecAuthFailed, reason: "the passphrase does not verify the file's MAC")
                    : Failure(status: errSecDecode, reason: "OpenSSL could not read the file"))
            }
            var identity: SecIdentity?
            if let key, let certificate {
                guard let secKey = Self.secKey(key, openssl) else {
                    return .failure(Failure(status: errSecDecode, reason: "the file's key is neither RSA nor EC"))
                }
                guard let der = openssl.der(of: certificate, openssl.encodeCertificate),
                      let leaf = SecCertificateCreateWithData(nil, der as CFData)
                else { return .failure(Failure(status: errSecDecode, reason: "the key's certificate does not read")) }
                identity = SecIdentity(certificate: leaf, privateKey: secKey)
            }
            var rest: [SecCertificate] = []
            for index in 0..<(others.map { max(openssl.stackCount($0), 0) } ?? 0) {
                guard let other = openssl.stackValue(others, index),
                      let der = openssl.der(of: other, openssl.encodeCertificate),
                      let parsedOther = SecCertificateCreateWithData(nil, der as CFData)
                else { return .failure(Failure(status: errSecDecode, reason: "a certificate of the file does not read")) }
                rest.append(parsedOther)
            }
            return .success(PKCS12File(identity: identity, others: rest))
        }
    }

    /// The private key as a `SecKey`: RSA from its PKCS #1 DER, EC (P-256, P-384, P-521) from
    /// its SEC 1 DER, read by swift-crypto; nil for any other kind.
    private static func secKey(_ key: OpaquePointer, _ openssl: LibCrypto) -> SecKey? {
        guard let der = openssl.der(of: key, openssl.encodePrivateKey) else { return nil }
        let type = openssl.keyType(key)
        let attributes: [String: Any]
        let bytes: Data
        if type == rsaKey || type == rsaPSSKey {
            (attributes, bytes) = ([kSecAttrKeyType as String: kSecAttrKeyTypeRSA], der)
        } else if type == ecKey, let x963 = (try? P256.Signing.PrivateKey(derRepresentation: der))?.x963Representation
                    ?? (try? P384.Signing.PrivateKey(derRepresentation: der))?.x963Representation
                    ?? (try? P521.Signing.PrivateKey(derRepresentation: der))?.x963Representation {
            (attributes, bytes) = ([kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom], x963)
        } else {
            return nil
        }
        return SecKeyCreateWithData(bytes as CFData, attributes.merging([kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]) { $1 } as CFDictionary, nil)
    }

    /// The import items: the identity, if any, with its trust and chain, as `SecImportExport.c`
    /// makes them: a ``SecTrust`` of its certificate and all the file's others under the basic
    /// X.509 policy, evaluated, and the chain that evaluation built (its certificate, then each
    /// issuer among the file's certificates or the system's roots).
    func items() -> [[String: Any]] {
        guard let identity else { return [] }
        let trust = SecTrust(certificates: [identity.certificate] + others, policies: [SecPolicyCreateBasicX509()])
        return [[
            kSecImportItemIdentity as String: identity, kSecImportItemTrust as String: trust,
            kSecImportItemCertChain as String: trust.evaluated().chain as NSArray,
        ]]
    }

    /// With `kSecUseDataProtectionKeychain` true in `options`, adds each item's identity and
    /// the certificates of its chain to the keychain, as `SecImportExport.c` does (its other
    /// options go to `SecItemAdd`; a duplicate is no failure); the last failure's status, or
    /// errSecSuccess.
    static func addToKeychain(_ items: [[String: Any]], options: CFDictionary) -> OSStatus {
        guard (options.object(forKey: kSecUseDataProtectionKeychain as String) as? Bool) == true,
              let base = options.mutableCopy() as? NSMutableDictionary
        else { return errSecSuccess }
        base.removeObject(forKey: kSecImportExportPassphrase as String)
        base.removeObject(forKey: kSecImportToMemoryOnly as String)
        var status = errSecSuccess
        func add(_ itemClass: CFString, _ value: AnyObject) {
            guard let query = base.mutableCopy() as? NSMutableDictionary else { return }
            query[kSecClass as String] = itemClass
            query[kSecValueRef as String] = value
            let added = SecItemAdd(query, nil)
            if added != errSecSuccess, added != errSecDuplicateItem { status = added }
        }
        for item in items {
            if let identity = item[kSecImportItemIdentity as String] as? SecIdentity { add(kSecClassIdentity, identity) }
            for certificate in item[kSecImportItemCertChain as String] as? [SecCertificate] ?? [] { add(kSecClassCertificate, certificate) }
        }
        return status
    }
}
#endif
