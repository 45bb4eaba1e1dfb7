import CommonCrypto
import Foundation
import Testing

/// Bytes from hexadecimal, for the published vectors below.
func hex(_ string: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = string.startIndex
    while index < string.endIndex {
        let next = string.index(index, offsetBy: 2)
        bytes.append(UInt8(string[index..<next], radix: 16) ?? 0)
        index = next
    }
    return bytes
}

func hexString(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

/// `body` given the bytes' address, or nil when there are none: how C callers pass an
/// optional IV or key.
func withAddress<Result>(of bytes: [UInt8]?, _ body: (UnsafeRawPointer?) -> Result) -> Result {
    guard let bytes else { return body(nil) }
    return bytes.withUnsafeBytes { body($0.baseAddress) }
}

/// `CCCrypt` as app code calls it: the output buffer sized by the caller, the status and the
/// bytes written returned.
func crypt(
    _ operation: Int, algorithm: Int = kCCAlgorithmAES, options: Int, key: [UInt8], iv: [UInt8]?, _ input: [UInt8], room: Int? = nil
) -> (status: CCCryptorStatus, output: [UInt8], moved: Int) {
    var output = [UInt8](repeating: 0, count: room ?? input.count + kCCBlockSizeAES128)
    var moved = 0
    let status = withAddress(of: iv) { iv in
        CCCrypt(
            CCOperation(operation), CCAlgorithm(algorithm), CCOptions(options),
            key, key.count, iv, input, input.count, &output, output.count, &moved
        )
    }
    return (status, Array(output.prefix(min(moved, output.count))), moved)
}

/// A cryptor in `mode`, the whole input given in `pieces` updates, then finished.
func cryptor(
    _ operation: Int, mode: Int, algorithm: Int = kCCAlgorithmAES, padding: Int = ccNoPadding, key: [UInt8], iv: [UInt8]?,
    _ input: [UInt8], pieces: [Int]? = nil
) -> (status: CCCryptorStatus, output: [UInt8]) {
    var ref: CCCryptorRef?
    let created = withAddress(of: iv) { iv in
        CCCryptorCreateWithMode(
            CCOperation(operation), CCMode(mode), CCAlgorithm(algorithm), CCPadding(padding),
            iv, key, key.count, nil, 0, 0, 0, &ref
        )
    }
    guard created == kCCSuccess else { return (created, []) }
    defer { CCCryptorRelease(ref) }
    var output: [UInt8] = []
    var offset = 0
    for length in pieces ?? [input.count] {
        let piece = Array(input[offset..<offset + length])
        offset += length
        var buffer = [UInt8](repeating: 0, count: CCCryptorGetOutputLength(ref, length, false))
        var moved = 0
        let status = CCCryptorUpdate(ref, piece, piece.count, &buffer, buffer.count, &moved)
        guard status == kCCSuccess else { return (status, output) }
        output += buffer.prefix(moved)
    }
    var last = [UInt8](repeating: 0, count: 32)
    var moved = 0
    let status = CCCryptorFinal(ref, &last, last.count, &moved)
    return (status, output + last.prefix(moved))
}

@Suite("CommonCrypto: digests and HMAC")
struct CommonDigestTests {
    let abc = Array("abc".utf8)

    @Test("each CC_… digest of \"abc\" is FIPS 180-4's (MD5: RFC 1321's)")
    func digestsMatchPublishedExamples() {
        func digest(_ length: Int32, _ function: (UnsafeRawPointer?, CC_LONG, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?) -> String {
            var md = [UInt8](repeating: 0, count: Int(length))
            _ = function(abc, CC_LONG(abc.count), &md)
            return hexString(md)
        }
        #expect(digest(CC_MD5_DIGEST_LENGTH, CC_MD5) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(digest(CC_SHA1_DIGEST_LENGTH, CC_SHA1) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(digest(CC_SHA224_DIGEST_LENGTH, CC_SHA224) == "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")
        #expect(digest(CC_SHA256_DIGEST_LENGTH, CC_SHA256) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(digest(CC_SHA384_DIGEST_LENGTH, CC_SHA384)
            == "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7")
        #expect(digest(CC_SHA512_DIGEST_LENGTH, CC_SHA512)
            == "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
    }

    @Test("a digest fed in pieces through its context equals the one-shot digest, the returned pointer is the output's")
    func contextsEqualOneShot() {
        let message = [UInt8](repeating: 0x61, count: 1000)
        var oneShot = [UInt8](repeating: 0, count: 32)
        let returned = oneShot.withUnsafeMutableBufferPointer { out in CC_SHA256(message, CC_LONG(message.count), out.baseAddress) }
        #expect(returned != nil)
        #expect(hexString(oneShot) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")

        var context = CC_SHA256_CTX()
        CC_SHA256_Init(&context)
        for range in [0..<1, 1..<63, 63..<64, 64..<500, 500..<1000] {
            let piece = Array(message[range])
            CC_SHA256_Update(&context, piece, CC_LONG(piece.count))
        }
        var streamed = [UInt8](repeating: 0, count: 32)
        CC_SHA256_Final(&streamed, &context)
        #expect(streamed == oneShot)

        var small = CC_SHA256_CTX()
        CC_SHA224_Init(&small)
        CC_SHA224_Update(&small, abc, 1)
        CC_SHA224_Update(&small, Array(abc.dropFirst()), 2)
        var md224 = [UInt8](repeating: 0, count: 28)
        CC_SHA224_Final(&md224, &small)
        #expect(hexString(md224) == "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7")

        var big = CC_SHA512_CTX()
        CC_SHA384_Init(&big)
        CC_SHA384_Update(&big, abc, 3)
        var md384 = [UInt8](repeating: 0, count: 48)
        CC_SHA384_Final(&md384, &big)
        #expect(hexString(md384).hasPrefix("cb00753f45a35e8b"))

        var sha1 = CC_SHA1_CTX()
        CC_SHA1_Init(&sha1)
        CC_SHA1_Update(&sha1, abc, 3)
        var md1 = [UInt8](repeating: 0, count: 20)
        CC_SHA1_Final(&md1, &sha1)
        #expect(hexString(md1) == "a9993e364706816aba3e25717850c26c9cd0d89d")
    }

    @Test("CCHmac with each kCCHmacAlg… gives RFC 4231's and RFC 2202's test case 2; the context in pieces gives the same")
    func hmacMatchesPublishedVectors() {
        let key = Array("Jefe".utf8)
        let data = Array("what do ya want for nothing?".utf8)
        func mac(_ algorithm: Int, _ length: Int) -> String {
            var out = [UInt8](repeating: 0, count: length)
            CCHmac(CCHmacAlgorithm(algorithm), key, key.count, data, data.count, &out)
            return hexString(out)
        }
        #expect(mac(kCCHmacAlgMD5, 16) == "750c783e6ab0b503eaa86e310a5db738")
        #expect(mac(kCCHmacAlgSHA1, 20) == "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79")
        #expect(mac(kCCHmacAlgSHA224, 28) == "a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44")
        #expect(mac(kCCHmacAlgSHA256, 32) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(mac(kCCHmacAlgSHA384, 48)
            == "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649")
        #expect(mac(kCCHmacAlgSHA512, 64)
            == "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737")
        #expect(mac(99, 4) == "00000000", "an algorithm CommonCrypto does not name writes nothing")

        // HMAC-SHA-224 with a key longer than the block: RFC 4231 test case 6.
        let longKey = [UInt8](repeating: 0xAA, count: 131)
        let message = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)
        var context = CCHmacContext()
        CCHmacInit(&context, CCHmacAlgorithm(kCCHmacAlgSHA224), longKey, longKey.count)
        CCHmacUpdate(&context, Array(message.prefix(10)), 10)
        CCHmacUpdate(&context, Array(message.dropFirst(10)), message.count - 10)
        var out = [UInt8](repeating: 0, count: 28)
        CCHmacFinal(&context, &out)
        #expect(hexString(out) == "95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e")
    }
}

