import CommonCrypto
import Foundation
import TouchstoneOpenSSL

/// A CommonCrypto status other than success, as an error.
struct CCFailure: Error, Equatable {
    let code: CCCryptorStatus

    static let param = CCFailure(code: CCCryptorStatus(kCCParamError))
    static let bufferTooSmall = CCFailure(code: CCCryptorStatus(kCCBufferTooSmall))
    static let alignment = CCFailure(code: CCCryptorStatus(kCCAlignmentError))
    static let decode = CCFailure(code: CCCryptorStatus(kCCDecodeError))
    static let unimplemented = CCFailure(code: CCCryptorStatus(kCCUnimplemented))
    static let keySize = CCFailure(code: CCCryptorStatus(kCCKeySizeError))
}

extension Result<Void, CCFailure> {
    /// kCCSuccess or the failure's status.
    var code: CCCryptorStatus {
        switch self {
        case .success: CCCryptorStatus(kCCSuccess)
        case .failure(let failure): failure.code
        }
    }
}

/// What `CCCryptorRef` points to: a block cipher (AES, DES, triple DES, CAST, Blowfish) in one
/// mode, one direction, with the input it holds back; or RC4.
///
/// Block modes (ECB, CBC) follow CommonCrypto's buffering: an update processes every whole
/// block but what is not yet a whole block, and, decrypting with padding, also the last whole
/// block, since it may end with the padding. Stream modes (CTR, CFB, CFB8, OFB) and RC4
/// process every byte at once.
final class Cryptor {
    private enum Mode {
        case ecb, cbc, ctr, cfb, cfb8, ofb
        /// RC4, a stream cipher of its own (CommonCrypto runs it in place of OFB, whatever mode
        /// was asked for).
        case rc4

        var isStream: Bool { self != .ecb && self != .cbc }
    }

    /// What enciphers: a block function the mode runs over, or RC4's own stream.
    private enum Primitive {
        case block(any BlockFunction)
        case rc4(LibCrypto.Cipher)
    }

    private let encrypting: Bool
    private let mode: Mode
    private let padded: Bool
    private let primitive: Primitive
    /// The block function's block size (16 for AES, 8 for the others; 1 for RC4).
    private let blockSize: Int
    /// CBC's previous ciphertext block, CTR's counter, CFB's, CFB8's and OFB's register.
    private var register: [UInt8]
    /// Block modes: input not processed yet.
    private var held: [UInt8] = []
    /// Stream modes: the key stream block in use and how much of it is spent.
    private var keyStream: [UInt8] = []
    private var keyStreamUsed: Int
    /// CFB: the ciphertext of the block in progress, the next register.
    private var feedback: [UInt8] = []

    private init(encrypting: Bool, mode: Mode, padded: Bool, primitive: Primitive, iv: UnsafeRawPointer?) {
        self.encrypting = encrypting
        self.mode = mode
        self.padded = padded
        self.primitive = primitive
        switch primitive {
        case let .block(function): blockSize = function.blockSize
        case .rc4: blockSize = 1
        }
        keyStreamUsed = blockSize
        // ECB has no IV: it is not read.
        register = Self.initialVector(mode == .ecb ? nil : iv, blockSize: blockSize)
    }

    /// A cryptor, or the status CommonCrypto gives for these arguments, checked in its order:
    /// the algorithm and operation, the mode, then the key's size.
    static func make(
        operation: CCOperation, mode: CCMode, algorithm: CCAlgorithm, padding: CCPadding,
        key: UnsafeRawBufferPointer, iv: UnsafeRawPointer?
    ) -> Result<Cryptor, CCFailure> {
        guard algorithm <= 6, operation == kCCEncrypt || operation == kCCDecrypt else { return .failure(.param) }
        var chosen: Mode
        // RC4 is a stream whatever the mode (CommonCryptor.c's ccSetupCryptor).
        switch Int(algorithm) == kCCAlgorithmRC4 ? kCCModeOFB : Int(mode) {
        case kCCModeECB: chosen = .ecb
        case kCCModeCBC: chosen = .cbc
        case kCCModeCTR: chosen = .ctr
        case kCCModeCFB: chosen = .cfb
        case kCCModeCFB8: chosen = .cfb8
        case kCCModeOFB: chosen = .ofb
        // The modes of CommonCryptorSPI.h (XTS 8, GCM 11, CCM 12) exist in CommonCrypto but are
        // not implemented here; kCCModeRC4 names no mode of a block cipher.
        case 8, 11, 12: return .failure(.unimplemented)
        default: return .failure(.param)
        }
        let primitive: Primitive
        switch Int(algorithm) {
        case kCCAlgorithmAES:
            guard let aes = AESBlock(key: key) else { return .failure(.keySize) }
            primitive = .block(aes)
        case kCCAlgorithmRC4:
            switch LegacyCiphers.rc4(key: key) {
            case let .success(stream): (primitive, chosen) = (.rc4(stream), .rc4)
            case let .failure(failure): return .failure(failure)
            }
        default:
            switch LegacyCiphers.block(algorithm: Int(algorithm), key: key) {
            case let .success(function): primitive = .block(function)
            case let .failure(failure): return .failure(failure)
            }
        }
        return .success(Cryptor(encrypting: operation == kCCEncrypt, mode: chosen, padded: Int(padding) == ccPKCS7Padding,
                                primitive: primitive, iv: iv))
    }

    /// The block's worth of bytes at `iv`, or zeros when there is none.
    private static func initialVector(_ iv: UnsafeRawPointer?, blockSize: Int) -> [UInt8] {
        guard let iv else { return [UInt8](repeating: 0, count: blockSize) }
        return Array(UnsafeRawBufferPointer(start: iv, count: blockSize))
    }

