import CommonCrypto
import Foundation

// CommonCryptor.h's functions: symmetric encryption in one call (`CCCrypt`) or through a cryptor,
// with the status codes, output lengths and buffering of Apple's CommonCrypto-600035
// (`CommonCryptor.c`). The cryptor itself is `Cryptor`.

/// The cryptor a `CCCryptorRef` names.
private func lookUpCryptor(_ ref: CCCryptorRef?) -> Cryptor? {
    guard let ref else { return nil }
    return Unmanaged<Cryptor>.fromOpaque(UnsafeRawPointer(ref)).takeUnretainedValue()
}

@_cdecl("CCCryptorCreate")
public func ccCryptorCreate(
    _ op: CCOperation, _ alg: CCAlgorithm, _ options: CCOptions,
    _ key: UnsafeRawPointer?, _ keyLength: Int, _ iv: UnsafeRawPointer?,
    _ cryptorRef: UnsafeMutablePointer<CCCryptorRef?>?
) -> CCCryptorStatus {
    // The old call's options name ECB (or CBC) and PKCS #7 padding; RC4 is its own mode.
    let mode = Int(alg) == kCCAlgorithmRC4 ? kCCModeRC4 : (Int(options) & kCCOptionECBMode != 0 ? kCCModeECB : kCCModeCBC)
    let padding = Int(options) & kCCOptionPKCS7Padding != 0 ? ccPKCS7Padding : ccNoPadding
    return ccCryptorCreateWithMode(op, CCMode(mode), alg, CCPadding(padding), iv, key, keyLength, nil, 0, 0, 0, cryptorRef)
}

@_cdecl("CCCryptorCreateWithMode")
public func ccCryptorCreateWithMode(
    _ op: CCOperation, _ mode: CCMode, _ alg: CCAlgorithm, _ padding: CCPadding,
    _ iv: UnsafeRawPointer?, _ key: UnsafeRawPointer?, _ keyLength: Int,
    _ tweak: UnsafeRawPointer?, _ tweakLength: Int, _ numRounds: Int32, _ options: CCModeOptions,
    _ cryptorRef: UnsafeMutablePointer<CCCryptorRef?>?
) -> CCCryptorStatus {
    guard let cryptorRef, let key else { return CCCryptorStatus(kCCParamError) }
    cryptorRef.pointee = nil
    switch Cryptor.make(operation: op, mode: mode, algorithm: alg, padding: padding, key: rawBytes(key, keyLength), iv: iv) {
    case .success(let cryptor):
        cryptorRef.pointee = OpaquePointer(Unmanaged.passRetained(cryptor).toOpaque())
        return CCCryptorStatus(kCCSuccess)
    case .failure(let failure):
        return failure.code
    }
}

@_cdecl("CCCryptorRelease")
public func ccCryptorRelease(_ cryptorRef: CCCryptorRef?) -> CCCryptorStatus {
    if let cryptorRef {
        Unmanaged<Cryptor>.fromOpaque(UnsafeRawPointer(cryptorRef)).release()
    }
    return CCCryptorStatus(kCCSuccess)
}

@_cdecl("CCCryptorUpdate")
public func ccCryptorUpdate(
    _ cryptorRef: CCCryptorRef?, _ dataIn: UnsafeRawPointer?, _ dataInLength: Int,
    _ dataOut: UnsafeMutableRawPointer?, _ dataOutAvailable: Int, _ dataOutMoved: UnsafeMutablePointer<Int>?
) -> CCCryptorStatus {
    guard let cryptor = lookUpCryptor(cryptorRef) else { return CCCryptorStatus(kCCParamError) }
    dataOutMoved?.pointee = 0
    guard dataInLength > 0 else { return CCCryptorStatus(kCCSuccess) }
    // Too little room changes nothing and says how much is needed.
    let needed = cryptor.outputLength(forInput: dataInLength, final: false)
    guard needed <= availableRoom(dataOutAvailable) else {
        dataOutMoved?.pointee = needed
        return CCCryptorStatus(kCCBufferTooSmall)
    }
    let output = cryptor.update(rawBytes(dataIn, dataInLength))
    copyBytes(output, to: dataOut)
    dataOutMoved?.pointee = output.count
    return CCCryptorStatus(kCCSuccess)
}

@_cdecl("CCCryptorFinal")
public func ccCryptorFinal(
    _ cryptorRef: CCCryptorRef?, _ dataOut: UnsafeMutableRawPointer?, _ dataOutAvailable: Int,
    _ dataOutMoved: UnsafeMutablePointer<Int>?
) -> CCCryptorStatus {
    // CommonCrypto answers a missing cryptor here with success.
    guard let cryptor = lookUpCryptor(cryptorRef) else { return CCCryptorStatus(kCCSuccess) }
    dataOutMoved?.pointee = 0
    switch cryptor.finish(available: availableRoom(dataOutAvailable)) {
    case .success(let output):
        copyBytes(output, to: dataOut)
        dataOutMoved?.pointee = dataOut == nil ? 0 : output.count
        return CCCryptorStatus(kCCSuccess)
    case .failure(let failure):
        return failure.code
    }
}

@_cdecl("CCCryptorGetOutputLength")
public func ccCryptorGetOutputLength(_ cryptorRef: CCCryptorRef?, _ inputLength: Int, _ final: Bool) -> Int {
    // CommonCrypto returns kCCParamError, as a size_t, for a missing cryptor.
    guard let cryptor = lookUpCryptor(cryptorRef) else { return kCCParamError }
    return cryptor.outputLength(forInput: inputLength, final: final)
}

@_cdecl("CCCryptorReset")
public func ccCryptorReset(_ cryptorRef: CCCryptorRef?, _ iv: UnsafeRawPointer?) -> CCCryptorStatus {
    guard let cryptor = lookUpCryptor(cryptorRef) else { return CCCryptorStatus(kCCParamError) }
    return cryptor.reset(iv: iv).code
}

@_cdecl("CCCrypt")
public func ccCrypt(
    _ op: CCOperation, _ alg: CCAlgorithm, _ options: CCOptions,
    _ key: UnsafeRawPointer?, _ keyLength: Int, _ iv: UnsafeRawPointer?,
    _ dataIn: UnsafeRawPointer?, _ dataInLength: Int,
    _ dataOut: UnsafeMutableRawPointer?, _ dataOutAvailable: Int, _ dataOutMoved: UnsafeMutablePointer<Int>?
) -> CCCryptorStatus {
    var ref: CCCryptorRef?
    let created = ccCryptorCreate(op, alg, options, key, keyLength, iv, &ref)
    guard created == kCCSuccess else { return created }
    defer { _ = ccCryptorRelease(ref) }
    // The room for everything, the input rounded up a block when encrypting with padding, is
    // checked first, and its length reported when short.
    let needed = ccCryptorGetOutputLength(ref, dataInLength, true)
    dataOutMoved?.pointee = needed
    guard needed <= availableRoom(dataOutAvailable) else { return CCCryptorStatus(kCCBufferTooSmall) }
    var updated = 0
    let status = ccCryptorUpdate(ref, dataIn, dataInLength, dataOut, dataOutAvailable, &updated)
    guard status == kCCSuccess else { return status }
    var finished = 0
    let ended = ccCryptorFinal(ref, dataOut.map { $0 + updated }, availableRoom(dataOutAvailable) - updated, &finished)
    dataOutMoved?.pointee = updated + finished
    return ended
}
