import CommonCrypto
import Foundation
import Testing

/// CommonCrypto at the edges of its C arguments (sizes near the top of `size_t`) and of its
/// streaming contexts.
@Suite struct CommonCryptoLimitTests {
    @Test("a room of SIZE_MAX (C's \"room enough\") is room enough for CCCrypt, CCCryptorUpdate/Final and the key wrap (it read as a negative Int: CCCrypt said kCCBufferTooSmall and CCSymmetricKeyUnwrap trapped); CCRandomGenerateBytes with a count of 2^63 or more is kCCParamError, not a success that wrote nothing (found by a review and scripts/fuzz.sh)")
    func sizeMaxRoomIsRoomEnough() {
        let sizeMax = Int(bitPattern: UInt.max)
        let key = [UInt8](repeating: 3, count: 16)
        let iv = [UInt8](repeating: 0, count: 16)
        let input = [UInt8](repeating: 9, count: 20)
        var output = [UInt8](repeating: 0, count: 32)
        var moved = 0
        let status = CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding),
                             key, key.count, iv, input, input.count, &output, sizeMax, &moved)
        var expected = [UInt8](repeating: 0, count: 32)
        var expectedMoved = 0
        let expectedStatus = CCCrypt(CCOperation(kCCEncrypt), CCAlgorithm(kCCAlgorithmAES), CCOptions(kCCOptionPKCS7Padding),
                                     key, key.count, iv, input, input.count, &expected, expected.count, &expectedMoved)
        #expect(status == kCCSuccess && moved == 32)
        #expect(expectedStatus == kCCSuccess && output == expected, "the same bytes as with the room given exactly")

        let kek = [UInt8](repeating: 1, count: 16)
        let raw = [UInt8](repeating: 2, count: 16)
        let algorithm = CCWrappingAlgorithm(kCCWRAPAES)
        var wrapped = [UInt8](repeating: 0, count: 24)
        var wrappedLength = sizeMax
        #expect(CCSymmetricKeyWrap(algorithm, CCrfc3394_iv, 8, kek, 16, raw, 16, &wrapped, &wrappedLength) == kCCSuccess)
        #expect(wrappedLength == 24)
        var unwrapped = [UInt8](repeating: 0, count: 16)
        var unwrappedLength = sizeMax
        #expect(CCSymmetricKeyUnwrap(algorithm, CCrfc3394_iv, 8, kek, 16, wrapped, 24, &unwrapped, &unwrappedLength) == kCCSuccess)
        #expect(unwrapped == raw && unwrappedLength == 16)
        wrapped[0] ^= 1
        unwrappedLength = sizeMax
        #expect(CCSymmetricKeyUnwrap(algorithm, CCrfc3394_iv, 8, kek, 16, wrapped, 24, &unwrapped, &unwrappedLength) == kCCDecodeError)
        #expect(unwrappedLength == 0 && unwrapped == [UInt8](repeating: 0, count: 16), "only what the unwrap would write is cleared")

        var byte: UInt8 = 0
        #expect(CCRandomGenerateBytes(&byte, sizeMax) == kCCParamError)
        #expect(CCRandomGenerateBytes(&byte, Int.min) == kCCParamError)
    }

    @Test("CCSymmetricUnwrappedSize of fewer than 8 bytes is 0, as corecrypto's ccwrap_unwrapped_size (it wrapped to SIZE_MAX - 7 and more: JOSESwift's Data(count:) of it trapped); unwrapping so short an input is kCCDecodeError with nothing written (found by JOSESwift's test suite)")
    func unwrappedSizeOfLessThanASemiblockIsZero() {
        let algorithm = CCWrappingAlgorithm(kCCWRAPAES)
        for length in 0..<8 {
            #expect(CCSymmetricUnwrappedSize(algorithm, length) == 0, "\(length) bytes")
        }
        #expect(CCSymmetricUnwrappedSize(algorithm, 8) == 0)
        #expect(CCSymmetricUnwrappedSize(algorithm, 16) == 8)
        #expect(CCSymmetricUnwrappedSize(algorithm, Int.min) == Int.max - 7, "2^63 bytes, as size_t")

        let kek = [UInt8](repeating: 1, count: 16)
        let short = [UInt8](repeating: 7, count: 7)
        var raw = [UInt8](repeating: 0xAA, count: 4)
        var rawLength = CCSymmetricUnwrappedSize(algorithm, short.count)
        #expect(CCSymmetricKeyUnwrap(algorithm, CCrfc3394_iv, 8, kek, 16, short, short.count, &raw, &rawLength) == kCCDecodeError)
        #expect(rawLength == 0 && raw == [UInt8](repeating: 0xAA, count: 4), "a room of 0: nothing cleared or written")
    }

    @Test("SHA-224 and HMAC-SHA-224 stream: fed in pieces of 1 to 70 bytes they give the one-shot digest at every length from 0 to 300 (a context keeps one partial block, not the whole message)")
    func sha224Streams() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let key = [UInt8](repeating: 0x0B, count: 20)
        for length in 0...300 {
            let input = Array(message.prefix(length))
            var expected = [UInt8](repeating: 0, count: 28)
            _ = CC_SHA224(input, CC_LONG(length), &expected)
            var expectedMAC = [UInt8](repeating: 0, count: 28)
            CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA224), key, key.count, input, length, &expectedMAC)
            var context = CC_SHA256_CTX()
            _ = CC_SHA224_Init(&context)
            var mac = CCHmacContext()
            CCHmacInit(&mac, CCHmacAlgorithm(kCCHmacAlgSHA224), key, key.count)
            var offset = 0
            var piece = length % 70 + 1
            while offset < length {
                let end = min(length, offset + piece)
                let chunk = Array(input[offset..<end])
                _ = CC_SHA224_Update(&context, chunk, CC_LONG(chunk.count))
                CCHmacUpdate(&mac, chunk, chunk.count)
                offset = end
                piece = piece % 70 + 13
            }
            var streamed = [UInt8](repeating: 0, count: 28)
            _ = CC_SHA224_Final(&streamed, &context)
            var streamedMAC = [UInt8](repeating: 0, count: 28)
            CCHmacFinal(&mac, &streamedMAC)
            #expect(streamed == expected && streamedMAC == expectedMAC, "\(length) bytes")
        }
    }

    @Test("an _Init in memory that still holds another live context's bytes starts afresh and leaves that context alone, as C's _Init overwrites the struct (found with iosdevzone/IDZSwiftCommonCrypto, which allocates its contexts uninitialized): a moved digest and a live HMAC keep their own results")
    func initOverStaleBytesLeavesLiveContextsAlone() {
        let abc = Array("abc".utf8), xyz = Array("xyz".utf8)
        var old = CC_SHA256_CTX()
        CC_SHA256_Init(&old)
        CC_SHA256_Update(&old, abc, CC_LONG(abc.count))
        var moved = old  // the context moves (a reallocation, a value copy); the old bytes stay
        CC_SHA256_Init(&old)
        CC_SHA256_Update(&old, xyz, CC_LONG(xyz.count))
        var movedDigest = [UInt8](repeating: 0, count: 32), oldDigest = [UInt8](repeating: 0, count: 32)
        CC_SHA256_Final(&movedDigest, &moved)
        CC_SHA256_Final(&oldDigest, &old)
        var expectedABC = [UInt8](repeating: 0, count: 32), expectedXYZ = [UInt8](repeating: 0, count: 32)
        CC_SHA256(abc, CC_LONG(abc.count), &expectedABC)
        CC_SHA256(xyz, CC_LONG(xyz.count), &expectedXYZ)
        #expect(movedDigest == expectedABC && oldDigest == expectedXYZ)

        let (keyX, keyY) = (Array("key X".utf8), Array("key Y".utf8))
        let (messageX, messageY) = (Array("message X".utf8), Array("message Y".utf8))
        var live = CCHmacContext()
        CCHmacInit(&live, CCHmacAlgorithm(kCCHmacAlgSHA256), keyX, keyX.count)
        CCHmacUpdate(&live, messageX, messageX.count)
        var reused = live  // memory reused without zeroing, still holding the live context's bytes
        CCHmacInit(&reused, CCHmacAlgorithm(kCCHmacAlgSHA256), keyY, keyY.count)
        CCHmacUpdate(&reused, messageY, messageY.count)
        var macX = [UInt8](repeating: 0, count: 32), macY = [UInt8](repeating: 0, count: 32)
        CCHmacFinal(&live, &macX)
        CCHmacFinal(&reused, &macY)
        var expectedX = [UInt8](repeating: 0, count: 32), expectedY = [UInt8](repeating: 0, count: 32)
        CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA256), keyX, keyX.count, messageX, messageX.count, &expectedX)
        CCHmac(CCHmacAlgorithm(kCCHmacAlgSHA256), keyY, keyY.count, messageY, messageY.count, &expectedY)
        #expect(macX == expectedX && macY == expectedY)
    }
}
