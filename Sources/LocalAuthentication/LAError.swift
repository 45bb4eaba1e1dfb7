#if !canImport(Darwin)
import Foundation
import TouchstoneSecurity
import Touchstone
import TouchstoneSimulation

/// The error domain of `LAError`: `"com.apple.LocalAuthentication"`, as on Apple platforms.
public let LAErrorDomain: String = "com.apple.LocalAuthentication"

/// An authentication error, shaped like the `LAError` Swift sees on Apple platforms: a
/// `CustomNSError` with a nested ``Code`` whose raw values are Apple's (REFERENCE §3).
///
/// Every form client code uses works:
/// ```swift
/// do {
///     try await context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
/// } catch LAError.userCancel {
///     // nothing to do
/// } catch let error as LAError where error.code == .biometryLockout {
///     // run the passcode unlock flow
/// } catch {
///     print((error as NSError).domain, (error as NSError).code, error._code)
/// }
/// ```
/// Errors that `canEvaluatePolicy(_:error:)` writes through its `NSErrorPointer` are the same
/// values as `NSError` (domain ``LAErrorDomain``, code = raw value).
///
/// As on iOS, an `LAError` **is** an `NSError` and back: it bridges both ways (the
/// `_ObjectiveCBridgeable` conformance below), so on one thrown value all of
/// `catch let e as NSError`, `error as? NSError`, `catch let e as LAError`,
/// `catch LAError.userCancel`, `e.code == .userCancel`, `(e as NSError).code` and
/// `switch Int32((error as NSError).code) { case kLAErrorUserCancel: ... }` work, and an
/// `NSError` in ``LAErrorDomain`` (from `canEvaluatePolicy`) casts `as? LAError`.
public struct LAError: CustomNSError, Hashable, Sendable {
    /// The LAError codes, with Apple's raw values.
    ///
    /// As Apple's (an `NS_ENUM` imported into Swift), a code can hold any raw value:
    /// `Code(rawValue:)` never returns nil, and a value no case names — an error from a newer
    /// system, or one an app makes up — keeps its number (``unknown(_:)``, which `default` or
    /// `@unknown default` matches; `Code(rawValue:)` never makes it for a named value, and
    /// codes compare by raw value).
    public enum Code: RawRepresentable, Sendable, Hashable, CaseIterable {
        /// Touch ID: three failed matches in one evaluation (never produced by Face ID); also
        /// every evaluation on a disabled device (our rule).
        case authenticationFailed
        /// The user pressed Cancel.
        case userCancel
        /// The user pressed the fallback button (biometrics-only policy).
        case userFallback
        /// The system cancelled: another evaluation started, or the app moved away.
        case systemCancel
        /// No device passcode is set; biometric policies need one too.
        case passcodeNotSet
        /// No hardware, hardware disconnected, or the app is not permitted to use biometry.
        case biometryNotAvailable
        /// Hardware present, no identity enrolled.
        case biometryNotEnrolled
        /// Too many consecutive failed matches; the device passcode is needed.
        case biometryLockout
        /// The app called `invalidate()` during the evaluation.
        case appCancel
        /// The context was invalidated before this call.
        case invalidContext
        /// No companion device paired or reachable.
        case companionNotAvailable
        /// A removable biometric sensor is not paired (macOS).
        case biometryNotPaired
        /// A removable biometric sensor is disconnected (macOS).
        case biometryDisconnected
        /// Invalid dimensions (macOS; never produced here).
        case invalidDimensions
        /// `interactionNotAllowed` is set (or the app is not in the foreground) and the
        /// evaluation needs the user.
        case notInteractive
        /// A code no case names, with its raw value (see ``Code``).
        case unknown(Int)

        /// The code for `rawValue`: a named case, or ``unknown(_:)`` — never nil, as for
        /// Apple's imported enum.
        public init?(rawValue: Int) {
            self.init(rawValue)
        }

