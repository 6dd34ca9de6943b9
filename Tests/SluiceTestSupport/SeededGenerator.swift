/// A deterministic random number generator (SplitMix64), so a failing random scenario can be replayed from the
/// seed it prints.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Starts the sequence at `seed`.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// The next `count` bytes of the sequence, eight a step: a byte-at-a-time loop over megabytes holds a thread of
    /// the cooperative pool for seconds in a debug build, stalling the in-process gateways of tests running beside.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        var words = [UInt64](repeating: 0, count: (count + 7) / 8)
        words.withUnsafeMutableBufferPointer { buffer in
            // A plain loop over a buffer: `stride`, `storeBytes` and `Array`'s subscript cost four times as much in a
            // debug build.
            var index = 0
            while index < buffer.count {
                buffer[index] = next()
                index += 1
            }
        }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }

    /// `count` deterministic pseudo-random bytes from `seed` (a fixed default, so failures reproduce); a shorter
    /// count gives a prefix of a longer one.
    public static func bytes(_ count: Int, seed: UInt64 = 42) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return generator.bytes(count)
    }
}
