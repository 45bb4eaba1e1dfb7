import Foundation

/// SHA-224 (FIPS 180-4 §6.3): SHA-256's compression function from SHA-224's own initial hash
/// value, the result cut to 28 bytes.
///
/// Apple's `SecKey.h` names SHA-224 in 14 algorithms (RSA PKCS#1 v1.5, PSS and OAEP, ECDSA,
/// ECIES and the X9.63 KDF), and no package this project builds on offers a plain SHA-224:
/// swift-crypto keeps BoringSSL's inside, and its `CryptoExtras` has SHA-224 only within
/// PBKDF2's HMAC. So it is written here, in the plainest form: it hashes public inputs or
/// digests an app chose to compute, and every operation on 32-bit words (add, rotate, shift,
/// xor) takes the same time whatever the value. `SHA224Tests` checks it against FIPS 180-4's
/// examples, NIST's long-message vector and Python's `hashlib` at every length around the
/// padding's block boundaries.
package enum SHA224 {
    /// The digest's length in bytes.
    package static let byteCount = 28

    /// SHA-224's initial hash value (FIPS 180-4 §5.3.2): the second 32 bits of the fractional
    /// parts of the square roots of the 9th to 16th primes.
    private static let initialState: [UInt32] = [
        0xC105_9ED8, 0x367C_D507, 0x3070_DD17, 0xF70E_5939,
        0xFFC0_0B31, 0x6858_1511, 0x64F9_8FA7, 0xBEFA_4FA4,
    ]

    /// SHA-256's round constants (FIPS 180-4 §4.2.2): the first 32 bits of the fractional parts
    /// of the cube roots of the first 64 primes.
    private static let roundConstants: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]

    /// The SHA-224 digest of `data` (28 bytes).
    package static func hash(_ data: Data) -> Data {
        var hasher = Hasher()
        data.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// A digest fed in pieces: it keeps the state and at most one partial block, so a long
    /// message streamed through it takes constant memory.
    package struct Hasher: Sendable {
        private var state = SHA224.initialState
        /// The bytes of the block not yet complete (fewer than 64).
        private var pending: [UInt8] = []
        /// The message's length in bytes, modulo 2^64 (its length in bits is taken modulo 2^64
        /// too, FIPS 180-4 §5.1.1: wrapping, never trapping).
        private var length: UInt64 = 0

        /// A digest of nothing yet.
        package init() {}

        /// Adds `bytes` to the message.
        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            length &+= UInt64(bytes.count)
            var rest = bytes[...]
            if !pending.isEmpty {
                let taken = rest.prefix(64 - pending.count)
                pending += taken
                rest = rest.dropFirst(taken.count)
                guard pending.count == 64 else { return }
                SHA224.compress(&state, pending[...])
                pending.removeAll(keepingCapacity: true)
            }
            while rest.count >= 64 {
                SHA224.compress(&state, ArraySlice(rest.prefix(64)))
                rest = rest.dropFirst(64)
            }
            pending += rest
        }

        /// The digest of the message so far (28 bytes).
        package func finalize() -> Data {
            var state = state
            // The last bytes, a 1 bit, zeros up to 56 bytes past a multiple of 64, then the
            // message's length in bits as a 64-bit big-endian number (§5.1.1).
            var padded = pending
            padded.append(0x80)
            padded.append(contentsOf: repeatElement(0, count: (119 - pending.count) % 64))
            padded.append(contentsOf: withUnsafeBytes(of: (length &<< 3).bigEndian, Array.init))
            for start in stride(from: 0, to: padded.count, by: 64) {
                SHA224.compress(&state, padded[start..<start + 64])
            }
            var digest = Data(capacity: byteCount)
            for word in state.prefix(7) {
                withUnsafeBytes(of: word.bigEndian) { digest.append(contentsOf: $0) }
            }
            return digest
        }
    }

    /// SHA-256's compression function (§6.2.2) of one 64-byte block into `state`.
    fileprivate static func compress(_ state: inout [UInt32], _ block: ArraySlice<UInt8>) {
        var schedule = [UInt32](repeating: 0, count: 64)
        for index in 0..<16 {
            let offset = block.startIndex + index * 4
            schedule[index] = block[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        for index in 16..<64 {
            let sigma0 = rotate(schedule[index - 15], 7) ^ rotate(schedule[index - 15], 18) ^ (schedule[index - 15] >> 3)
            let sigma1 = rotate(schedule[index - 2], 17) ^ rotate(schedule[index - 2], 19) ^ (schedule[index - 2] >> 10)
            schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for index in 0..<64 {
            let sum1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25)
            let choose = (e & f) ^ (~e & g)
            let temporary1 = h &+ sum1 &+ choose &+ roundConstants[index] &+ schedule[index]
            let sum0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let temporary2 = sum0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ temporary1, c, b, a, temporary1 &+ temporary2)
        }
        for (index, value) in [a, b, c, d, e, f, g, h].enumerated() {
            state[index] = state[index] &+ value
        }
    }

    /// `value` rotated right by `count` bits (0 < count < 32).
    private static func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }
}
