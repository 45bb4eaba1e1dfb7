#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone

/// An identity: a certificate and the private key whose `kSecAttrApplicationLabel` is the
/// certificate's public key hash, as `SecItemCopyMatching` of `kSecClassIdentity` pairs them.
public final class SecIdentity: Sendable, Hashable, CustomStringConvertible {
    let certificate: SecCertificate
    let privateKey: SecKey

    init(certificate: SecCertificate, privateKey: SecKey) {
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// Equal when the certificate and the key are.
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }

    /// Hashes the certificate.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificate)
    }

    /// `<SecIdentity certificate: … key: …>`.
    public var description: String { "<SecIdentity certificate: \(certificate) key: \(privateKey)>" }
}

/// The type identifier of `SecIdentity`.
public func SecIdentityGetTypeID() -> CFTypeID { CFTypeKind.secIdentity.rawValue }

/// The identity's certificate in `certificateRef`; always `errSecSuccess`.
public func SecIdentityCopyCertificate(_ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// The identity's private key in `privateKeyRef`; always `errSecSuccess`.
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>) -> OSStatus {
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}

/// A `kSecClassCertificate` or `kSecClassIdentity` dictionary.
struct CertificateQuery {
    typealias Invalid = KeychainQuery.Invalid

    let isIdentity: Bool
    /// `kSecValueRef`: a certificate, or an identity's certificate.
    let certificateRef: SecCertificate?
    /// `kSecValueData`: a certificate's DER.
    let value: Data?
    /// The certificate attributes given, as stored (`kSecAttrLabel`, `…Subject`, `…Issuer`,
    /// `…SerialNumber`, `…SubjectKeyID`, `…PublicKeyHash`, `…CertificateType`,
    /// `…CertificateEncoding`).
    let attributes: [String: KeychainAttributeValue]
    /// `kSecMatchIssuers`, normalized (the content, without the SEQUENCE header).
    let issuers: [Data]?
    /// `kSecMatchEmailAddressIfPresent`.
    let email: String?
    /// `kSecMatchValidOnDate` (`kCFNull`: now).
    let validOn: Date?
    /// `kSecMatchPolicy`: a certificate must satisfy it (``TrustEvaluation/satisfies(_:policy:at:)``).
    let policy: SecPolicy?
    /// `kSecMatchTrustedOnly`: a certificate must be trusted on its own (basic X.509, the
    /// system's roots).
    let trustedOnly: Bool
    let accessibility: Accessibility?
    let accessGroup: KeychainAttributeValue?
    /// `kSecAttrSynchronizable`: part of a certificate's primary key, as of every item's.
    let synchronizable: KeychainQuery.Synchronizable
    let context: (any KeychainAuthenticationContext)?
    /// `kSecUseOperationPrompt` and `kSecUseAuthenticationUI`: for an identity whose key's access
    /// control guards its item (``KeyItems/accessControlGuardsItem(_:)``).
    let prompt: String?
    let authenticationUI: KeychainQuery.AuthenticationUI
    var failsWithoutUI: Bool { authenticationUI == .fail }
    /// What the query asks back (`kSecReturn*`).
    let returns: ReturnedParts
    /// `kSecValuePersistentRef`: nil when the query names none (``KeychainQuery/PersistentReference/named(in:itemClass:)``).
    let persistentRef: KeychainQuery.PersistentReference?
    let limit: MatchLimit

    /// The attributes a certificate item has, and the type each is kept as.
    static let attributeTypes: [String: KeychainQuery.AttributeType] = [
        kSecAttrLabel as String: .text, kSecAttrSubject as String: .text, kSecAttrIssuer as String: .text,
        kSecAttrSerialNumber as String: .text, kSecAttrSubjectKeyID as String: .text, kSecAttrPublicKeyHash as String: .text,
        kSecAttrCertificateType as String: .integer, kSecAttrCertificateEncoding as String: .integer,
    ]

