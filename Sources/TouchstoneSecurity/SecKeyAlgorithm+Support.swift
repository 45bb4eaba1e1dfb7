#if !canImport(Darwin)
import Foundation
import Touchstone

// Which `SecKeyAlgorithm`s a P-256 key can use, read from Apple's identifiers
// ("algid:sign:ECDSA:message-X962:SHA384"), so every spelling of one algorithm — the Swift
// member, the C name, `SecKeyAlgorithm(rawValue:)` — is treated the same.

extension SecKeyAlgorithm {
    /// What an ECDSA algorithm signs.
    package enum ECDSAInput: Equatable {
        /// A message, hashed with this function first.
        case message(ECIES.Hash)
        /// A digest the caller made: of exactly `length` bytes, or 1 to 64 bytes when nil
        /// (`…DigestX962`). Requiring the named hash's length is our rule.
        case digest(length: Int?)
    }

    /// What a key exchange gives.
    package enum KeyExchange: Equatable {
        /// The raw shared secret.
        case raw
        /// The X9.63 KDF of it with this hash.
        case x963(ECIES.Hash)
    }

    private var parts: [Substring] { identifier.split(separator: ":", omittingEmptySubsequences: false) }

    private static func digestLength(named name: Substring) -> Int? {
        switch name {
        case "SHA1": 20
        case "SHA224": 28
        case "SHA256": 32
        case "SHA384": 48
        case "SHA512": 64
        default: nil
        }
    }

    /// The ECDSA input of a supported signature algorithm; nil for any other algorithm.
    package var ecdsaInput: ECDSAInput? {
        let parts = parts
        guard parts.count >= 4, parts[0] == "algid", parts[1] == "sign", parts[2] == "ECDSA" else { return nil }
        switch (parts[3], parts.count) {
        // `RFC4754` alone is Apple's older name of `digest-RFC4754` (`SecKeyAdaptors.m` runs
        // the one as the other).
        case ("digest-X962", 4), ("digest-RFC4754", 4), ("RFC4754", 4): return .digest(length: nil)
        case ("digest-X962", 5), ("digest-RFC4754", 5): return Self.digestLength(named: parts[4]).map { .digest(length: $0) }
        case ("message-X962", 5), ("message-RFC4754", 5): return ECIES.Hash(appleName: parts[4]).map { .message($0) }
        default: return nil
        }
    }

    /// Whether a supported ECDSA algorithm's signature is RFC 4754's raw r || s (64 bytes for
    /// P-256: the iOS 17 `…RFC4754…` algorithms) rather than X9.62's DER.
    package var ecdsaRawSignature: Bool {
        let parts = parts
        return parts.count >= 4 && parts[0] == "algid" && parts[1] == "sign" && parts[2] == "ECDSA"
            && (parts[3] == "digest-RFC4754" || parts[3] == "message-RFC4754" || parts[3] == "RFC4754")
    }

    /// The ECIES form of a supported encryption algorithm; nil for any other algorithm.
    package var eciesVariant: ECIES.Variant? {
        let parts = parts
        guard parts.count == 7, parts[0] == "algid", parts[1] == "encrypt", parts[2] == "ECIES",
              parts[3] == "ECDH" || parts[3] == "ECDHC", parts[4] == "KDFX963",
              let hash = ECIES.Hash(appleName: parts[5]) else { return nil }
        switch parts[6] {
        case "AESGCM": return ECIES.Variant(hash: hash, variableIV: false)
        // Apple has no SHA-1 variable-IV form.
        case "AESGCM-KDFIV" where hash != .sha1: return ECIES.Variant(hash: hash, variableIV: true)
        default: return nil
        }
    }

    /// The result of a supported key-exchange algorithm; nil for any other algorithm.
    package var keyExchange: KeyExchange? {
        let parts = parts
        guard parts.count >= 3, parts[0] == "algid", parts[1] == "keyexchange", parts[2] == "ECDH" || parts[2] == "ECDHC" else {
            return nil
        }
        switch parts.count {
        case 3: return .raw
        case 5 where parts[3] == "KDFX963": return ECIES.Hash(appleName: parts[4]).map { .x963($0) }
        default: return nil
        }
    }

    /// Why ``signedBytes(of:)`` refused: the text of the errSecParam.
    package struct InputError: Error {
        package let message: String
    }

    /// The bytes ECDSA signs for this algorithm: the message's hash, or the digest given
    /// (checked for length). Throws for an algorithm that is not a supported ECDSA one.
    package func signedBytes(of data: Data) throws(InputError) -> Data {
        switch ecdsaInput {
        case let .message(hash):
            return hash.digest(data)
        case .digest(length: nil):
            guard (1...64).contains(data.count) else { throw InputError(message: "a digest is 1 to 64 bytes") }
            return data
        case let .digest(length?):
            guard data.count == length else {
                throw InputError(message: "\(identifier) signs a \(length)-byte digest, not \(data.count) bytes")
            }
            return data
        case nil:
            throw InputError(message: "unsupported signature algorithm \(identifier)")
        }
    }
}

extension ECIES.Hash {
    /// The hash an algorithm identifier names ("SHA1", "SHA224", "SHA256", "SHA384",
    /// "SHA512"); nil for anything else.
    init?(appleName: Substring) {
        switch appleName {
        case "SHA1": self = .sha1
        case "SHA224": self = .sha224
        case "SHA256": self = .sha256
        case "SHA384": self = .sha384
        case "SHA512": self = .sha512
        default: return nil
        }
    }
}
#endif
