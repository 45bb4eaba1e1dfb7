/// SplitMix64, seeded: fuzz tests draw the same inputs on every run, so a failure names an
/// input that can be run again.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The generator's state; the seed to start from.
    public var state: UInt64

    /// A generator starting from `seed`.
    public init(state seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
