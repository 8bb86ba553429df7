import Foundation

/// A date and time with its offset from UTC (`dateTime` questions), to the second, stored as ISO
/// 8601 `2026-11-26T14:30:00-06:00`: the wall clock where it was answered and that place's offset,
/// so the instant is exact and the local time is kept.
///
/// Typed without an offset it is placed in the answering zone (`TemporalContext.timeZone`):
/// - a wall time that does not exist there (the hour skipped when clocks go forward) is
///   **refused**, saying when the clocks jumped;
/// - a wall time that happens twice (the hour repeated when clocks go back) is **resolved to the
///   first occurrence** (the offset before the change); the stored offset says which it was, and
///   typing an offset (`…T01:30-05:00`) chooses the second.
///
/// Ordered and equal by instant: `14:30+01:00` equals `13:30Z`.
public struct OffsetDateTime: BoundedValue, CustomStringConvertible {
    public let date: LocalDate
    public let time: LocalTime
    /// Seconds east of UTC, −12:00 to +14:00.
    public let offsetSeconds: Int

    public static let accepted = "YYYY-MM-DDTHH:MM (e.g. 2026-11-26T14:30, with :SS for seconds and +01:00 or Z for an offset) or now"
    public static let noun = "date and time"
    static let offsets = -12 * 3600 ... 14 * 3600

    public init(date: LocalDate, time: LocalTime, offsetSeconds: Int) throws(ValueError) {
        guard Self.offsets.contains(offsetSeconds) else {
            throw ValueError("the offset \(Self.offsetString(offsetSeconds)) is outside −12:00 to +14:00")
        }
        self.date = date
        self.time = time
        self.offsetSeconds = offsetSeconds
    }

