import Crypto
import _CryptoExtras

/// A block cipher on one block, the primitive the cryptor's modes are built from.
protocol BlockFunction {
    /// The block's length in bytes.
    var blockSize: Int { get }
    /// The block encrypted (`forward`) or decrypted.
    func permute(_ block: [UInt8], forward: Bool) -> [UInt8]
}

/// AES on one 16-byte block, the primitive the cryptor's modes and the key wrap are built from
/// (swift-crypto's AES block function). Made only from a key of an AES size, so swift-crypto
/// has nothing to refuse.
struct AESBlock: BlockFunction {
    private let key: SymmetricKey
    let blockSize = 16

    /// A block function for `key`, or nil when it is not 16, 24 or 32 bytes long.
    init?(key: UnsafeRawBufferPointer) {
        guard [16, 24, 32].contains(key.count) else { return nil }
        self.key = SymmetricKey(data: key)
    }

    /// The block encrypted (`forward`) or decrypted.
    func permute(_ block: [UInt8], forward: Bool = true) -> [UInt8] {
        var block = block
        if forward {
            try? AES.permute(&block, key: key)
        } else {
            try? AES.inversePermute(&block, key: key)
        }
        return block
    }
}