    /// Whether `dictionary` names `kSecClassCertificate` or `kSecClassIdentity`, or no class
    /// and a certificate's or an identity's persistent reference.
    static func isCertificateClass(_ dictionary: CFDictionary) -> Bool {
        switch dictionary.object(forKey: kSecClass as String) {
        case let name as String: return name == kSecClassCertificate as String || name == kSecClassIdentity as String
        // As on iOS, a query by persistent reference may leave the class out: the reference names it.
        case nil: return dictionary.object(forKey: kSecValuePersistentRef as String).flatMap(KeychainQuery.data)
            .flatMap(KeychainQuery.PersistentReference.itemClass(of:)) == .certificate
        default: return false
        }
    }

    init(_ dictionary: [String: Any], now: Date) throws {
        // An identity query names kSecClassIdentity, or no class and an identity's persistent reference.
        switch dictionary[kSecClass as String] {
        case nil: isIdentity = dictionary[kSecValuePersistentRef as String].flatMap(KeychainQuery.data)
            .map(KeychainQuery.PersistentReference.namesIdentity) ?? false
        case let name: isIdentity = (name as? String) == kSecClassIdentity as String
        }
        persistentRef = try KeychainQuery.PersistentReference.named(in: dictionary, itemClass: .certificate, identity: isIdentity)
        // As iOS's securityd: hosts are matched for internet passwords only.
        if dictionary[kSecMatchHostOrSubdomainOfHost as String] != nil { throw KeychainQuery.Unsimulated() }
        switch dictionary[kSecValueRef as String] {
        case nil: certificateRef = nil
        case let certificate as SecCertificate: certificateRef = certificate
        case let identity as SecIdentity: certificateRef = identity.certificate
        default: throw Invalid(reason: "kSecValueRef must be a SecCertificate or a SecIdentity")
        }
        value = try dictionary[kSecValueData as String].map { raw in
            guard let data = KeychainQuery.data(raw) else { throw Invalid(reason: "kSecValueData must be Data") }
            return data
        }
        var attributes: [String: KeychainAttributeValue] = [:]
        for (key, type) in Self.attributeTypes {
            guard let raw = dictionary[key] else { continue }
            attributes[key] = try KeychainQuery.attribute(raw, key, type)
        }
        self.attributes = attributes
        issuers = try dictionary[kSecMatchIssuers as String].map { raw in
            guard let list = raw as? [Any] else { throw Invalid(reason: "kSecMatchIssuers must be an array of DER names") }
            // As iOS: each name normalized; what is not a readable name is dropped.
            return list.compactMap { KeychainQuery.data($0) }.compactMap { try? X509Certificate.normalizedName($0) }
                .map(X509Certificate.content)
        }
        email = try dictionary[kSecMatchEmailAddressIfPresent as String].map { raw in
            guard let text = raw as? String else { throw Invalid(reason: "kSecMatchEmailAddressIfPresent must be a string") }
            return text
        }
        switch dictionary[kSecMatchValidOnDate as String] {
        case nil: validOn = nil
        case is NSNull: validOn = now
        case let date as Date: validOn = date
        case let date as NSDate: validOn = date as Date
        default: throw Invalid(reason: "kSecMatchValidOnDate must be a date or kCFNull (now)")
        }
        policy = try dictionary[kSecMatchPolicy as String].map { raw in
            guard let policy = raw as? SecPolicy else { throw Invalid(reason: "kSecMatchPolicy must be a SecPolicy") }
            return policy
        }
        trustedOnly = try dictionary[kSecMatchTrustedOnly as String].map { raw in
            guard let flag = raw as? Bool else { throw Invalid(reason: "kSecMatchTrustedOnly must be a boolean") }
            return flag
        } ?? false
        accessibility = try KeychainQuery.protection(dictionary).1
        synchronizable = try KeychainQuery.Synchronizable(dictionary, byReference: persistentRef != nil)
        accessGroup = try dictionary[kSecAttrAccessGroup as String].map {
            try KeychainQuery.attribute($0, kSecAttrAccessGroup as String, .text)
        }
        context = try KeychainQuery.context(dictionary)
        prompt = dictionary[kSecUseOperationPrompt as String] as? String
        authenticationUI = try KeychainQuery.AuthenticationUI(dictionary)
        returns = try ReturnedParts(dictionary)
        limit = try MatchLimit(dictionary)
    }
}

