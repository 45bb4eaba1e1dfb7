import _CryptoExtras
import Crypto
import Foundation
import Touchstone

/// The simulated device passcode: stored as a salted PBKDF2-HMAC-SHA256 verifier, never in
/// clear.
///
/// Options: `rounds` (PBKDF2 iterations, default 210,000 as OWASP recommends; tests and
/// throwaway simulations may lower it to speed up), `min-length` (shortest passcode accepted).
public struct SimulatedPasscode: PasscodeFactor {
    public static let descriptor = PluginDescriptor(
        id: "passcode.sim", kind: .passcode,
        summary: "device passcode kept as a salted PBKDF2-SHA256 hash",
        options: [
            OptionSpec("rounds", .integer(roundsRange), default: "210000", "PBKDF2 iterations of the stored verifier"),
            OptionSpec("min-length", .integer(1...64), default: "4", "shortest passcode accepted"),
        ])

    /// The PBKDF2 iterations a verifier may have: the option's range, and what a stored one
    /// is held to.
    static let roundsRange = 1_000...10_000_000

    private struct Verifier: Codable {
        var salt: Data
        var rounds: Int
        var hash: Data
    }

    private let rounds: Int
    private let minimumLength: Int

    public init(options: PluginOptions, environment: PluginEnvironment) {
        rounds = options.integer("rounds") ?? 210_000
        minimumLength = options.integer("min-length") ?? 4
    }

    public func makeVerifier(for passcode: String, random: RandomSource) throws -> Data {
        guard passcode.count >= minimumLength else {
            throw UsageError.invalidPasscode(reason: "it must have at least \(minimumLength) characters")
        }
        let salt = random.bytes(16)
        let verifier = Verifier(salt: salt, rounds: rounds, hash: try derive(passcode, salt: salt, rounds: rounds))
        return try JSONEncoder().encode(verifier)
    }

    public func check(_ entry: String, against stored: Data?) throws -> PasscodeCheck {
        guard let stored else { return PasscodeCheck(isCorrect: false, digest: nil) }
        let verifier: Verifier
        do {
            verifier = try JSONDecoder().decode(Verifier.self, from: stored)
        } catch {
            throw StorageError.corruptRecord(key: "device/state (passcode verifier)", reason: "\(error)")
        }
        // A verifier this plugin wrote has rounds the option allows and a 32-byte hash;
        // anything else was altered, and its rounds must never reach PBKDF2 (0, a negative or a
        // huge count traps or runs for hours).
        guard Self.roundsRange.contains(verifier.rounds), verifier.hash.count == 32, !verifier.salt.isEmpty else {
            throw StorageError.corruptRecord(
                key: "device/state (passcode verifier)",
                reason: "its rounds (\(verifier.rounds)), hash (\(verifier.hash.count) bytes) or salt (\(verifier.salt.count) bytes) are out of range")
        }
        let digest = try derive(entry, salt: verifier.salt, rounds: verifier.rounds)
        return PasscodeCheck(isCorrect: constantTimeEqual(digest, verifier.hash), digest: digest)
    }

    private func derive(_ passcode: String, salt: Data, rounds: Int) throws -> Data {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(passcode.utf8), salt: salt, using: .sha256, outputByteCount: 32,
            unsafeUncheckedRounds: rounds)
        return key.withUnsafeBytes { Data($0) }
    }

    private func constantTimeEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
        return difference == 0
    }
}
