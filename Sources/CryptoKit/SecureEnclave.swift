#if !canImport(Darwin)
@_exported import Crypto
import Foundation
import LocalAuthentication
import TouchstoneSecurity
import Touchstone
import TouchstoneSimulation

/// CryptoKit's Secure Enclave keys over Touchstone's simulated Secure Enclave, so iOS code that
/// writes `import CryptoKit` and `SecureEnclave.P256.Signing.PrivateKey(...)` compiles and runs
/// on Linux. The module re-exports swift-crypto (`P256`, `SHA256`, ...), which has CryptoKit's
/// names but no `SecureEnclave`.
///
/// With `import CryptoKit` and `import LocalAuthentication`:
/// ```swift
/// let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
///                                              [.privateKeyUsage, .biometryCurrentSet], nil)!
/// let key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
/// let signature = try key.signature(for: challenge)            // Touch ID prompt
/// print(key.publicKey.isValidSignature(signature, for: challenge))     // true
/// ```
///
/// Touchstone rules: keys live on the default device (``LocalAuthenticationSystem``) or the
/// authentication context's device; a failed prompt throws its ``LAError``; a key invalidated by
/// an enrollment change, or a `dataRepresentation` from another device, throws
/// `CryptoKitError.underlyingCoreCryptoError` with the `OSStatus` (`errSecItemNotFound`,
/// `errSecDecode`...). Key agreement (``SecureEnclave/P256/KeyAgreement``) runs in swift-crypto
/// with the unsealed key, after the key's evaluation, and returns swift-crypto's `SharedSecret`.
public enum SecureEnclave {
    /// Whether a Secure Enclave is available: whether the default device can be composed.
    public static var isAvailable: Bool { (try? LocalAuthenticationSystem.authenticator) != nil }

    /// The P-256 keys of the Secure Enclave.
    public enum P256 {
        /// ECDSA signing keys.
        public enum Signing {
            /// A P-256 signing key generated inside the Secure Enclave; its
            /// ``dataRepresentation`` is an opaque blob only this device can use.
            public struct PrivateKey: Sendable {
                let key: EnclaveKey
                let authenticator: Authenticator
                let context: LAContext?

                /// The public key.
                public let publicKey: Crypto.P256.Signing.PublicKey

                /// Generates a key with `accessControl` (default: `privateKeyUsage` only); its
                /// uses prompt through `authenticationContext` when given. Never prompts itself.
                public init(compactRepresentable: Bool = true, accessControl: SecAccessControl = defaultAccessControl,
                            authenticationContext: LAContext? = nil) throws {
                    (key, authenticator) = try Self.newKey(accessControl, authenticationContext)
                    context = authenticationContext
                    publicKey = try key.signingPublicKey
                    dataRepresentation = Self.blob(key)
                }

                /// Restores a key from its ``dataRepresentation`` on the device that made it.
                public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws {
                    (key, authenticator) = try Self.restoredKey(dataRepresentation, authenticationContext)
                    context = authenticationContext
                    publicKey = try key.signingPublicKey
                    self.dataRepresentation = dataRepresentation
                }

                /// The key as an opaque blob: the sealed private key, which only this device
                /// (and this app) can open. A constant, as Apple declares it: the same bytes on
                /// every read, and a restored key's are the blob it was restored from.
                public let dataRepresentation: Data

                /// A new key's blob, its JSON with sorted keys (one key, one blob).
                static func blob(_ key: EnclaveKey) -> Data { key.secureEnclaveBlob }

                /// Signs the SHA-256 of `data` (the prompt happens here).
                public func signature<D: DataProtocol>(for data: D) throws -> Crypto.P256.Signing.ECDSASignature {
                    try sign(Data(data), digest: false)
                }

                /// Signs a SHA-256 digest (the prompt happens here).
                public func signature<D: Digest>(for digest: D) throws -> Crypto.P256.Signing.ECDSASignature {
                    try sign(digest.withUnsafeBytes { Data($0) }, digest: true)
                }

                private func sign(_ bytes: Data, digest: Bool) throws -> Crypto.P256.Signing.ECDSASignature {
                    let der = try Self.use(key, on: authenticator, context: context) { keys, key, engine, reason in
                        digest ? try await keys.sign(digest: bytes, with: key, context: engine, reason: reason)
                            : try await keys.sign(bytes, with: key, context: engine, reason: reason)
                    }
                    return try Crypto.P256.Signing.ECDSASignature(derRepresentation: der)
                }

                /// Runs `operation` (the key's prompt and a private-key operation) to its end on
                /// this thread, through `context`'s engine and reason (the default reason when
                /// it is empty); a failure comes out as CryptoKit reports it (``cryptoError(_:on:)``).
                static func use<T: Sendable>(
                    _ key: EnclaveKey, on authenticator: Authenticator, context: LAContext?,
                    _ operation: @escaping @Sendable (KeyStore, EnclaveKey, AuthenticationContext?, String?) async throws -> T
                ) throws -> T {
                    let keys = authenticator.keys
                    let (engine, reason) = (context?.touchstoneContext, context?.localizedReason)
                    let reasonOrDefault = (reason?.isEmpty ?? true) ? nil : reason
                    defer { LocalAuthenticationSystem.didUse(authenticator) }
                    do {
                        return try runBlocking { try await operation(keys, key, engine, reasonOrDefault) }
                    } catch {
                        throw cryptoError(error, on: authenticator)
                    }
                }

