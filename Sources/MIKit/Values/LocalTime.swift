import Foundation

/// A time of day on the 24-hour clock without a date or zone (`time` questions), to the second:
/// 00:00:00 to 23:59:59, stored as ISO 8601 `HH:MM:SS`.
public struct LocalTime: BoundedValue, Hashable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int
    public let second: Int

    public static let accepted = "HH:MM on the 24-hour clock (e.g. 14:30, or 14:30:05 with seconds) or now"
    public static let noun = "time"

    public init(hour: Int, minute: Int, second: Int = 0) throws(ValueError) {
        if hour == 24 && minute == 0 && second == 0 {
            throw ValueError("24:00 is not a time of day — write 00:00 (the start of the next day) or 23:59")
        }
        guard (0...23).contains(hour) else { throw ValueError("there is no hour \(hour) (hours are 00 to 23) — write the time as \(Self.accepted)") }
        guard (0...59).contains(minute) else { throw ValueError("there is no minute \(minute) (minutes are 00 to 59) — write the time as \(Self.accepted)") }
        guard (0...59).contains(second) else { throw ValueError("there is no second \(second) (seconds are 00 to 59) — write the time as \(Self.accepted)") }
        self.init(unchecked: hour, minute, second)
    }

    init(unchecked hour: Int, _ minute: Int, _ second: Int) {
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The time now on the context's clock, in its zone.
    public static func now(_ context: TemporalContext) -> LocalTime { context.localNow.time }

    /// `14:30`, `9:05`, `14:30:05`, or `now`.
    public static func parse(_ text: String, context: TemporalContext) throws(ValueError) -> LocalTime {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "now" { return now(context) }
        return try parse(trimmed)
    }

    /// A time as written, without `now` (a stored answer, a template's `min` / `max`).
    public static func parse(_ text: String) throws(ValueError) -> LocalTime {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ValueError("no time given — write it as \(accepted)") }
        let fields = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        if (2...3).contains(fields.count),
           let hour = DigitText.number(fields[0], maxLength: 2),
           fields.dropFirst().allSatisfy({ $0.utf8.count == 2 }),
           let minute = DigitText.number(fields[1], maxLength: 2) {
            if fields.count == 3 {
                guard let second = DigitText.number(fields[2], maxLength: 2) else { throw notATime(trimmed) }
                return try LocalTime(hour: hour, minute: minute, second: second)
            }
            return try LocalTime(hour: hour, minute: minute)
        }
        throw twelveHour(trimmed) ?? notATime(trimmed)
    }

    static func notATime(_ text: String) -> ValueError {
        ValueError("\(ValueError.quoted(text)) is not a time — write it as \(accepted)")
    }

    /// `2:30 pm`, `2:30PM`, `11 am`: read as meant, and refused with the 24-hour form to write.
    static func twelveHour(_ text: String) -> ValueError? {
        let lower = text.lowercased()
        let suffix = ["am", "a.m.", "pm", "p.m."].first { lower.hasSuffix($0) }
        guard let suffix, text.count <= 12 else { return nil }
        let clock = lower.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(fields.count), let hour = DigitText.number(fields[0], maxLength: 2), (1...12).contains(hour) else { return nil }
        let minute = fields.count == 2 ? DigitText.number(fields[1], maxLength: 2) : 0
        guard let minute, minute < 60 else { return nil }
        let afternoon = suffix.hasPrefix("p")
        let converted = (hour % 12) + (afternoon ? 12 : 0)
        return ValueError("\(ValueError.quoted(text)): use the 24-hour clock — write \(DigitText.twoDigits(converted)):\(DigitText.twoDigits(minute))")
    }

    /// `14:30:00`.
    public var isoString: String { "\(DigitText.twoDigits(hour)):\(DigitText.twoDigits(minute)):\(DigitText.twoDigits(second))" }
    public var description: String { isoString }

    /// `14:30`, or `14:30:05` when the seconds are not zero: for reading.
    public var shortString: String { second == 0 ? String(isoString.prefix(5)) : isoString }

    /// Seconds since midnight.
    public var secondOfDay: Int { hour * 3600 + minute * 60 + second }

    public static func < (lhs: LocalTime, rhs: LocalTime) -> Bool { lhs.secondOfDay < rhs.secondOfDay }
}
