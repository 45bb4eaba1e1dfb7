#if !canImport(Darwin)
// The kSec* keys of SecItem.h beyond passwords and keys — certificate attributes and
// searches (CertificateItems.swift), key wrapping, sync views, item lists, token items — with
// Apple's string values, so code that names them compiles and sends what it would send on
// iOS. What a keychain call does with each is in its comment (and docs/API-COVERAGE.md).

// MARK: Certificate attributes (CertificateItems.swift stores them; a password query naming
// one is errSecNoSuchAttr, as iOS answers an attribute the item class does not have)

/// A certificate's normalized subject (DER `Data`, without the SEQUENCE header).
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
/// A certificate's normalized issuer (DER `Data`, without the SEQUENCE header).
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
/// A certificate's serial number (`Data`: the INTEGER's content bytes).
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
/// A certificate's subject key identifier (`Data`).
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
/// The SHA-1 of a certificate's public key bits (`Data`): its private key's
/// `kSecAttrApplicationLabel`.
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"
/// A certificate's type (a number: the X.509 version + 1).
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// A certificate's encoding (a number: 3, DER).
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"

// MARK: Key and item attributes

/// Whether a key can wrap other keys: `SecKeyCopyAttributes` of a software public key says
/// true, of a software private key false, as Apple's `SecKey.m`. No operation wraps keys
/// here: ignored in key queries, `errSecNoSuchAttr` in a password query (passwords have no
/// such attribute).
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// Whether a key can unwrap other keys: `SecKeyCopyAttributes` of a software private key says
/// true, of a software public key false, as Apple's `SecKey.m`. Ignored in key queries,
/// `errSecNoSuchAttr` in a password query.
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
/// The iCloud Keychain sync view of a password item (a string). As on iOS it is stored,
/// matched, returned and part of the item's primary key (the same service and account with
/// two hints are two items); nothing syncs here.
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// Apple's misspelt older name of ``kSecAttrPersistentReference`` (same value).
nonisolated(unsafe) public let kSecAttrPersistantReference: CFString = "persistref"
/// An item's persistent reference as an attribute. Touchstone hands persistent references out
/// only as `kSecValuePersistentRef`; in a query this key is ignored.
nonisolated(unsafe) public let kSecAttrPersistentReference: CFString = "persistref"
/// The access group of token (smart card) items, readable by every app. No token items are
/// simulated: a query in this group finds nothing.
nonisolated(unsafe) public let kSecAttrAccessGroupToken: CFString = "com.apple.token"

// MARK: Search keys

/// Certificate search: a `SecPolicy` each certificate must satisfy on its own (certificate and
/// identity queries; password and key queries accept and ignore it).
nonisolated(unsafe) public let kSecMatchPolicy: CFString = "m_Policy"
/// Search only these items (macOS only, SecItem.h says). As on iOS: a list of persistent
/// references (`Data`) is ignored, a list of `SecKey`s or certificates is `errSecParam`, and
/// `SecItemDelete` / `SecItemUpdate` with it are `errSecParam`.
nonisolated(unsafe) public let kSecMatchItemList: CFString = "m_ItemList"
/// Search these keychains (a macOS keychain list; iOS has one keychain). As iOS's securityd:
/// ignored by lookups, `errSecParam` in `SecItemDelete` / `SecItemUpdate`.
nonisolated(unsafe) public let kSecMatchSearchList: CFString = "m_SearchList"
/// Certificate and identity search: DER names (`[Data]`) of issuers; a certificate matches
/// when its normalized issuer is one of them, or is a stored certificate's subject that
/// chains to one (10 levels). With another class: `errSecUnimplemented`, as iOS's
/// errSecUnsupportedOperation.
nonisolated(unsafe) public let kSecMatchIssuers: CFString = "m_Issuers"
/// Certificate and identity search: certificates with this e-mail address (ignoring case);
/// those with none do not match. Not a string: `errSecParam`. Ignored for other classes.
nonisolated(unsafe) public let kSecMatchEmailAddressIfPresent: CFString = "m_EmailAddressIfPresent"
/// Certificate search: text within the subject. As on iOS, whose securityd has no rule for it:
/// accepted and ignored.
nonisolated(unsafe) public let kSecMatchSubjectContains: CFString = "m_SubjectContains"
/// Internet passwords (iOS 18) whose `kSecAttrServer` is this host or ends in "." and it
/// (`"example.com"` finds `"api.example.com"`, not `"badexample.com"`; case-sensitive). Not a
/// string: `errSecParam`; another class: `errSecUnimplemented`, as iOS 18's securityd answers.
nonisolated(unsafe) public let kSecMatchHostOrSubdomainOfHost: CFString = "m_HostOrSubdomainOfHost"
/// Case-insensitive matching of string attributes. As on iOS, securityd has no rule for it:
/// matching stays exact; `SecItemDelete` / `SecItemUpdate` with it are `errSecParam`.
nonisolated(unsafe) public let kSecMatchCaseInsensitive: CFString = "m_CaseInsensitive"
/// Certificate search: certificates trusted on their own only (basic X.509, the system's roots;
/// certificate and identity queries; password and key queries accept and ignore it).
nonisolated(unsafe) public let kSecMatchTrustedOnly: CFString = "m_TrustedOnly"
/// Certificate and identity search: valid on this date (`kCFNull`: now), bounds included.
/// Ignored for other classes, as on iOS.
nonisolated(unsafe) public let kSecMatchValidOnDate: CFString = "m_ValidOnDate"

/// How a password query treats these keys: the attributes a password item does not have
/// (`errSecNoSuchAttr`); the search keys are read by `KeychainQuery`.
enum UnsimulatedKeys {
    /// Attributes of certificates and keys, which generic and internet passwords lack.
    static let notPasswordAttributes: Set<String> = [
        kSecAttrSubject, kSecAttrIssuer, kSecAttrSerialNumber, kSecAttrSubjectKeyID, kSecAttrPublicKeyHash,
        kSecAttrCertificateType, kSecAttrCertificateEncoding, kSecAttrCanWrap, kSecAttrCanUnwrap,
    ].reduce(into: []) { $0.insert($1 as String) }
}
#endif