@Suite("CommonCrypto: AES with CCCrypt and cryptors")
struct CommonCryptorTests {
    // NIST SP 800-38A, appendix F: AES-128, its key, IV and first two plaintext blocks.
    let key = hex("2b7e151628aed2a6abf7158809cf4f3c")
    let iv = hex("000102030405060708090a0b0c0d0e0f")
    let plain = hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51")

    @Test("ECB, CBC, CTR, CFB, CFB8 and OFB give SP 800-38A's ciphertexts and decrypt back")
    func modesMatchSP800_38A() {
        let expected: [(mode: Int, iv: [UInt8], cipher: String)] = [
            (kCCModeECB, iv, "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"),
            (kCCModeCBC, iv, "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"),
            (kCCModeCTR, hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"), "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"),
            (kCCModeCFB, iv, "3b3fd92eb72dad20333449f8e83cfb4ac8a64537a0b3a93fcde3cdad9f1ce58b"),
            (kCCModeCFB8, iv, "3b79424c9c0dd436bace9e0ed4586a4f32b9ded50ae3ba69d472e88267fb5052"),
            (kCCModeOFB, iv, "3b3fd92eb72dad20333449f8e83cfb4a7789508d16918f03f53c52dac54ed825"),
        ]
        for (mode, iv, cipher) in expected {
            let encrypted = cryptor(kCCEncrypt, mode: mode, key: key, iv: iv, plain)
            #expect(encrypted.status == kCCSuccess)
            #expect(hexString(encrypted.output) == cipher, "mode \(mode)")
            let decrypted = cryptor(kCCDecrypt, mode: mode, key: key, iv: iv, hex(cipher), pieces: [5, 11, 16])
            #expect(decrypted.output == plain, "mode \(mode), in pieces")
        }
    }

    @Test("CTR's counter is the block's last 8 bytes (corecrypto): all ones rolls over to ff…ff 00…00, CommonCryptoSymCTR.c's vector")
    func counterRollsOverIn64Bits() {
        let encrypted = cryptor(kCCEncrypt, mode: kCCModeCTR, key: hex("000102030405060708090a0b0c0d0e0f"),
                                iv: [UInt8](repeating: 0xFF, count: 16), [UInt8](repeating: 0, count: 32))
        #expect(hexString(encrypted.output) == "3c441f32ce07822364d7a2990e50bb1325d4e948bd5e1296afc0bf87095a7248")
    }

    @Test("CCCryptorFinal with too little room loses nothing: the call can be repeated (CommonCryptor.h)")
    func finalCanBeRepeated() {
        var ref: CCCryptorRef?
        _ = CCCryptorCreate(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding | kCCOptionECBMode),
                            key, 16, nil, &ref)
        defer { CCCryptorRelease(ref) }
        var out = [UInt8](repeating: 0, count: 16)
        var moved = 0
        let abc = Array("abc".utf8)
        #expect(CCCryptorUpdate(ref, abc, 3, &out, out.count, &moved) == kCCSuccess && moved == 0)
        #expect(CCCryptorFinal(ref, &out, 8, &moved) == kCCBufferTooSmall)
        #expect(CCCryptorFinal(ref, &out, 16, &moved) == kCCSuccess && moved == 16)
        #expect(out == crypt(kCCEncrypt, options: kCCOptionPKCS7Padding | kCCOptionECBMode, key: key, iv: nil, abc).output)
    }

