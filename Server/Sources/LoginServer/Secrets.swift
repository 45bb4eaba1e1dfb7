import Foundation
import Crypto
import _CryptoExtras

/// Slow salted password hashing: PBKDF2-HMAC-SHA256, 16-byte random salt, 32-byte output.
///
/// The encoded form records its own parameters, `pbkdf2-sha256-nfkc$<rounds>$<salt>$<hash>`
/// (base64), so the round count can rise later without breaking stored hashes. The password is
/// hashed in Unicode NFKC (NIST SP 800-63B §5.1.1.2): "é" typed as one character or as e + an
/// accent, or a full-width letter from an East Asian keyboard, is the same password. Hashes of
/// the earlier form, `pbkdf2-sha256$…`, hashed the password's bytes as typed and still verify
/// that way.
public struct PasswordHasher: Sendable {
    /// The scheme of new hashes, and the earlier scheme (the password's bytes as typed).
    private static let scheme = "pbkdf2-sha256-nfkc", unnormalizedScheme = "pbkdf2-sha256"

    /// OWASP's minimum for PBKDF2-HMAC-SHA256, and the server's default.
    public static let minimumRounds = 210_000

    /// Rounds used for new hashes.
    public let rounds: Int

    /// A hasher with `rounds` rounds (``minimumRounds`` unless a test asks for fewer).
    public init(rounds: Int = PasswordHasher.minimumRounds) {
        self.rounds = max(1, rounds)
    }

    /// Hashes `password` with a fresh random salt.
    public func hash(_ password: String) throws -> String {
        let salt = randomBytes(16)
        let derived = try derive(Self.normalized(password), salt: salt, rounds: rounds)
        return "\(Self.scheme)$\(rounds)$\(Data(salt).base64EncodedString())$\(Data(derived).base64EncodedString())"
    }

    /// Whether `password` matches `encoded`, compared in constant time. A malformed `encoded`
    /// never matches.
    public func verify(_ password: String, against encoded: String) -> Bool {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == Self.scheme || parts[0] == Self.unnormalizedScheme,
              let rounds = Int(parts[1]), rounds > 0, rounds <= 10_000_000,
              let salt = Data(base64Encoded: String(parts[2])),
              let expected = Data(base64Encoded: String(parts[3])),
              let derived = try? derive(parts[0] == Self.scheme ? Self.normalized(password) : password,
                                        salt: Array(salt), rounds: rounds)
        else { return false }
        return constantTimeEqual(derived, Array(expected))
    }

    /// A hash of a password nobody has, verified against when the username is unknown so that
    /// both failures take about as long.
    public func decoy() -> String {
        let zeros = Data(count: 16).base64EncodedString()
        let digest = Data(count: 32).base64EncodedString()
        return "\(Self.scheme)$\(rounds)$\(zeros)$\(digest)"
    }

    /// A password as hashed: Unicode NFKC.
    static func normalized(_ password: String) -> String {
        password.precomposedStringWithCompatibilityMapping
    }

    private func derive(_ password: String, salt: [UInt8], rounds: Int) throws -> [UInt8] {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: salt, using: .sha256,
            outputByteCount: 32, unsafeUncheckedRounds: rounds
        )
        return key.withUnsafeBytes { Array($0) }
    }
}

/// `count` bytes from the system's cryptographically secure generator.
func randomBytes(_ count: Int) -> [UInt8] {
    // Eight bytes per draw: each draw from the system generator is a getrandom(2) system call,
    // so one per byte made 32 of them for every token and challenge.
    var generator = SystemRandomNumberGenerator()
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 7)
    while bytes.count < count {
        withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0) }
    }
    return Array(bytes.prefix(count))
}

/// SHA-256 of `bytes`, the form in which tokens and challenges are stored.
func sha256(_ bytes: some DataProtocol) -> [UInt8] {
    Array(SHA256.hash(data: bytes))
}

/// SHA-256 over a label and the bytes, so a key and a token with equal bytes never collide.
func credentialHash(kind: DeviceKind, bytes: [UInt8]) -> [UInt8] {
    var hasher = SHA256()
    hasher.update(data: Array("touchstone.device.\(kind.rawValue)\u{0}".utf8))
    hasher.update(data: bytes)
    return Array(hasher.finalize())
}

/// Whether two byte strings are equal, in time that depends only on their lengths.
func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var difference: UInt8 = 0
    for index in lhs.indices {
        difference |= lhs[index] ^ rhs[index]
    }
    return difference == 0
}