/// The `SecItem*` calls for certificates and identities. A certificate is a keychain item of
/// class `.certificate` (service `touchstone.certificates`) whose value is its DER and whose
/// attributes are those iOS derives (`SecCertificate.c`, `SecItemSchema.c`); an identity is a
/// stored certificate joined to the stored private key whose application label is the
/// certificate's public key hash.
enum CertificateItems {
    /// The service every stored certificate is an item of.
    static let service = "touchstone.certificates"

    /// A stored certificate: its item, DER, and the certificate read from it once (nil when
    /// the DER does not read: added as `kSecValueData`, such bytes are kept as given).
    struct Found {
        let item: KeychainItemInfo
        let der: Data
        let certificate: SecCertificate?

        init(item: KeychainItemInfo, der: Data) {
            self.item = item
            self.der = der
            certificate = SecCertificateCreateWithData(nil, der as CFData)
        }
    }

    /// The attributes iOS stores for a certificate added as `kSecValueRef`: its type (the
    /// version + 1), encoding (3, DER), normalized subject and issuer (without the SEQUENCE
    /// header), serial number, subject key identifier, public key hash, and the subject
    /// summary as its label when none is given.
    static func derivedAttributes(_ certificate: SecCertificate) -> [String: KeychainAttributeValue] {
        let parsed = certificate.certificate
        var attributes: [String: KeychainAttributeValue] = [
            kSecAttrCertificateType as String: .integer(Int64(parsed.version + 1)),
            kSecAttrCertificateEncoding as String: .integer(3),
            kSecAttrIssuer as String: .data(parsed.normalizedIssuer.map(X509Certificate.content) ?? Data()),
            kSecAttrSubject as String: .data(parsed.normalizedSubject.map(X509Certificate.content) ?? Data()),
            kSecAttrSerialNumber as String: .data(parsed.serialNumber),
            kSecAttrPublicKeyHash as String: .data(certificate.publicKeyHash),
        ]
        if let keyIdentifier = parsed.subjectKeyIdentifier { attributes[kSecAttrSubjectKeyID as String] = .data(keyIdentifier) }
        if let summary = certificate.subjectSummary { attributes[kSecAttrLabel as String] = .string(summary) }
        return attributes
    }

    /// `SecItemAdd` of a certificate: `kSecValueRef` (its attributes derived, those given
    /// winning) or `kSecValueData` alone (as on iOS, nothing derived: type 0, empty issuer and
    /// serial number, so two certificates added that way collide). Accessibility defaults to
    /// always, as iOS gives certificates; errSecDuplicateItem for the same type, issuer, serial
    /// number and access group again.
    static func add(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        KeychainCall.run { call in
            let dictionary = try KeychainQuery.normalize(attributes)
            let query = try CertificateQuery(dictionary, now: Date())
            guard !query.isIdentity else { throw KeychainQuery.Unsimulated() }  // our limit: an identity without an identity ref (``explode(_:_:_:_:)`` takes those)
            // A persistent reference names an existing item (errSecParam, as for passwords).
            if query.persistentRef != nil { throw KeychainQuery.Invalid(reason: "SecItemAdd does not take kSecValuePersistentRef") }
            var stored: [String: KeychainAttributeValue]
            let der: Data
            if let certificate = query.certificateRef {
                stored = derivedAttributes(certificate)
                der = certificate.certificate.der
            } else if let value = query.value {
                stored = [kSecAttrCertificateType as String: .integer(0), kSecAttrIssuer as String: .data(Data()),
                          kSecAttrSerialNumber as String: .data(Data())]
                der = value
            } else {
                throw KeychainQuery.Invalid(reason: "a certificate item needs kSecValueRef (a SecCertificate) or kSecValueData")
            }
            stored.merge(query.attributes) { $1 }
            let authenticator = try call.authenticator(context: query.context)
            try KeychainQuery.requireEntitlement(query.accessGroup.map { [kSecAttrAccessGroup as String: $0] }, of: authenticator)
            if let nothing = KeychainQuery.addStoringNothing(attributes) { return nothing }
            // The access group is part of the item, as on iOS: the one given, else the app's first.
            stored[kSecAttrAccessGroup as String] = query.accessGroup ?? .string(KeychainQuery.defaultAccessGroup(of: authenticator))
            if query.synchronizable == .yes { stored[kSecAttrSynchronizable as String] = .bool(true) }
            let accessibility = query.accessibility ?? .always
            try authenticator.keychain.add(der, service: service, account: account(stored), itemClass: .certificate,
                                           accessControl: try AccessControl(accessibility), attributes: stored)
            if let result, query.returns.any {
                let found = Found(item: try authenticator.keychain.info(service: service, account: account(stored), itemClass: .certificate), der: der)
                result.pointee = shape([found], query)
            }
            return errSecSuccess
        }
    }

