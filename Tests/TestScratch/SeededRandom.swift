/// A fixed sequence of pseudo-random numbers (SplitMix64), so a failure shows again on the next run.
package struct SeededRandom: RandomNumberGenerator {
    /// Where the sequence is.
    package var state: UInt64

    /// The sequence that starts from `state`.
    package init(state: UInt64) { self.state = state }

    /// The next number.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
