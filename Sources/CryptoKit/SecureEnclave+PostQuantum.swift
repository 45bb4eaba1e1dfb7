#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import Security
import Touchstone

// CryptoKit's post-quantum Secure Enclave keys (iOS 26): ML-DSA signing keys and ML-KEM
// key-encapsulation keys.
//
// Touchstone's simulated Secure Enclave holds P-256 keys. A post-quantum key here is its
// seed, sealed (Apple's ECIES) to a Secure Enclave P-256 key made with the key's access
// control: using the key opens the seed through that P-256 key — its evaluation, the prompt —
// and then runs ML-DSA or ML-KEM in swift-crypto with the seed in the process, as key
// agreement does with its unsealed key. `dataRepresentation` is the sealed seed with its
// P-256 handle, which only the device and app that made it can open.

extension SecureEnclave {
    /// ML-DSA-65 (FIPS 204) signing keys of the Secure Enclave.
    public enum MLDSA65 {
        /// A Secure Enclave ML-DSA-65 private key.
        public typealias PrivateKey = SecureEnclaveMLDSAPrivateKey<Crypto.MLDSA65>
    }

    /// ML-DSA-87 (FIPS 204) signing keys of the Secure Enclave.
    public enum MLDSA87 {
        /// A Secure Enclave ML-DSA-87 private key.
        public typealias PrivateKey = SecureEnclaveMLDSAPrivateKey<Crypto.MLDSA87>
    }

    /// ML-KEM-768 (FIPS 203) key-encapsulation keys of the Secure Enclave.
    public enum MLKEM768 {
        /// A Secure Enclave ML-KEM-768 private key.
        public typealias PrivateKey = SecureEnclaveMLKEMPrivateKey<Crypto.MLKEM768>
    }

    /// ML-KEM-1024 (FIPS 203) key-encapsulation keys of the Secure Enclave.
    public enum MLKEM1024 {
        /// A Secure Enclave ML-KEM-1024 private key.
        public typealias PrivateKey = SecureEnclaveMLKEMPrivateKey<Crypto.MLKEM1024>
    }
}

/// A post-quantum key's seed, sealed to a simulated Secure Enclave P-256 key that carries the
/// key's access control.
struct SealedSeed: Codable, Sendable {
    /// The parameter set's name ("ML-DSA-65"...), so a blob of another kind is refused.
    let algorithm: String
    /// The P-256 key the seed is sealed to.
    let wrappingKey: EnclaveKey
    /// The seed, ECIES-sealed to ``wrappingKey``.
    let sealedSeed: Data
    /// The public key's raw representation.
    let publicKey: Data

    /// Seals `seed` to a new Secure Enclave P-256 key with `accessControl`, on the context's
    /// (or the default) device. Never prompts.
    static func seal(_ seed: Data, publicKey: Data, algorithm: String, accessControl: SecAccessControl,
                     context: LAContext?) throws -> (SealedSeed, Authenticator) {
        let (wrappingKey, authenticator) = try SecureEnclave.P256.Signing.PrivateKey.newKey(accessControl, context)
        let sealed = try ECIES.seal(seed, to: wrappingKey.publicKeyData)
        return (SealedSeed(algorithm: algorithm, wrappingKey: wrappingKey, sealedSeed: sealed, publicKey: publicKey), authenticator)
    }

    /// The sealed seed of a `dataRepresentation`, on the device (and app) that made it and for
    /// the same parameter set; `CryptoKitError.incorrectParameterSize` otherwise.
    static func restore(_ data: Data, algorithm: String, context: LAContext?) throws -> (SealedSeed, Authenticator) {
        let authenticator = try SecureEnclave.P256.Signing.PrivateKey.device(context)
        guard let sealed = try? JSONDecoder().decode(SealedSeed.self, from: data), sealed.algorithm == algorithm,
              sealed.wrappingKey.appID == authenticator.appID else {
            throw CryptoKitError.incorrectParameterSize
        }
        return (sealed, authenticator)
    }

