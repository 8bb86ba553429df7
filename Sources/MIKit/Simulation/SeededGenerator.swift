import Foundation

/// SplitMix64: a small, fast generator whose whole sequence follows from one 64-bit seed, the
/// same on every platform and Swift version. Deliberately not a `RandomNumberGenerator`: the
/// standard library's `random(in:using:)` may change how it consumes bits, and `mi simulate
/// --seed S` must give the same forms forever.
public struct SeededGenerator: Sendable {
    private var state: UInt64
    /// The seed the sequence started from: what a whole run shares (a simulation's base location).
    public let seed: UInt64

    public init(seed: UInt64) {
        state = seed
        self.seed = seed
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in [0, 1) from the 53 high bits: exact, and the same everywhere.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// An integer in 0..<bound (bound > 0), by rejection so every value is equally likely.
    public mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "below(_:) needs a positive bound")
        let range = UInt64(bound)
        let limit = UInt64.max - UInt64.max % range
        while true {
            let value = next()
            if value < limit { return Int(value % range) }
        }
    }

    /// An integer in `range`.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// A standard normal value (Box–Muller; the log and cosine of IEEE doubles are correctly
    /// rounded enough on every platform MI runs on).
    public mutating func normal() -> Double {
        let u = 1 - unit()  // (0, 1]: log(0) never happens
        let v = unit()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }

    /// One element of a non-empty array.
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
