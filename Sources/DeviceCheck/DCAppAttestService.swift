#if !canImport(Darwin)
import Foundation
import TouchstoneSecurity
import Touchstone
import TouchstoneAppAttest

/// App Attest under Apple's names, on the default device
/// (`LocalAuthenticationSystem.authenticator`, as `LAContext` and `SecItem*` use): keys in the
/// device's simulated Secure Enclave, attestations and assertions in Apple's formats chained to
/// the device's test root (`TouchstoneAppAttest`'s `AppAttestService`; REFERENCE §12).
///
/// ```swift
/// let service = DCAppAttestService.shared
/// guard service.isSupported else { return }
/// let keyID = try await service.generateKey()
/// let attestation = try await service.attestKey(keyID, clientDataHash: Data(SHA256.hash(data: challenge)))
/// let assertion = try await service.generateAssertion(keyID, clientDataHash: Data(SHA256.hash(data: request)))
/// ```
/// Completion handlers are called on a background queue, as on iOS. Errors are ``DCError``s.
///
/// As Apple's, the class is an `NSObject` subclass with a public `init()` (test doubles subclass
/// it) and is not `Sendable`; every instance works on the default device, so `shared` is one of
/// them. Completion handlers are `@Sendable` on `@preconcurrency` methods, as Swift 6.2 imports
/// Apple's: Swift 5 code passes any closure, Swift 6 code gets warnings, not errors.
open class DCAppAttestService: NSObject {
    /// The shared instance.
    open class var shared: DCAppAttestService { sharedInstance }
    nonisolated(unsafe) private static let sharedInstance = DCAppAttestService()

    /// A service on the default device (as `shared`).
    override public init() {}

    /// Whether the device offers App Attest (false when the default device is unusable, or
    /// under the `unsupported` fault).
    open var isSupported: Bool {
        (try? LocalAuthenticationSystem.authenticator.appAttest.isSupported) ?? false
    }

    /// Makes a new App Attest key; returns its id (base64 of SHA-256 of its public key).
    open func generateKey() async throws -> String {
        try Self.run { try $0.generateKey() }
    }

    /// Makes a new App Attest key; calls `completionHandler` with its id or the error.
    @preconcurrency
    open func generateKey(completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
        Self.deliver(completionHandler) { try $0.generateKey() }
    }

    /// Attests `keyId`: the attestation object for `clientDataHash` (SHA-256 of the server's
    /// one-time challenge), to send to the server.
    open func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try Self.run { try $0.attestKey(keyId, clientDataHash: clientDataHash) }
    }

    /// Attests `keyId`; calls `completionHandler` with the attestation object or the error.
    @preconcurrency
    open func attestKey(_ keyId: String, clientDataHash: Data, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        Self.deliver(completionHandler) { try $0.attestKey(keyId, clientDataHash: clientDataHash) }
    }

    /// An assertion by the attested key `keyId` over `clientDataHash` (SHA-256 of the request's client data).
    open func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try Self.run { try $0.generateAssertion(keyId, clientDataHash: clientDataHash) }
    }

    /// An assertion; calls `completionHandler` with it or the error.
    @preconcurrency
    open func generateAssertion(
        _ keyId: String, clientDataHash: Data, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
    ) {
        Self.deliver(completionHandler) { try $0.generateAssertion(keyId, clientDataHash: clientDataHash) }
    }

    /// Runs `body` on the default device's App Attest, as ``DCError``s.
    static func run<T>(_ body: (AppAttestService) throws -> T) throws(DCError) -> T {
        let authenticator: Authenticator
        do {
            authenticator = try LocalAuthenticationSystem.authenticator
        } catch {
            throw DCError(.unknownSystemFailure, userInfo: [NSLocalizedDescriptionKey: "the default device is unusable: \(error)"])
        }
        do {
            return try body(authenticator.appAttest)
        } catch let error as AppAttestError {
            throw DCError(error)
        } catch {
            throw DCError(.unknownSystemFailure, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }

    /// Runs `body` on a background queue and hands its result to `completion`, as iOS does.
    static func deliver<T: Sendable>(
        _ completion: @escaping @Sendable (T?, (any Error)?) -> Void,
        _ body: @escaping @Sendable (AppAttestService) throws -> T
    ) {
        let authenticator = try? LocalAuthenticationSystem.authenticator
        LocalAuthenticationSystem.dispatch(with: authenticator) {
            do {
                completion(try run(body), nil)
            } catch {
                completion(nil, error)
            }
        }
    }
}

/// DeviceCheck's per-device token, under Apple's names, on the default device.
///
/// Apple's token is opaque and only Apple's DeviceCheck server reads it. Touchstone's is a
/// CBOR map that names the app and is signed by the device's test CA (see
/// `AppAttestService.deviceToken()`): something a server under test can store and send on,
/// not something Apple's server accepts.
open class DCDevice: NSObject {
    /// The device the app runs on.
    open class var current: DCDevice { currentInstance }
    nonisolated(unsafe) private static let currentInstance = DCDevice()

    /// A device object for the default device (as `current`).
    override public init() {}

    /// Whether the device offers DeviceCheck (as ``DCAppAttestService/isSupported``).
    open var isSupported: Bool { DCAppAttestService.shared.isSupported }

    /// A new token for this device and app.
    open func generateToken() async throws -> Data {
        try DCAppAttestService.run { try $0.deviceToken() }
    }

    /// A new token; calls `completionHandler` with it or the error.
    @preconcurrency
    open func generateToken(completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void) {
        DCAppAttestService.deliver(completionHandler) { try $0.deviceToken() }
    }
}
#endif
