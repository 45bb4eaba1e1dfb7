#if !canImport(Darwin)
import Crypto
import Foundation
import Touchstone

/// A `SecKey` outside the device's key store: an RSA key (``RSAKey``) or a P-384 / P-521 key
/// (``CurveKey``), held in memory by the `SecKey`. Made permanent or added with `SecItemAdd`,
/// it is kept as a keychain item (``StoredInMemoryKeys``), whose access-control flags a lookup
/// runs; the key itself is used in memory and never prompts.
protocol InMemoryKey: Sendable {
    /// `kSecAttrKeyType`: `kSecAttrKeyTypeRSA` or `kSecAttrKeyTypeECSECPrimeRandom`.
    var keyType: CFString { get }
    /// The key size in bits.
    var bits: Int { get }
    /// `SecKeyGetBlockSize`.
    var blockSize: Int { get }
    /// Whether the private half is here.
    var isPrivate: Bool { get }
    /// The public half alone.
    var publicOnly: any InMemoryKey { get }
    /// The public key's bytes, as `SecKeyCopyExternalRepresentation` gives them (and
    /// `kSecAttrApplicationLabel` hashes them).
    var publicKeyData: Data { get }
    /// `SecKeyCopyExternalRepresentation`: the private key's bytes for a private key.
    var externalRepresentation: Data { get }
    /// `SecKeyIsAlgorithmSupported`.
    func supports(_ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool
    /// `SecKeyCreateSignature`.
    func signature(of data: Data, _ algorithm: SecKeyAlgorithm) throws -> Data
    /// `SecKeyVerifySignature`: whether `signature` signs `data`.
    func isValidSignature(_ signature: Data, for data: Data, _ algorithm: SecKeyAlgorithm) throws -> Bool
    /// `SecKeyCreateEncryptedData`.
    func encrypt(_ plaintext: Data, _ algorithm: SecKeyAlgorithm) throws -> Data
    /// `SecKeyCreateDecryptedData`.
    func decrypt(_ ciphertext: Data, _ algorithm: SecKeyAlgorithm) throws -> Data
    /// `SecKeyCopyKeyExchangeResult`'s raw shared secret with `peer`'s public key.
    func sharedSecret(with peer: Data) throws -> Data
}

/// The in-memory key of a key's external representation (``InMemoryKey/externalRepresentation``):
/// RSA for `kSecAttrKeyTypeRSA` (PKCS#1), else an EC key of a P-384 / P-521 length (X9.63);
/// nil for P-256's lengths (65 bytes public, 97 private), which the device's key store holds.
func inMemoryKey(_ bytes: Data, type: String?, isPrivate: Bool) throws -> (any InMemoryKey)? {
    if type == kSecAttrKeyTypeRSA as String { return try RSAKey(pkcs1: bytes, isPrivate: isPrivate) }
    // X9.63 lengths name the curve: 65/97 bytes public/private for P-256, 97/145 for P-384,
    // 133/199 for P-521.
    guard bytes.count != (isPrivate ? 97 : 65) else { return nil }
    return try CurveKey(x963: bytes, isPrivate: isPrivate)
}

extension InMemoryKey {
    static func unsupported(_ algorithm: SecKeyAlgorithm, kind: String) -> SecKeyCall.Failure {
        SecKeyCall.Failure(errSecParam, "algorithm \(algorithm.identifier) is not supported for \(kind) keys here")
    }
}

/// A P-384 or P-521 key of `SecKeyCreateRandomKey` (no token) or `SecKeyCreateWithData`, in
/// memory (``InMemoryKey``), over swift-crypto: ECDSA with Apple's X9.62 and RFC 4754 forms
/// ECDH and ECIES (AES-256 on these curves, as Apple's), as for P-256. Its bytes are X9.63 as
/// Apple's: `04 || X || Y` (97 bytes for P-384, 133 for P-521), and `|| K` for a private key
/// (145, 199). P-192, which swift-crypto lacks, is errSecParam.
struct CurveKey: InMemoryKey {
    private enum Halves: Sendable {
        case p384(P384.Signing.PrivateKey?, P384.Signing.PublicKey)
        case p521(P521.Signing.PrivateKey?, P521.Signing.PublicKey)

        static func pair(_ key: P384.Signing.PrivateKey) -> Halves { .p384(key, key.publicKey) }
        static func pair(_ key: P521.Signing.PrivateKey) -> Halves { .p521(key, key.publicKey) }
    }

    private let halves: Halves

    /// The sizes made and read here.
    static let bitSizes = [384, 521]

    /// A new key pair of `bits` (384 or 521).
    static func generate(bits: Int) throws -> CurveKey {
        switch bits {
        case 384: return CurveKey(halves: .pair(P384.Signing.PrivateKey()))
        case 521: return CurveKey(halves: .pair(P521.Signing.PrivateKey()))
        default: throw SecKeyCall.Failure(errSecParam, "EC keys are 256, 384 or 521 bits here, not \(bits)")
        }
    }

