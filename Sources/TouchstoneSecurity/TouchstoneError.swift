#if !canImport(Darwin)
import Foundation
import Touchstone
import TouchstoneSimulation

/// A Touchstone problem that is not an authentication outcome, reported where Apple's framework
/// would crash or where the simulation itself cannot go on: an empty `localizedReason`, a
/// scripted outcome queue that ran dry, an unreadable configuration, a storage failure.
///
/// Its domain is ``TouchstoneError/errorDomain`` (`"Touchstone"`), never `LAErrorDomain`, so
/// an app's `switch` over LAError codes lands in its `default` branch; the description says
/// what went wrong.
public struct TouchstoneError: CustomNSError, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// A programmer error Apple's framework crashes on (an empty `localizedReason`).
        case programmerError = 1
        /// The simulated user had nothing left to do: the scripted outcomes (e.g.
        /// `TOUCHSTONE_OUTCOMES`) ran dry, or an outcome did not fit the prompt.
        case simulation = 2
        /// The default device could not be composed (configuration file, setup script).
        case configuration = 3
        /// The device's storage failed.
        case storage = 4
        /// Something this Linux implementation does not simulate.
        case unsupported = 5
    }

    /// The kind of problem.
    public let code: Code
    /// What went wrong and what to do.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Classifies an engine error that is not an `LAError`.
    package init(wrapping error: any Error) {
        switch error {
        case let error as TouchstoneError: self = error
        case let error as UsageError where error == .emptyLocalizedReason:
            self.init(.programmerError, "localizedReason must be a non-empty string; Apple's framework raises an exception here (Touchstone reports this error instead)")
        case let error as UsageError: self.init(.programmerError, error.description)
        case let error as SimulationError: self.init(.simulation, error.description)
        case let error as ConfigurationError: self.init(.configuration, error.description)
        case let error as StorageError: self.init(.storage, error.description)
        default: self.init(.storage, "\(error)")
        }
    }

    /// `"Touchstone"`.
    public static var errorDomain: String { "Touchstone" }
    /// The raw value of ``code``.
    public var errorCode: Int { code.rawValue }
    /// `[NSLocalizedDescriptionKey: message]`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    /// The message.
    public var localizedDescription: String { message }
    /// `Touchstone error <code>: <message>`.
    public var description: String { "Touchstone error \(code.rawValue): \(message)" }
}

extension TouchstoneError: _ObjectiveCBridgeable {
    /// A `TouchstoneError` bridges to `NSError` (domain `"Touchstone"`), so
    /// `catch let error as NSError` catches it, as it catches an `LAError`.
    public typealias _ObjectiveCType = NSError

    /// This error as an `NSError`.
    public func _bridgeToObjectiveC() -> NSError {
        NSError(domain: Self.errorDomain, code: errorCode, userInfo: errorUserInfo)
    }

    /// `nsError as! TouchstoneError` (a foreign error becomes `storage` with its description).
    public static func _forceBridgeFromObjectiveC(_ source: NSError, result: inout TouchstoneError?) {
        result = _unconditionallyBridgeFromObjectiveC(source)
    }

    /// `nsError as? TouchstoneError`: succeeds for the `"Touchstone"` domain.
    @discardableResult
    public static func _conditionallyBridgeFromObjectiveC(_ source: NSError, result: inout TouchstoneError?) -> Bool {
        guard source.domain == errorDomain, let code = Code(rawValue: source.code) else {
            result = nil
            return false
        }
        result = TouchstoneError(code, source.localizedDescription)
        return true
    }

    /// The `TouchstoneError` for `source`.
    public static func _unconditionallyBridgeFromObjectiveC(_ source: NSError?) -> TouchstoneError {
        guard let source else { return TouchstoneError(.storage, "unknown error") }
        var result: TouchstoneError?
        if _conditionallyBridgeFromObjectiveC(source, result: &result), let result { return result }
        return TouchstoneError(.storage, source.localizedDescription)
    }
}
#endif
