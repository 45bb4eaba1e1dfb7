import Foundation

/// Where a device gets its randomness: template ids, the device secret, salts, tokens.
///
/// Simulations use a seeded source so that two runs with the same seed produce the same
/// device secret, template ids and therefore the same domain-state values. Real
/// authenticators use the system's cryptographically secure generator.
///
/// ```swift
/// let reproducible = RandomSource(seed: 42)
/// let real = RandomSource.system
/// ```
public final class RandomSource: Sendable {
    private enum Engine {
        case system
        case seeded(Xoshiro256StarStar)
    }

    private let engine: Locked<Engine>

    /// Whether this source is seeded (reproducible) rather than the system CSPRNG.
    public let isSeeded: Bool

    /// The seed, when seeded.
    public let seed: UInt64?

    /// A reproducible source: the same seed always yields the same bytes.
    public init(seed: UInt64) {
        engine = Locked(.seeded(Xoshiro256StarStar(seed: seed)))
        isSeeded = true
        self.seed = seed
    }

    private init() {
        engine = Locked(.system)
        isSeeded = false
        seed = nil
    }

    /// The operating system's cryptographically secure generator.
    public static var system: RandomSource { RandomSource() }

    /// `count` random bytes.
    public func bytes(_ count: Int) -> Data {
        engine.withLock { engine -> Data in
            var data = Data(capacity: count)
            switch engine {
            case .system:
                var generator = SystemRandomNumberGenerator()
                while data.count < count {
                    withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0.prefix(count - data.count)) }
                }
            case .seeded(var generator):
                while data.count < count {
                    withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0.prefix(count - data.count)) }
                }
                engine = .seeded(generator)
            }
            return data
        }
    }

    /// `count` random bytes as lowercase hex.
    public func hex(_ count: Int) -> String {
        bytes(count).hexString
    }
}

/// xoshiro256** seeded through splitmix64: small, fast and good enough for reproducible
/// simulations. Never used where secrecy matters in a real deployment.
struct Xoshiro256StarStar: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var mixer = seed
        func splitmix() -> UInt64 {
            mixer &+= 0x9E37_79B9_7F4A_7C15
            var z = mixer
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitmix(), splitmix(), splitmix(), splitmix())
    }

    mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = (state.3 << 45) | (state.3 >> 19)
        return result
    }
}

extension Data {
    /// Lowercase hexadecimal form.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(count * 2)
        for byte in self {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
