// libFuzzer target: CommonCrypto's C API called as C code calls it, with every argument from
// the input (operation, algorithm, mode, options, key, IV, data, and output buffers of any
// room). Each output buffer is exactly the room passed, so AddressSanitizer reports a write
// past it; a status is never checked for a value (any status is an answer), only that the
// call returns and what it says it wrote fits.
import CommonCrypto
import Foundation
import FuzzSupport

/// Calls `body` with the bytes' address (nil for none, as C code passes a missing IV).
func withAddress<R>(of bytes: [UInt8]?, _ body: (UnsafeRawPointer?) -> R) -> R {
    guard let bytes else { return body(nil) }
    return bytes.withUnsafeBytes { body($0.baseAddress) }
}

/// An output buffer of exactly `room` bytes (nil for none). A call that succeeds and claims
/// to have written more than `room` fails the run (`kCCBufferTooSmall` reports the room it
/// needs in the same place, so only a success is checked).
func withOutput(room: Int, _ body: (UnsafeMutableRawPointer?, inout Int) -> CCCryptorStatus) {
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(room, 1), alignment: 16)
    defer { buffer.deallocate() }
    var moved = 0
    let status = body(room == 0 ? nil : buffer, &moved)
    precondition(status != kCCSuccess || moved <= room, "claimed \(moved) bytes written into \(room)")
}

func crypt(_ input: inout FuzzInput) {
    let operation = CCOperation(input.int(in: 0...2))
    let algorithm = CCAlgorithm(input.int(in: 0...7))
    let options = CCOptions(input.int(in: 0...3))
    let key = [UInt8](input.data(maxCount: 40))
    // An IV is a block (16 bytes) or none: CommonCrypto reads a block from it, so a shorter
    // one is the caller's error, as in C.
    let iv: [UInt8]? = input.bool() ? [UInt8](repeating: input.byte(), count: 16) : nil
    let room = input.int(in: 0...600)
    let data = [UInt8](input.rest())
    withAddress(of: key) { keyAddress in
        withAddress(of: iv) { ivAddress in
            withOutput(room: room) { output, moved in
                CCCrypt(operation, algorithm, options, keyAddress, key.count, ivAddress, data, data.count, output, room, &moved)
            }
        }
    }
}

func cryptor(_ input: inout FuzzInput) {
    let operation = CCOperation(input.int(in: 0...2))
    let mode = CCMode(input.int(in: 0...13))
    let algorithm = CCAlgorithm(input.int(in: 0...7))
    let padding = CCPadding(input.int(in: 0...2))
    let modeOptions = CCModeOptions(input.pick([0, 1, 2]))
    let key = [UInt8](input.data(maxCount: 40))
    let iv: [UInt8]? = input.bool() ? [UInt8](repeating: input.byte(), count: 16) : nil
    var reference: CCCryptorRef?
    let status = withAddress(of: key) { keyAddress in
        withAddress(of: iv) { ivAddress in
            CCCryptorCreateWithMode(operation, mode, algorithm, padding, ivAddress, keyAddress, key.count, nil, 0, 0, modeOptions, &reference)
        }
    }
    guard status == kCCSuccess, let reference else { return }
    defer { _ = CCCryptorRelease(reference) }
    for _ in 0..<input.int(in: 0...8) {
        switch input.int(in: 0...3) {
        case 0:
            let chunk = [UInt8](input.data(maxCount: 80))
            let room = input.int(in: 0...120)
            _ = CCCryptorGetOutputLength(reference, chunk.count, false)
            withOutput(room: room) { output, moved in
                CCCryptorUpdate(reference, chunk, chunk.count, output, room, &moved)
            }
        case 1:
            let room = input.int(in: 0...40)
            withOutput(room: room) { output, moved in
                CCCryptorFinal(reference, output, room, &moved)
            }
        case 2:
            let newIV = [UInt8](repeating: input.byte(), count: 16)
            _ = CCCryptorReset(reference, input.bool() ? newIV : nil)
        default:
            _ = CCCryptorGetOutputLength(reference, input.int(in: 0...Int(UInt16.max)) | (input.bool() ? Int.max - 64 : 0), input.bool())
        }
    }
}