    /// An item's account: its primary key on iOS (type, issuer, serial number, access group,
    /// whether it synchronizes). The account of one that does not is the one it had before
    /// synchronizing was kept, so certificates stored then are found as they were.
    private static func account(_ attributes: [String: KeychainAttributeValue]) -> String {
        var names = [kSecAttrCertificateType, kSecAttrIssuer, kSecAttrSerialNumber, kSecAttrAccessGroup].map { $0 as String }
        if attributes[kSecAttrSynchronizable as String] != nil { names.append(kSecAttrSynchronizable as String) }
        return primaryKeyAccount(names, of: attributes)
    }

    /// The stored certificates `query` selects, in the order they were added: matching its
    /// attributes, `kSecValueRef`, `kSecMatchIssuers` (the issuer, or an issuer of it stored
    /// here, up to 10 levels), `kSecMatchEmailAddressIfPresent` (any address, ignoring case;
    /// a certificate without one does not match), `kSecMatchValidOnDate` (inclusive),
    /// `kSecMatchPolicy` and `kSecMatchTrustedOnly` (as iOS's securityd filters with a trust of
    /// the certificate alone: `_FilterWithPolicy`, `_FilterWithTrust`) and
    /// `kSecAttrSynchronizable` (`synchronizable` in its place when given).
    static func matching(_ query: CertificateQuery, attributes: [String: KeychainAttributeValue]? = nil,
                         synchronizable: KeychainQuery.Synchronizable? = nil, on authenticator: Authenticator) throws -> [Found] {
        var wanted = attributes ?? query.attributes
        if let group = query.accessGroup { wanted[kSecAttrAccessGroup as String] = group }
        let all = try authenticator.keychain.items(service: service, itemClass: .certificate)
            .sorted { ($0.insertionOrder ?? 0, $0.account) < ($1.insertionOrder ?? 0, $1.account) }
        var found: [Found] = []
        for item in all where wanted.allSatisfy({ KeychainQuery.sameBytes(item.attributes[$0.key], $0.value) })
            && (synchronizable ?? query.synchronizable).allows(item.attributes) && query.referenceAllows(item.account) {
            guard let der = try authenticator.keychain.readWithoutEvaluation(service: service, account: item.account,
                                                                             itemClass: .certificate, context: nil) else { continue }
            let candidate = Found(item: item, der: der)
            if let ref = query.certificateRef, ref.certificate.der != der { continue }
            if query.email != nil || query.validOn != nil || query.policy != nil || query.trustedOnly {
                guard let certificate = candidate.certificate else { continue }
                let parsed = certificate.certificate
                if let email = query.email,
                   !parsed.emailAddresses.contains(where: { $0.caseInsensitiveCompare(email) == .orderedSame }) { continue }
                if let date = query.validOn, !(parsed.notBefore < parsed.notAfter && parsed.notBefore <= date && date <= parsed.notAfter) { continue }
                // The trust filters last: each is an evaluation.
                if let policy = query.policy, !TrustEvaluation.satisfies(certificate, policy: policy, at: query.validOn) { continue }
                if query.trustedOnly, !TrustEvaluation.satisfies(certificate, policy: SecPolicyCreateBasicX509(), at: nil) { continue }
            }
            if let issuers = query.issuers, !chains(item, to: issuers, among: all, depth: 10) { continue }
            found.append(candidate)
        }
        return found
    }

