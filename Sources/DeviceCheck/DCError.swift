#if !canImport(Darwin)
import Foundation
import TouchstoneAppAttest

/// The error domain of `DCError`: `"com.apple.devicecheck.error"`, as on Apple platforms.
public let DCErrorDomain: String = "com.apple.devicecheck.error"

/// A DeviceCheck error, shaped like the `DCError` Swift sees on Apple platforms: a
/// `CustomNSError` with a nested ``Code`` of Apple's raw values (REFERENCE §12).
///
/// ```swift
/// do {
///     let attestation = try await DCAppAttestService.shared.attestKey(keyID, clientDataHash: hash)
///     send(attestation)
/// } catch DCError.serverUnavailable {
///     // retry later with the same key
/// } catch let error as DCError where error.code == .invalidKey {
///     // make a new key
/// }
/// ```
public struct DCError: CustomNSError, Hashable, Sendable {
    /// `DCError.Code`, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// A failure on the device.
        case unknownSystemFailure = 0
        /// The device or OS has no App Attest / DeviceCheck.
        case featureUnsupported = 1
        /// An argument is malformed.
        case invalidInput = 2
        /// The key id names no usable key.
        case invalidKey = 3
        /// Apple's server could not be reached: retry later.
        case serverUnavailable = 4

        /// Lets `catch DCError.invalidKey` match an error of any type: true when `error` is a
        /// `DCError` (or an `NSError` in ``DCErrorDomain``) with this code.
        public static func ~= (match: Code, error: any Error) -> Bool {
            if let error = error as? DCError { return error.code == match }
            let nsError = error as NSError
            return nsError.domain == DCErrorDomain && nsError.code == match.rawValue
        }
    }

    /// The code.
    public let code: Code
    /// The human-readable description.
    private let message: String

    /// An error with `code`; `userInfo[NSLocalizedDescriptionKey]`, when a `String`, is its description.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        message = (userInfo[NSLocalizedDescriptionKey] as? String) ?? "The operation couldn’t be completed. (\(DCErrorDomain) error \(code.rawValue).)"
    }

    /// The device's App Attest error.
    init(_ error: AppAttestError) {
        code = Code(rawValue: error.code.rawValue) ?? .unknownSystemFailure
        message = error.message
    }

    /// ``DCErrorDomain``.
    public static var errorDomain: String { DCErrorDomain }
    /// The raw value of ``code``.
    public var errorCode: Int { code.rawValue }
    /// `[NSLocalizedDescriptionKey: <description>]`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    /// The same as ``errorUserInfo``, as on Apple platforms.
    public var userInfo: [String: Any] { errorUserInfo }
    /// The human-readable description.
    public var localizedDescription: String { message }

    /// This error as an `NSError` (domain ``DCErrorDomain``, code = raw value, the description).
    var nsError: NSError { NSError(domain: DCErrorDomain, code: code.rawValue, userInfo: errorUserInfo) }

    /// This error as an `NSError`, Apple's spelling (`_BridgedStoredNSError`).
    public var _nsError: NSError { nsError }

    /// The `DCError` an `NSError` in ``DCErrorDomain`` stands for (``Code/unknownSystemFailure``
    /// for a code no case names or another domain), with its description.
    public init(_nsError error: NSError) {
        let code = error.domain == DCErrorDomain ? Code(rawValue: error.code) ?? .unknownSystemFailure : .unknownSystemFailure
        self.init(code, userInfo: [NSLocalizedDescriptionKey: error.localizedDescription])
    }

    /// A failure on the device (0).
    public static var unknownSystemFailure: Code { .unknownSystemFailure }
    /// No App Attest / DeviceCheck here (1).
    public static var featureUnsupported: Code { .featureUnsupported }
    /// A malformed argument (2).
    public static var invalidInput: Code { .invalidInput }
    /// No usable key (3).
    public static var invalidKey: Code { .invalidKey }
    /// Apple's server unreachable (4).
    public static var serverUnavailable: Code { .serverUnavailable }
}

extension DCError: _ObjectiveCBridgeable {
    /// A `DCError` bridges to `NSError`, as on Apple platforms, so `catch let error as NSError`
    /// and `error as? NSError` see domain ``DCErrorDomain`` and Apple's code.
    public typealias _ObjectiveCType = NSError

    /// This error as an `NSError`.
    public func _bridgeToObjectiveC() -> NSError { nsError }

    /// `nsError as! DCError`.
    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout DCError?) {
        result = DCError(_nsError: source)
    }

    /// `nsError as? DCError`: succeeds for an `NSError` in ``DCErrorDomain``.
    @discardableResult
    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout DCError?) -> Bool {
        guard source.domain == DCErrorDomain else {
            result = nil
            return false
        }
        result = DCError(_nsError: source)
        return true
    }

    /// The `DCError` for `source` (``Code/unknownSystemFailure`` for nil).
    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> DCError {
        source.map { DCError(_nsError: $0) } ?? DCError(.unknownSystemFailure)
    }
}
#endif
