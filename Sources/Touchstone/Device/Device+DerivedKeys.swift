import Crypto
import Foundation

extension Device {
    /// A key derived with HKDF-SHA256 from the device secret (`salt` names the use, `info` the
    /// app or the part), for this package's modules that keep device-bound secrets outside the
    /// core: App Attest seals its keys and derives its test certificate authority with it. The
    /// secret never leaves the core; an erase replaces it, and with it every derived key.
    package func derivedKey(salt: String, info: Data, byteCount: Int = 32) throws -> SymmetricKey {
        HKDF<SHA256>.deriveKey(inputKeyMaterial: try snapshot().secretKey, salt: Data(salt.utf8), info: info,
                               outputByteCount: byteCount)
    }
}
