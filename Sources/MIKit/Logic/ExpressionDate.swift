import Foundation

/// Dates as the ODK XForms specification has them: values are strings (`2026-11-26`,
/// `2026-11-26T14:30:00.000+01:00`) that `number()` turns into days since 1970-01-01 UTC. The
/// calendar arithmetic is the proleptic Gregorian one, done by hand so it never depends on the
/// machine's locale or zone (UTCDay's, shared with the rest of MIKit).
struct ExpressionDate: Equatable {
    /// Seconds since 1970-01-01T00:00:00Z.
    var seconds: Double
    /// The offset from UTC the moment is shown in, in seconds.
    var offset: Int
    var hasTime: Bool

    /// Days since 1970-01-01 UTC: a whole number for a date, with a fraction for a dateTime.
    var days: Double { seconds / 86_400 }

    /// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH[:MM]]`; impossible dates are nil.
    static func parse(_ text: String, timeZone: TimeZone) -> ExpressionDate? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 10, bytes.count <= 40 else { return nil }
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<(index + count)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            index += count
            return value
        }
        func take(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), take("-"), let month = digits(2), take("-"), let day = digits(2),
              (1...12).contains(month), day >= 1, day <= UTCDay.daysIn(month: month, year: year) else { return nil }
        let dayNumber = UTCDay.daysSinceEpoch(year: year, month: month, day: day)
        if index == bytes.count {
            return ExpressionDate(seconds: Double(dayNumber) * 86_400, offset: 0, hasTime: false)
        }
        guard take("T"), let hour = digits(2), take(":"), let minute = digits(2), hour < 24, minute < 60 else { return nil }
        var second = 0.0
        if take(":") {
            guard let whole = digits(2), whole < 60 else { return nil }
            second = Double(whole)
            if take(".") {
                var scale = 0.1
                let before = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    second += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                if index == before { return nil }
            }
        }
        let local = Double(dayNumber) * 86_400 + Double(hour * 3600 + minute * 60) + second
        var offset: Int
        if index == bytes.count {
            offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local))
            offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: local - Double(offset)))
        } else if take("Z") {
            offset = 0
        } else {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") else { return nil }
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), hours <= 14 else { return nil }
            var minutes = 0
            if index < bytes.count {
                _ = take(":")
                guard let value = digits(2), value < 60 else { return nil }
                minutes = value
            }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard index == bytes.count else { return nil }
        return ExpressionDate(seconds: local - Double(offset), offset: offset, hasTime: true)
    }

    /// A value used as a date: a date or dateTime string, or a number of days (whole days are
    /// dates; a fraction makes a moment, shown in `timeZone`). Nil for anything else, and for
    /// days beyond ±100 million (about ±270,000 years).
    static func from(_ value: ExpressionValue, timeZone: TimeZone) -> ExpressionDate? {
        switch value {
        case .number(let days):
            return fromDays(days, timeZone: timeZone)
        case .boolean:
            return nil
        case .string, .nodes:
            let text = value.stringValue.trimmingCharacters(in: .whitespaces)
            if let date = parse(text, timeZone: timeZone) { return date }
            let number = ExpressionValue.number(from: text, timeZone: timeZone)
            return number.isNaN ? nil : fromDays(number, timeZone: timeZone)
        }
    }

    static func fromDays(_ days: Double, timeZone: TimeZone) -> ExpressionDate? {
        guard days.isFinite, abs(days) < 100_000_000 else { return nil }
        if days == days.rounded() { return ExpressionDate(seconds: days * 86_400, offset: 0, hasTime: false) }
        let seconds = days * 86_400
        return ExpressionDate(seconds: seconds, offset: timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)), hasTime: true)
    }

    /// The wall-clock fields in the moment's own offset.
    var fields: (year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int, weekday: Int) {
        let local = seconds + Double(offset)
        let milliseconds = Int((local * 1000).rounded(.down))
        let dayNumber = Int((Double(milliseconds) / 86_400_000).rounded(.down))
        let inDay = milliseconds - dayNumber * 86_400_000
        let (year, month, day) = UTCDay.civil(daysSinceEpoch: dayNumber)
        let weekday = ((dayNumber % 7) + 7 + 4) % 7 // 1970-01-01 was a Thursday; 0 = Sunday
        return (year, month, day, inDay / 3_600_000, inDay / 60_000 % 60, inDay / 1000 % 60, inDay % 1000, weekday)
    }

    var dateText: String {
        let f = fields
        return "\(Self.pad(f.year, 4))-\(Self.pad(f.month, 2))-\(Self.pad(f.day, 2))"
    }

    /// Zero-padded to `width` digits (a minus sign comes first).
    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(Swift.abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
    }

    /// `2026-11-26T14:30:00.000+01:00`, as ODK's `now()` writes it.
    var dateTimeText: String {
        let f = fields
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        return "\(dateText)T\(Self.pad(f.hour, 2)):\(Self.pad(f.minute, 2)):\(Self.pad(f.second, 2)).\(Self.pad(f.millisecond, 3))"
            + "\(sign)\(Self.pad(magnitude / 3600, 2)):\(Self.pad(magnitude / 60 % 60, 2))"
    }

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// ODK's `format-date` / `format-date-time`: %Y %y %m %n %b %d %e %a %H %h %M %S %3, `%%` for
    /// a percent sign; any other `%x` is kept as written. Names are English.
    func format(_ pattern: String) -> String {
        let f = fields
        var out = ""
        var characters = pattern.makeIterator()
        while let character = characters.next() {
            guard character == "%" else { out.append(character); continue }
            guard let code = characters.next() else { out.append("%"); break }
            switch code {
            case "Y": out += ExpressionDate.pad(f.year, 4)
            case "y": out += ExpressionDate.pad(((f.year % 100) + 100) % 100, 2)
            case "m": out += ExpressionDate.pad(f.month, 2)
            case "n": out += String(f.month)
            case "b": out += ExpressionDate.monthNames[f.month - 1]
            case "d": out += ExpressionDate.pad(f.day, 2)
            case "e": out += String(f.day)
            case "a": out += ExpressionDate.dayNames[f.weekday]
            case "H": out += ExpressionDate.pad(f.hour, 2)
            case "h": out += String(f.hour)
            case "M": out += ExpressionDate.pad(f.minute, 2)
            case "S": out += ExpressionDate.pad(f.second, 2)
            case "3": out += ExpressionDate.pad(f.millisecond, 3)
            case "%": out += "%"
            default: out.append("%"); out.append(code)
            }
        }
        return out
    }
}

