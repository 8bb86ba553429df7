import Foundation
import MIKit

/// What a cell holds, as a spreadsheet program shows it.
public enum XLSXValue: Hashable, Sendable {
    /// Text: a shared string, an inline string, or a formula's text result.
    case string(String)
    /// A number that is not formatted as a date.
    case number(Double)
    case bool(Bool)
    /// A number formatted as a date or a time (the file stores a serial day number).
    case date(XLSXDateTime)
    /// A formula's error result, such as `#DIV/0!` or `#N/A`.
    case error(String)

    /// The value as text a form definition means by it: strings as they are, whole numbers without
    /// `.0`, booleans as TRUE/FALSE, dates in ISO 8601.
    public var text: String {
        switch self {
        case .string(let string): return string
        case .number(let number): return XLSXValue.text(of: number)
        case .bool(let bool): return bool ? "TRUE" : "FALSE"
        case .date(let date): return date.iso8601
        case .error(let error): return error
        }
    }

    static func text(of number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return "\(number)"
    }
}

/// A date and time read from a cell: its calendar fields (no time zone — a spreadsheet has none)
/// and the serial number it was stored as.
public struct XLSXDateTime: Hashable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int
    public let hour: Int
    public let minute: Int
    public let second: Int
    public let millisecond: Int
    /// A time of day without a date: the serial lies in [0, 1).
    public let isTimeOnly: Bool
    /// The day number as stored, counted in the workbook's date system.
    public let serial: Double

    /// Converts a serial day number the way Excel (and openpyxl) do: milliseconds rounded; in the
    /// 1900 system day 1 is 1900-01-01 and the nonexistent 1900-02-29 is day 60, so days before it
    /// are shifted by one; in the 1904 system day 0 is 1904-01-01. Nil beyond years 1–9999.
    public init?(serial: Double, date1904: Bool) {
        guard serial.isFinite, abs(serial) < 3_000_000 else { return nil }
        var days = Int(serial.rounded(.down))
        var milliseconds = Int(((serial - Double(days)) * 86_400_000).rounded())
        if milliseconds >= 86_400_000 {
            days += 1
            milliseconds -= 86_400_000
        }
        isTimeOnly = serial >= 0 && serial < 1 && days == 0
        if !date1904 && serial > 0 && serial < 60 { days += 1 }
        // Days from 1970-01-01 to the epoch: 1899-12-30 is -25569, 1904-01-01 is -24107.
        let civil = UTCDay.civil(daysSinceEpoch: days + (date1904 ? -24_107 : -25_569))
        guard (1...9999).contains(civil.year) else { return nil }
        (year, month, day) = civil
        hour = milliseconds / 3_600_000
        minute = milliseconds / 60_000 % 60
        second = milliseconds / 1000 % 60
        millisecond = milliseconds % 1000
        self.serial = serial
    }

    /// The calendar fields, for writing: the serial is computed in the 1900 system.
    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0) {
        guard (1900...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
              (0...999).contains(millisecond) else { return nil }
        var days = UTCDay.daysSinceEpoch(year: year, month: month, day: day) + 25_569
        if days < 61 { days -= 1 }
        let fraction = Double(((hour * 60 + minute) * 60 + second) * 1000 + millisecond) / 86_400_000
        guard days >= 1, let value = XLSXDateTime(serial: Double(days) + fraction, date1904: false),
              value.year == year, value.month == month, value.day == day else { return nil }
        self = value
    }

    /// The serial number in the 1900 date system, whichever system the value was read in.
    public var serialIn1900System: Double {
        let fraction = Double(((hour * 60 + minute) * 60 + second) * 1000 + millisecond) / 86_400_000
        if isTimeOnly { return fraction }
        var days = UTCDay.daysSinceEpoch(year: year, month: month, day: day) + 25_569
        if days < 61 { days -= 1 }
        return Double(days) + fraction
    }

    /// `2024-03-05T14:30:00` (with `.250` when there are milliseconds), `14:30:00` for a time only.
    public var iso8601: String {
        var time = String(format: "%02d:%02d:%02d", hour, minute, second)
        if millisecond != 0 { time += String(format: ".%03d", millisecond) }
        if isTimeOnly { return time }
        return String(format: "%04d-%02d-%02dT", year, month, day) + time
    }

    public var description: String { iso8601 }

    /// Equal when they show the same date and time to the millisecond: two files may store the
    /// same moment as serials that differ in their last digits, or in another date system.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.fields == rhs.fields
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }

    private var fields: [Int] {
        [year, month, day, hour, minute, second, millisecond, isTimeOnly ? 1 : 0]
    }

    /// A Foundation date, reading the fields in UTC.
    public var date: Date {
        let days = UTCDay.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + Double(millisecond) / 1000
        return Date(timeIntervalSince1970: seconds)
    }

}

/// Which number formats show a number as a date or a time.
enum NumberFormat {
    /// Excel's built-in date and time formats (ECMA-376 18.8.30): 14–22 and 45–47.
    static let builtInDateIDs: Set<Int> = Set(14...22).union(45...47)

    /// A custom format shows a date when its first section has y, m, d, h or s outside quoted text
    /// and outside brackets (but `[h]`, `[mm]`, `[ss]` count), and not escaped by `\` or `_` —
    /// the rule openpyxl and Excel's readers use.
    static func isDateFormat(_ code: String) -> Bool {
        let section = code.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var characters = Array(section)
        var stripped: [Character] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "\"" {
                // Quoted literal: skip to the closing quote.
                index += 1
                while index < characters.count, characters[index] != "\"" { index += 1 }
                index += 1
                continue
            }
            if character == "[" {
                var end = index + 1
                while end < characters.count, characters[end] != "]" { end += 1 }
                let inside = String(characters[(index + 1)..<min(end, characters.count)]).lowercased()
                if ["h", "hh", "m", "mm", "s", "ss"].contains(inside) {
                    stripped.append(contentsOf: inside)
                }
                index = end + 1
                continue
            }
            stripped.append(character)
            index += 1
        }
        characters = stripped
        for (position, character) in characters.enumerated() where "dmhysDMHYS".contains(character) {
            if position > 0, characters[position - 1] == "\\" || characters[position - 1] == "_" { continue }
            return true
        }
        return false
    }
}
