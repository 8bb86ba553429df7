import Foundation

/// The values a `range` question allows: `start`, `start ± step`, … up to `end` (a 1–5 rating
/// is `start 1, end 5, step 1`). As in ODK, `start` may be above `end` (the scale runs downwards);
/// the step is the distance between neighbours, given positive or with the sign of the direction.
///
/// Steps are checked in decimal arithmetic on the numbers as written (`0.1`, not the binary
/// double nearest to it), so 0.3 is on a 0.1 step from 0 and 0.35 is not: no floating-point
/// false refusals and no tolerance that lets a value slightly off the step through.
public struct RangeRule: Hashable, Sendable {
    public let start: Double
    public let end: Double
    public let step: Double

    /// The largest magnitude of start, end and step, and the smallest step: inside these every
    /// value has an exact decimal form with room to spare in `Decimal`'s 38 digits.
    public static let largest = 1e15
    public static let smallestStep = 1e-9

    /// A range the template may declare: finite numbers within ±10^15, start ≠ end, a step of at
    /// least 10^-9 in size (positive, or negative for a scale from a higher start to a lower end)
    /// that divides `end − start` evenly.
    public init(start: Double, end: Double, step: Double) throws(ValueError) {
        for (key, value) in [("start", start), ("end", end), ("step", step)] {
            guard value.isFinite, abs(value) <= Self.largest else {
                throw ValueError("\(key) \(formatNumber(value)) is not a number within ±1000000000000000")
            }
        }
        guard start != end else { throw ValueError("start and end are both \(formatNumber(start)): a range needs two ends") }
        guard abs(step) >= Self.smallestStep else {
            throw ValueError("step \(formatNumber(step)) is too small (at least 0.000000001)")
        }
        // ODK's positive step runs either way; a negative one must point the way the scale runs.
        if end > start && step < 0 {
            throw ValueError("step \(formatNumber(step)) points away from end \(formatNumber(end)) (start is \(formatNumber(start)))")
        }
        let span = Self.decimal(end) - Self.decimal(start)
        guard Self.isWhole(span / Self.decimal(abs(step))) else {
            throw ValueError("step \(formatNumber(abs(step))) does not divide the range \(formatNumber(start)) to \(formatNumber(end)) evenly")
        }
        self.start = start
        self.end = end
        self.step = abs(step)
    }

    /// `value` itself when it is one of the range's values; else why not, naming the nearest allowed.
    public func checked(_ value: Double) throws(ValueError) -> Double {
        guard value.isFinite else { throw ValueError("\(formatNumber(value)) is not a number") }
        let low = min(start, end), high = max(start, end)
        guard value >= low, value <= high else {
            throw ValueError("\(formatNumber(value)) is outside the range \(formatNumber(start)) to \(formatNumber(end))")
        }
        // A value too close to zero for Decimal's exponent (1e-200) is no step of at least 10^-9.
        let written = Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX"))
        guard let written, Self.isWhole((written - Self.decimal(start)) / Self.decimal(step)) else {
            throw ValueError("\(formatNumber(value)) is not on a step of \(formatNumber(step)) from \(formatNumber(start)) — "
                             + "the nearest allowed values are \(nearest(to: value).map(formatNumber).joined(separator: " and "))")
        }
        return value
    }

    /// A typed value: a decimal number written with a dot (`3`, `2.5`, `-1`; no exponent or hex).
    public func value(fromLine line: String) throws(ValueError) -> Double {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ValueError("no value given — give a number from \(formatNumber(start)) to \(formatNumber(end))") }
        guard trimmed.utf8.count <= 40, let number = DigitText.decimal(trimmed) else {
            if AnswerRules.isDecimalComma(trimmed) {
                throw ValueError("\(ValueError.quoted(trimmed)) is not a number — use a dot: \(trimmed.replacingOccurrences(of: ",", with: "."))")
            }
            throw ValueError("\(ValueError.quoted(trimmed)) is not a number — give one from \(formatNumber(start)) to \(formatNumber(end)) in steps of \(formatNumber(step))")
        }
        return try checked(number)
    }

    /// How many values the range allows (5 for 1–5 step 1); saturates at `Int.max`.
    public var count: Int {
        let steps = (Self.decimal(max(start, end)) - Self.decimal(min(start, end))) / Self.decimal(step)
        let whole = NSDecimalNumber(decimal: steps).doubleValue
        return whole >= Double(Int.max - 1) ? Int.max : Int(whole.rounded()) + 1
    }

    /// The `index`-th value from `start` (0 is `start`), exact in decimal; nil past `end`.
    public func value(at index: Int) -> Double? {
        guard index >= 0, index < count else { return nil }
        let direction: Decimal = end > start ? 1 : -1
        let value = Self.decimal(start) + direction * Decimal(index) * Self.decimal(step)
        return Double(NSDecimalNumber(decimal: value).stringValue)
    }

    /// Every allowed value from `start` to `end` (for Tab completion and simulation), or nil when
    /// there are more than `limit`.
    public func values(limit: Int = 1000) -> [Double]? {
        guard count <= limit else { return nil }
        return (0..<count).compactMap(value(at:))
    }

    /// The one or two allowed values either side of an off-step `value` inside the range.
    func nearest(to value: Double) -> [Double] {
        let steps = (Self.decimal(value) - Self.decimal(start)) / Self.decimal(step)
        let index = abs(NSDecimalNumber(decimal: steps).doubleValue).rounded(.down)
        guard index < Double(Int.max - 1) else { return [] }
        return [Int(index), Int(index) + 1].compactMap(value(at:))
    }

    /// The decimal a double was written as: its shortest round-trip digits (`0.1` for 0.1). Exact
    /// for the rule's own numbers, which lie within ±10^15 and are 0 or at least 10^-9 in size.
    static func decimal(_ value: Double) -> Decimal {
        Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(value)
    }

    static func isWhole(_ value: Decimal) -> Bool {
        var copy = value, rounded = Decimal()
        NSDecimalRound(&rounded, &copy, 0, .plain)
        return rounded == value
    }
}