                /// `privateKeyUsage`, whenUnlockedThisDeviceOnly: CryptoKit's default.
                public static var defaultAccessControl: SecAccessControl {
                    SecAccessControl(AccessControl(validated: .whenUnlockedThisDeviceOnly, flags: .privateKeyUsage))
                }

                /// A new key with `accessControl` on the context's (or the default) device.
                static func newKey(_ accessControl: SecAccessControl, _ context: LAContext?) throws -> (EnclaveKey, Authenticator) {
                    let authenticator = try device(context)
                    do {
                        return (try authenticator.keys.create(accessControl: accessControl.touchstoneAccessControl, permanent: false),
                                authenticator)
                    } catch {
                        throw cryptoError(error, on: authenticator)
                    }
                }

                /// The key of a `dataRepresentation`, on the device (and app) that made it;
                /// `CryptoKitError.incorrectParameterSize` otherwise.
                static func restoredKey(_ data: Data, _ context: LAContext?) throws -> (EnclaveKey, Authenticator) {
                    let authenticator = try device(context)
                    // The blob's seal must open here over the attributes it carries: another device's
                    // key, or one whose access control was edited, is refused as iOS refuses a blob the
                    // Secure Enclave did not make.
                    guard let key = try? JSONDecoder().decode(EnclaveKey.self, from: data), key.appID == authenticator.appID,
                          authenticator.keys.sealIsIntact(key)
                    else {
                        throw CryptoKitError.incorrectParameterSize
                    }
                    return (key, authenticator)
                }

                /// The device of `context`, or the default device (as the keychain calls find it).
                static func device(_ context: LAContext?) throws -> Authenticator {
                    try KeychainCall.device(of: context)
                }

                /// A prompt's failure is its LAError; anything else a CryptoKit error with the `OSStatus`.
                static func cryptoError(_ error: any Error, on authenticator: Authenticator) -> any Error {
                    switch error {
                    case let keychain as KeychainError:
                        if keychain.kind != .interactionNotAllowed, let code = keychain.authenticationCode,
                           let laCode = LAError.Code(rawValue: code.rawValue) {
                            return LAError(laCode, userInfo: [NSLocalizedDescriptionKey: keychain.message])
                        }
                        return CryptoKitError.underlyingCoreCryptoError(error: keychain.osStatus)
                    case let mistake as SimulationError:
                        return LAError(LocalAuthenticationSystem.systemCancel(after: mistake, on: authenticator))
                    default:
                        return error
                    }
                }
            }
        }
    }
}

extension SecureEnclave.P256 {
    /// ECDH key agreement keys (iOS 13).
    public enum KeyAgreement {
        /// A P-256 key-agreement key generated inside the Secure Enclave; its
        /// ``dataRepresentation`` is an opaque blob only this device (and app) can use. Its
        /// ``sharedSecretFromKeyAgreement(with:)`` prompts as its access control says.
        public struct PrivateKey: Sendable {
            let key: EnclaveKey
            let authenticator: Authenticator
            let context: LAContext?

            /// The public key, for the other party.
            public let publicKey: Crypto.P256.KeyAgreement.PublicKey

            /// Generates a key with `accessControl` (default: `privateKeyUsage` only); its uses
            /// prompt through `authenticationContext` when given. Never prompts itself.
            public init(compactRepresentable: Bool = true,
                        accessControl: SecAccessControl = SecureEnclave.P256.Signing.PrivateKey.defaultAccessControl,
                        authenticationContext: LAContext? = nil) throws {
                (key, authenticator) = try Signing.PrivateKey.newKey(accessControl, authenticationContext)
                context = authenticationContext
                publicKey = try Crypto.P256.KeyAgreement.PublicKey(x963Representation: key.publicKeyData)
                dataRepresentation = Signing.PrivateKey.blob(key)
            }

            /// Restores a key from its ``dataRepresentation`` on the device (and app) that made it;
            /// `CryptoKitError.incorrectParameterSize` otherwise.
            public init(dataRepresentation: Data, authenticationContext: LAContext? = nil) throws {
                (key, authenticator) = try Signing.PrivateKey.restoredKey(dataRepresentation, authenticationContext)
                context = authenticationContext
                publicKey = try Crypto.P256.KeyAgreement.PublicKey(x963Representation: key.publicKeyData)
                self.dataRepresentation = dataRepresentation
            }

            /// The key as an opaque blob: the sealed private key, which only this device (and
            /// this app) can open. A constant, as Apple declares it (see the signing key's).
            public let dataRepresentation: Data

            /// ECDH with `publicKeyShare` (the prompt happens here): the same secret the other
            /// party computes with its private key and this key's ``publicKey``.
            public func sharedSecretFromKeyAgreement(with publicKeyShare: Crypto.P256.KeyAgreement.PublicKey) throws -> SharedSecret {
                let peer = publicKeyShare.x963Representation
                return try Signing.PrivateKey.use(key, on: authenticator, context: context) { keys, key, engine, reason in
                    try await keys.withKeyAgreementKey(key, context: engine, reason: reason) { agreement in
                        try agreement.sharedSecretFromKeyAgreement(with: Crypto.P256.KeyAgreement.PublicKey(x963Representation: peer))
                    }
                }
            }
        }
    }
}

extension SecureEnclave.P256.KeyAgreement.PrivateKey: DiffieHellmanKeyAgreement, HPKEDiffieHellmanPrivateKey {}
#endif