    @Test("ECB reads no IV (CommonCryptor.h: ignored in ECB mode); the SPI modes XTS, GCM and CCM are kCCUnimplemented here, AES in RC4's mode kCCParamError")
    func modesAndIVs() {
        #expect(cryptor(kCCEncrypt, mode: kCCModeECB, key: key, iv: [0xFF], plain).output
            == cryptor(kCCEncrypt, mode: kCCModeECB, key: key, iv: nil, plain).output)
        for mode in [8, 11, 12] {
            #expect(cryptor(kCCEncrypt, mode: mode, key: key, iv: iv, plain).status == kCCUnimplemented)
        }
        #expect(cryptor(kCCEncrypt, mode: kCCModeRC4, key: key, iv: nil, plain).status == kCCParamError)
    }

    @Test("an empty plaintext padded with PKCS #7 is one block: CommonCrypto's zero-length regression vectors, with and without an IV")
    func emptyPlaintextIsOnePaddedBlock() {
        let key = hex("000102030405060708090a0b0c0d0e0f")
        let withIV = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: hex("0f0e0d0c0b0a09080706050403020100"), [])
        #expect(withIV.status == kCCSuccess)
        #expect(hexString(withIV.output) == "efddc425a6fa0c5f25e444092eb0f503")
        let noIV = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: nil, [])
        #expect(hexString(noIV.output) == "954f64f2e4e86e9eee82d20216684899")
        let back = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: nil, noIV.output)
        #expect(back.status == kCCSuccess && back.output.isEmpty)
    }

    @Test("CCCrypt's output room must be the input rounded up a block (encrypting with padding) or the input's length (decrypting): kCCBufferTooSmall with that length in dataOutMoved")
    func bufferTooSmallSaysTheLengthNeeded() {
        let short = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, Array("abc".utf8), room: 15)
        #expect(short.status == kCCBufferTooSmall)
        #expect(short.moved == 16)
        let encrypted = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, Array("abc".utf8), room: 16)
        #expect(encrypted.status == kCCSuccess)
        #expect(hexString(encrypted.output) == "f327e7290b9b923d29d949db2c9f75cc")
        // Decrypting asks for the whole input's length, though 3 bytes come out.
        let tight = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, encrypted.output, room: 15)
        #expect(tight.status == kCCBufferTooSmall && tight.moved == 16)
        let decrypted = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, encrypted.output, room: 16)
        #expect(decrypted.output == Array("abc".utf8))
    }

    @Test("without padding, input that is not whole blocks is kCCAlignmentError (ECB and CBC)")
    func noPaddingNeedsWholeBlocks() {
        #expect(crypt(kCCEncrypt, options: 0, key: key, iv: iv, Array(plain.prefix(17))).status == kCCAlignmentError)
        #expect(crypt(kCCDecrypt, options: kCCOptionECBMode, key: key, iv: nil, Array(plain.prefix(20))).status == kCCAlignmentError)
        #expect(crypt(kCCEncrypt, options: 0, key: key, iv: iv, plain).status == kCCSuccess)
    }

    @Test("CommonCrypto's argument statuses: kCCKeySizeError, kCCParamError; RC2 is kCCUnimplemented (our limit)")
    func argumentStatuses() {
        var output = [UInt8](repeating: 0, count: 32)
        var moved = 0
        func status(_ alg: Int, _ key: [UInt8]?, op: Int = kCCEncrypt) -> CCCryptorStatus {
            withAddress(of: key) { address in
                CCCrypt(CCOperation(op), CCAlgorithm(alg), 0, address, key?.count ?? 0, nil, plain, 16, &output, output.count, &moved)
            }
        }
        #expect(status(kCCAlgorithmAES, Array(key.prefix(15))) == kCCKeySizeError)
        #expect(status(kCCAlgorithmAES, key + key.prefix(8)) == kCCSuccess, "24 bytes: AES-192")
        #expect(status(kCCAlgorithmAES, nil) == kCCParamError)
        #expect(status(7, key) == kCCParamError)
        #expect(status(kCCAlgorithmAES, key, op: 2) == kCCParamError)
        #expect(status(kCCAlgorithmRC2, key) == kCCUnimplemented)
        var ref: CCCryptorRef?
        let unknownMode = CCCryptorCreateWithMode(
            CCOperation(kCCEncrypt), 99, CCAlgorithm(kCCAlgorithmAES), CCPadding(ccNoPadding), nil, key, key.count, nil, 0, 0, 0, &ref)
        #expect(unknownMode == kCCParamError && ref == nil)
    }

    @Test("a bad PKCS #7 padding is not reported: corecrypto reads the last byte only, removing that many bytes when it is 1 to 16 and none otherwise")
    func badPaddingIsRemovedByTheLastByteOnly() {
        for (last, kept) in [(0x05, 11), (0x10, 0), (0x00, 16), (0x20, 16)] {
            var block = [UInt8](repeating: 0x42, count: 15) + [UInt8(last)]
            block[10] = 0x99  // not a valid padding even when the last byte is 5
            let encrypted = crypt(kCCEncrypt, options: 0, key: key, iv: iv, block)
            let decrypted = crypt(kCCDecrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, encrypted.output)
            #expect(decrypted.status == kCCSuccess)
            #expect(decrypted.output == Array(block.prefix(kept)), "last byte \(last)")
        }
    }

    @Test("a cryptor holds back what is not yet a whole block and, decrypting with padding, the last whole block; its output lengths say so")
    func updatesHoldBackAsCommonCryptoDoes() {
        var ref: CCCryptorRef?
        #expect(CCCryptorCreate(CCOperation(kCCDecrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding), key, 16, iv, &ref) == kCCSuccess)
        defer { CCCryptorRelease(ref) }
        #expect(CCCryptorGetOutputLength(ref, 32, false) == 16)
        #expect(CCCryptorGetOutputLength(ref, 33, false) == 32)
        #expect(CCCryptorGetOutputLength(ref, 32, true) == 32)
        var out = [UInt8](repeating: 0, count: 64)
        var moved = -1
        let cipher = crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, plain).output  // 48 bytes
        #expect(CCCryptorUpdate(ref, cipher, 32, &out, 15, &moved) == kCCBufferTooSmall)
        #expect(moved == 16)
        #expect(CCCryptorUpdate(ref, cipher, 32, &out, out.count, &moved) == kCCSuccess)
        #expect(moved == 16)
        #expect(Array(out.prefix(16)) == Array(plain.prefix(16)))
        #expect(CCCryptorUpdate(ref, Array(cipher.dropFirst(32)), 16, &out, out.count, &moved) == kCCSuccess)
        #expect(moved == 16)
        #expect(CCCryptorFinal(ref, &out, out.count, &moved) == kCCSuccess)
        #expect(moved == 0, "the last block was all padding")

        let byteByByte = cryptor(kCCEncrypt, mode: kCCModeCBC, padding: ccPKCS7Padding, key: key, iv: iv, plain, pieces: Array(repeating: 1, count: 32))
        #expect(byteByByte.output == crypt(kCCEncrypt, options: kCCOptionPKCS7Padding, key: key, iv: iv, plain).output)
    }

    @Test("CCCryptorReset starts a CBC cryptor again from a new IV; ECB has none to reset")
    func resetIsForCBCAndCTR() {
        var ref: CCCryptorRef?
        _ = CCCryptorCreate(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), 0, key, 16, nil, &ref)
        var out = [UInt8](repeating: 0, count: 16)
        var moved = 0
        _ = CCCryptorUpdate(ref, plain, 16, &out, 16, &moved)
        #expect(CCCryptorReset(ref, iv) == kCCSuccess)
        _ = CCCryptorUpdate(ref, plain, 16, &out, 16, &moved)
        #expect(hexString(out) == "7649abac8119b246cee98e9b12e9197d")
        CCCryptorRelease(ref)
        _ = CCCryptorCreate(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionECBMode), key, 16, nil, &ref)
        #expect(CCCryptorReset(ref, iv) == kCCUnimplemented)
        CCCryptorRelease(ref)
        // CTR: the counter starts again from the new IV.
        let counter = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
        _ = CCCryptorCreateWithMode(CCOperation(kCCEncrypt), CCMode(kCCModeCTR), CCAlgorithm(kCCAlgorithmAES), CCPadding(ccNoPadding),
                                    nil, key, 16, nil, 0, 0, 0, &ref)
        _ = CCCryptorUpdate(ref, plain, 16, &out, 16, &moved)
        #expect(CCCryptorReset(ref, counter) == kCCSuccess)
        _ = CCCryptorUpdate(ref, plain, 16, &out, 16, &moved)
        #expect(hexString(out) == "874d6191b620e3261bef6864990db6ce")
        CCCryptorRelease(ref)
    }
}

