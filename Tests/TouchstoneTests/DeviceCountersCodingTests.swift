import Foundation
import Testing
@testable import Touchstone

/// The counters record is written without JSONEncoder (``DeviceCounters/storedJSON()``); its
/// bytes must stay exactly what JSONEncoder writes, so stores written either way read the same.
@Suite struct DeviceCountersCodingTests {
    static func randomCounters(_ generator: inout some RandomNumberGenerator) -> DeviceCounters {
        func maybeTime() -> Timestamp? {
            Bool.random(using: &generator) ? nil : Timestamp(nanosecondsSinceEpoch: Int64.random(in: -Timestamp.storedBound...Timestamp.storedBound, using: &generator))
        }
        var counters = DeviceCounters()
        counters.schema = Bool.random(using: &generator) ? nil : Int.random(in: 0...3, using: &generator)
        counters.consecutiveBiometricFailures = Int.random(in: 0...20, using: &generator)
        counters.passcodeFailures = Int.random(in: 0...11, using: &generator)
        counters.passcodeRetryAt = maybeTime()
        counters.lastWrongPasscodeDigest = Bool.random(using: &generator)
            ? nil : Data((0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        counters.isDisabled = Bool.random(using: &generator)
        counters.lastBiometricUnlock = maybeTime()
        counters.lockedAt = maybeTime()
        counters.restartedAt = maybeTime()
        counters.passcodeRequiredToUnlock = [nil, true, false].randomElement(using: &generator) ?? nil
        counters.lastPasscodeUnlock = maybeTime()
        return counters
    }

    @Test("2,000 random counters: the written bytes are JSONEncoder's (sorted keys) and decode to the same counters")
    func writtenAsJSONEncoderWrites() throws {
        var generator = SystemRandomNumberGenerator()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for _ in 0..<2_000 {
            let counters = Self.randomCounters(&generator)
            let written = counters.storedJSON()
            #expect(written == (try encoder.encode(counters)), "\(String(decoding: written, as: UTF8.self))")
            #expect(try JSONDecoder().decode(DeviceCounters.self, from: written) == counters)
        }
    }

    @Test("zeroed counters, and a digest whose base64 holds a slash")
    func edgeCases() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var counters = DeviceCounters()
        #expect(counters.storedJSON() == (try encoder.encode(counters)))
        counters.lastWrongPasscodeDigest = Data([0xFF, 0xFF, 0xFF])  // "////"
        #expect(String(decoding: counters.storedJSON(), as: UTF8.self).contains(#""\/\/\/\/""#))
        #expect(counters.storedJSON() == (try encoder.encode(counters)))
    }
}