    /// The blob `restore` reads.
    var dataRepresentation: Data { (try? JSONEncoder().encode(self)) ?? Data() }

    /// Opens the seed through the wrapping key — its evaluation, the prompt — and runs
    /// `operation` with it; failures come out as CryptoKit reports them.
    func withSeed<T: Sendable>(on authenticator: Authenticator, context: LAContext?,
                               _ operation: @escaping @Sendable (Data) throws -> T) throws -> T {
        let sealed = sealedSeed
        return try SecureEnclave.P256.Signing.PrivateKey.use(wrappingKey, on: authenticator, context: context) { keys, key, engine, reason in
            try operation(try await keys.decrypt(sealed, with: key, context: engine, reason: reason))
        }
    }
}

/// What ``SecureEnclaveMLDSAPrivateKey`` needs of one of swift-crypto's ML-DSA parameter sets.
public protocol SecureEnclaveMLDSAParameters: Sendable {
    /// The parameter set's public key.
    associatedtype PublicKey: Sendable
    /// "ML-DSA-65", "ML-DSA-87".
    static var name: String { get }
    /// A new key: its seed and its public key's raw representation.
    static func newSeed() throws -> (seed: Data, publicKey: Data)
    /// The public key of a raw representation.
    static func publicKey(rawRepresentation: Data) throws -> PublicKey
    /// The signature of `data` (with `context`, when given) by the key of `seed`.
    static func signature(seed: Data, for data: Data, context: Data?) throws -> Data
}

extension Crypto.MLDSA65: SecureEnclaveMLDSAParameters {
    /// "ML-DSA-65".
    public static var name: String { "ML-DSA-65" }

    /// A new key: its seed and its public key's raw representation.
    public static func newSeed() throws -> (seed: Data, publicKey: Data) {
        let key = try PrivateKey()
        return (key.seedRepresentation, key.publicKey.rawRepresentation)
    }

    /// The public key of a raw representation.
    public static func publicKey(rawRepresentation: Data) throws -> PublicKey { try PublicKey(rawRepresentation: rawRepresentation) }

    /// The signature of `data` (with `context`, when given) by the key of `seed`.
    public static func signature(seed: Data, for data: Data, context: Data?) throws -> Data {
        let key = try PrivateKey(seedRepresentation: seed, publicKey: nil)
        return try context.map { try key.signature(for: data, context: $0) } ?? key.signature(for: data)
    }
}

extension Crypto.MLDSA87: SecureEnclaveMLDSAParameters {
    /// "ML-DSA-87".
    public static var name: String { "ML-DSA-87" }

    /// A new key: its seed and its public key's raw representation.
    public static func newSeed() throws -> (seed: Data, publicKey: Data) {
        let key = try PrivateKey()
        return (key.seedRepresentation, key.publicKey.rawRepresentation)
    }

    /// The public key of a raw representation.
    public static func publicKey(rawRepresentation: Data) throws -> PublicKey { try PublicKey(rawRepresentation: rawRepresentation) }

    /// The signature of `data` (with `context`, when given) by the key of `seed`.
    public static func signature(seed: Data, for data: Data, context: Data?) throws -> Data {
        let key = try PrivateKey(seedRepresentation: seed, publicKey: nil)
        return try context.map { try key.signature(for: data, context: $0) } ?? key.signature(for: data)
    }
}

/// `SecureEnclave.MLDSA65.PrivateKey` and `SecureEnclave.MLDSA87.PrivateKey`: an ML-DSA key
/// whose seed only the simulated Secure Enclave opens; each signature runs the key's
/// evaluation first.
///
/// ```swift
/// let key = try SecureEnclave.MLDSA65.PrivateKey(accessControl: access)
/// let signature = try key.signature(for: challenge)      // the prompt happens here
/// let valid = key.publicKey.isValidSignature(signature, for: challenge)   // true
/// ```
public struct SecureEnclaveMLDSAPrivateKey<Parameters: SecureEnclaveMLDSAParameters>: Sendable {
    let sealed: SealedSeed
    let authenticator: Authenticator
    let context: LAContext?

