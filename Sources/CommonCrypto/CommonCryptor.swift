import Foundation

// Apple's `CommonCryptor.h`: symmetric encryption in one call (`CCCrypt`) or through a cryptor
// (`CCCryptorCreate…`, `Update`, `Final`, `Release`), with the status codes, output lengths and
// buffering of Apple's CommonCrypto-600035 (`CommonCryptor.c`, corecrypto's padding). AES is
// the cipher implemented, in ECB, CBC, CTR, CFB, CFB8 and OFB modes, on swift-crypto's AES
// block function. The other ciphers the header names (DES, 3DES, CAST, RC4, RC2, Blowfish)
// give kCCUnimplemented here, where iOS runs them.

/// Encrypt or decrypt: `kCCEncrypt` or `kCCDecrypt`.
public typealias CCOperation = UInt32
/// Encrypt.
public let kCCEncrypt = 0
/// Decrypt.
public let kCCDecrypt = 1

/// The cipher: one of the `kCCAlgorithm…` constants.
public typealias CCAlgorithm = UInt32
/// AES (the old name, from when only 128-bit keys were meant).
public let kCCAlgorithmAES128 = 0
/// AES with a 128-, 192- or 256-bit key.
public let kCCAlgorithmAES = 0
/// DES: kCCUnimplemented here.
public let kCCAlgorithmDES = 1
/// Triple DES: kCCUnimplemented here.
public let kCCAlgorithm3DES = 2
/// CAST: kCCUnimplemented here.
public let kCCAlgorithmCAST = 3
/// RC4: kCCUnimplemented here.
public let kCCAlgorithmRC4 = 4
/// RC2: kCCUnimplemented here.
public let kCCAlgorithmRC2 = 5
/// Blowfish: kCCUnimplemented here.
public let kCCAlgorithmBlowfish = 6

/// Options of `CCCrypt` and `CCCryptorCreate`.
public typealias CCOptions = UInt32
/// PKCS #7 padding.
public let kCCOptionPKCS7Padding = 0x0001
/// ECB mode instead of CBC.
public let kCCOptionECBMode = 0x0002

/// AES-128's key size in bytes.
public let kCCKeySizeAES128 = 16
/// AES-192's key size in bytes.
public let kCCKeySizeAES192 = 24
/// AES-256's key size in bytes.
public let kCCKeySizeAES256 = 32
/// DES's key size in bytes.
public let kCCKeySizeDES = 8
/// Triple DES's key size in bytes.
public let kCCKeySize3DES = 24
/// CAST's smallest key size in bytes.
public let kCCKeySizeMinCAST = 5
/// CAST's largest key size in bytes.
public let kCCKeySizeMaxCAST = 16
/// RC4's smallest key size in bytes.
public let kCCKeySizeMinRC4 = 1
/// RC4's largest key size in bytes.
public let kCCKeySizeMaxRC4 = 512
/// RC2's smallest key size in bytes.
public let kCCKeySizeMinRC2 = 1
/// RC2's largest key size in bytes.
public let kCCKeySizeMaxRC2 = 128
/// Blowfish's smallest key size in bytes.
public let kCCKeySizeMinBlowfish = 8
/// Blowfish's largest key size in bytes.
public let kCCKeySizeMaxBlowfish = 56

/// AES's block size in bytes.
public let kCCBlockSizeAES128 = 16
/// DES's block size in bytes.
public let kCCBlockSizeDES = 8
/// Triple DES's block size in bytes.
public let kCCBlockSize3DES = 8
/// CAST's block size in bytes.
public let kCCBlockSizeCAST = 8
/// RC2's block size in bytes.
public let kCCBlockSizeRC2 = 8
/// Blowfish's block size in bytes.
public let kCCBlockSizeBlowfish = 8

/// The mode of `CCCryptorCreateWithMode`: one of the `kCCMode…` constants.
public typealias CCMode = UInt32
/// Electronic codebook.
public let kCCModeECB = 1
/// Cipher block chaining.
public let kCCModeCBC = 2
/// Cipher feedback, 128 bits at a time (a stream: no padding, any length).
public let kCCModeCFB = 3
/// Counter mode, the whole 16-byte IV as a big-endian counter (a stream).
public let kCCModeCTR = 4
/// Output feedback (a stream).
public let kCCModeOFB = 7
/// RC4's stream: kCCUnimplemented here.
public let kCCModeRC4 = 9
/// Cipher feedback, 8 bits at a time (a stream).
public let kCCModeCFB8 = 10

/// The padding of `CCCryptorCreateWithMode`.
public typealias CCPadding = UInt32
/// No padding: ECB and CBC input must be whole blocks.
public let ccNoPadding = 0
/// PKCS #7 padding (ECB and CBC).
public let ccPKCS7Padding = 1

