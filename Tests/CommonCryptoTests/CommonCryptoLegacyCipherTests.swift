import CommonCrypto
import Foundation
import Testing

/// The ciphers before AES that CommonCrypto keeps (DES, triple DES, CAST, Blowfish, RC4), run
/// by the system's OpenSSL under the cryptor's own modes, checked with the published vectors of
/// each cipher and, for the modes over 8-byte blocks, vectors pyca/cryptography computed.
@Suite("CommonCrypto: DES, triple DES, CAST, Blowfish, RC4")
struct CommonCryptoLegacyCipherTests {
    /// One block in ECB without padding.
    private func ecb(_ algorithm: Int, key: String, _ plain: String) -> String {
        let result = crypt(kCCEncrypt, algorithm: algorithm, options: kCCOptionECBMode, key: hex(key), iv: nil, hex(plain))
        return result.status == kCCSuccess ? hexString(result.output) : "status \(result.status)"
    }

    @Test("each cipher's published vectors: DES (the classic worked example), triple DES (NIST SP 800-67's example, and one key three times is DES), CAST-128 with 128-, 80- and 40-bit keys (RFC 2144 B.1), Blowfish (Schneier's), RC4 (RFC 6229's 40-bit key stream)")
    func publishedVectors() {
        #expect(ecb(kCCAlgorithmDES, key: "133457799BBCDFF1", "0123456789ABCDEF") == "85e813540f0ab405")
        #expect(ecb(kCCAlgorithm3DES, key: "133457799BBCDFF1133457799BBCDFF1133457799BBCDFF1", "0123456789ABCDEF") == "85e813540f0ab405")
        #expect(ecb(kCCAlgorithm3DES, key: "0123456789ABCDEF23456789ABCDEF01456789ABCDEF0123",
                    hexString(Array("The qufck brown fox jump".utf8))) == "a826fd8ce53b855fcce21c8112256fe668d5c05dd9b6b900")
        #expect(ecb(kCCAlgorithmCAST, key: "0123456712345678234567893456789A", "0123456789ABCDEF") == "238b4fe5847e44b2")
        #expect(ecb(kCCAlgorithmCAST, key: "01234567123456782345", "0123456789ABCDEF") == "eb6a711a2c02271b")
        #expect(ecb(kCCAlgorithmCAST, key: "0123456712", "0123456789ABCDEF") == "7ac816d16e9b302e")
        #expect(ecb(kCCAlgorithmBlowfish, key: "0000000000000000", "0000000000000000") == "4ef997456198dd78")
        #expect(ecb(kCCAlgorithmBlowfish, key: "FFFFFFFFFFFFFFFF", "FFFFFFFFFFFFFFFF") == "51866fd5b85ecb8a")
        let stream = crypt(kCCEncrypt, algorithm: kCCAlgorithmRC4, options: 0, key: hex("0102030405"), iv: nil, [UInt8](repeating: 0, count: 16))
        #expect(stream.status == kCCSuccess && hexString(stream.output) == "b2396305f03dc027ccc3524a0a1118a8")
    }

    @Test("the modes over 8-byte blocks, as pyca/cryptography computes them: DES-CBC with PKCS #7 padding (a 17-byte input becomes 24), triple-DES CFB, Blowfish OFB; each decrypts back")
    func modesOverEightByteBlocks() {
        let plain = Array("Touchstone legacy".utf8)
        let iv = hex("0001020304050607")
        let cbc = crypt(kCCEncrypt, algorithm: kCCAlgorithmDES, options: kCCOptionPKCS7Padding, key: hex("133457799BBCDFF1"), iv: iv, plain)
        #expect(hexString(cbc.output) == "76cf69f9c437970e17908930aa6e1cd77cf2acc3015159af")
        #expect(crypt(kCCDecrypt, algorithm: kCCAlgorithmDES, options: kCCOptionPKCS7Padding, key: hex("133457799BBCDFF1"), iv: iv, cbc.output).output == plain)
        let tripleKey = hex("0123456789ABCDEF23456789ABCDEF01456789ABCDEF0123")
        let cfb = cryptor(kCCEncrypt, mode: kCCModeCFB, algorithm: kCCAlgorithm3DES, key: tripleKey, iv: iv, plain, pieces: [5, 12])
        #expect(cfb.status == kCCSuccess && hexString(cfb.output) == "645de730d55a112f2b3d79e50dc0f17e74")
        #expect(cryptor(kCCDecrypt, mode: kCCModeCFB, algorithm: kCCAlgorithm3DES, key: tripleKey, iv: iv, cfb.output).output == plain)
        let blowfishKey = hex("0123456789ABCDEFF0E1D2C3B4A59687"), blowfishIV = hex("FEDCBA9876543210")
        let ofb = cryptor(kCCEncrypt, mode: kCCModeOFB, algorithm: kCCAlgorithmBlowfish, key: blowfishKey, iv: blowfishIV, plain)
        #expect(hexString(ofb.output) == "846b54f5d9607c8542b914805771196401")
    }

    @Test("CTR over an 8-byte block counts with the whole block, big-endian, wrapping at its end: the key stream is E(IV), E(IV + 1)...")
    func counterModeOverEightByteBlocks() {
        let key = hex("133457799BBCDFF1")
        let iv = hex("00000000FFFFFFFF")
        let counters = [iv, hex("0000000100000000"), hex("0000000100000001")]
        let keyStream = counters.flatMap { crypt(kCCEncrypt, algorithm: kCCAlgorithmDES, options: kCCOptionECBMode, key: key, iv: nil, $0).output }
        let plain = [UInt8](repeating: 0x5A, count: 20)
        let ctr = cryptor(kCCEncrypt, mode: kCCModeCTR, algorithm: kCCAlgorithmDES, key: key, iv: iv, plain)
        #expect(ctr.status == kCCSuccess && ctr.output == zip(plain, keyStream).map { $0 ^ $1 })
    }

    @Test("key lengths as CommonCryptor.c checks them (kCCKeySizeError): DES 8, triple DES 24, CAST 5 to 16, Blowfish 8 to 56, RC4 1 to 512; RC4 is a stream whatever mode is asked for, and its own inverse")
    func keyLengthsAndRC4() {
        func status(_ algorithm: Int, _ length: Int) -> CCCryptorStatus {
            crypt(kCCEncrypt, algorithm: algorithm, options: 0, key: [UInt8](repeating: 7, count: length), iv: nil, [UInt8](repeating: 1, count: 8)).status
        }
        let accepted = [(kCCAlgorithmDES, 8), (kCCAlgorithm3DES, 24), (kCCAlgorithmCAST, 5), (kCCAlgorithmCAST, 16),
                        (kCCAlgorithmBlowfish, 8), (kCCAlgorithmBlowfish, 56), (kCCAlgorithmRC4, 1), (kCCAlgorithmRC4, 512)]
        let refused = [(kCCAlgorithmDES, 7), (kCCAlgorithmDES, 16), (kCCAlgorithm3DES, 16), (kCCAlgorithmCAST, 4), (kCCAlgorithmCAST, 17),
                       (kCCAlgorithmBlowfish, 7), (kCCAlgorithmBlowfish, 57), (kCCAlgorithmRC4, 513)]
        #expect(accepted.map { status($0.0, $0.1) } == accepted.map { _ in CCCryptorStatus(kCCSuccess) })
        #expect(refused.map { status($0.0, $0.1) } == refused.map { _ in CCCryptorStatus(kCCKeySizeError) })
        let key = Array("Secret".utf8), message = Array("Attack at dawn".utf8)
        let sealed = cryptor(kCCEncrypt, mode: kCCModeCBC, algorithm: kCCAlgorithmRC4, key: key, iv: nil, message, pieces: [3, 11])
        #expect(sealed.status == kCCSuccess && sealed.output.count == message.count)
        #expect(cryptor(kCCDecrypt, mode: kCCModeECB, algorithm: kCCAlgorithmRC4, key: key, iv: nil, sealed.output).output == message)
    }
}