        /// The code for `rawValue` (``init(rawValue:)`` without the optional it never is).
        init(_ rawValue: Int) {
            switch rawValue {
            case -1: self = .authenticationFailed
            case -2: self = .userCancel
            case -3: self = .userFallback
            case -4: self = .systemCancel
            case -5: self = .passcodeNotSet
            case -6: self = .biometryNotAvailable
            case -7: self = .biometryNotEnrolled
            case -8: self = .biometryLockout
            case -9: self = .appCancel
            case -10: self = .invalidContext
            case -11: self = .companionNotAvailable
            case -12: self = .biometryNotPaired
            case -13: self = .biometryDisconnected
            case -14: self = .invalidDimensions
            case -1004: self = .notInteractive
            default: self = .unknown(rawValue)
            }
        }

        /// Apple's raw value.
        public var rawValue: Int {
            switch self {
            case .authenticationFailed: -1
            case .userCancel: -2
            case .userFallback: -3
            case .systemCancel: -4
            case .passcodeNotSet: -5
            case .biometryNotAvailable: -6
            case .biometryNotEnrolled: -7
            case .biometryLockout: -8
            case .appCancel: -9
            case .invalidContext: -10
            case .companionNotAvailable: -11
            case .biometryNotPaired: -12
            case .biometryDisconnected: -13
            case .invalidDimensions: -14
            case .notInteractive: -1004
            case let .unknown(value): value
            }
        }

        /// The named codes (not ``unknown(_:)``).
        public static let allCases: [Code] = [.authenticationFailed, .userCancel, .userFallback, .systemCancel, .passcodeNotSet, .biometryNotAvailable, .biometryNotEnrolled, .biometryLockout, .appCancel, .invalidContext, .companionNotAvailable, .biometryNotPaired, .biometryDisconnected, .invalidDimensions, .notInteractive]

        /// The iOS 8 name of ``biometryNotAvailable``.
        @available(iOS, deprecated: 11.0, renamed: "biometryNotAvailable")
        @available(macOS, deprecated: 10.13, renamed: "biometryNotAvailable")
        public static var touchIDNotAvailable: Code { .biometryNotAvailable }
        /// The iOS 8 name of ``biometryNotEnrolled``.
        @available(iOS, deprecated: 11.0, renamed: "biometryNotEnrolled")
        @available(macOS, deprecated: 10.13, renamed: "biometryNotEnrolled")
        public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
        /// The iOS 9 name of ``biometryLockout``.
        @available(iOS, deprecated: 11.0, renamed: "biometryLockout")
        @available(macOS, deprecated: 10.13, renamed: "biometryLockout")
        public static var touchIDLockout: Code { .biometryLockout }
        /// The macOS 10.15 name of ``companionNotAvailable``.
        @available(macOS, deprecated: 15.0, renamed: "companionNotAvailable")
        public static var watchNotAvailable: Code { .companionNotAvailable }

        /// Lets `catch LAError.userCancel` and `case LAError.userCancel` match an error of any
        /// type: true when `error` is an `LAError` (or an `NSError` in ``LAErrorDomain``) with
        /// this code.
        public static func ~= (match: Code, error: any Error) -> Bool {
            if let error = error as? LAError { return error.code == match }
            let nsError = error as NSError
            return nsError.domain == LAErrorDomain && nsError.code == match.rawValue
        }
    }

    /// The code.
    public let code: Code
    /// The human-readable description (`NSLocalizedDescriptionKey`).
    private let message: String
    /// The `NSError` this error was made from, which it bridges back to as it is (as Apple's
    /// stored `NSError` does): the same user info, nothing added. Not part of equality.
    private let source: NSError?
    /// The error behind this one (`NSUnderlyingErrorKey`), when it was made with one.
    private let underlying: (any Error & Sendable)?

