import Foundation
import Testing
import Touchstone
@testable import TouchstoneSimulation

/// The stored virtual-time reading (`clock/virtual-now`) is written without a Foundation coder;
/// it must stay exactly what `JSONEncoder` writes for a ``Timestamp`` and read back the same.
@Suite struct VirtualTimeRecordTests {
    static let instants: [Int64] = [0, 1, -1, 300_000_000_000, 86_400_123_456_789, Timestamp.storedBound, -Timestamp.storedBound]

    @Test("the reading's bytes are JSONEncoder's bytes for the same Timestamp", arguments: instants)
    func writtenAsJSONEncoderWrites(nanoseconds: Int64) throws {
        let instant = Timestamp(nanosecondsSinceEpoch: nanoseconds)
        #expect(Device.encodeReading(instant) == (try JSONEncoder().encode(instant)))
        #expect(try Device.decodeReading(Device.encodeReading(instant)) == instant)
        #expect(try JSONDecoder().decode(Timestamp.self, from: Device.encodeReading(instant)) == instant)
    }

    @Test("a reading beyond the stored range is refused, as JSONDecoder refuses it")
    func outOfRangeIsRefused() {
        let beyond = Data(String(Timestamp.storedBound + 1).utf8)
        #expect(throws: (any Error).self) { try Device.decodeReading(beyond) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Timestamp.self, from: beyond) }
        #expect(throws: (any Error).self) { try Device.decodeReading(Data("99999999999999999999".utf8)) }
        #expect(throws: (any Error).self) { try Device.decodeReading(Data("-".utf8)) }
        #expect(throws: (any Error).self) { try Device.decodeReading(Data()) }
    }

    @Test("other JSON spellings of a reading still decode (through JSONDecoder)")
    func otherSpellingsDecode() throws {
        #expect(try Device.decodeReading(Data(" 5000 ".utf8)) == Timestamp(nanosecondsSinceEpoch: 5000))
        #expect(try Device.decodeReading(Data("5e3".utf8)) == Timestamp(nanosecondsSinceEpoch: 5000))
    }
}