    /// The public key, swift-crypto's (CryptoKit's) `MLDSA65.PublicKey` or `MLDSA87.PublicKey`.
    public let publicKey: Parameters.PublicKey

    /// Generates a key with `accessControl` (default: `privateKeyUsage` only); its signatures
    /// prompt through `authenticationContext` when given. Never prompts itself.
    public init(accessControl: SecAccessControl = SecureEnclave.P256.Signing.PrivateKey.defaultAccessControl,
                authenticationContext: LAContext? = nil) throws {
        let (seed, publicKeyData) = try Parameters.newSeed()
        (sealed, authenticator) = try SealedSeed.seal(seed, publicKey: publicKeyData, algorithm: Parameters.name,
                                                      accessControl: accessControl, context: authenticationContext)
        context = authenticationContext
        publicKey = try Parameters.publicKey(rawRepresentation: publicKeyData)
    }

    /// Restores a key from its ``dataRepresentation`` on the device (and app) that made it;
    /// `CryptoKitError.incorrectParameterSize` otherwise.
    public init<D: DataProtocol>(dataRepresentation: D, authenticationContext: LAContext? = nil) throws {
        (sealed, authenticator) = try SealedSeed.restore(Data(dataRepresentation), algorithm: Parameters.name, context: authenticationContext)
        context = authenticationContext
        publicKey = try Parameters.publicKey(rawRepresentation: sealed.publicKey)
    }

    /// The key as an opaque blob: the sealed seed, which only this device and app can open.
    public var dataRepresentation: Data { sealed.dataRepresentation }

    /// The ML-DSA signature of `data` (the prompt happens here).
    public func signature<D: DataProtocol>(for data: D) throws -> Data {
        let message = Data(data)
        return try sealed.withSeed(on: authenticator, context: context) { seed in
            try Parameters.signature(seed: seed, for: message, context: nil)
        }
    }

    /// The ML-DSA signature of `data` under the FIPS 204 `context` string (at most 255 bytes;
    /// the prompt happens here).
    public func signature<D: DataProtocol, C: DataProtocol>(for data: D, context: C) throws -> Data {
        let (message, label) = (Data(data), Data(context))
        return try sealed.withSeed(on: authenticator, context: self.context) { seed in
            try Parameters.signature(seed: seed, for: message, context: label)
        }
    }
}

/// What ``SecureEnclaveMLKEMPrivateKey`` needs of one of swift-crypto's ML-KEM parameter sets.
public protocol SecureEnclaveMLKEMParameters: Sendable {
    /// The parameter set's public key.
    associatedtype PublicKey: Sendable
    /// "ML-KEM-768", "ML-KEM-1024".
    static var name: String { get }
    /// A new key: its seed and its public key's raw representation.
    static func newSeed() throws -> (seed: Data, publicKey: Data)
    /// The public key of a raw representation.
    static func publicKey(rawRepresentation: Data) throws -> PublicKey
    /// The shared secret in `encapsulated`, opened by the key of `seed`.
    static func decapsulate(_ encapsulated: Data, seed: Data) throws -> SymmetricKey
}

extension Crypto.MLKEM768: SecureEnclaveMLKEMParameters {
    /// "ML-KEM-768".
    public static var name: String { "ML-KEM-768" }

    /// A new key: its seed and its public key's raw representation.
    public static func newSeed() throws -> (seed: Data, publicKey: Data) {
        let key = try PrivateKey()
        return (key.seedRepresentation, key.publicKey.rawRepresentation)
    }

    /// The public key of a raw representation.
    public static func publicKey(rawRepresentation: Data) throws -> PublicKey { try PublicKey(rawRepresentation: rawRepresentation) }

