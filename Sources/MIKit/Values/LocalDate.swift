import Foundation

/// A calendar date without a time or zone (`date` questions): years 0001 to 9999 of the
/// Gregorian calendar, stored as ISO 8601 `YYYY-MM-DD`.
public struct LocalDate: BoundedValue, Hashable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// What a date question takes, for messages.
    public static let accepted = "YYYY-MM-DD (e.g. 2026-11-26) or today"
    public static let noun = "date"

    /// A date that exists: February 29 only in leap years, no month 13, no day 31 of April.
    public init(year: Int, month: Int, day: Int) throws(ValueError) {
        guard (1...9999).contains(year) else {
            throw ValueError("the year \(year) is outside 0001 to 9999")
        }
        guard (1...12).contains(month) else {
            throw ValueError("there is no month \(month) (months are 01 to 12) — write the date as \(Self.accepted)")
        }
        let days = UTCDay.daysIn(month: month, year: year)
        guard (1...days).contains(day) else {
            let name = Self.monthNames[month - 1]
            throw ValueError("\(Self.pad(year))-\(DigitText.twoDigits(month))-\(DigitText.twoDigits(day)) does not exist: "
                             + "\(name) \(year) has \(days) days")
        }
        self.init(unchecked: year, month, day)
    }

    init(unchecked year: Int, _ month: Int, _ day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Today's date on the context's clock, in its zone.
    public static func today(_ context: TemporalContext) -> LocalDate { context.localNow.date }

    /// What a technician typed: `2026-11-26` (a one-digit month or day is read too: `2026-3-4`), or
    /// `today`. Day-first and month-first forms (`03/04/2026`, `3.4.2026`) are refused, never
    /// guessed, and so is everything else, each with a message saying what to write instead.
    public static func parse(_ text: String, context: TemporalContext) throws(ValueError) -> LocalDate {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "today" { return today(context) }
        return try parse(trimmed)
    }

    /// A date as written, without `today` (a stored answer, a template's `min` / `max`).
    public static func parse(_ text: String) throws(ValueError) -> LocalDate {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { throw ValueError("no date given — write it as \(accepted)") }
        let fields = trimmed.split(separator: "-", omittingEmptySubsequences: false)
        if fields.count == 3, fields[0].utf8.count == 4,
           let year = DigitText.number(fields[0], maxLength: 4),
           let month = DigitText.number(fields[1], maxLength: 2),
           let day = DigitText.number(fields[2], maxLength: 2) {
            return try LocalDate(year: year, month: month, day: day)
        }
        throw otherOrder(trimmed) ?? ValueError("\(ValueError.quoted(trimmed)) is not a date — write it as \(accepted)")
    }

    /// The refusal of a date written in another order (`03/04/2026`, `3.4.2026`, `2026/04/03`):
    /// says which readings it could have and what to write. Nil when it is not three numbers.
    static func otherOrder(_ text: String) -> ValueError? {
        let parts = text.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "." || $0 == "-" }
        guard parts.count == 3, text.count <= 12 else { return nil }
        let numbers = parts.compactMap { DigitText.number($0, maxLength: 4) }
        guard numbers.count == 3 else { return nil }
        if parts[0].utf8.count == 4 {
            guard let date = try? LocalDate(year: numbers[0], month: numbers[1], day: numbers[2]) else { return nil }
            return ValueError("\(ValueError.quoted(text)) is not a date as MI writes them — write \(date.isoString)")
        }
        guard parts[2].utf8.count == 4 else {
            return ValueError("\(ValueError.quoted(text)) does not say its year, month and day unambiguously — write the date as \(accepted)")
        }
        let year = numbers[2]
        let dayFirst = try? LocalDate(year: year, month: numbers[1], day: numbers[0])
        let monthFirst = try? LocalDate(year: year, month: numbers[0], day: numbers[1])
        let readings = [dayFirst, monthFirst].compactMap { $0 }
        switch Set(readings).sorted() {
        case let both where both.count == 2:
            return ValueError("\(ValueError.quoted(text)) is ambiguous: it could be \(both[0].spelled) or \(both[1].spelled) — "
                              + "write the date as YYYY-MM-DD (\(both[0].isoString) or \(both[1].isoString))")
        case let one where one.count == 1:
            return ValueError("\(ValueError.quoted(text)): MI does not read day/month orders — write the date as YYYY-MM-DD (\(one[0].isoString))")
        default:
            return ValueError("\(ValueError.quoted(text)) is not a date in either day/month order — write it as \(accepted)")
        }
    }

    /// `2026-11-26`.
    public var isoString: String { "\(Self.pad(year))-\(DigitText.twoDigits(month))-\(DigitText.twoDigits(day))" }
    public var description: String { isoString }

    /// `26 November 2026`, for messages that must not be read two ways.
    public var spelled: String { "\(day) \(Self.monthNames[month - 1]) \(year)" }

    /// Days since 1970-01-01 (negative before).
    public var daysSinceEpoch: Int { UTCDay.daysSinceEpoch(year: year, month: month, day: day) }

    /// The date `days` later (or earlier, when negative); nil outside 0001–9999.
    public func adding(days: Int) -> LocalDate? {
        let (year, month, day) = UTCDay.civil(daysSinceEpoch: daysSinceEpoch + days)
        return (1...9999).contains(year) ? LocalDate(unchecked: year, month, day) : nil
    }

    /// Monday 1 … Sunday 7 (ISO 8601).
    public var weekday: Int { ((daysSinceEpoch % 7 + 7) % 7 + 3) % 7 + 1 }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func pad(_ year: Int) -> String {
        let text = String(year)
        return String(repeating: "0", count: max(0, 4 - text.count)) + text
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July",
                             "August", "September", "October", "November", "December"]
}