    /// Creates an error with `code`; `userInfo[NSLocalizedDescriptionKey]` (a `String`), when
    /// present, becomes its description, and `userInfo[NSUnderlyingErrorKey]` is kept in its user
    /// info.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.message = (userInfo[NSLocalizedDescriptionKey] as? String) ?? AuthenticationError.Code(rawValue: code.rawValue).map {
            AuthenticationError($0).message
        } ?? "Authentication error \(code.rawValue)."
        self.source = nil
        self.underlying = userInfo[NSUnderlyingErrorKey] as? any Error & Sendable
    }

    /// The engine's error, with its message.
    init(_ error: AuthenticationError) {
        self.code = Code(error.code.rawValue)
        var message = error.message
        if let recovery = error.recovery { message += " " + recovery }
        self.message = message
        self.source = nil
        self.underlying = nil
    }

    /// Equal when the codes and descriptions are (the `NSError` it came from, if any, aside).
    public static func == (lhs: LAError, rhs: LAError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes the code and the description.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    /// ``LAErrorDomain``.
    public static var errorDomain: String { LAErrorDomain }

    /// The raw value of ``code``.
    public var errorCode: Int { code.rawValue }

    /// `[NSLocalizedDescriptionKey: <description>]`, or the user info of the `NSError` this
    /// error was made from, as it was.
    public var errorUserInfo: [String: Any] {
        if let source { return source.userInfo }
        guard let underlying else { return [NSLocalizedDescriptionKey: message] }
        return [NSLocalizedDescriptionKey: message, NSUnderlyingErrorKey: underlying]
    }

    /// The same as ``errorUserInfo``, as on Apple platforms.
    public var userInfo: [String: Any] { errorUserInfo }

    /// The human-readable description.
    public var localizedDescription: String { message }

    /// This error as an `NSError` (domain ``LAErrorDomain``).
    var nsError: NSError {
        source ?? NSError(domain: LAErrorDomain, code: code.rawValue, userInfo: errorUserInfo)
    }

    /// This error as an `NSError`, Apple's spelling (`_BridgedStoredNSError`).
    public var _nsError: NSError { nsError }

    /// The `LAError` an `NSError` in ``LAErrorDomain`` stands for (Apple's
    /// `_BridgedStoredNSError` initializer), its code kept whatever it is (``Code/unknown(_:)``
    /// for one no case names). An error of another domain becomes
    /// ``Code/authenticationFailed`` with its description.
    public init(_nsError error: NSError) {
        guard error.domain == LAErrorDomain else {
            self.init(.authenticationFailed, userInfo: error.userInfo)
            return
        }
        self.init(code: Code(error.code), message: (error.userInfo[NSLocalizedDescriptionKey] as? String) ?? error.localizedDescription, source: error)
    }

    private init(code: Code, message: String, source: NSError?) {
        self.code = code
        self.message = message
        self.source = source
        self.underlying = nil
    }

    /// Authentication failed (-1).
    public static var authenticationFailed: Code { .authenticationFailed }
    /// The user pressed Cancel (-2).
    public static var userCancel: Code { .userCancel }
    /// The user pressed the fallback button (-3).
    public static var userFallback: Code { .userFallback }
    /// The system cancelled (-4).
    public static var systemCancel: Code { .systemCancel }
    /// No device passcode (-5).
    public static var passcodeNotSet: Code { .passcodeNotSet }
    /// Biometry not available (-6).
    public static var biometryNotAvailable: Code { .biometryNotAvailable }
    /// Nothing enrolled (-7).
    public static var biometryNotEnrolled: Code { .biometryNotEnrolled }
    /// Biometry locked out (-8).
    public static var biometryLockout: Code { .biometryLockout }
    /// The app invalidated the context during the evaluation (-9).
    public static var appCancel: Code { .appCancel }
    /// The context was invalidated (-10).
    public static var invalidContext: Code { .invalidContext }
    /// No companion (-11).
    public static var companionNotAvailable: Code { .companionNotAvailable }
    /// Removable sensor not paired (-12).
    public static var biometryNotPaired: Code { .biometryNotPaired }
    /// Removable sensor disconnected (-13).
    public static var biometryDisconnected: Code { .biometryDisconnected }
    /// Invalid dimensions (-14).
    public static var invalidDimensions: Code { .invalidDimensions }
    /// Interaction not allowed (-1004).
    public static var notInteractive: Code { .notInteractive }
    /// The iOS 8 name of ``biometryNotAvailable``.
    @available(iOS, deprecated: 11.0, renamed: "biometryNotAvailable")
    @available(macOS, deprecated: 10.13, renamed: "biometryNotAvailable")
    public static var touchIDNotAvailable: Code { .biometryNotAvailable }
    /// The iOS 8 name of ``biometryNotEnrolled``.
    @available(iOS, deprecated: 11.0, renamed: "biometryNotEnrolled")
    @available(macOS, deprecated: 10.13, renamed: "biometryNotEnrolled")
    public static var touchIDNotEnrolled: Code { .biometryNotEnrolled }
    /// The iOS 9 name of ``biometryLockout``.
    @available(iOS, deprecated: 11.0, renamed: "biometryLockout")
    @available(macOS, deprecated: 10.13, renamed: "biometryLockout")
    public static var touchIDLockout: Code { .biometryLockout }
    /// The macOS 10.15 name of ``companionNotAvailable``.
    @available(macOS, deprecated: 15.0, renamed: "companionNotAvailable")
    public static var watchNotAvailable: Code { .companionNotAvailable }
}

