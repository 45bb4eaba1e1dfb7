import TouchstoneAppAttestFormat
import Foundation
import Testing

/// The CBOR reader takes untrusted bytes (a server reads attestations with it): it refuses
/// what App Attest never writes and never traps.
@Suite struct CBORReaderTests {
    @Test func deterministicEncodingUsesShortestHeads() {
        #expect(CBOR.unsigned(23).encoded == Data([0x17]))
        #expect(CBOR.unsigned(24).encoded == Data([0x18, 0x18]))
        #expect(CBOR.unsigned(256).encoded == Data([0x19, 0x01, 0x00]))
        #expect(CBOR.int(-7).encoded == Data([0x26]))
        #expect(CBOR.bytes(Data(repeating: 0, count: 32)).encoded.prefix(2) == Data([0x58, 0x20]))
        #expect(CBOR.text("fmt").encoded == Data([0x63, 0x66, 0x6D, 0x74]))
    }

    @Test func readerRefusesIndefiniteLengthsTagsFloatsDuplicatesTooManyItemsAndTrailingBytes() throws {
        for bytes: [UInt8] in [
            [0x5F, 0x41, 0x00, 0xFF],   // indefinite byte string
            [0xC0, 0x00],               // tag 0
            [0xF9, 0x00, 0x00],         // half float
            [0xA2, 0x01, 0x00, 0x01, 0x00],  // key 1 twice
            [0x00, 0x00],               // trailing byte
            [0x5B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // a length past the end
            [0x9B, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00],  // 2^32 items in 9 bytes
            [0x1C],                     // reserved additional information
            [],
        ] {
            #expect(throws: CBOR.DecodingError.self) { try CBOR(decoding: Data(bytes)) }
        }
        let wide = Data([0x98, UInt8(CBOR.maximumItems + 1)]) + Data(repeating: 0x00, count: CBOR.maximumItems + 1)
        #expect(throws: CBOR.DecodingError.self) { try CBOR(decoding: wide) }
        let widest = Data([0x98, UInt8(CBOR.maximumItems)]) + Data(repeating: 0x00, count: CBOR.maximumItems)
        #expect(try CBOR(decoding: widest) == .array(Array(repeating: .unsigned(0), count: CBOR.maximumItems)))
        let deep = Data(repeating: 0x81, count: CBOR.maximumDepth + 1) + Data([0x00])
        #expect(throws: CBOR.DecodingError.self) { try CBOR(decoding: deep) }
    }

    @Test func randomAndMutatedInputNeverTrapsTheReaders() {
        var generator = SystemRandomNumberGenerator()
        let sample = CBOR.map([(.text("signature"), .bytes(Data(repeating: 7, count: 70))), (.text("authenticatorData"), .bytes(Data(repeating: 1, count: 37)))]).encoded
        for round in 0 ..< 5_000 {
            var bytes = [UInt8](sample)
            if round % 2 == 0 {
                bytes = (0 ..< Int.random(in: 0 ... 64, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            } else {
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &generator) {
                    bytes[Int.random(in: 0 ..< bytes.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
                }
            }
            _ = try? CBOR(decoding: Data(bytes))
            _ = try? AssertionObject(decoding: Data(bytes))
            _ = try? AttestationObject(decoding: Data(bytes))
            _ = try? AuthenticatorData(parsing: Data(bytes), as: .attestation)
            _ = try? AuthenticatorData(parsing: Data(bytes), as: .assertion)
            _ = try? CBOR.decodingPrefix(of: Data(bytes))
            _ = try? Certificate(derEncoded: Data(bytes))
        }
    }
}
