#if !canImport(Darwin)
import Foundation
import LocalAuthentication
import TouchstoneSecurity
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
        public typealias PrivateKey = SecureEnclavePostQuantumKey<Crypto.MLDSA65.PrivateKey>
    }

    /// ML-DSA-87 (FIPS 204) signing keys of the Secure Enclave.
    public enum MLDSA87 {
        /// A Secure Enclave ML-DSA-87 private key.
        public typealias PrivateKey = SecureEnclavePostQuantumKey<Crypto.MLDSA87.PrivateKey>
    }

    /// ML-KEM-768 (FIPS 203) key-encapsulation keys of the Secure Enclave.
    public enum MLKEM768 {
        /// A Secure Enclave ML-KEM-768 private key.
        public typealias PrivateKey = SecureEnclavePostQuantumKey<Crypto.MLKEM768.PrivateKey>
    }

    /// ML-KEM-1024 (FIPS 203) key-encapsulation keys of the Secure Enclave.
    public enum MLKEM1024 {
        /// A Secure Enclave ML-KEM-1024 private key.
        public typealias PrivateKey = SecureEnclavePostQuantumKey<Crypto.MLKEM1024.PrivateKey>
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
        // The wrapping key's seal must open here over the attributes it carries (as for P-256
        // keys): another device's blob, or one whose access control was edited, is refused.
        guard let sealed = try? JSONDecoder().decode(SealedSeed.self, from: data), sealed.algorithm == algorithm,
              sealed.wrappingKey.appID == authenticator.appID, authenticator.keys.sealIsIntact(sealed.wrappingKey) else {
            throw CryptoKitError.incorrectParameterSize
        }
        return (sealed, authenticator)
    }

    /// The blob `restore` reads: JSON with sorted keys, so one sealed seed has one blob.
    var blob: Data { sortedKeysJSON(self) }

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

/// One of swift-crypto's ML-DSA or ML-KEM private keys, as a ``SecureEnclavePostQuantumKey``
/// uses it: made from a seed, with a public key in its raw representation.
public protocol SeededPrivateKey: Sendable {
    /// The public key's type: swift-crypto's (CryptoKit's) `MLDSA65.PublicKey`...
    associatedtype PublicKey: RawRepresentedPublicKey
    /// The parameter set's name ("ML-DSA-65"...), which a `dataRepresentation` carries.
    static var parameterSetName: String { get }
    /// A new random key.
    init() throws
    /// The key of a seed (checked against `publicKey` when given).
    init<D: DataProtocol>(seedRepresentation: D, publicKey: PublicKey?) throws
    /// The seed.
    var seedRepresentation: Data { get }
    /// The public key.
    var publicKey: PublicKey { get }
}

/// A public key of ``SeededPrivateKey``: its raw representation and back.
public protocol RawRepresentedPublicKey: Sendable {
    /// The key of a raw representation.
    init<D: DataProtocol>(rawRepresentation: D) throws
    /// The raw representation.
    var rawRepresentation: Data { get }
}

extension Crypto.MLDSA65.PrivateKey: SeededPrivateKey {
    /// "ML-DSA-65".
    public static var parameterSetName: String { "ML-DSA-65" }
}

extension Crypto.MLDSA87.PrivateKey: SeededPrivateKey {
    /// "ML-DSA-87".
    public static var parameterSetName: String { "ML-DSA-87" }
}

extension Crypto.MLKEM768.PrivateKey: SeededPrivateKey {
    /// "ML-KEM-768".
    public static var parameterSetName: String { "ML-KEM-768" }
}

extension Crypto.MLKEM1024.PrivateKey: SeededPrivateKey {
    /// "ML-KEM-1024".
    public static var parameterSetName: String { "ML-KEM-1024" }
}

extension Crypto.MLDSA65.PublicKey: RawRepresentedPublicKey {}
extension Crypto.MLDSA87.PublicKey: RawRepresentedPublicKey {}
extension Crypto.MLKEM768.PublicKey: RawRepresentedPublicKey {}
extension Crypto.MLKEM1024.PublicKey: RawRepresentedPublicKey {}

/// ML-DSA signing, as swift-crypto's ML-DSA private keys offer it.
public protocol MLDSASigningKey: SeededPrivateKey {
    /// The signature of `data`.
    func signature<D: DataProtocol>(for data: D) throws -> Data
    /// The signature of `data` under a FIPS 204 context string.
    func signature<D: DataProtocol, C: DataProtocol>(for data: D, context: C) throws -> Data
}

extension Crypto.MLDSA65.PrivateKey: MLDSASigningKey {}
extension Crypto.MLDSA87.PrivateKey: MLDSASigningKey {}