/// Mode options of `CCCryptorCreateWithMode` (ignored, as by CommonCrypto today).
public typealias CCModeOptions = UInt32
/// Big-endian counter for CTR mode (deprecated: it is the only counter there is).
public let kCCModeOptionCTR_BE = 2

/// A cryptor made by `CCCryptorCreate` or `CCCryptorCreateWithMode`; `CCCryptorRelease` frees it.
public typealias CCCryptorRef = OpaquePointer

/// Makes a cryptor for AES in CBC mode, or ECB with `kCCOptionECBMode`, padded with
/// `kCCOptionPKCS7Padding`. `iv` (16 bytes; nil means zeros) is CBC's. Returns kCCParamError for
/// a missing key or cryptorRef or an unknown operation or algorithm, kCCUnimplemented for a cipher
/// other than AES, kCCKeySizeError for a key not 16, 24 or 32 bytes long.
public func CCCryptorCreate(
    _ op: CCOperation, _ alg: CCAlgorithm, _ options: CCOptions,
    _ key: UnsafeRawPointer!, _ keyLength: Int, _ iv: UnsafeRawPointer!,
    _ cryptorRef: UnsafeMutablePointer<CCCryptorRef?>!
) -> CCCryptorStatus {
    let mode = Int(alg) == kCCAlgorithmRC4 ? kCCModeRC4 : (Int(options) & kCCOptionECBMode != 0 ? kCCModeECB : kCCModeCBC)
    let padding = Int(options) & kCCOptionPKCS7Padding != 0 ? ccPKCS7Padding : ccNoPadding
    return CCCryptorCreateWithMode(op, CCMode(mode), alg, CCPadding(padding), iv, key, keyLength, nil, 0, 0, 0, cryptorRef)
}

/// Makes a cryptor for `alg` in `mode` (a `kCCMode…` constant) with `padding` (ECB and CBC).
/// `iv` (16 bytes; nil means zeros) is the IV, or CTR's first counter block. `tweak`,
/// `numRounds` and `options` are not used, as in CommonCrypto. The statuses are
/// `CCCryptorCreate`'s; an unknown mode is kCCParamError.
public func CCCryptorCreateWithMode(
    _ op: CCOperation, _ mode: CCMode, _ alg: CCAlgorithm, _ padding: CCPadding,
    _ iv: UnsafeRawPointer!, _ key: UnsafeRawPointer!, _ keyLength: Int,
    _ tweak: UnsafeRawPointer!, _ tweakLength: Int, _ numRounds: Int32, _ options: CCModeOptions,
    _ cryptorRef: UnsafeMutablePointer<CCCryptorRef?>!
) -> CCCryptorStatus {
    guard let cryptorRef, let key else { return CCCryptorStatus(kCCParamError) }
    cryptorRef.pointee = nil
    switch Cryptor.make(
        operation: op, mode: mode, algorithm: alg, padding: padding,
        key: rawBytes(key, keyLength), iv: iv
    ) {
    case .success(let cryptor):
        cryptorRef.pointee = OpaquePointer(Unmanaged.passRetained(cryptor).toOpaque())
        return CCCryptorStatus(kCCSuccess)
    case .failure(let status):
        return status.code
    }
}

/// The cryptor a reference names.
private func lookUpCryptor(_ ref: CCCryptorRef?) -> Cryptor? {
    guard let ref else { return nil }
    return Unmanaged<Cryptor>.fromOpaque(UnsafeRawPointer(ref)).takeUnretainedValue()
}

/// Frees a cryptor. Always kCCSuccess.
@discardableResult
public func CCCryptorRelease(_ cryptorRef: CCCryptorRef!) -> CCCryptorStatus {
    if let cryptorRef {
        Unmanaged<Cryptor>.fromOpaque(UnsafeRawPointer(cryptorRef)).release()
    }
    return CCCryptorStatus(kCCSuccess)
}