    /// Whether `item`'s issuer is one of `issuers`, or the subject of a stored certificate
    /// (not self-issued) that chains to one, within `depth` levels. Breadth first over issuer
    /// names, each name once: certificates whose names form a cycle (each the issuer of the
    /// next) are walked in `depth` passes over `all`, not in `all.count ^ depth` steps.
    private static func chains(_ item: KeychainItemInfo, to issuers: [Data], among all: [KeychainItemInfo], depth: Int) -> Bool {
        guard case let .data(first)? = item.attributes[kSecAttrIssuer as String] else { return false }
        var level: Set<Data> = [first]
        var seen = level
        for _ in 0..<depth {
            if !level.isDisjoint(with: issuers) { return true }
            var next: Set<Data> = []
            for parent in all {
                guard case let .data(subject)? = parent.attributes[kSecAttrSubject as String], level.contains(subject),
                      case let .data(issuer)? = parent.attributes[kSecAttrIssuer as String], issuer != subject,
                      seen.insert(issuer).inserted
                else { continue }
                next.insert(issuer)
            }
            if next.isEmpty { return false }
            level = next
        }
        return false
    }

    /// The attributes `kSecReturnAttributes` gives for a stored certificate.
    static func attributes(of found: Found) -> [String: Any] {
        returnedAttributes(found.item, itemClass: kSecClassCertificate)
    }

    /// A stored certificate's persistent reference: its item, by account.
    static func reference(_ account: String) -> KeychainQuery.PersistentReference {
        KeychainQuery.PersistentReference(itemClass: .certificate, service: service, account: account)
    }

    /// What `result` receives for certificates: a `SecCertificate`, the DER, its persistent
    /// reference, or a dictionary (``ReturnedParts/shape(ref:data:persistentRef:attributes:)``);
    /// an array for `kSecMatchLimitAll`.
    private static func shape(_ found: [Found], _ query: CertificateQuery) -> CFTypeRef? {
        let shaped: [AnyObject] = found.compactMap { item in
            query.returns.shape(ref: item.certificate, data: item.der, persistentRef: reference(item.item.account).bytes) {
                attributes(of: item)
            }
        }
        return query.limit.returnsArray ? shaped as NSArray : shaped.first
    }

    /// `SecItemCopyMatching` of certificates or identities.
    static func copyMatching(_ cfQuery: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
        KeychainCall.run { call in
            let query = try CertificateQuery(try KeychainQuery.normalize(cfQuery), now: Date())
            let authenticator = try call.authenticator(context: query.context)
            try KeychainQuery.requireEntitlement(query.accessGroup.map { [kSecAttrAccessGroup as String: $0] }, of: authenticator)
            if query.isIdentity { return try copyIdentities(query, result, on: authenticator) }
            var found = try matching(query, on: authenticator)
            found = query.limit.cap(found)
            guard !found.isEmpty else { return errSecItemNotFound }
            if query.returns.any { result?.pointee = shape(found, query) }
            return errSecSuccess
        }
    }

    /// `SecItemDelete` of certificates: every match. (Identities are taken apart into their
    /// certificates and keys first: ``deleteIdentities(_:)``.)
    static func delete(_ cfQuery: CFDictionary) -> OSStatus {
        KeychainCall.run { call in
            let query = try CertificateQuery(try KeychainQuery.normalize(cfQuery), now: Date())
            let authenticator = try call.authenticator(context: query.context)
            try KeychainQuery.requireEntitlement(query.accessGroup.map { [kSecAttrAccessGroup as String: $0] }, of: authenticator)
            let found = try matching(query, on: authenticator)
            guard !found.isEmpty else { return errSecItemNotFound }
            for certificate in found {
                try authenticator.keychain.delete(service: service, account: certificate.item.account, itemClass: .certificate)
            }
            return errSecSuccess
        }
    }
}

extension CertificateQuery {
    /// Whether the query's `kSecValuePersistentRef`, if it names one, is the stored
    /// certificate item of `account` (its identity's, in an identity query).
    func referenceAllows(_ account: String) -> Bool {
        (isIdentity ? CertificateItems.identityReference(account) : CertificateItems.reference(account)).isSelected(by: persistentRef)
    }
}
#endif