    /// The date and time `date` `time` in `timeZone`, with that zone's offset then. Refused when
    /// the zone skips it; the first of two when the zone repeats it.
    public init(date: LocalDate, time: LocalTime, in timeZone: TimeZone) throws(ValueError) {
        let wall = date.daysSinceEpoch * 86_400 + time.secondOfDay
        // Every offset the zone uses within a day either side; the ones that map the wall time back to itself.
        let offsets = Set(stride(from: -30, through: 30, by: 3).map { hours in
            timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(wall + hours * 3600)))
        })
        let instants = offsets.map { wall - $0 }.filter { instant in
            wall - instant == timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant)))
        }
        guard let first = instants.min() else { throw Self.skipped(date: date, time: time, wall: wall, in: timeZone) }
        try self.init(date: date, time: time, offsetSeconds: wall - first)
    }

    /// This instant on the context's clock, to the second, with the zone's offset now.
    public static func now(_ context: TemporalContext) -> OffsetDateTime {
        let local = context.localNow
        return OffsetDateTime(unchecked: local.date, local.time, local.offsetSeconds)
    }

    init(unchecked date: LocalDate, _ time: LocalTime, _ offsetSeconds: Int) {
        self.date = date
        self.time = time
        self.offsetSeconds = offsetSeconds
    }

    /// `2026-11-26T14:30`, `2026-11-26 14:30`, with `:05` seconds, with an offset (`Z`, `+01:00`,
    /// `-0600`, `+01`) or without (then in the context's zone), or `now`.
    public static func parse(_ text: String, context: TemporalContext) throws(ValueError) -> OffsetDateTime {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "now" { return now(context) }
        return try parse(trimmed, timeZone: context.timeZone)
    }

    /// A date and time as written, without `now`; one without an offset is placed in `timeZone`
    /// (a stored answer always has its offset).
    public static func parse(_ text: String, timeZone: TimeZone) throws(ValueError) -> OffsetDateTime {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ValueError("no date and time given — write it as \(accepted)") }
        guard trimmed.utf8.count <= 40 else { throw notADateTime(trimmed) }
        let separator = trimmed.dropFirst().firstIndex { $0 == "T" || $0 == "t" || $0 == " " }
        guard let separator else {
            if (try? LocalDate.parse(trimmed)) != nil {
                throw ValueError("\(ValueError.quoted(trimmed)) has no time — write it as \(accepted)")
            }
            throw notADateTime(trimmed)
        }
        let datePart = String(trimmed[..<separator])
        var timePart = String(trimmed[trimmed.index(after: separator)...]).trimmingCharacters(in: .whitespaces)
        let date = try LocalDate.parse(datePart)
        var offset: Int?
        if timePart.hasSuffix("Z") || timePart.hasSuffix("z") {
            offset = 0
            timePart.removeLast()
        } else if let sign = timePart.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            offset = try parseOffset(String(timePart[sign...]), in: trimmed)
            timePart = String(timePart[..<sign])
        }
        let time = try LocalTime.parse(timePart.trimmingCharacters(in: .whitespaces))
        if let offset { return try OffsetDateTime(date: date, time: time, offsetSeconds: offset) }
        return try OffsetDateTime(date: date, time: time, in: timeZone)
    }

    /// `+01:00`, `-0600`, `+05:30`, `+01`.
    static func parseOffset(_ text: String, in whole: String) throws(ValueError) -> Int {
        let negative = text.hasPrefix("-")
        let digits = text.dropFirst().replacingOccurrences(of: ":", with: "")
        let colonOK = !text.contains(":") || (text.count == 6 && text[text.index(text.startIndex, offsetBy: 3)] == ":")
        guard colonOK, digits.utf8.count == 2 || digits.utf8.count == 4,
              let hours = DigitText.number(digits.prefix(2), maxLength: 2),
              let minutes = digits.utf8.count == 4 ? DigitText.number(digits.suffix(2), maxLength: 2) : 0
        else {
            throw ValueError("\(ValueError.quoted(whole)) has an offset that cannot be read (\(ValueError.quoted(text))) — write it as +01:00, -06:00 or Z")
        }
        guard minutes < 60 else { throw ValueError("the offset \(ValueError.quoted(text)) has minute \(minutes) — minutes are 00 to 59") }
        let seconds = (hours * 3600 + minutes * 60) * (negative ? -1 : 1)
        guard offsets.contains(seconds) else {
            throw ValueError("the offset \(ValueError.quoted(text)) is outside −12:00 to +14:00")
        }
        return seconds
    }

    static func notADateTime(_ text: String) -> ValueError {
        ValueError("\(ValueError.quoted(text)) is not a date and time — write it as \(accepted)")
    }

    /// The refusal of a wall time that `timeZone` skips, naming the jump.
    static func skipped(date: LocalDate, time: LocalTime, wall: Int, in timeZone: TimeZone) -> ValueError {
        let what = "\(date.isoString)T\(time.shortString) does not exist in \(timeZone.identifier)"
        guard let jump = timeZone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: TimeInterval(wall - 2 * 86_400))) else {
            return ValueError("\(what): the clocks were put forward then — give a time before or after the change")
        }
        let before = timeZone.secondsFromGMT(for: jump.addingTimeInterval(-1))
        let after = timeZone.secondsFromGMT(for: jump)
        let instant = Int(jump.timeIntervalSince1970)
        return ValueError("\(what): the clocks jumped from \(clock(instant + before)) to \(clock(instant + after)) — give a time before or after the change")
    }

    /// `02:00` for a wall-clock second count.
    private static func clock(_ wall: Int) -> String {
        let second = ((wall % 86_400) + 86_400) % 86_400
        return "\(DigitText.twoDigits(second / 3600)):\(DigitText.twoDigits(second / 60 % 60))"
    }

    /// `2026-11-26T14:30:00-06:00` (`+00:00` for UTC).
    public var isoString: String { "\(date.isoString)T\(time.isoString)\(Self.offsetString(offsetSeconds))" }
    public var description: String { isoString }

    /// The instant, in seconds since 1970-01-01T00:00:00Z.
    public var secondsSinceEpoch: Int { date.daysSinceEpoch * 86_400 + time.secondOfDay - offsetSeconds }
    public var instant: Date { Date(timeIntervalSince1970: TimeInterval(secondsSinceEpoch)) }

    static func offsetString(_ seconds: Int) -> String {
        let magnitude = abs(seconds)
        return (seconds < 0 ? "-" : "+") + DigitText.twoDigits(magnitude / 3600) + ":" + DigitText.twoDigits(magnitude / 60 % 60)
    }

    public static func < (lhs: OffsetDateTime, rhs: OffsetDateTime) -> Bool { lhs.secondsSinceEpoch < rhs.secondsSinceEpoch }
    public static func == (lhs: OffsetDateTime, rhs: OffsetDateTime) -> Bool { lhs.secondsSinceEpoch == rhs.secondsSinceEpoch }
}