    /// A key from its X9.63 bytes; errSecParam for another length or bytes off the curve.
    init(x963 bytes: Data, isPrivate: Bool) throws {
        do {
            switch (bytes.count, isPrivate) {
            case (97, false): halves = .p384(nil, try P384.Signing.PublicKey(x963Representation: bytes))
            case (145, true): halves = .pair(try P384.Signing.PrivateKey(x963Representation: bytes))
            case (133, false): halves = .p521(nil, try P521.Signing.PublicKey(x963Representation: bytes))
            case (199, true): halves = .pair(try P521.Signing.PrivateKey(x963Representation: bytes))
            default:
                throw SecKeyCall.Failure(errSecParam, "an EC key is X9.63: 65/97 bytes (P-256), 97/145 (P-384) or 133/199 (P-521) for public/private, not \(bytes.count)")
            }
        } catch let failure as SecKeyCall.Failure {
            throw failure
        } catch {
            throw SecKeyCall.Failure(errSecParam, "not a point of the curve its length names")
        }
    }

    private init(halves: Halves) { self.halves = halves }

    var keyType: CFString { kSecAttrKeyTypeECSECPrimeRandom }
    var bits: Int {
        switch halves {
        case .p384: 384
        case .p521: 521
        }
    }
    var blockSize: Int { (bits + 7) / 8 }
    var isPrivate: Bool {
        switch halves {
        case let .p384(key, _): key != nil
        case let .p521(key, _): key != nil
        }
    }
    var publicOnly: any InMemoryKey {
        switch halves {
        case let .p384(_, publicKey): CurveKey(halves: .p384(nil, publicKey))
        case let .p521(_, publicKey): CurveKey(halves: .p521(nil, publicKey))
        }
    }
    var publicKeyData: Data {
        switch halves {
        case let .p384(_, publicKey): publicKey.x963Representation
        case let .p521(_, publicKey): publicKey.x963Representation
        }
    }
    var externalRepresentation: Data {
        switch halves {
        case let .p384(key, publicKey): key?.x963Representation ?? publicKey.x963Representation
        case let .p521(key, publicKey): key?.x963Representation ?? publicKey.x963Representation
        }
    }

    func supports(_ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) -> Bool {
        switch operation {
        case .sign: isPrivate && algorithm.ecdsaInput != nil
        case .verify: !isPrivate && algorithm.ecdsaInput != nil
        case .keyExchange: isPrivate && algorithm.keyExchange != nil
        // As Apple's ECIES adaptor: the public key encrypts, the private key decrypts.
        case .encrypt: !isPrivate && algorithm.eciesVariant != nil
        case .decrypt: isPrivate && algorithm.eciesVariant != nil
        }
    }

    func signature(of data: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        let digest = DigestBytes(try signedDigest(of: data, algorithm))
        let raw = algorithm.ecdsaRawSignature
        switch halves {
        case let .p384(key?, _):
            let signature = try key.signature(for: digest)
            return raw ? signature.rawRepresentation : signature.derRepresentation
        case let .p521(key?, _):
            let signature = try key.signature(for: digest)
            return raw ? signature.rawRepresentation : signature.derRepresentation
        default:
            throw SecKeyCall.Failure(errSecParam, "a public key cannot sign")
        }
    }

    func isValidSignature(_ signature: Data, for data: Data, _ algorithm: SecKeyAlgorithm) throws -> Bool {
        let digest = DigestBytes(try signedDigest(of: data, algorithm))
        let raw = algorithm.ecdsaRawSignature
        switch halves {
        case let .p384(_, publicKey):
            guard let parsed = try? (raw ? P384.Signing.ECDSASignature(rawRepresentation: signature)
                                         : P384.Signing.ECDSASignature(derRepresentation: signature)) else { return false }
            return publicKey.isValidSignature(parsed, for: digest)
        case let .p521(_, publicKey):
            guard let parsed = try? (raw ? P521.Signing.ECDSASignature(rawRepresentation: signature)
                                         : P521.Signing.ECDSASignature(derRepresentation: signature)) else { return false }
            return publicKey.isValidSignature(parsed, for: digest)
        }
    }

    func encrypt(_ plaintext: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        guard supports(.encrypt, algorithm), let variant = algorithm.eciesVariant else {
            throw Self.unsupported(algorithm, kind: "private P-\(bits)")
        }
        return try ECIES.seal(plaintext, to: publicKeyData, variant: variant)
    }

    func decrypt(_ ciphertext: Data, _ algorithm: SecKeyAlgorithm) throws -> Data {
        guard supports(.decrypt, algorithm), let variant = algorithm.eciesVariant else {
            throw Self.unsupported(algorithm, kind: "public P-\(bits)")
        }
        let parts = try ECIES.split(ciphertext, curve: try ECIES.Curve(publicKeyLength: publicKeyData.count))
        return try ECIES.open(parts, variant: variant) { try sharedSecret(with: $0) }
    }

    func sharedSecret(with peer: Data) throws -> Data {
        do {
            switch halves {
            case let .p384(key?, _):
                let agreement = try P384.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                return try agreement.sharedSecretFromKeyAgreement(with: P384.KeyAgreement.PublicKey(x963Representation: peer))
                    .withUnsafeBytes { Data($0) }
            case let .p521(key?, _):
                let agreement = try P521.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                return try agreement.sharedSecretFromKeyAgreement(with: P521.KeyAgreement.PublicKey(x963Representation: peer))
                    .withUnsafeBytes { Data($0) }
            default:
                throw SecKeyCall.Failure(errSecParam, "a public key cannot exchange keys")
            }
        } catch let failure as SecKeyCall.Failure {
            throw failure
        } catch {
            throw SecKeyCall.Failure(errSecParam, "the other key is not a P-\(bits) public key")
        }
    }
}

#endif
