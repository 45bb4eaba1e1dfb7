// MD2 (RFC 1319) and MD4 (RFC 1320), which CommonDigest.h still declares (deprecated since
// iOS 13) and swift-crypto does not offer: Touchstone's own, as SHA-224 is, checked against the
// RFCs' test suites (and MD4 against OpenSSL's legacy provider).

/// The input held back (`pending`) and `bytes` after it, as the whole blocks of `size` they
/// make and the rest, which waits for the next update.
private func wholeBlocks(of size: Int, _ pending: [UInt8], _ bytes: UnsafeRawBufferPointer) -> (blocks: [ArraySlice<UInt8>], rest: [UInt8]) {
    let input = pending + bytes
    let whole = input.count / size * size
    return (stride(from: 0, to: whole, by: size).map { input[$0..<$0 + size] }, Array(input[whole...]))
}

/// MD2: a 48-byte state, a 16-byte checksum, 16-byte blocks (RFC 1319 §3).
struct MD2: Sendable {
    /// The permutation of 0...255 built from the digits of pi (RFC 1319 §3.2, "S").
    private static let substitution: [UInt8] = [
        41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19,
        98, 167, 5, 243, 192, 199, 115, 140, 152, 147, 43, 217, 188, 76, 130, 202,
        30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18,
        190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122,
        169, 104, 121, 145, 21, 178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33,
        128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3,
        255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198,
        79, 184, 56, 210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241,
        69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2,
        27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15,
        85, 71, 163, 35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38,
        44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82,
        106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74,
        120, 136, 149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57,
        242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10,
        49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
    ]

    private var state = [UInt8](repeating: 0, count: 48)
    private var checksum = [UInt8](repeating: 0, count: 16)
    /// The last checksum byte (RFC 1319 §3.2's "L").
    private var lastChecksum: UInt8 = 0
    /// Input not yet a whole block.
    private var pending: [UInt8] = []

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        let (blocks, rest) = wholeBlocks(of: 16, pending, bytes)
        for block in blocks { absorb(block) }
        pending = rest
    }

    /// One block: into the checksum (§3.2, as the reference code and its erratum have it:
    /// C[j] ^= S[M[j] ^ L]) and into the state (§3.4).
    private mutating func absorb(_ block: ArraySlice<UInt8>) {
        for (j, byte) in block.enumerated() {
            checksum[j] ^= Self.substitution[Int(byte ^ lastChecksum)]
            lastChecksum = checksum[j]
            state[16 + j] = byte
            state[32 + j] = byte ^ state[j]
        }
        var t: UInt8 = 0
        for round in 0..<18 {
            for k in 0..<48 {
                state[k] ^= Self.substitution[Int(t)]
                t = state[k]
            }
            t = t &+ UInt8(round)
        }
    }

    /// Pads with n bytes of value n (1 to 16), appends the checksum, and gives the first 16
    /// bytes of the state.
    func finalize() -> [UInt8] {
        var copy = self
        let padding = 16 - copy.pending.count
        [UInt8](repeating: UInt8(padding), count: padding).withUnsafeBytes { copy.update($0) }
        let checksum = copy.checksum
        checksum.withUnsafeBytes { copy.update($0) }
        return Array(copy.state.prefix(16))
    }
}

/// MD4: four 32-bit words, 64-byte blocks, MD5's padding (RFC 1320 §3).
struct MD4: Sendable {
    private var words: (UInt32, UInt32, UInt32, UInt32) = (0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476)
    /// The message's length in bytes, modulo 2^64 (the padding records it in bits, modulo 2^64).
    private var length: UInt64 = 0
    private var pending: [UInt8] = []

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        let (blocks, rest) = wholeBlocks(of: 64, pending, bytes)
        for block in blocks { compress(block) }
        pending = rest
    }

    private mutating func compress(_ block: ArraySlice<UInt8>) {
        let base = block.startIndex
        let x = (0..<16).map { i in
            (0..<4).reduce(UInt32(0)) { word, byte in word | UInt32(block[base + 4 * i + byte]) << (8 * byte) }
        }
        var (a, b, c, d) = words
        func rotate(_ value: UInt32, _ count: UInt32) -> UInt32 { value << count | value >> (32 - count) }
        // Round 1: F(x, y, z) = xy ∨ ¬xz.
        for (i, k) in (0..<16).enumerated() {
            let shift: [UInt32] = [3, 7, 11, 19]
            let f = (b & c) | (~b & d)
            (a, b, c, d) = (d, rotate(a &+ f &+ x[k], shift[i % 4]), b, c)
        }
        // Round 2: G(x, y, z) = xy ∨ xz ∨ yz, plus √2 · 2^30.
        for (i, k) in [0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15].enumerated() {
            let shift: [UInt32] = [3, 5, 9, 13]
            let g = (b & c) | (b & d) | (c & d)
            (a, b, c, d) = (d, rotate(a &+ g &+ x[k] &+ 0x5A82_7999, shift[i % 4]), b, c)
        }
        // Round 3: H(x, y, z) = x ⊕ y ⊕ z, plus √3 · 2^30.
        for (i, k) in [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15].enumerated() {
            let shift: [UInt32] = [3, 9, 11, 15]
            let h = b ^ c ^ d
            (a, b, c, d) = (d, rotate(a &+ h &+ x[k] &+ 0x6ED9_EBA1, shift[i % 4]), b, c)
        }
        words = (words.0 &+ a, words.1 &+ b, words.2 &+ c, words.3 &+ d)
    }

    /// 0x80, zeros to 56 bytes modulo 64, the length in bits (little-endian), then the four
    /// words, little-endian.
    func finalize() -> [UInt8] {
        var copy = self
        let bits = length &<< 3
        var padding: [UInt8] = [0x80] + [UInt8](repeating: 0, count: (55 - pending.count % 64 + 64) % 64)
        padding += (0..<8).map { UInt8(truncatingIfNeeded: bits >> (8 * UInt64($0))) }
        padding.withUnsafeBytes { copy.update($0) }
        return [copy.words.0, copy.words.1, copy.words.2, copy.words.3].flatMap { word in
            (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) }
        }
    }
}