/// `regex()` patterns: NSRegularExpression (ICU syntax, a search like ODK's `find()`), with the
/// pattern's length limited and the shapes that backtrack exponentially refused up front: a
/// repeated group (`*`, `+`, `{n,}` or `{n,m}` with m > 1) that itself holds a repetition or an
/// alternation, such as `(a+)+` or `(a|ab)*`. Subjects are limited too (`maxRegexSubjectLength`).
enum ExpressionRegex {
    struct Refusal: Error { let message: String }

    static func compile(_ pattern: String, limits: ExpressionLimits) throws(Refusal) -> NSRegularExpression {
        if pattern.count > limits.maxRegexLength {
            throw Refusal(message: "the regex pattern has \(pattern.count) characters; at most \(limits.maxRegexLength) are allowed")
        }
        if let problem = catastrophicShape(Array(pattern)) { throw Refusal(message: problem) }
        do {
            return try NSRegularExpression(pattern: pattern, options: [])
        } catch {
            throw Refusal(message: "'\(pattern)' is not a valid regular expression")
        }
    }

    /// Finds a repeated group holding a repetition or an alternation.
    static func catastrophicShape(_ p: [Character]) -> String? {
        var stack: [(start: Int, risky: Bool)] = []
        var index = 0
        var inClass = false
        while index < p.count {
            let c = p[index]
            if c == "\\" { index += 2; continue }
            if inClass { if c == "]" { inClass = false }; index += 1; continue }
            switch c {
            case "[": inClass = true
            case "(": stack.append((index, false))
            case "|": if !stack.isEmpty { stack[stack.count - 1].risky = true }
            case "*", "+", "{":
                if !stack.isEmpty { stack[stack.count - 1].risky = true }
            case ")":
                guard let group = stack.popLast() else { break }
                if group.risky, repeats(p, after: index + 1) {
                    return "the regex repeats a group that itself repeats or has alternatives (from position \(group.start) of the pattern), which can take exponential time; rewrite it without nesting"
                }
                if group.risky, !stack.isEmpty { stack[stack.count - 1].risky = true }
            default: break
            }
            index += 1
        }
        return nil
    }

    private static func repeats(_ p: [Character], after index: Int) -> Bool {
        guard index < p.count else { return false }
        if p[index] == "*" || p[index] == "+" { return true }
        guard p[index] == "{", let close = p[index...].firstIndex(of: "}") else { return false }
        let inside = String(p[(index + 1)..<close]).split(separator: ",", omittingEmptySubsequences: false)
        if inside.count == 2 { return inside[1].isEmpty || (Int(inside[1]) ?? 2) > 1 }
        return (Int(inside.first ?? "") ?? 2) > 1
    }
}