extension LAError: _ObjectiveCBridgeable {
    /// An `LAError` bridges to `NSError`, as on Apple platforms.
    public typealias _ObjectiveCType = NSError

    /// This error as an `NSError` (domain ``LAErrorDomain``, code = raw value, the description).
    public func _bridgeToObjectiveC() -> NSError { nsError }

    /// `nsError as! LAError`: an `NSError` outside ``LAErrorDomain`` becomes
    /// ``Code/authenticationFailed`` (see ``init(_nsError:)``).
    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout LAError?) {
        result = LAError(_nsError: source)
    }

    /// `nsError as? LAError`: succeeds for any `NSError` in ``LAErrorDomain``, whatever its code
    /// (as on iOS).
    @discardableResult
    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout LAError?) -> Bool {
        guard source.domain == LAErrorDomain else {
            result = nil
            return false
        }
        result = LAError(_nsError: source)
        return true
    }

    /// The `LAError` for `source` (``Code/authenticationFailed`` for nil).
    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> LAError {
        source.map { LAError(_nsError: $0) } ?? LAError(.authenticationFailed)
    }
}

/// The error an app sees for any engine error: ``LAError`` for authentication outcomes,
/// ``TouchstoneError`` for everything else. A scripting mistake (``SimulationError``) is
/// reported to the script's author (``LocalAuthenticationSystem/reportScriptingMistake(_:on:)``)
/// and reaches the app as `LAError.systemCancel`, never as a foreign error type.
func bridge(_ error: any Error, on authenticator: Authenticator?) -> any Error {
    switch error {
    case let error as AuthenticationError:
        return LAError(error)
    case let error as LAError:
        return error
    case let mistake as SimulationError:
        return LAError(LocalAuthenticationSystem.systemCancel(after: mistake, on: authenticator))
    default:
        return TouchstoneError(wrapping: error)
    }
}

extension LAError {
    /// The `LAError.systemCancel` a scripting mistake ends an app's call with.
    package init(_ cancel: LocalAuthenticationSystem.SystemCancel) {
        self.init(.systemCancel, userInfo: [NSLocalizedDescriptionKey: cancel.message])
    }
}

/// ``bridge(_:on:)`` as an `NSError`, for `NSErrorPointer`s.
func bridgeToNSError(_ error: any Error, on authenticator: Authenticator?) -> NSError {
    switch bridge(error, on: authenticator) {
    case let error as LAError: error.nsError
    case let error as TouchstoneError:
        NSError(domain: TouchstoneError.errorDomain, code: error.errorCode, userInfo: error.errorUserInfo)
    case let other: other as NSError
    }
}
#endif