func keyWrap(_ input: inout FuzzInput) {
    let algorithm = CCWrappingAlgorithm(input.int(in: 0...2))
    let kek = [UInt8](input.data(maxCount: 40))
    let useStandardIV = input.bool()
    let iv = useStandardIV ? [UInt8](UnsafeBufferPointer(start: CCrfc3394_iv, count: CCrfc3394_ivLen)) : [UInt8](input.data(maxCount: 16))
    let wrap = input.bool()
    let room = input.int(in: 0...80)
    let data = [UInt8](input.rest())
    _ = CCSymmetricWrappedSize(algorithm, data.count)
    _ = CCSymmetricUnwrappedSize(algorithm, data.count)
    withOutput(room: room) { output, moved in
        moved = room
        let bytes = output?.assumingMemoryBound(to: UInt8.self)
        let status = wrap
            ? CCSymmetricKeyWrap(algorithm, iv, iv.count, kek, kek.count, data, data.count, bytes, &moved)
            : CCSymmetricKeyUnwrap(algorithm, iv, iv.count, kek, kek.count, data, data.count, bytes, &moved)
        return CCCryptorStatus(status)
    }
}

func derive(_ input: inout FuzzInput) {
    let algorithm = CCPBKDFAlgorithm(input.pick([0, 2, 3]))
    let prf = CCPseudoRandomAlgorithm(input.int(in: 0...6))
    let rounds = UInt32(input.int(in: 0...64))
    let salt = [UInt8](input.data(maxCount: 64))
    let length = input.int(in: 0...130)
    let password = [CChar](input.rest().map { CChar(bitPattern: $0) })
    withOutput(room: length) { output, _ in
        CCCryptorStatus(CCKeyDerivationPBKDF(algorithm, password, password.count, salt, salt.count, prf, rounds,
                                             output?.assumingMemoryBound(to: UInt8.self), length))
    }
}

func mac(_ input: inout FuzzInput) {
    let algorithm = CCHmacAlgorithm(input.int(in: 0...7))
    let key = [UInt8](input.data(maxCount: 200))
    var context = CCHmacContext()
    var output = [UInt8](repeating: 0, count: 64)
    CCHmacInit(&context, algorithm, key, key.count)
    for _ in 0..<input.int(in: 0...4) {
        let chunk = [UInt8](input.data(maxCount: 100))
        CCHmacUpdate(&context, chunk, chunk.count)
    }
    CCHmacFinal(&context, &output)
    let data = [UInt8](input.rest())
    CCHmac(algorithm, key, key.count, data, data.count, &output)
}

func digest(_ input: inout FuzzInput) {
    var output = [UInt8](repeating: 0, count: 64)
    var context = CC_SHA256_CTX()
    _ = CC_SHA224_Init(&context)
    var context512 = CC_SHA512_CTX()
    _ = CC_SHA384_Init(&context512)
    for _ in 0..<input.int(in: 0...4) {
        let chunk = [UInt8](input.data(maxCount: 200))
        _ = CC_SHA224_Update(&context, chunk, CC_LONG(chunk.count))
        _ = CC_SHA384_Update(&context512, chunk, CC_LONG(chunk.count))
    }
    _ = CC_SHA224_Final(&output, &context)
    _ = CC_SHA384_Final(&output, &context512)
    let data = [UInt8](input.rest())
    _ = CC_SHA1(data, CC_LONG(data.count), &output)
    _ = CC_SHA512(data, CC_LONG(data.count), &output)
}

fuzz { input in
    switch input.int(in: 0...5) {
    case 0: crypt(&input)
    case 1: cryptor(&input)
    case 2: keyWrap(&input)
    case 3: derive(&input)
    case 4: mac(&input)
    default: digest(&input)
    }
}