    /// The bytes decrypting with padding keeps back until `CCCryptorFinal`.
    private var reserve: Int { padded && !encrypting ? blockSize : 0 }

    /// CommonCrypto's output length for `input` more bytes (`CCCryptorGetOutputLength`).
    func outputLength(forInput input: Int, final: Bool) -> Int {
        if mode.isStream { return input }
        let (total, overflow) = held.count.addingReportingOverflow(input)
        guard !overflow else { return Int.max }
        let block = blockSize
        guard padded else { return total / block * block }
        // As CommonCrypto's size_t arithmetic, wrapping rather than trapping near the top.
        if encrypting { return final ? (total / block &+ 1) &* block : total / block * block }
        if final { return total }
        let processable = total > 0 && total % block == 0 ? total - 1 : total
        return processable / block * block
    }

    /// Processes what `input` completes and holds back the rest.
    func update(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        if mode.isStream { return stream(Array(input)) }
        held += input
        let remainder = held.count % blockSize
        let hold = held.count <= reserve ? held.count : (remainder != 0 ? remainder : reserve)
        let ready = Array(held.prefix(held.count - hold))
        held.removeFirst(ready.count)
        return blocks(ready)
    }

    /// The end of the data (`CCCryptorFinal`).
    func finish(available: Int) -> Result<[UInt8], CCFailure> {
        if mode.isStream { return .success([]) }
        // Too little room changes nothing: the call can be repeated ("no state is lost").
        let (heldBefore, registerBefore) = (held, register)
        let result = finishHeld(available: available)
        if case .failure(.bufferTooSmall) = result {
            (held, register) = (heldBefore, registerBefore)
        } else {
            held = []
        }
        return result
    }

    private func finishHeld(available: Int) -> Result<[UInt8], CCFailure> {
        guard padded else { return held.isEmpty ? .success([]) : .failure(.alignment) }
        let block = blockSize
        let output: [UInt8]
        if encrypting {
            let padding = block - held.count
            output = blocks(held + [UInt8](repeating: UInt8(padding), count: padding))
        } else {
            // CommonCrypto hands corecrypto whatever is held, a whole block if the input was
            // whole blocks; what it does with less depends on memory outside the buffer, so
            // less is refused here (our rule).
            guard held.count == block else { return .failure(.alignment) }
            let plain = blocks(held)
            // corecrypto's check reads the last byte only: 1 to 16 is the padding's length;
            // anything else removes nothing and is not reported (`ccpad_pkcs7_decode`).
            let padding = Int(plain[block - 1])
            output = Array(plain.prefix(block - ((1...block).contains(padding) ? padding : 0)))
        }
        guard output.count <= available else { return .failure(.bufferTooSmall) }
        return .success(output)
    }

    /// `CCCryptorReset`: CBC and CTR only.
    func reset(iv: UnsafeRawPointer?) -> Result<Void, CCFailure> {
        guard mode == .cbc || mode == .ctr else { return .failure(.unimplemented) }
        held = []
        register = Self.initialVector(iv, blockSize: blockSize)
        keyStreamUsed = blockSize
        return .success(())
    }

    // MARK: - The modes

    private func permute(_ block: [UInt8], forward: Bool = true) -> [UInt8] {
        switch primitive {
        case let .block(function): function.permute(block, forward: forward)
        case .rc4: block  // (RC4 is a stream: `update` never permutes a block for it)
        }
    }

    /// ECB or CBC over whole blocks.
    private func blocks(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        for start in stride(from: 0, to: input.count, by: blockSize) {
            let block = Array(input[start..<start + blockSize])
            switch (mode, encrypting) {
            case (.ecb, let forward):
                output += permute(block, forward: forward)
            case (_, true):
                register = permute(zip(block, register).map { $0 ^ $1 })
                output += register
            case (_, false):
                output += zip(permute(block, forward: false), register).map { $0 ^ $1 }
                register = block
            }
        }
        return output
    }

    /// CTR, CFB, CFB8 and OFB, byte by byte; RC4 all at once.
    private func stream(_ input: [UInt8]) -> [UInt8] {
        if case let .rc4(stream) = primitive { return stream.update(input) }
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        for byte in input {
            if mode == .cfb8 {
                let out = byte ^ permute(register)[0]
                register = Array(register.dropFirst()) + [encrypting ? out : byte]
                output.append(out)
                continue
            }
            if keyStreamUsed == blockSize { nextKeyStream() }
            let out = byte ^ keyStream[keyStreamUsed]
            if mode == .cfb { feedback.append(encrypting ? out : byte) }
            keyStreamUsed += 1
            output.append(out)
        }
        return output
    }

    /// The next block of key stream: E(counter) then the counter plus one (CTR), E(register)
    /// fed back (OFB), E(previous ciphertext block) (CFB).
    private func nextKeyStream() {
        switch mode {
        case .ctr:
            // corecrypto's counter is the block's last 8 bytes, big-endian (all of an 8-byte
            // block); it wraps there and the bytes before stay as they are (ccmode_ctr;
            // CommonCryptoSymCTR.c's vectors).
            keyStream = permute(register)
            for index in (max(blockSize - 8, 0)..<blockSize).reversed() {
                register[index] &+= 1
                if register[index] != 0 { break }
            }
        case .ofb:
            keyStream = permute(register)
            register = keyStream
        default:
            if feedback.count == blockSize { register = feedback }
            feedback = []
            keyStream = permute(register)
        }
        keyStreamUsed = 0
    }
}
