#if !canImport(Darwin)
// The kSec* keys and values of the keychain query dictionaries, with Apple's string values,
// and the errSec* status codes (REFERENCE §9).
//
// The constants are `CFString`s (`NSString`s, immutable); `NSString` is not `Sendable` in
// swift-corelibs-foundation, hence `nonisolated(unsafe)`.

// MARK: Item classes

/// The item-class key.
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// Generic passwords: items keyed by `kSecAttrService` and `kSecAttrAccount`.
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// Internet passwords: items keyed by `kSecAttrServer` and `kSecAttrAccount`.
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// Keys: Secure Enclave and software private keys, public keys, RSA, P-384 and P-521 keys,
/// symmetric keys and attribute-only key items, found by `kSecAttrApplicationTag`,
/// `kSecAttrLabel`, `kSecAttrApplicationLabel` and the other key attributes; `kSecReturnRef`
/// gives a `SecKey` (see `SecKeyCreateRandomKey`). `SecItemUpdate` of a key is
/// `errSecUnimplemented` (our limit).
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Certificates: added as a `SecCertificate` (`kSecValueRef`, with iOS's derived attributes:
/// issuer, serial number, subject, key ids...) or as DER (`kSecValueData`), found by those
/// attributes and `kSecMatchIssuers` / `kSecMatchEmailAddressIfPresent` / `kSecMatchValidOnDate`,
/// returned, deleted and named by persistent references as on iOS. `SecItemUpdate` is
/// `errSecUnimplemented` (our limit; see `CertificateItems.swift`).
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Identities: a stored certificate joined with the stored private key whose application
/// label is the certificate's public key hash, as iOS joins them; found and returned
/// (`SecIdentity`, its key's data, a persistent reference or attributes). An identity ref is
/// added, looked up and deleted as its certificate, then its key, as `SecItem.m` does; a delete
/// of the class deletes what it selects as certificates, then as keys. `SecItemUpdate` is
/// `errSecUnimplemented` (our limit, as for certificates).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: Attributes

/// The service of a generic password.
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// The account.
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// The server of an internet password (its "service").
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// The accessibility class (a `kSecAttrAccessible*` value).
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// The access control (a `SecAccessControl`).
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// A label (`String`): stored, matched, returned.
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// Generic attribute data (`Data`): stored, matched, returned.
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// A description (`String`): stored, matched, returned.
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// A comment (`String`): stored, matched, returned.
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// The access group (`String`): stored and matched. An item added without one is in the
/// app's default group: the first of the composition's `keychainAccessGroups` that is neither
/// Safari's nor an app group (`group.…`), else the app's application identifier,
/// `<teamID>.<app id>`, as on iOS.
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// iCloud synchronization (`Bool`): stored and matched for every class, passwords, keys and
/// certificates (nothing is synchronized). A query without it matches only items that are not
/// synchronizable, as on iOS.
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// The `kSecAttrSynchronizable` value of a query that matches synchronizable and other items alike.
nonisolated(unsafe) public let kSecAttrSynchronizableAny: CFString = "syna"
/// The protocol of an internet password (a `kSecAttrProtocol*` value): stored, matched, returned.
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// The port of an internet password (`Int`): stored, matched, returned.
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// The path of an internet password (`String`): stored, matched, returned.
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"

// MARK: Values

/// The item's secret data (`Data`).
nonisolated(unsafe) public let kSecValueData: CFString = "v_Data"
/// A reference to the item: a `SecKey` in key queries (passwords have no reference type).
nonisolated(unsafe) public let kSecValueRef: CFString = "v_Ref"
/// A persistent reference (`Data` from `kSecReturnPersistentRef`) naming one password, key,
/// certificate or identity. It names the item's class too, so a query by it may leave
/// `kSecClass` out; and it finds a synchronizable item without `kSecAttrSynchronizable`.
/// `SecItemAdd` takes none (`errSecParam`).
nonisolated(unsafe) public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: Results

/// Return the item's data (`Data`).
nonisolated(unsafe) public let kSecReturnData: CFString = "r_Data"
/// Return the item's attributes (`[String: Any]`).
nonisolated(unsafe) public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a reference: a `SecKey` for key queries; ignored for passwords, which have none.
nonisolated(unsafe) public let kSecReturnRef: CFString = "r_Ref"
/// Return a persistent reference (`Data`) to each password, key, certificate or identity found
/// or added; with other results asked for, it is the `kSecValuePersistentRef` entry of each
/// dictionary.
nonisolated(unsafe) public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
/// How many items to match.
nonisolated(unsafe) public let kSecMatchLimit: CFString = "m_Limit"
/// Match the first item (the default).
nonisolated(unsafe) public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Match every item; results are arrays.
nonisolated(unsafe) public let kSecMatchLimitAll: CFString = "m_LimitAll"

// MARK: Authentication

/// The `LAContext` whose authentication (and application-password credential) the keychain
/// uses, so an `evaluateAccessControl` / `evaluatePolicy` done before opens the item without
/// asking again.
nonisolated(unsafe) public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// The reason shown when reading the item needs authentication (deprecated by Apple in favour
/// of `LAContext.localizedReason`; both work).
nonisolated(unsafe) public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Whether the keychain may prompt: `kSecUseAuthenticationUIAllow` (default),
/// `kSecUseAuthenticationUIFail`, `kSecUseAuthenticationUISkip`.
nonisolated(unsafe) public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// Prompt when needed.
nonisolated(unsafe) public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Never prompt: an item that needs authentication is `errSecInteractionNotAllowed`.
nonisolated(unsafe) public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// Never prompt: items that need authentication are skipped.
nonisolated(unsafe) public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// The data-protection keychain on macOS: accepted, ignored.
nonisolated(unsafe) public let kSecUseDataProtectionKeychain: CFString = "nleg"

// MARK: More attributes (stored, matched and returned)
/// The authentication scheme of an internet password (a `kSecAttrAuthenticationType*` value).
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// The security domain of an internet password (`String`).
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// The item's type, a four-character code (`NSNumber`).
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// The item's creator, a four-character code (`NSNumber`).
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// Whether the item is hidden from keychain browsers (`Bool`).
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item is a "no password" marker (`Bool`).
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// When the item was added (`Date`, the device's virtual clock): returned with `kSecReturnAttributes`, never set by callers.
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// When the item was last changed (`Date`, the device's virtual clock): returned with `kSecReturnAttributes`, never set by callers.
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"

/// The application tag of a key (`Data`, or a `String` taken as its UTF-8 bytes): how apps
/// name their keys in `kSecClassKey` queries.
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"

// MARK: kSecAttrProtocol values (all 31 of Apple's)

/// `kSecAttrProtocol` FTP.
nonisolated(unsafe) public let kSecAttrProtocolFTP: CFString = "ftp "
/// `kSecAttrProtocol` FTPAccount.
nonisolated(unsafe) public let kSecAttrProtocolFTPAccount: CFString = "ftpa"
/// `kSecAttrProtocol` HTTP.
nonisolated(unsafe) public let kSecAttrProtocolHTTP: CFString = "http"
/// `kSecAttrProtocol` IRC.
nonisolated(unsafe) public let kSecAttrProtocolIRC: CFString = "irc "
/// `kSecAttrProtocol` NNTP.
nonisolated(unsafe) public let kSecAttrProtocolNNTP: CFString = "nntp"
/// `kSecAttrProtocol` POP3.
nonisolated(unsafe) public let kSecAttrProtocolPOP3: CFString = "pop3"
/// `kSecAttrProtocol` SMTP.
nonisolated(unsafe) public let kSecAttrProtocolSMTP: CFString = "smtp"
/// `kSecAttrProtocol` SOCKS.
nonisolated(unsafe) public let kSecAttrProtocolSOCKS: CFString = "sox "
/// `kSecAttrProtocol` IMAP.
nonisolated(unsafe) public let kSecAttrProtocolIMAP: CFString = "imap"
/// `kSecAttrProtocol` LDAP.
nonisolated(unsafe) public let kSecAttrProtocolLDAP: CFString = "ldap"
/// `kSecAttrProtocol` AppleTalk.
nonisolated(unsafe) public let kSecAttrProtocolAppleTalk: CFString = "atlk"
/// `kSecAttrProtocol` AFP.
nonisolated(unsafe) public let kSecAttrProtocolAFP: CFString = "afp "
/// `kSecAttrProtocol` Telnet.
nonisolated(unsafe) public let kSecAttrProtocolTelnet: CFString = "teln"
/// `kSecAttrProtocol` SSH.
nonisolated(unsafe) public let kSecAttrProtocolSSH: CFString = "ssh "
/// `kSecAttrProtocol` FTPS.
nonisolated(unsafe) public let kSecAttrProtocolFTPS: CFString = "ftps"
/// `kSecAttrProtocol` HTTPS.
nonisolated(unsafe) public let kSecAttrProtocolHTTPS: CFString = "htps"
/// `kSecAttrProtocol` HTTPProxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPProxy: CFString = "htpx"
/// `kSecAttrProtocol` HTTPSProxy.
nonisolated(unsafe) public let kSecAttrProtocolHTTPSProxy: CFString = "htsx"
/// `kSecAttrProtocol` FTPProxy.
nonisolated(unsafe) public let kSecAttrProtocolFTPProxy: CFString = "ftpx"
/// `kSecAttrProtocol` SMB.
nonisolated(unsafe) public let kSecAttrProtocolSMB: CFString = "smb "
/// `kSecAttrProtocol` RTSP.
nonisolated(unsafe) public let kSecAttrProtocolRTSP: CFString = "rtsp"
/// `kSecAttrProtocol` RTSPProxy.
nonisolated(unsafe) public let kSecAttrProtocolRTSPProxy: CFString = "rtsx"
/// `kSecAttrProtocol` DAAP.
nonisolated(unsafe) public let kSecAttrProtocolDAAP: CFString = "daap"
/// `kSecAttrProtocol` EPPC.
nonisolated(unsafe) public let kSecAttrProtocolEPPC: CFString = "eppc"
/// `kSecAttrProtocol` IPP.
nonisolated(unsafe) public let kSecAttrProtocolIPP: CFString = "ipp "
/// `kSecAttrProtocol` NNTPS.
nonisolated(unsafe) public let kSecAttrProtocolNNTPS: CFString = "ntps"
/// `kSecAttrProtocol` LDAPS.
nonisolated(unsafe) public let kSecAttrProtocolLDAPS: CFString = "ldps"
/// `kSecAttrProtocol` TelnetS.
nonisolated(unsafe) public let kSecAttrProtocolTelnetS: CFString = "tels"
/// `kSecAttrProtocol` IMAPS.
nonisolated(unsafe) public let kSecAttrProtocolIMAPS: CFString = "imps"
/// `kSecAttrProtocol` IRCS.
nonisolated(unsafe) public let kSecAttrProtocolIRCS: CFString = "ircs"
/// `kSecAttrProtocol` POP3S.
nonisolated(unsafe) public let kSecAttrProtocolPOP3S: CFString = "pops"

// MARK: kSecAttrAuthenticationType values

/// `kSecAttrAuthenticationType` NTLM.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeNTLM: CFString = "ntlm"
/// `kSecAttrAuthenticationType` MSN.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeMSN: CFString = "msna"
/// `kSecAttrAuthenticationType` DPA.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDPA: CFString = "dpaa"
/// `kSecAttrAuthenticationType` RPA.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeRPA: CFString = "rpaa"
/// `kSecAttrAuthenticationType` HTTPBasic.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPBasic: CFString = "http"
/// `kSecAttrAuthenticationType` HTTPDigest.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTTPDigest: CFString = "httd"
/// `kSecAttrAuthenticationType` HTMLForm.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeHTMLForm: CFString = "form"
/// `kSecAttrAuthenticationType` Default.
nonisolated(unsafe) public let kSecAttrAuthenticationTypeDefault: CFString = "dflt"

/// Deprecated by Apple (iOS 9) in favour of `kSecUseAuthenticationUI`: `true` acts as
/// `kSecUseAuthenticationUIFail` (an item that needs authentication is
/// `errSecInteractionNotAllowed`).
nonisolated(unsafe) public let kSecUseNoAuthenticationUI: CFString = "u_NoAuthUI"

// MARK: Status codes (Apple's values; the texts are SecCopyErrorMessageString's)

/// No error: `0`, the old Carbon spelling of ``errSecSuccess`` (`status == noErr`).
public let noErr: OSStatus = 0
/// No error.
public let errSecSuccess: OSStatus = 0
/// Function or operation not implemented.
public let errSecUnimplemented: OSStatus = -4
/// The disk is full.
public let errSecDiskFull: OSStatus = -34
/// I/O error.
public let errSecIO: OSStatus = -36
/// File already open with write permission.
public let errSecOpWr: OSStatus = -49
/// One or more parameters passed to a function were not valid.
public let errSecParam: OSStatus = -50
/// Write permissions error.
public let errSecWrPerm: OSStatus = -61
/// Failed to allocate memory.
public let errSecAllocate: OSStatus = -108
/// User canceled the operation.
public let errSecUserCanceled: OSStatus = -128
/// Bad parameter or invalid state for operation.
public let errSecBadReq: OSStatus = -909
/// An internal component failed.
public let errSecInternalComponent: OSStatus = -2070
/// An internal error in the Security framework (`SecErrorGetOSStatus` of an error it cannot place).
public let errSecInternal: OSStatus = -26276
/// An unknown Core Foundation error occurred.
public let errSecCoreFoundationUnknown: OSStatus = -4960
/// No keychain is available. You may need to restart your computer.
public let errSecNotAvailable: OSStatus = -25291
/// This keychain cannot be modified.
public let errSecReadOnly: OSStatus = -25292
/// The user name or passphrase you entered is not correct.
public let errSecAuthFailed: OSStatus = -25293
/// The specified keychain could not be found.
public let errSecNoSuchKeychain: OSStatus = -25294
/// The specified keychain is not a valid keychain file.
public let errSecInvalidKeychain: OSStatus = -25295
/// A keychain with the same name already exists.
public let errSecDuplicateKeychain: OSStatus = -25296
/// The specified callback function is already installed.
public let errSecDuplicateCallback: OSStatus = -25297
/// The specified callback function is not valid.
public let errSecInvalidCallback: OSStatus = -25298
/// The specified item already exists in the keychain.
public let errSecDuplicateItem: OSStatus = -25299
/// The specified item could not be found in the keychain.
public let errSecItemNotFound: OSStatus = -25300
/// There is not enough memory available to use the specified item.
public let errSecBufferTooSmall: OSStatus = -25301
/// This item contains information which is too large or in a format that cannot be displayed.
public let errSecDataTooLarge: OSStatus = -25302
/// The specified attribute does not exist.
public let errSecNoSuchAttr: OSStatus = -25303
/// The specified item is no longer valid. It may have been deleted from the keychain.
public let errSecInvalidItemRef: OSStatus = -25304
/// Unable to search the current keychain.
public let errSecInvalidSearchRef: OSStatus = -25305
/// The specified item does not appear to be a valid keychain item.
public let errSecNoSuchClass: OSStatus = -25306
/// A default keychain could not be found.
public let errSecNoDefaultKeychain: OSStatus = -25307
/// User interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// The specified attribute could not be modified.
public let errSecReadOnlyAttr: OSStatus = -25309
/// This keychain was created by a different version of the system software and cannot be opened.
public let errSecWrongSecVersion: OSStatus = -25310
/// This item specifies a key size which is too large or too small.
public let errSecKeySizeNotAllowed: OSStatus = -25311
/// A required component (data storage module) could not be loaded. You may need to restart your computer.
public let errSecNoStorageModule: OSStatus = -25312
/// A required component (certificate module) could not be loaded. You may need to restart your computer.
public let errSecNoCertificateModule: OSStatus = -25313
/// A required component (policy module) could not be loaded. You may need to restart your computer.
public let errSecNoPolicyModule: OSStatus = -25314
/// User interaction is required, but is currently not allowed.
public let errSecInteractionRequired: OSStatus = -25315
/// The contents of this item cannot be retrieved.
public let errSecDataNotAvailable: OSStatus = -25316
/// The contents of this item cannot be modified.
public let errSecDataNotModifiable: OSStatus = -25317
/// One or more certificates required to validate this certificate cannot be found.
public let errSecCreateChainFailed: OSStatus = -25318
/// The specified preferences domain is not valid.
public let errSecInvalidPrefsDomain: OSStatus = -25319
/// In dark wake, no UI possible
public let errSecInDarkWake: OSStatus = -25320
/// The specified access control list is not in standard (simple) form.
public let errSecACLNotSimple: OSStatus = -25240
/// The specified policy cannot be found.
public let errSecPolicyNotFound: OSStatus = -25241
/// The specified trust setting is invalid.
public let errSecInvalidTrustSetting: OSStatus = -25242
/// The specified item has no access control.
public let errSecNoAccessForItem: OSStatus = -25243
/// Invalid attempt to change the owner of this item.
public let errSecInvalidOwnerEdit: OSStatus = -25244
/// No trust results are available.
public let errSecTrustNotAvailable: OSStatus = -25245
/// Import/Export format unsupported.
public let errSecUnsupportedFormat: OSStatus = -25256
/// Unknown format in import.
public let errSecUnknownFormat: OSStatus = -25257
/// Key material must be wrapped for export.
public let errSecKeyIsSensitive: OSStatus = -25258
/// An attempt was made to import multiple private keys.
public let errSecMultiplePrivKeys: OSStatus = -25259
/// Passphrase is required for import/export.
public let errSecPassphraseRequired: OSStatus = -25260
/// The password reference was invalid.
public let errSecInvalidPasswordRef: OSStatus = -25261
/// The Trust Settings Record was corrupted.
public let errSecInvalidTrustSettings: OSStatus = -25262
/// No Trust Settings were found.
public let errSecNoTrustSettings: OSStatus = -25263
/// MAC verification failed during PKCS12 import (wrong password?)
public let errSecPkcs12VerifyFailure: OSStatus = -25264
/// Unable to decode the provided data.
public let errSecDecode: OSStatus = -26275
/// The certificate was not trusted.
public let errSecNotTrusted: OSStatus = -67843
/// A cryptographic verification failure has occurred.
public let errSecVerifyFailed: OSStatus = -67808
/// An invalid record was encountered.
public let errSecInvalidRecord: OSStatus = -67701
/// A required entitlement isn't present.
public let errSecMissingEntitlement: OSStatus = -34018

#endif
