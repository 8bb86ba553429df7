import Foundation

/// An XPath 1.0 value. Answers are strings, as in ODK (an unanswered question is `''`, a
/// multiple-choice answer is its names separated by spaces); a reference that reaches into a
/// repeat from outside it gives `.nodes`, one string per instance, for `sum()`, `count()` & co.
public enum ExpressionValue: Sendable, Equatable {
    case number(Double)
    case string(String)
    case boolean(Bool)
    case nodes([String])

    /// XPath's `string()`: numbers without a needless fraction or exponent, `NaN`, `Infinity`,
    /// `-Infinity`, `0` for -0; booleans `true`/`false`; a node list its first item or `''`.
    public var stringValue: String {
        switch self {
        case .number(let value): return ExpressionValue.format(value)
        case .string(let text): return text
        case .boolean(let value): return value ? "true" : "false"
        case .nodes(let items): return items.first ?? ""
        }
    }

    /// XPath's `boolean()`: a number is true unless 0 or NaN, a string unless empty, a node list
    /// unless it has no items.
    public var booleanValue: Bool {
        switch self {
        case .number(let value): return value != 0 && !value.isNaN
        case .string(let text): return !text.isEmpty
        case .boolean(let value): return value
        case .nodes(let items): return !items.isEmpty
        }
    }

    /// XPath's `number()`, extended as ODK does: a date (`2026-11-26`) or dateTime string is the
    /// number of days since 1970-01-01 (UTC); a dateTime without an offset is read in `timeZone`.
    public func numberValue(in timeZone: TimeZone = TimeZone(identifier: "UTC") ?? .current) -> Double {
        switch self {
        case .number(let value): return value
        case .string(let text): return ExpressionValue.number(from: text, timeZone: timeZone)
        case .boolean(let value): return value ? 1 : 0
        case .nodes(let items): return ExpressionValue.number(from: items.first ?? "", timeZone: timeZone)
        }
    }

    /// The items a list-taking function (`sum`, `count`, `min`, `max`, `concat`) walks.
    var items: [String] {
        if case .nodes(let items) = self { return items }
        return [stringValue]
    }

    static func number(from text: String, timeZone: TimeZone) -> Double {
        // XPath: optional whitespace, optional '-', Digits ('.' Digits?)? | '.' Digits, optional whitespace.
        let bytes = Array(text.utf8)
        var start = 0
        var end = bytes.count
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        if start == end { return .nan }
        var index = start
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        var sawDot = false
        while index < end {
            let byte = bytes[index]
            if byte >= 0x30 && byte <= 0x39 { digits += 1 } else if byte == UInt8(ascii: "."), !sawDot { sawDot = true } else { break }
            index += 1
        }
        if index == end, digits > 0 {
            var literal = String(decoding: bytes[start..<end], as: UTF8.self)
            if literal.hasSuffix(".") { literal += "0" }
            if literal.hasPrefix("-.") { literal = "-0" + literal.dropFirst() } else if literal.hasPrefix(".") { literal = "0" + literal }
            return Double(literal) ?? .nan
        }
        if let moment = ExpressionDate.parse(String(decoding: bytes[start..<end], as: UTF8.self), timeZone: timeZone) {
            return moment.days
        }
        return .nan
    }

    /// XPath 1.0's string form of a number.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        // Swift's description is the shortest text that reads back as the same Double; XPath
        // wants it without an exponent.
        let shortest = "\(value)"
        guard let e = shortest.firstIndex(where: { $0 == "e" || $0 == "E" }), let exponent = Int(shortest[shortest.index(after: e)...]) else {
            return shortest.hasSuffix(".0") ? String(shortest.dropLast(2)) : shortest
        }
        var mantissa = String(shortest[..<e])
        let negative = mantissa.hasPrefix("-")
        if negative { mantissa.removeFirst() }
        let parts = mantissa.split(separator: ".", omittingEmptySubsequences: false)
        let whole = String(parts[0])
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        if fraction == "0" { fraction = "" }
        var digits = whole + fraction
        var point = whole.count + exponent
        if point <= 0 {
            digits = String(repeating: "0", count: -point + 1) + digits
            point = 1
        } else if point > digits.count {
            digits += String(repeating: "0", count: point - digits.count)
        }
        var result = String(digits.prefix(point))
        let rest = String(digits.dropFirst(point)).replacingOccurrences(of: "0+$", with: "", options: .regularExpression)
        if !rest.isEmpty { result += "." + rest }
        while result.count > 1, result.hasPrefix("0"), !result.hasPrefix("0.") { result.removeFirst() }
        return (negative ? "-" : "") + result
    }
}
