import Foundation

/// The clock and time zone that `today` and `now` are read against, and that a date and time typed
/// without an offset is placed in. Passed in, never read from the process, so tests and the server
/// can say which instant and zone they mean.
public struct TemporalContext: Sendable {
    public var now: Date
    public var timeZone: TimeZone

    public init(now: Date, timeZone: TimeZone) {
        self.now = now
        self.timeZone = timeZone
    }

    /// The machine's clock and zone, as `mi fill` answers with.
    public static func system() -> TemporalContext { TemporalContext(now: Date(), timeZone: .current) }

    /// The local calendar date and time of `now` in the zone, to the whole second, and the zone's
    /// offset from UTC at that instant.
    var localNow: (date: LocalDate, time: LocalTime, offsetSeconds: Int) {
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        let offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        let local = seconds + offset
        let days = Int((Double(local) / 86_400).rounded(.down))
        let (year, month, day) = UTCDay.civil(daysSinceEpoch: days)
        let secondOfDay = local - days * 86_400
        return (LocalDate(unchecked: year, month, day),
                LocalTime(unchecked: secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60),
                offset)
    }
}

/// A value with an order and an ISO 8601 text, so that `min` / `max` are checked once for dates,
/// times and date-times.
public protocol BoundedValue: Comparable, Sendable {
    /// The ISO 8601 text stored in the form.
    var isoString: String { get }
    /// `date`, `time`, `date and time`: for messages.
    static var noun: String { get }
}

extension BoundedValue {
    /// The value itself when it lies within `min`…`max` (each optional, both inclusive).
    public func checked(min: Self?, max: Self?) throws(ValueError) -> Self {
        if let min, self < min {
            throw ValueError("\(isoString) is before the earliest allowed \(Self.noun), \(min.isoString)")
        }
        if let max, self > max {
            throw ValueError("\(isoString) is after the latest allowed \(Self.noun), \(max.isoString)")
        }
        return self
    }
}
