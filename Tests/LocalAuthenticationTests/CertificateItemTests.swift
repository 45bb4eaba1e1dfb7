#if !canImport(Darwin)
import Crypto
import Foundation
import LocalAuthentication
import Testing
import TouchstoneTesting

/// Certificate and identity keychain items (issue 34), with certificates pyca/cryptography
/// makes, as iOS's securityd stores and finds them (`SecItemSchema.c`, `SecDbQuery.c`,
/// `SecItemServer.c`).
@Suite("kSecClassCertificate and kSecClassIdentity items")
struct CertificateItemTests {
    /// The certificates pyca made, by name, and "extra": DER blobs by name.
    static func certificates() throws -> [String: [String: Any]] {
        try #require(try IndependentKeyCheck.run(["certificates"]) as? [String: [String: Any]])
    }

    static func certificate(_ facts: [String: Any]) throws -> SecCertificate {
        try #require(SecCertificateCreateWithData(nil, try IndependentKeyCheck.bytes(facts["der"]) as CFData))
    }

    /// pyca's certificate `name` and its private key's bytes (PKCS#1 for RSA, X9.63 for EC).
    static func certificateAndKey(_ name: String) throws -> (SecCertificate, Data) {
        let facts = try #require(try certificates()[name])
        return (try certificate(facts), try IndependentKeyCheck.bytes(facts["privateKey"]))
    }

