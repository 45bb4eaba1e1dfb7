/// Keychain status codes (`OSStatus`) with Apple's raw values (REFERENCE §9).
public enum KeychainStatus: Int32, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// No error.
    case success = 0
    /// A parameter was invalid (e.g. access-control flags combining `or` and `and`).
    case param = -50
    /// The user cancelled the authentication.
    case userCanceled = -128
    /// An I/O error in the backing store (our rule: storage failures).
    case io = -36
    /// The item cannot be stored or used here (e.g. whenPasscodeSetThisDeviceOnly without a passcode).
    case notAvailable = -25291
    /// Authentication failed (wrong credentials, biometry locked out or unusable).
    case authFailed = -25293
    /// An item with this class, service and account already exists.
    case duplicateItem = -25299
    /// No such item (or it was invalidated by an enrollment change, our rule).
    case itemNotFound = -25300
    /// Reading needs the user, but the context does not allow interaction.
    case interactionNotAllowed = -25308
    /// Stored data cannot be decoded (corrupt store or record).
    case decode = -26275

    /// Apple's constant name, e.g. `errSecItemNotFound`.
    public var name: String {
        switch self {
        case .success: "errSecSuccess"
        case .param: "errSecParam"
        case .userCanceled: "errSecUserCanceled"
        case .io: "errSecIO"
        case .notAvailable: "errSecNotAvailable"
        case .authFailed: "errSecAuthFailed"
        case .duplicateItem: "errSecDuplicateItem"
        case .itemNotFound: "errSecItemNotFound"
        case .interactionNotAllowed: "errSecInteractionNotAllowed"
        case .decode: "errSecDecode"
        }
    }

    public var description: String { "\(name) (\(rawValue))" }
}

/// Why a keychain operation failed: one error for prompts and storage alike, saying whether
/// the user cancelled, the item is missing or was invalidated by an enrollment change,
/// biometry is locked out, or the data is corrupt — with the `OSStatus` Apple code would see
/// and, when a prompt was involved, the LAError code behind it.
///
/// ```swift
/// do {
///     let token = try await keychain.read(service: "api", account: "alice")
///     signIn(with: token)
/// } catch let error as KeychainError where error.kind == .invalidated {
///     // the enrolled fingers changed: sign in with the app's password, then store again
/// }
/// ```
///
/// Messages never contain item values, passcodes or application passwords.
public struct KeychainError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in the terms an app acts on.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// The user cancelled the prompt: errSecUserCanceled. (A system or app cancel is
        /// ``authenticationFailed``, as on iOS.)
        case cancelled
        /// No such item: errSecItemNotFound.
        case itemNotFound
        /// The item was invalidated by an enrollment change (biometryCurrentSet): errSecItemNotFound.
        case invalidated
        /// Biometry is locked out: errSecAuthFailed.
        case lockedOut
        /// The authentication failed or cannot be done (no passcode, nothing enrolled, wrong
        /// application password): errSecAuthFailed.
        case authenticationFailed
        /// The read needs the user but interaction is not allowed: errSecInteractionNotAllowed.
        case interactionNotAllowed
        /// The item cannot be stored here now (no passcode for whenPasscodeSetThisDeviceOnly):
        /// errSecNotAvailable.
        case notAvailable
        /// An item with the same class, service and account exists: errSecDuplicateItem.
        case duplicateItem
        /// A parameter is invalid (`or` with `and`, empty service): errSecParam.
        case invalidParameter
        /// The stored data is corrupt or was tampered with: errSecDecode.
        case corrupt
        /// The store could not be read or written: errSecIO.
        case storageFailure

        /// The status code this kind is reported with.
        public var status: KeychainStatus {
            switch self {
            case .cancelled: .userCanceled
            case .itemNotFound, .invalidated: .itemNotFound
            case .lockedOut, .authenticationFailed: .authFailed
            case .interactionNotAllowed: .interactionNotAllowed
            case .notAvailable: .notAvailable
            case .duplicateItem: .duplicateItem
            case .invalidParameter: .param
            case .corrupt: .decode
            case .storageFailure: .io
            }
        }

        var defaultMessage: String {
            switch self {
            case .cancelled: "The authentication was cancelled."
            case .itemNotFound: "The item could not be found."
            case .invalidated: "The item was invalidated by an enrollment change."
            case .lockedOut: "Biometry is locked out; enter the device passcode to unlock it."
            case .authenticationFailed: "Authentication failed."
            case .interactionNotAllowed: "The item needs authentication, but interaction is not allowed."
            case .notAvailable: "The item cannot be stored or used on this device now."
            case .duplicateItem: "An item with this class, service and account already exists."
            case .invalidParameter: "A parameter is invalid."
            case .corrupt: "The stored item is corrupt."
            case .storageFailure: "The keychain store failed."
            }
        }
    }

    /// What went wrong.
    public var kind: Kind
    /// The `OSStatus` Apple's keychain would return.
    public var status: KeychainStatus { kind.status }
    /// The raw `OSStatus`.
    public var osStatus: Int32 { status.rawValue }
    /// The LAError code of the prompt that failed, when one did.
    public var authenticationCode: AuthenticationError.Code?
    /// What happened, for people (never contains secrets).
    public var message: String

    /// Creates an error; the message defaults to the kind's standard explanation.
    public init(_ kind: Kind, message: String? = nil, authenticationCode: AuthenticationError.Code? = nil) {
        self.kind = kind
        self.message = message ?? kind.defaultMessage
        self.authenticationCode = authenticationCode
    }

    /// `errSecItemNotFound (-25300) [invalidated]: The item was invalidated by an enrollment change.`
    public var description: String {
        var text = "\(status) [\(kind.rawValue)]: \(message)"
        if let authenticationCode { text += " (LAError \(authenticationCode.name) \(authenticationCode.rawValue))" }
        return text
    }

    /// The keychain error a failed prompt turns into, as Apple's `SecItem.m` maps an LAError
    /// (`osstatus_for_localauthentication_error`): the user's cancel → errSecUserCanceled;
    /// notInteractive → errSecInteractionNotAllowed; lockout → errSecAuthFailed (locked out);
    /// every other LAError → errSecAuthFailed, keeping the LAError code — a system cancel, the
    /// app's (`invalidate()`) and the fallback button among them.
    public init(_ error: AuthenticationError) {
        switch error.code {
        case .userCancel:
            self.init(.cancelled, message: error.message, authenticationCode: error.code)
        case .notInteractive:
            self.init(.interactionNotAllowed, authenticationCode: error.code)
        case .biometryLockout:
            self.init(.lockedOut, authenticationCode: error.code)
        default:
            self.init(.authenticationFailed, message: error.message, authenticationCode: error.code)
        }
    }

    /// The keychain error a storage failure turns into: corrupt data → errSecDecode, the rest
    /// → errSecIO.
    public init(_ error: StorageError) {
        switch error {
        case .corruptRecord, .corruptStore:
            self.init(.corrupt, message: error.description)
        case .ioFailure:
            self.init(.storageFailure, message: error.description)
        }
    }
}