/// ML-KEM decapsulation, as swift-crypto's ML-KEM private keys offer it.
public protocol MLKEMDecapsulationKey: SeededPrivateKey {
    /// The shared secret in `encapsulated`.
    func decapsulate<D: DataProtocol>(_ encapsulated: D) throws -> SymmetricKey
}

extension Crypto.MLKEM768.PrivateKey: MLKEMDecapsulationKey {}
extension Crypto.MLKEM1024.PrivateKey: MLKEMDecapsulationKey {}

/// `SecureEnclave.MLDSA65.PrivateKey`, `…MLDSA87…`, `…MLKEM768…` and `…MLKEM1024…`: a
/// post-quantum key whose seed only the simulated Secure Enclave opens; each signature or
/// decapsulation runs the key's evaluation first.
///
/// ```swift
/// let key = try SecureEnclave.MLDSA65.PrivateKey(accessControl: access)
/// let signature = try key.signature(for: challenge)      // the prompt happens here
/// let valid = key.publicKey.isValidSignature(signature, for: challenge)   // true
/// ```
///
/// ```swift
/// let key = try SecureEnclave.MLKEM768.PrivateKey.generate()
/// let sent = try key.publicKey.encapsulate()                   // the other party
/// let secret = try key.decapsulate(sent.encapsulated)         // == sent.sharedSecret
/// ```
public struct SecureEnclavePostQuantumKey<Key: SeededPrivateKey>: Sendable {
    let sealed: SealedSeed
    let authenticator: Authenticator
    let context: LAContext?

    /// The public key, swift-crypto's (CryptoKit's) `MLDSA65.PublicKey`, `MLKEM768.PublicKey`...
    public let publicKey: Key.PublicKey

    /// Generates a key with `accessControl` (default: `privateKeyUsage` only); its uses prompt
    /// through `authenticationContext` when given. Never prompts itself.
    public init(accessControl: SecAccessControl = SecureEnclave.P256.Signing.PrivateKey.defaultAccessControl,
                authenticationContext: LAContext? = nil) throws {
        let key = try Key()
        let publicKeyData = key.publicKey.rawRepresentation
        (sealed, authenticator) = try SealedSeed.seal(key.seedRepresentation, publicKey: publicKeyData, algorithm: Key.parameterSetName,
                                                      accessControl: accessControl, context: authenticationContext)
        context = authenticationContext
        publicKey = key.publicKey
        dataRepresentation = sealed.blob
    }

    /// Restores a key from its ``dataRepresentation`` on the device (and app) that made it, as
    /// the same parameter set; `CryptoKitError.incorrectParameterSize` otherwise.
    public init<D: DataProtocol>(dataRepresentation: D, authenticationContext: LAContext? = nil) throws {
        (sealed, authenticator) = try SealedSeed.restore(Data(dataRepresentation), algorithm: Key.parameterSetName,
                                                         context: authenticationContext)
        context = authenticationContext
        publicKey = try Key.PublicKey(rawRepresentation: sealed.publicKey)
        self.dataRepresentation = Data(dataRepresentation)
    }

    /// The key as an opaque blob: the sealed seed, which only this device and app can open. A
    /// constant: the same bytes on every read, and a restored key's are the blob it came from.
    public let dataRepresentation: Data

    /// Runs `operation` with the key, after its evaluation (the prompt).
    private func withKey<T: Sendable>(_ operation: @escaping @Sendable (Key) throws -> T) throws -> T {
        let publicKey = self.publicKey
        return try sealed.withSeed(on: authenticator, context: context) { seed in
            try operation(Key(seedRepresentation: seed, publicKey: publicKey))
        }
    }
}

extension SecureEnclavePostQuantumKey where Key: MLDSASigningKey {
    /// The ML-DSA signature of `data` (the prompt happens here).
    public func signature<D: DataProtocol>(for data: D) throws -> Data {
        let message = Data(data)
        return try withKey { key in try key.signature(for: message) }
    }

    /// The ML-DSA signature of `data` under the FIPS 204 `context` string (at most 255 bytes;
    /// the prompt happens here).
    public func signature<D: DataProtocol, C: DataProtocol>(for data: D, context: C) throws -> Data {
        let (message, label) = (Data(data), Data(context))
        return try withKey { key in try key.signature(for: message, context: label) }
    }
}

extension SecureEnclavePostQuantumKey where Key: MLKEMDecapsulationKey {
    /// A new key with the default access control (`privateKeyUsage` only), on the default device.
    public static func generate() throws -> Self { try Self() }

    /// The shared secret the other party encapsulated to ``publicKey`` (the prompt happens here).
    public func decapsulate<D: DataProtocol>(_ encapsulated: D) throws -> SymmetricKey {
        let ciphertext = Data(encapsulated)
        return try withKey { key in try key.decapsulate(ciphertext) }
    }
}
#endif