@Suite("CommonCrypto: PBKDF2, AES key wrap, random bytes")
struct CommonKeyTests {
    private func pbkdf2(_ prf: Int, _ rounds: UInt32, _ length: Int, password: String = "password", salt: String = "salt") -> (Int32, String) {
        var key = [UInt8](repeating: 0, count: length)
        let salt = Array(salt.utf8)
        let status = CCKeyDerivationPBKDF(
            CCPBKDFAlgorithm(kCCPBKDF2), password, password.utf8.count, salt, salt.count,
            CCPseudoRandomAlgorithm(prf), rounds, &key, key.count
        )
        return (status, hexString(key))
    }

    @Test("CCKeyDerivationPBKDF gives RFC 6070's HMAC-SHA-1 vectors and the SHA-224 and SHA-256 ones Python's hashlib gives")
    func pbkdf2MatchesPublishedVectors() {
        #expect(pbkdf2(kCCPRFHmacAlgSHA1, 1, 20) == (0, "0c60c80f961f0e71f3a9b524af6012062fe037a6"))
        #expect(pbkdf2(kCCPRFHmacAlgSHA1, 2, 20) == (0, "ea6c014dc72d6f8ccd1ed92ace1d41f0d8de8957"))
        #expect(pbkdf2(kCCPRFHmacAlgSHA1, 4096, 20) == (0, "4b007901b765489abead49d926f721d065a429c1"))
        #expect(pbkdf2(kCCPRFHmacAlgSHA256, 1, 32) == (0, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"))
        #expect(pbkdf2(kCCPRFHmacAlgSHA224, 2, 28) == (0, "93200ffa96c5776d38fa10abdf8f5bfc0054b9718513df472d2331d2"))
    }