/// Encrypts or decrypts `dataInLength` bytes at `dataIn` into `dataOut`. Block modes hold back
/// what is not yet a whole block (and, decrypting with padding, the last whole block) until
/// later input or `CCCryptorFinal`. When `dataOutAvailable` is less than
/// `CCCryptorGetOutputLength(ref, dataInLength, false)`, nothing happens: kCCBufferTooSmall, with
/// that length in `dataOutMoved`.
public func CCCryptorUpdate(
    _ cryptorRef: CCCryptorRef!, _ dataIn: UnsafeRawPointer!, _ dataInLength: Int,
    _ dataOut: UnsafeMutableRawPointer!, _ dataOutAvailable: Int, _ dataOutMoved: UnsafeMutablePointer<Int>!
) -> CCCryptorStatus {
    guard let cryptor = lookUpCryptor(cryptorRef) else { return CCCryptorStatus(kCCParamError) }
    dataOutMoved?.pointee = 0
    guard dataInLength > 0 else { return CCCryptorStatus(kCCSuccess) }
    let needed = cryptor.outputLength(forInput: dataInLength, final: false)
    guard needed <= dataOutAvailable else {
        dataOutMoved?.pointee = needed
        return CCCryptorStatus(kCCBufferTooSmall)
    }
    let output = cryptor.update(rawBytes(dataIn, dataInLength))
    copyBytes(output, to: dataOut)
    dataOutMoved?.pointee = output.count
    return CCCryptorStatus(kCCSuccess)
}

/// Ends the data: encrypting with padding, writes the padded last block; decrypting with
/// padding, the last block without its padding. Without padding, input left over that is not
/// a whole block is kCCAlignmentError. A stream mode writes nothing.
public func CCCryptorFinal(
    _ cryptorRef: CCCryptorRef!, _ dataOut: UnsafeMutableRawPointer!, _ dataOutAvailable: Int,
    _ dataOutMoved: UnsafeMutablePointer<Int>!
) -> CCCryptorStatus {
    guard let cryptor = lookUpCryptor(cryptorRef) else { return CCCryptorStatus(kCCSuccess) }
    dataOutMoved?.pointee = 0
    switch cryptor.finish(available: dataOutAvailable) {
    case .success(let output):
        copyBytes(output, to: dataOut)
        dataOutMoved?.pointee = dataOut == nil ? 0 : output.count
        return CCCryptorStatus(kCCSuccess)
    case .failure(let status):
        return status.code
    }
}

/// How many bytes `CCCryptorUpdate` (or, when `final`, it and `CCCryptorFinal`) may write for
/// `inputLength` more bytes of input: whole blocks, one more when encrypting with padding; a
/// stream mode writes what it reads.
public func CCCryptorGetOutputLength(_ cryptorRef: CCCryptorRef!, _ inputLength: Int, _ final: Bool) -> Int {
    guard let cryptor = lookUpCryptor(cryptorRef) else { return kCCParamError }
    return cryptor.outputLength(forInput: inputLength, final: final)
}

/// Drops buffered input and sets a new IV (nil: zeros) on a CBC or CTR cryptor; other modes
/// give kCCUnimplemented.
public func CCCryptorReset(_ cryptorRef: CCCryptorRef!, _ iv: UnsafeRawPointer!) -> CCCryptorStatus {
    guard let cryptor = lookUpCryptor(cryptorRef) else { return CCCryptorStatus(kCCParamError) }
    return cryptor.reset(iv: iv).code
}

/// Encrypts or decrypts `dataInLength` bytes at `dataIn` in one call, as `CCCryptorCreate`,
/// `CCCryptorUpdate` and `CCCryptorFinal` would. `dataOutAvailable` must hold
/// `CCCryptorGetOutputLength(…, final: true)` bytes: the input rounded up a block when
/// encrypting with padding, the input's length when decrypting. Otherwise kCCBufferTooSmall,
/// with that length in `dataOutMoved`.
public func CCCrypt(
    _ op: CCOperation, _ alg: CCAlgorithm, _ options: CCOptions,
    _ key: UnsafeRawPointer!, _ keyLength: Int, _ iv: UnsafeRawPointer!,
    _ dataIn: UnsafeRawPointer!, _ dataInLength: Int,
    _ dataOut: UnsafeMutableRawPointer!, _ dataOutAvailable: Int, _ dataOutMoved: UnsafeMutablePointer<Int>!
) -> CCCryptorStatus {
    var ref: CCCryptorRef?
    let created = CCCryptorCreate(op, alg, options, key, keyLength, iv, &ref)
    guard created == kCCSuccess else { return created }
    defer { CCCryptorRelease(ref) }
    let needed = CCCryptorGetOutputLength(ref, dataInLength, true)
    dataOutMoved?.pointee = needed
    guard needed <= dataOutAvailable else { return CCCryptorStatus(kCCBufferTooSmall) }
    var updated = 0
    let status = CCCryptorUpdate(ref, dataIn, dataInLength, dataOut, dataOutAvailable, &updated)
    guard status == kCCSuccess else { return status }
    var finished = 0
    let ended = CCCryptorFinal(ref, dataOut.map { $0 + updated }, dataOutAvailable - updated, &finished)
    dataOutMoved?.pointee = updated + finished
    return ended
}