    static func add(_ certificate: SecCertificate, label: String? = nil) -> OSStatus {
        var item: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate]
        if let label { item[kSecAttrLabel as String] = label }
        return SecItemAdd(item as CFDictionary, nil)
    }

    /// Attributes as text (data as hex), to leave the blocking call.
    static func text(_ attributes: CFTypeRef?) -> [String: String] {
        ((attributes as? [String: Any]) ?? [:]).mapValues { value in
            switch value {
            case let data as Data: data.map { String(format: "%02x", $0) }.joined()
            default: "\(value)"
            }
        }
    }

    static func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    static func find(_ extra: [String: Any]) -> (OSStatus, CFTypeRef?) {
        var query: [String: Any] = [kSecClass as String: kSecClassCertificate]
        query.merge(extra) { $1 }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    @Test("a certificate added as kSecValueRef keeps the attributes iOS derives: type 3 (v3), encoding 3 (DER), the normalized issuer and subject without their SEQUENCE header, the serial number, the subject key identifier, the public key hash (SHA-1 of the key bits) and the subject summary as its label; accessibility always; the same certificate again is errSecDuplicateItem")
    func derivedAttributes() async throws {
        let facts = try #require(try Self.certificates()["rsa"])
        let certificate = try Self.certificate(facts)
        let device = try TestDevice()
        let (statuses, found, ref, data) = await device.blocking { () -> ([OSStatus], [String: String], SecCertificate?, Data?) in
            let added = Self.add(certificate)
            let again = Self.add(certificate, label: "other label")
            let (status, attributes) = Self.find([kSecReturnAttributes as String: true])
            let (_, ref) = Self.find([kSecReturnRef as String: true])
            let (_, data) = Self.find([kSecReturnData as String: true])
            return ([added, again, status], Self.text(attributes), ref as? SecCertificate, data as? Data)
        }
        #expect(statuses == [errSecSuccess, errSecDuplicateItem, errSecSuccess])
        #expect(found[kSecAttrCertificateType as String] == "3")
        #expect(found[kSecAttrCertificateEncoding as String] == "3")
        // The issuer as iOS normalizes it (pyca encodes that name), without its SEQUENCE header.
        let issuer = try IndependentKeyCheck.bytes(facts["normalizedIssuer"])
        #expect(found[kSecAttrIssuer as String] == Self.hex(issuer.dropFirst(2)))  // a short name: 0x30 and one length byte
        #expect(found[kSecAttrSerialNumber as String] == Self.hex(try IndependentKeyCheck.bytes(facts["serial"])))
        #expect(found[kSecAttrSubjectKeyID as String] == Self.hex(try IndependentKeyCheck.bytes(facts["subjectKeyID"])))
        let publicKey = try IndependentKeyCheck.bytes(facts["publicKey"])
        #expect(found[kSecAttrPublicKeyHash as String] == Self.hex(Data(Insecure.SHA1.hash(data: publicKey))))
        #expect(found[kSecAttrLabel as String] == facts["summary"] as? String)
        #expect(found[kSecAttrAccessible as String] == kSecAttrAccessibleAlways as String)
        #expect(ref == certificate)
        #expect(data == (try IndependentKeyCheck.bytes(facts["der"])))
    }

    @Test("a certificate item's persistent reference (from SecItemAdd or a lookup) finds, returns and deletes that certificate alone, with kSecClass or without; kSecReturnRef with kSecReturnPersistentRef is one dictionary with both and the attributes; with no key stored there is no identity (errSecItemNotFound)")
    func persistentReferences() async throws {
        let all = try Self.certificates()
        let rsa = try Self.certificate(try #require(all["rsa"]))
        let p256 = try Self.certificate(try #require(all["p256"]))
        let device = try TestDevice()
        let outcome = await device.blocking { () -> [String] in
            var lines: [String] = []
            var added: CFTypeRef?
            let addStatus = SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: rsa,
                                        kSecReturnPersistentRef as String: true] as CFDictionary, &added)
            lines.append("add \(addStatus)")
            _ = Self.add(p256)
            guard let reference = added as? Data else { return lines + ["no reference"] }
            let (status, found) = Self.find([kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnPersistentRef as String: true])
            let references = (found as? [Any] ?? []).compactMap { $0 as? Data }
            lines.append("all \(status) \(references.count) \(Set(references).count) \(references.contains(reference))")
            var byReference: CFTypeRef?
            _ = SecItemCopyMatching([kSecValuePersistentRef as String: reference, kSecReturnRef as String: true] as CFDictionary, &byReference)
            lines.append("classless ref \((byReference as? SecCertificate) == rsa)")
            _ = SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecValuePersistentRef as String: reference,
                                     kSecReturnRef as String: true, kSecReturnPersistentRef as String: true] as CFDictionary, &byReference)
            let dictionary = byReference as? [String: Any] ?? [:]
            lines.append("both \((dictionary[kSecValueRef as String] as? SecCertificate) == rsa) \((dictionary[kSecValuePersistentRef as String] as? Data) == reference) \(dictionary[kSecAttrSerialNumber as String] != nil) \(dictionary[kSecValueData as String] == nil)")
            lines.append("garbage \(SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecValuePersistentRef as String: Data("x".utf8)] as CFDictionary, nil))")
            lines.append("add with reference \(SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: p256, kSecValuePersistentRef as String: reference] as CFDictionary, nil))")
            lines.append("identity \(SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecReturnPersistentRef as String: true] as CFDictionary, nil))")
            lines.append("delete \(SecItemDelete([kSecValuePersistentRef as String: reference] as CFDictionary))")
            let (_, left) = Self.find([kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnRef as String: true])
            lines.append("left \((left as? [Any])?.count ?? 0) \(((left as? [Any])?.first as? SecCertificate) == p256)")
            return lines
        }
        #expect(outcome == ["add 0", "all 0 2 2 true", "classless ref true", "both true true true true", "garbage -50",
                            "add with reference -50", "identity -25300", "delete 0", "left 1 true"])
    }

    @Test("a kSecValueRef names its item's class when the call does not (SecItem.m, SecItemAttributesPrepare merges the ref's attributes): a certificate is added, found and deleted by its ref alone, a stored key is found by its ref alone")
    func valueRefNamesTheClass() async throws {
        let certificate = try Self.certificate(try #require(try Self.certificates()["p256"]))
        let device = try TestDevice()
        let results = await device.blocking { () -> [String] in
            let byRef: [String: Any] = [kSecValueRef as String: certificate]
            let added = SecItemAdd(byRef as CFDictionary, nil)
            var found: CFTypeRef?
            let lookup = SecItemCopyMatching(byRef.merging([kSecReturnAttributes as String: true]) { $1 } as CFDictionary, &found)
            let itemClass = (found as? [String: Any])?[kSecClass as String] as? String ?? "none"
            let deleted = SecItemDelete(byRef as CFDictionary)
            let gone = SecItemCopyMatching(byRef as CFDictionary, nil)

            let parameters: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                                             kSecPrivateKeyAttrs as String: [kSecAttrIsPermanent as String: true]]
            guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, nil) else { return ["no key"] }
            var keyRef: CFTypeRef?
            let keyLookup = SecItemCopyMatching([kSecValueRef as String: key, kSecReturnRef as String: true] as CFDictionary, &keyRef)
            return ["\(added)", "\(lookup)", itemClass, "\(deleted)", "\(gone)", "\(keyLookup)", "\(keyRef is SecKey)"]
        }
        #expect(results == ["\(errSecSuccess)", "\(errSecSuccess)", kSecClassCertificate as String, "\(errSecSuccess)", "\(errSecItemNotFound)",
                            "\(errSecSuccess)", "true"])
    }

    @Test("the access group is part of a certificate item, as on iOS: the same certificate is stored once per group, a query naming a group finds only its own")
    func accessGroups() async throws {
        let certificate = try Self.certificate(try #require(try Self.certificates()["p256"]))
        let device = try TestDevice()
        let results = await device.blocking { () -> [String] in
            func add(_ group: String) -> OSStatus {
                SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueRef as String: certificate,
                            kSecAttrAccessGroup as String: group] as CFDictionary, nil)
            }
            let statuses = [add("TEAM.one"), add("TEAM.two"), add("TEAM.one")].map { "\($0)" }
            let (_, inTwo) = Self.find([kSecAttrAccessGroup as String: "TEAM.two", kSecReturnAttributes as String: true,
                                        kSecMatchLimit as String: kSecMatchLimitAll])
            let (_, all) = Self.find([kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll])
            let groups = ((inTwo as? [[String: Any]]) ?? []).compactMap { $0[kSecAttrAccessGroup as String] as? String }
            return statuses + groups + ["\((all as? [Any])?.count ?? 0)"]
        }
        #expect(results == ["\(errSecSuccess)", "\(errSecSuccess)", "\(errSecDuplicateItem)", "TEAM.two", "2"])
    }

    @Test("as on iOS, a certificate added as kSecValueData alone derives nothing (type 0, empty issuer and serial number): a second one is errSecDuplicateItem")
    func dataAloneDerivesNothing() async throws {
        let certificates = try Self.certificates()
        let first = try IndependentKeyCheck.bytes(certificates["p256"]?["der"])
        let second = try IndependentKeyCheck.bytes(certificates["p384"]?["der"])
        let device = try TestDevice()
        let (statuses, attributes) = await device.blocking { () -> ([OSStatus], [String: String]) in
            let add = { (der: Data) in SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueData as String: der] as CFDictionary, nil) }
            let statuses = [add(first), add(second)]
            let (_, attributes) = Self.find([kSecReturnAttributes as String: true])
            return (statuses, Self.text(attributes))
        }
        #expect(statuses == [errSecSuccess, errSecDuplicateItem])
        #expect(attributes[kSecAttrCertificateType as String] == "0")
        #expect(attributes[kSecAttrSerialNumber as String] == "")
        #expect(attributes[kSecAttrLabel as String] == nil)
    }

    @Test("certificate searches as iOS's securityd runs them: kSecMatchEmailAddressIfPresent ignores case and excludes certificates without the address, kSecMatchValidOnDate is inclusive (kCFNull: now), kSecMatchIssuers takes DER names, normalized, and follows stored issuers up the chain; SecItemDelete removes what matches")
    func searches() async throws {
        let facts = try Self.certificates()
        let rsa = try Self.certificate(try #require(facts["rsa"]))
        let p256 = try Self.certificate(try #require(facts["p256"]))
        let issuerName = try IndependentKeyCheck.bytes(facts["rsa"]?["issuer"])
        let notAfter = try #require(facts["rsa"]?["notAfter"] as? Double)
        let extra = try #require(facts["extra"] as? [String: String])
        let intermediate = try #require(SecCertificateCreateWithData(nil, try IndependentKeyCheck.bytes(extra["intermediate"]) as CFData))
        let root = try IndependentKeyCheck.bytes(extra["root"])
        let device = try TestDevice()
        let counts = await device.blocking { () -> [Int] in
            #expect(Self.add(rsa) == errSecSuccess)
            #expect(Self.add(p256) == errSecSuccess)
            func count(_ extra: [String: Any]) -> Int {
                let (status, result) = Self.find(extra.merging([kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll]) { $1 })
                return status == errSecSuccess ? (result as? [Any])?.count ?? -1 : 0
            }
            return [
                count([:]),
                count([kSecMatchEmailAddressIfPresent as String: "ALT-RSA@EXAMPLE.COM"]),
                count([kSecMatchEmailAddressIfPresent as String: "nobody@example.com"]),
                count([kSecMatchValidOnDate as String: NSNull()]),
                count([kSecMatchValidOnDate as String: Date(timeIntervalSince1970: notAfter)]),
                count([kSecMatchValidOnDate as String: Date(timeIntervalSince1970: notAfter + 1)]),
                count([kSecMatchIssuers as String: [issuerName]]),
                count([kSecMatchIssuers as String: [Data([0x30, 0x00])]]),
                count([kSecAttrLabel as String: "p256.example.com, first p256"]),
                Int(Self.add(intermediate)),
                // The root issued the stored intermediate, whose subject is the RSA
                // certificate's issuer (the same name once normalized): both match.
                count([kSecMatchIssuers as String: [root]]),
                Int(SecItemDelete([kSecClass as String: kSecClassCertificate, kSecValueRef as String: rsa] as CFDictionary)),
                count([:]),
            ]
        }
        #expect(counts == [2, 1, 0, 2, 2, 0, 1, 0, 1, Int(errSecSuccess), 2, Int(errSecSuccess), 2])
    }

    @Test("an identity is a stored certificate with the stored private key whose application label is its public key hash: SecIdentityCopyCertificate and SecIdentityCopyPrivateKey give them, and the key signs what the certificate's key verifies; attributes carry certdata")
    func identities() async throws {
        let facts = try Self.certificates()
        for name in ["rsa", "p256", "p384"] {
            let certificateFacts = try #require(facts[name])
            let certificate = try Self.certificate(certificateFacts)
            let privateBytes = try IndependentKeyCheck.bytes(certificateFacts["privateKey"])
            let device = try TestDevice()
            let (status, identity, attributes, missing) = await device.blocking { () -> (OSStatus, SecIdentity?, [String: String], OSStatus) in
                let identityQuery: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true]
                _ = Self.add(certificate)
                let missing = SecItemCopyMatching(identityQuery as CFDictionary, nil)  // no private key yet
                var key: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueData as String: privateBytes,
                                          kSecAttrKeyClass as String: kSecAttrKeyClassPrivate]
                if name == "rsa" { key[kSecAttrKeyType as String] = kSecAttrKeyTypeRSA }
                _ = SecItemAdd(key as CFDictionary, nil)
                var result: CFTypeRef?
                let status = SecItemCopyMatching(identityQuery as CFDictionary, &result)
                var attributes: CFTypeRef?
                _ = SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecReturnAttributes as String: true] as CFDictionary, &attributes)
                return (status, result as? SecIdentity, Self.text(attributes), missing)
            }
            #expect(missing == errSecItemNotFound)
            #expect(status == errSecSuccess, "\(name)")
            let found = try #require(identity, "\(name)")
            #expect(CFGetTypeID(found) == SecIdentityGetTypeID())
            var copied: SecCertificate?
            #expect(SecIdentityCopyCertificate(found, &copied) == errSecSuccess && copied == certificate)
            var privateKey: SecKey?
            #expect(SecIdentityCopyPrivateKey(found, &privateKey) == errSecSuccess)
            let algorithm: SecKeyAlgorithm = name == "rsa" ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA256
            let message = Data("client hello".utf8)
            let signingKey = try #require(privateKey)
            let signature = try #require(SecKeyCreateSignature(signingKey, algorithm, message as CFData, nil))
            let certificateKey = try #require(SecCertificateCopyKey(certificate))
            #expect(SecKeyVerifySignature(certificateKey, algorithm, message as CFData, signature, nil))
            #expect(attributes["certdata"] == Self.hex(SecCertificateCopyData(certificate) as Data))
            #expect(attributes[kSecClass as String] == kSecClassIdentity as String)
        }
    }

    @Test("an identity whose private key guards its item (userPresence, no privateKeyUsage) is opened by any lookup that finds it, as a lookup of the key alone is (SecDbKeychainItem.m's ks_decrypt_data decrypts an item whose ACL has constraints): a cancel is errSecUserCanceled, UI fail errSecInteractionNotAllowed, UI skip leaves it out; an existence check asks too, and the key of a found identity signs without asking again")
    func identityWithGuardedKeyIsOpenedByItsLookup() async throws {
        let (certificate, privateBytes) = try Self.certificateAndKey("p256")
        let device = try TestDevice()
        let added = await device.blocking { () -> [OSStatus] in
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, nil)
            let key: [String: Any] = [kSecClass as String: kSecClassKey, kSecValueData as String: privateBytes,
                                      kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrAccessControl as String: access as Any]
            return [Self.add(certificate), SecItemAdd(key as CFDictionary, nil)]
        }
        #expect(added == [errSecSuccess, errSecSuccess])
        /// A lookup of identities with `extra`: its status and the private key of the identity found.
        func lookup(_ extra: @escaping @Sendable () -> [String: Any]) async -> (OSStatus, SecKey?) {
            await device.blocking { () -> (OSStatus, SecKey?) in
                var result: CFTypeRef?
                let query = [kSecClass as String: kSecClassIdentity as Any].merging(extra()) { $1 }
                let status = SecItemCopyMatching(query as CFDictionary, &result)
                var key: SecKey?
                if let identity = result.flatMap({ $0 as? SecIdentity }) { _ = SecIdentityCopyPrivateKey(identity, &key) }
                return (status, key)
            }
        }
        device.enqueue(.cancel)
        #expect(await lookup { [kSecReturnRef as String: true] }.0 == errSecUserCanceled)
        #expect(await lookup { [kSecReturnAttributes as String: true,
                                kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail] }.0 == errSecInteractionNotAllowed)
        #expect(await lookup { [kSecReturnRef as String: true,
                                kSecUseAuthenticationUI as String: kSecUseAuthenticationUISkip] }.0 == errSecItemNotFound)
        device.enqueue(.present("thumb"))
        #expect(await lookup { [:] }.0 == errSecSuccess)
        #expect(device.user.pending.isEmpty, "the existence check asked")
        device.enqueue(.present("thumb"))
        let (status, found) = await lookup { [kSecReturnRef as String: true] }
        #expect(status == errSecSuccess)
        #expect(device.user.pending.isEmpty, "the lookup asked")
        let key = try #require(found)
        // (A prompt at signing would find nothing queued and fail.)
        let signed = await device.blocking {
            SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("client hello".utf8) as CFData, nil) != nil
        }
        #expect(signed)
    }

    @Test("a lookup of identity references leaves out a certificate whose stored key shares its public key hash but is not its key's private half (no SecIdentity can be made of them), before it opens anything: errSecItemNotFound, no prompt")
    func mismatchedPairIsNeitherReturnedNorOpened() async throws {
        let certificate = try Self.certificate(try #require(try Self.certificates()["p256"]))
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [OSStatus] in
            var attributes: CFTypeRef?
            _ = Self.add(certificate)
            _ = SecItemCopyMatching([kSecClass as String: kSecClassCertificate, kSecReturnAttributes as String: true] as CFDictionary, &attributes)
            let hash = (attributes as? [String: Any])?[kSecAttrPublicKeyHash as String] as? Data ?? Data()
            let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, nil)
            let other: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
                                        kSecValueData as String: P256.Signing.PrivateKey().x963Representation,
                                        kSecAttrApplicationLabel as String: hash, kSecAttrAccessControl as String: access as Any]
            // The pair is there (a lookup of its attributes would open the guarded key) ...
            let attributesWithoutUI: [String: Any] = [kSecClass as String: kSecClassIdentity, kSecReturnAttributes as String: true,
                                                      kSecUseAuthenticationUI as String: kSecUseAuthenticationUIFail]
            return [SecItemAdd(other as CFDictionary, nil), SecItemCopyMatching(attributesWithoutUI as CFDictionary, nil),
                    SecItemCopyMatching([kSecClass as String: kSecClassIdentity, kSecReturnRef as String: true] as CFDictionary, nil)]
        }
        // ... but makes no identity. Nothing is queued: a prompt would be a scripting mistake, errSecUserCanceled.
        #expect(statuses == [errSecSuccess, errSecInteractionNotAllowed, errSecItemNotFound])
        #expect(device.scriptingMistakes.isEmpty)
    }

    @Test("a symmetric key item (kSecAttrKeyClassSymmetric with kSecValueData) keeps its bytes, as iOS: kSecReturnData gives them, attributes say its class and size, kSecReturnRef gives no key (errSecSuccess, nil)")
    func symmetricKeyItem() async throws {
        let device = try TestDevice()
        let secret = Data((0..<32).map { UInt8($0) })
        let results = await device.blocking { () -> [String] in
            let tag = Data("com.example.aes".utf8)
            let item: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrKeyClass as String: kSecAttrKeyClassSymmetric,
                                       kSecAttrApplicationTag as String: tag, kSecValueData as String: secret]
            let query: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag]
            let added = SecItemAdd(item as CFDictionary, nil)
            var data: CFTypeRef?
            _ = SecItemCopyMatching(query.merging([kSecReturnData as String: true]) { $1 } as CFDictionary, &data)
            var attributes: CFTypeRef?
            _ = SecItemCopyMatching(query.merging([kSecReturnAttributes as String: true]) { $1 } as CFDictionary, &attributes)
            var ref: CFTypeRef? = "untouched" as NSString
            let refStatus = SecItemCopyMatching(query.merging([kSecReturnRef as String: true]) { $1 } as CFDictionary, &ref)
            let found = attributes as? [String: Any]
            return ["\(added)", (data as? Data) == secret ? "bytes" : "other",
                    "\(found?[kSecAttrKeyClass as String] ?? "-")", "\(found?[kSecAttrKeySizeInBits as String] ?? "-")",
                    "\(refStatus)", ref == nil ? "nil" : "ref", "\(SecItemDelete(query as CFDictionary))"]
        }
        #expect(results == ["\(errSecSuccess)", "bytes", kSecAttrKeyClassSymmetric as String, "256", "\(errSecSuccess)", "nil", "\(errSecSuccess)"])
    }

    @Test("SecItemAdd of a key item with neither kSecValueRef nor kSecValueData stores its attributes alone (errSecSuccess), as iOS: a lookup gives its attributes, no key (errSecSuccess, nil) and no bytes; the same attributes again are errSecDuplicateItem; SecItemDelete removes it")
    func attributeOnlyKeyItem() async throws {
        let device = try TestDevice()
        let statuses = await device.blocking { () -> [Int] in
            let item: [String: Any] = [kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("com.example.placeholder".utf8),
                                       kSecAttrKeyType as String: kSecAttrKeyTypeRSA]
            let added = SecItemAdd(item as CFDictionary, nil)
            let again = SecItemAdd(item as CFDictionary, nil)
            // Another tag of the same length is another item.
            var other = item
            other[kSecAttrApplicationTag as String] = Data("com.example.placeholdes".utf8)
            #expect(SecItemAdd(other as CFDictionary, nil) == errSecSuccess)
            _ = SecItemDelete(other as CFDictionary)
            var attributes: CFTypeRef?
            let found = SecItemCopyMatching(item.merging([kSecReturnAttributes as String: true]) { $1 } as CFDictionary, &attributes)
            let tag = (attributes as? [String: Any])?[kSecAttrApplicationTag as String] as? Data
            var ref: CFTypeRef? = "untouched" as NSString
            let refStatus = SecItemCopyMatching(item.merging([kSecReturnRef as String: true]) { $1 } as CFDictionary, &ref)
            var all: CFTypeRef?
            _ = SecItemCopyMatching(item.merging([kSecReturnRef as String: true, kSecMatchLimit as String: kSecMatchLimitAll]) { $1 } as CFDictionary, &all)
            let deleted = SecItemDelete(item as CFDictionary)
            let gone = SecItemCopyMatching(item as CFDictionary, nil)
            return [Int(added), Int(again), Int(found), tag == Data("com.example.placeholder".utf8) ? 1 : 0, Int(refStatus),
                    ref == nil ? 1 : 0, (all as? [Any])?.count ?? -1, Int(deleted), Int(gone)]
        }
        #expect(statuses == [Int(errSecSuccess), Int(errSecDuplicateItem), Int(errSecSuccess), 1, Int(errSecSuccess), 1, 0,
                             Int(errSecSuccess), Int(errSecItemNotFound)])
    }

    @Test("kSecMatchIssuers over stored certificates whose names form a cycle (A issued B, B issued A, ten certificates of each) answers at once: each issuer name is followed once, not every path of up to ten levels (20^10 of them)",
          .timeLimit(.minutes(1)))
    func issuerSearchThroughACycleOfNamesEnds() async throws {
        let device = try TestDevice()
        let (statuses, found) = await device.blocking { () -> ([OSStatus], OSStatus) in
            let nameA = Data([0x30, 0x03, 0x0C, 0x01, 0x41])
            let nameB = Data([0x30, 0x03, 0x0C, 0x01, 0x42])
            let statuses = (0..<20).map { index -> OSStatus in
                let (subject, issuer) = index % 2 == 0 ? (nameA, nameB) : (nameB, nameA)
                return SecItemAdd([kSecClass as String: kSecClassCertificate, kSecValueData as String: Data([UInt8(index)]),
                                   kSecAttrSubject as String: subject, kSecAttrIssuer as String: issuer,
                                   kSecAttrSerialNumber as String: Data([UInt8(index)])] as CFDictionary, nil)
            }
            let (status, _) = Self.find([kSecMatchIssuers as String: [Data([0x30, 0x00])], kSecMatchLimit as String: kSecMatchLimitAll])
            return (statuses, status)
        }
        #expect(statuses.allSatisfy { $0 == errSecSuccess }, "\(statuses)")
        #expect(found == errSecItemNotFound)
    }
}
#endif