/// MD2 and MD4, Touchstone's own code, against their RFCs' test suites.
@Suite("CommonCrypto: MD2 and MD4")
struct CommonCryptoLegacyDigestTests {
    static let messages = ["", "a", "abc", "message digest", "abcdefghijklmnopqrstuvwxyz",
                           "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
                           String(repeating: "1234567890", count: 8)]

    private func oneShot(_ function: (UnsafeRawPointer?, CC_LONG, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?,
                         _ message: String) -> String {
        let bytes = Array(message.utf8)
        var md = [UInt8](repeating: 0, count: 16)
        _ = function(bytes, CC_LONG(bytes.count), &md)
        return hexString(md)
    }

    @Test("MD2 gives RFC 1319's test suite (A.5), one shot and fed byte by byte through CC_MD2_CTX")
    func md2MatchesRFC1319() {
        #expect(Self.messages.map { oneShot(CC_MD2, $0) } == [
            "8350e5a3e24c153df2275c9f80692773", "32ec01ec4a6dac72c0ab96fb34c0b5d1", "da853b0d3f88d99b30283a69e6ded6bb",
            "ab4f496bfb2a530b219ff33031fe06b0", "4e8ddff3650292ab5a4108c3aa47940b", "da33def2a42df13975352846c30338cd",
            "d5976f79d83d3a0dc9806c3c66f3efd8",
        ])
        var context = CC_MD2_CTX()
        #expect(CC_MD2_Init(&context) == 1)
        for byte in Array(Self.messages[6].utf8) { _ = [byte].withUnsafeBytes { CC_MD2_Update(&context, $0.baseAddress, 1) } }
        var md = [UInt8](repeating: 0, count: Int(CC_MD2_DIGEST_LENGTH))
        #expect(CC_MD2_Final(&md, &context) == 1)
        #expect(hexString(md) == "d5976f79d83d3a0dc9806c3c66f3efd8")
    }

    @Test("MD4 gives RFC 1320's test suite (A.5), which OpenSSL's legacy provider gives too, one shot and through CC_MD4_CTX in uneven pieces")
    func md4MatchesRFC1320() {
        #expect(Self.messages.map { oneShot(CC_MD4, $0) } == [
            "31d6cfe0d16ae931b73c59d7e0c089c0", "bde52cb31de33e46245e05fbdbd6fb24", "a448017aaf21d8525fc10ae87aa6729d",
            "d9130a8164549fe818874806e1c7014b", "d79e1c308aa5bbcdeea8ed63df412da9", "043f8582f241db351ce627e153e7f0e4",
            "e33b4ddc9c38f2199c3e7b164fcc0536",
        ])
        let message = Array(Self.messages[6].utf8)
        var context = CC_MD4_CTX()
        #expect(CC_MD4_Init(&context) == 1)
        for range in [0..<7, 7..<63, 63..<64, 64..<80] {
            _ = Array(message[range]).withUnsafeBytes { CC_MD4_Update(&context, $0.baseAddress, CC_LONG($0.count)) }
        }
        var md = [UInt8](repeating: 0, count: Int(CC_MD4_DIGEST_LENGTH))
        #expect(CC_MD4_Final(&md, &context) == 1)
        #expect(hexString(md) == "e33b4ddc9c38f2199c3e7b164fcc0536")
    }
}
