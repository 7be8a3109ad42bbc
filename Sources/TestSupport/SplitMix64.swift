/// Support shared by the test targets (never linked into the product).

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny deterministic generator, so every random-input
/// test feeds the same bytes on every run and a failure reproduces from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Up to `maxLength` random bytes (the length itself random).
    public mutating func bytes(maxLength: Int) -> [UInt8] {
        let n = Int.random(in: 0...maxLength, using: &self)
        return (0..<n).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}
