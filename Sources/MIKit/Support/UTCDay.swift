import Foundation

/// Whole UTC days, as every date filter takes them (the server's listing and statistics, exports,
/// `mi stats --from/--to`) and as statistics count forms per day. One parser, so `2026-11-23`
/// means the same instant everywhere.
public enum UTCDay {
    /// What a date filter takes, for messages.
    public static let expected = "a day as YYYY-MM-DD or an ISO 8601 date and time"

    /// `YYYY-MM-DD` (a whole UTC day: its start, or the start of the next for `endOfDay`) or a
    /// full ISO 8601 instant (for `endOfDay`, inclusive to the second). `parameter` names the
    /// filter in the error (`from`, `--to`).
    public static func parse(_ text: String, parameter: String, endOfDay: Bool) throws(UTCDayError) -> Date {
        if text.utf8.count == 10 {
            let fields = text.split(separator: "-", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
                  fields.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
                  let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
                  (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day)
            else { throw .invalid(parameter: parameter, value: text, expected: expected) }
            let start = Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch(year: year, month: month, day: day) * 86_400))
            return endOfDay ? start.addingTimeInterval(86_400) : start
        }
        guard let instant = (try? Date(text, strategy: .iso8601))
                ?? (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        else { throw .invalid(parameter: parameter, value: text, expected: expected) }
        let seconds = instant.timeIntervalSince1970.rounded(.down)
        return Date(timeIntervalSince1970: endOfDay ? seconds + 1 : seconds)
    }

    /// `2026-11-23`: the UTC day `date` falls on.
    public static func string(_ date: Date) -> String {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        let (year, month, day) = civil(daysSinceEpoch: days)
        let yearText = String(year)
        let padded = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
        return padded + (month < 10 ? "-0" : "-") + String(month) + (day < 10 ? "-0" : "-") + String(day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm, exact for any year).
    public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day counted from 1970-01-01 (the inverse of `daysSinceEpoch`).
    public static func civil(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A date filter that cannot be read.
public enum UTCDayError: ClassifiedError, Equatable {
    /// `parameter` has `value`, which is not a day or an instant.
    case invalid(parameter: String, value: String, expected: String)

    public var failureClass: FailureClass { .usage }
    public var code: String { "invalid-date" }
    public var errorDescription: String? {
        switch self {
        case .invalid(let parameter, let value, let expected):
            return "\(parameter) is \"\(SafeName.printable(value))\" — give \(expected)"
        }
    }
}