    @Test("CCKeyDerivationPBKDF's kCCParamError: zero rounds, an empty output, an unknown PRF or algorithm")
    func pbkdf2ArgumentStatuses() {
        #expect(pbkdf2(kCCPRFHmacAlgSHA256, 0, 32).0 == kCCParamError)
        #expect(pbkdf2(kCCPRFHmacAlgSHA256, 1, 0).0 == kCCParamError)
        #expect(pbkdf2(9, 1, 32).0 == kCCParamError)
        var key = [UInt8](repeating: 0, count: 16)
        #expect(CCKeyDerivationPBKDF(1, "pw", 2, nil, 0, CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA1), 1, &key, 16) == kCCParamError)
        #expect(CCKeyDerivationPBKDF(CCPBKDFAlgorithm(kCCPBKDF2), "pw", 2, nil, 0, CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA1), 1, &key, 16) == kCCSuccess,
                "no salt at all is allowed")
    }

    @Test("CCCalibratePBKDF times 100,000 rounds and answers at least 10,000 (CommonKeyDerivation.c's CC_MIN_PBKDF2_ITERATIONS): exactly that for 0 ms, an empty password and salt measured as one byte each; C's -1 (UInt32.max) for an empty output, a salt over 132 bytes, another algorithm or an unknown PRF; the longest time asked neither wraps nor traps")
    func calibratePBKDF() {
        let pbkdf2 = CCPBKDFAlgorithm(kCCPBKDF2), sha256 = CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA256)
        #expect(CCCalibratePBKDF(pbkdf2, 0, 0, sha256, 32, 0) == 10_000)
        let longest = CCCalibratePBKDF(pbkdf2, 8, 16, CCPseudoRandomAlgorithm(kCCPRFHmacAlgSHA1), 20, UInt32.max)
        #expect(longest > 10_000 && longest < UInt32.max)
        #expect(CCCalibratePBKDF(pbkdf2, 8, 16, sha256, 0, 100) == UInt32.max)
        #expect(CCCalibratePBKDF(pbkdf2, 8, 133, sha256, 32, 100) == UInt32.max)
        #expect(CCCalibratePBKDF(1, 8, 16, sha256, 32, 100) == UInt32.max)
        #expect(CCCalibratePBKDF(pbkdf2, 8, 16, 9, 32, 100) == UInt32.max)
    }

    @Test("CCSymmetricKeyWrap gives RFC 3394's 4.1 vector and unwraps it; a wrong key-encryption key is kCCDecodeError with nothing written")
    func keyWrapMatchesRFC3394() {
        let kek = hex("000102030405060708090a0b0c0d0e0f")
        let raw = hex("00112233445566778899aabbccddeeff")
        let algorithm = CCWrappingAlgorithm(kCCWRAPAES)
        #expect(CCSymmetricWrappedSize(algorithm, 16) == 24)
        #expect(CCSymmetricUnwrappedSize(algorithm, 24) == 16)
        var wrapped = [UInt8](repeating: 0, count: 24)
        var wrappedLength = wrapped.count
        #expect(CCSymmetricKeyWrap(algorithm, CCrfc3394_iv, CCrfc3394_ivLen, kek, kek.count, raw, raw.count, &wrapped, &wrappedLength) == kCCSuccess)
        #expect(hexString(wrapped) == "1fa68b0a8112b447aef34bd8fb5a7b829d3e862371d2cfe5")

        var unwrapped = [UInt8](repeating: 0, count: 16)
        var unwrappedLength = unwrapped.count
        // An IV other than the one used: CommonCrypto tries RFC 3394's next.
        let otherIV = [UInt8](repeating: 0x11, count: 8)
        #expect(CCSymmetricKeyUnwrap(algorithm, otherIV, 8, kek, kek.count, wrapped, 24, &unwrapped, &unwrappedLength) == kCCSuccess)
        #expect(unwrapped == raw && unwrappedLength == 16)

        // In place: the output may be the input itself (CommonCrypto unwraps into scratch space).
        var inPlace = wrapped
        var inPlaceLength = 24
        let inPlaceStatus = inPlace.withUnsafeMutableBufferPointer { buffer in
            CCSymmetricKeyUnwrap(algorithm, CCrfc3394_iv, 8, kek, kek.count, buffer.baseAddress, 24, buffer.baseAddress, &inPlaceLength)
        }
        #expect(inPlaceStatus == kCCSuccess && Array(inPlace.prefix(inPlaceLength)) == raw)

        let wrongKEK = [UInt8](repeating: 7, count: 16)
        unwrappedLength = 16
        #expect(CCSymmetricKeyUnwrap(algorithm, CCrfc3394_iv, 8, wrongKEK, 16, wrapped, 24, &unwrapped, &unwrappedLength) == kCCDecodeError)
        #expect(unwrappedLength == 0 && unwrapped == [UInt8](repeating: 0, count: 16))
    }

    @Test("CCSymmetricKeyWrap's kCCParamError: a key-encryption key not 16, 24 or 32 bytes, a key shorter than 16 bytes or not 8-byte aligned, too little room")
    func keyWrapArgumentStatuses() {
        let algorithm = CCWrappingAlgorithm(kCCWRAPAES)
        var out = [UInt8](repeating: 0xEE, count: 40)
        func wrap(kek: Int, raw: Int, room: Int) -> (Int32, Int) {
            var length = room
            let status = CCSymmetricKeyWrap(algorithm, nil, 0, [UInt8](repeating: 1, count: kek), kek,
                                            [UInt8](repeating: 2, count: raw), raw, &out, &length)
            return (status, length)
        }
        #expect(wrap(kek: 15, raw: 16, room: 40) == (Int32(kCCParamError), 0))
        #expect(wrap(kek: 16, raw: 8, room: 40) == (Int32(kCCParamError), 0))
        #expect(wrap(kek: 16, raw: 20, room: 40) == (Int32(kCCParamError), 0))
        #expect(wrap(kek: 16, raw: 16, room: 23) == (Int32(kCCParamError), 0))
        #expect(wrap(kek: 32, raw: 32, room: 40) == (Int32(kCCSuccess), 40), "a missing IV is RFC 3394's")
    }

    @Test("CCRandomGenerateBytes fills the buffer; nothing to fill is success, a missing buffer with a count kCCParamError")
    func randomBytesFillTheBuffer() {
        var first = [UInt8](repeating: 0, count: 37)
        var second = [UInt8](repeating: 0, count: 37)
        #expect(CCRandomGenerateBytes(&first, first.count) == kCCSuccess)
        #expect(CCRandomGenerateBytes(&second, second.count) == kCCSuccess)
        #expect(first != second)
        #expect(first.suffix(5) != [0, 0, 0, 0, 0], "the tail after the last whole word is filled too")
        #expect(CCRandomGenerateBytes(nil, 0) == kCCSuccess)
        #expect(CCRandomGenerateBytes(nil, 4) == kCCParamError)
    }
}
