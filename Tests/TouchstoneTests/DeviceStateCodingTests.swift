import Foundation
import Testing
@testable import Touchstone

/// The state record is written without JSONEncoder (``DeviceState/storedJSON()``); its bytes
/// must stay exactly what JSONEncoder writes, so stores written either way read the same.
@Suite struct DeviceStateCodingTests {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    /// Text with every ASCII character JSON escapes, and some that it does not.
    static func randomText(_ generator: inout some RandomNumberGenerator) -> String {
        let pool: [Character] = ["a", "Z", "0", "-", "_", " ", "\"", "\\", "/", "\u{8}", "\u{C}", "\n", "\r", "\t",
                                 "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "é", "指", "👍", "\u{2028}"]
        return String((0..<Int.random(in: 0...12, using: &generator)).map { _ in pool[Int.random(in: 0..<pool.count, using: &generator)] })
    }

    static func randomData(_ generator: inout some RandomNumberGenerator) -> Data {
        Data((0..<Int.random(in: 0...48, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func randomState(_ generator: inout some RandomNumberGenerator) -> DeviceState {
        var state = DeviceState(secret: randomData(&generator))
        state.schema = Bool.random(using: &generator) ? nil : Int.random(in: 0...3, using: &generator)
        state.osEpoch = Int.random(in: 0...1_000, using: &generator)
        state.enrollmentSequence = Int.random(in: 0...Int.max, using: &generator)
        state.enrolled = Bool.random(using: &generator) ? nil : (0..<Int.random(in: 0...4, using: &generator)).map { _ in
            SensorIdentity(id: randomText(&generator), displayName: randomText(&generator), generation: randomText(&generator))
        }
        state.passcodeVerifier = Bool.random(using: &generator) ? nil : randomData(&generator)
        return state
    }

    @Test("2,000 random states: the written bytes are JSONEncoder's (sorted keys) and decode to the same state")
    func writtenAsJSONEncoderWrites() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let state = Self.randomState(&generator)
            let written = try state.storedJSON()
            #expect(written == (try Self.encoder.encode(state)), "\(String(decoding: written, as: UTF8.self))")
            #expect(try JSONDecoder().decode(DeviceState.self, from: written) == state)
        }
    }

    @Test("every character below 0x80 in an identity is escaped as JSONEncoder escapes it")
    func everyASCIICharacter() throws {
        var state = DeviceState(secret: Data([0xFF, 0xFE, 0xFD]))  // base64 "//79": slashes
        state.enrolled = (0..<128).map { code in
            let text = String(UnicodeScalar(UInt8(code)))
            return SensorIdentity(id: text, displayName: "x" + text, generation: text + "y")
        }
        #expect(try state.storedJSON() == (try Self.encoder.encode(state)))
    }

    @Test("a round-1 record that still holds legacy templates is written by JSONEncoder, unchanged")
    func legacyTemplatesGoThroughTheCoder() throws {
        var state = DeviceState(secret: Data([1, 2, 3]))
        state.schema = nil
        state.enrolled = nil
        state.legacyEnrollments = ["touchID": [LegacyTemplate(name: "thumb", templateID: "abc/def")]]
        let written = try state.storedJSON()
        #expect(written == (try Self.encoder.encode(state)))
        #expect(String(decoding: written, as: UTF8.self).contains(#""enrollments""#))
    }
}
