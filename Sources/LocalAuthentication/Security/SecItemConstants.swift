#if !canImport(Darwin)
// The kSec* keys and values of the keychain query dictionaries, with Apple's string values,
// and the errSec* status codes (REFERENCE §9).

// MARK: Item classes

/// The item-class key.
public let kSecClass: CFString = "class"
/// Generic passwords: items keyed by `kSecAttrService` and `kSecAttrAccount`.
public let kSecClassGenericPassword: CFString = "genp"
/// Internet passwords: items keyed by `kSecAttrServer` and `kSecAttrAccount`.
public let kSecClassInternetPassword: CFString = "inet"
/// Keys: not simulated (adding one is `errSecUnimplemented`; queries find nothing).
public let kSecClassKey: CFString = "keys"
/// Certificates: not simulated (adding one is `errSecUnimplemented`; queries find nothing).
public let kSecClassCertificate: CFString = "cert"
/// Identities: not simulated (adding one is `errSecUnimplemented`; queries find nothing).
public let kSecClassIdentity: CFString = "idnt"

// MARK: Attributes

/// The service of a generic password.
public let kSecAttrService: CFString = "svce"
/// The account.
public let kSecAttrAccount: CFString = "acct"
/// The server of an internet password (its "service").
public let kSecAttrServer: CFString = "srvr"
/// The accessibility class (a `kSecAttrAccessible*` value).
public let kSecAttrAccessible: CFString = "pdmn"
/// The access control (a `SecAccessControl`).
public let kSecAttrAccessControl: CFString = "accc"
/// A label: accepted, not stored.
public let kSecAttrLabel: CFString = "labl"
/// Generic attribute data: accepted, not stored.
public let kSecAttrGeneric: CFString = "gena"
/// A description: accepted, not stored.
public let kSecAttrDescription: CFString = "desc"
/// A comment: accepted, not stored.
public let kSecAttrComment: CFString = "icmt"
/// The access group: accepted, ignored (every item belongs to the app of the device's composition).
public let kSecAttrAccessGroup: CFString = "agrp"
/// iCloud synchronization: accepted, ignored.
public let kSecAttrSynchronizable: CFString = "sync"
/// Matches synchronizable and other items alike: accepted, ignored.
public let kSecAttrSynchronizableAny: CFString = "syna"
/// The protocol of an internet password: accepted, not stored.
public let kSecAttrProtocol: CFString = "ptcl"
/// The port of an internet password: accepted, not stored.
public let kSecAttrPort: CFString = "port"
/// The path of an internet password: accepted, not stored.
public let kSecAttrPath: CFString = "path"

// MARK: Values

/// The item's secret data (`Data`).
public let kSecValueData: CFString = "v_Data"
/// A reference to the item: not simulated.
public let kSecValueRef: CFString = "v_Ref"
/// A persistent reference to the item: not simulated.
public let kSecValuePersistentRef: CFString = "v_PersistentRef"

// MARK: Results

/// Return the item's data (`Data`).
public let kSecReturnData: CFString = "r_Data"
/// Return the item's attributes (`[String: Any]`).
public let kSecReturnAttributes: CFString = "r_Attributes"
/// Return a reference: not simulated (ignored).
public let kSecReturnRef: CFString = "r_Ref"
/// Return a persistent reference: not simulated (ignored).
public let kSecReturnPersistentRef: CFString = "r_PersistentRef"
/// How many items to match.
public let kSecMatchLimit: CFString = "m_Limit"
/// Match the first item (the default).
public let kSecMatchLimitOne: CFString = "m_LimitOne"
/// Match every item; results are arrays.
public let kSecMatchLimitAll: CFString = "m_LimitAll"

// MARK: Authentication

/// The `LAContext` whose authentication (and application-password credential) the keychain
/// uses, so an `evaluateAccessControl` / `evaluatePolicy` done before opens the item without
/// asking again.
public let kSecUseAuthenticationContext: CFString = "u_AuthCtx"
/// The reason shown when reading the item needs authentication (deprecated by Apple in favour
/// of `LAContext.localizedReason`; both work).
public let kSecUseOperationPrompt: CFString = "u_OpPrompt"
/// Whether the keychain may prompt: `kSecUseAuthenticationUIAllow` (default),
/// `kSecUseAuthenticationUIFail`, `kSecUseAuthenticationUISkip`.
public let kSecUseAuthenticationUI: CFString = "u_AuthUI"
/// Prompt when needed.
public let kSecUseAuthenticationUIAllow: CFString = "u_AuthUIA"
/// Never prompt: an item that needs authentication is `errSecInteractionNotAllowed`.
public let kSecUseAuthenticationUIFail: CFString = "u_AuthUIF"
/// Never prompt: items that need authentication are skipped.
public let kSecUseAuthenticationUISkip: CFString = "u_AuthUIS"
/// The data-protection keychain on macOS: accepted, ignored.
public let kSecUseDataProtectionKeychain: CFString = "nleg"

// MARK: Status codes

/// No error.
public let errSecSuccess: OSStatus = 0
/// Not implemented (keys, certificates, identities; renaming items).
public let errSecUnimplemented: OSStatus = -4
/// An I/O error in the keychain store.
public let errSecIO: OSStatus = -36
/// A parameter is invalid (missing class, `or` with `and`, a value of the wrong type).
public let errSecParam: OSStatus = -50
/// The user cancelled the authentication.
public let errSecUserCanceled: OSStatus = -128
/// The item cannot be stored or used now (whenPasscodeSetThisDeviceOnly without a passcode;
/// also: the default device cannot be composed, or the simulated user ran out of outcomes).
public let errSecNotAvailable: OSStatus = -25291
/// Authentication failed (wrong application password, biometry locked out or unusable).
public let errSecAuthFailed: OSStatus = -25293
/// An item with the same class, service and account exists.
public let errSecDuplicateItem: OSStatus = -25299
/// No such item (or it was invalidated by an enrollment change).
public let errSecItemNotFound: OSStatus = -25300
/// The item needs authentication, but interaction is not allowed.
public let errSecInteractionNotAllowed: OSStatus = -25308
/// The stored data is corrupt.
public let errSecDecode: OSStatus = -26275
#endif