    /// The shared secret in `encapsulated`, opened by the key of `seed`.
    public static func decapsulate(_ encapsulated: Data, seed: Data) throws -> SymmetricKey {
        try PrivateKey(seedRepresentation: seed, publicKey: nil).decapsulate(encapsulated)
    }
}

extension Crypto.MLKEM1024: SecureEnclaveMLKEMParameters {
    /// "ML-KEM-1024".
    public static var name: String { "ML-KEM-1024" }

    /// A new key: its seed and its public key's raw representation.
    public static func newSeed() throws -> (seed: Data, publicKey: Data) {
        let key = try PrivateKey()
        return (key.seedRepresentation, key.publicKey.rawRepresentation)
    }

    /// The public key of a raw representation.
    public static func publicKey(rawRepresentation: Data) throws -> PublicKey { try PublicKey(rawRepresentation: rawRepresentation) }

    /// The shared secret in `encapsulated`, opened by the key of `seed`.
    public static func decapsulate(_ encapsulated: Data, seed: Data) throws -> SymmetricKey {
        try PrivateKey(seedRepresentation: seed, publicKey: nil).decapsulate(encapsulated)
    }
}

/// `SecureEnclave.MLKEM768.PrivateKey` and `SecureEnclave.MLKEM1024.PrivateKey`: an ML-KEM key
/// whose seed only the simulated Secure Enclave opens; each decapsulation runs the key's
/// evaluation first.
///
/// ```swift
/// let key = try SecureEnclave.MLKEM768.PrivateKey.generate()
/// let sent = try key.publicKey.encapsulate()                   // the other party
/// let secret = try key.decapsulate(sent.encapsulated)         // == sent.sharedSecret
/// ```
public struct SecureEnclaveMLKEMPrivateKey<Parameters: SecureEnclaveMLKEMParameters>: Sendable {
    let sealed: SealedSeed
    let authenticator: Authenticator
    let context: LAContext?

    /// The public key, swift-crypto's (CryptoKit's) `MLKEM768.PublicKey` or `MLKEM1024.PublicKey`.
    public let publicKey: Parameters.PublicKey

    /// A new key with the default access control (`privateKeyUsage` only), on the default device.
    public static func generate() throws -> Self { try Self() }

    /// Generates a key with `accessControl` (default: `privateKeyUsage` only); its
    /// decapsulations prompt through `authenticationContext` when given. Never prompts itself.
    public init(accessControl: SecAccessControl = SecureEnclave.P256.Signing.PrivateKey.defaultAccessControl,
                authenticationContext: LAContext? = nil) throws {
        let (seed, publicKeyData) = try Parameters.newSeed()
        (sealed, authenticator) = try SealedSeed.seal(seed, publicKey: publicKeyData, algorithm: Parameters.name,
                                                      accessControl: accessControl, context: authenticationContext)
        context = authenticationContext
        publicKey = try Parameters.publicKey(rawRepresentation: publicKeyData)
    }

    /// Restores a key from its ``dataRepresentation`` on the device (and app) that made it;
    /// `CryptoKitError.incorrectParameterSize` otherwise.
    public init<D: DataProtocol>(dataRepresentation: D, authenticationContext: LAContext? = nil) throws {
        (sealed, authenticator) = try SealedSeed.restore(Data(dataRepresentation), algorithm: Parameters.name, context: authenticationContext)
        context = authenticationContext
        publicKey = try Parameters.publicKey(rawRepresentation: sealed.publicKey)
    }

    /// The key as an opaque blob: the sealed seed, which only this device and app can open.
    public var dataRepresentation: Data { sealed.dataRepresentation }

    /// The shared secret the other party encapsulated to ``publicKey`` (the prompt happens here).
    public func decapsulate<D: DataProtocol>(_ encapsulated: D) throws -> SymmetricKey {
        let ciphertext = Data(encapsulated)
        return try sealed.withSeed(on: authenticator, context: context) { seed in
            try Parameters.decapsulate(ciphertext, seed: seed)
        }
    }
}
#endif
