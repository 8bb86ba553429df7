import Foundation

/// The functions an expression may call, with their names as written.
public enum ExpressionFunction: String, Sendable, Equatable, CaseIterable {
    case not, `if`, coalesce, selected, countSelected = "count-selected", selectedAt = "selected-at"
    case stringLength = "string-length", regex, concat, substr, contains, startsWith = "starts-with", endsWith = "ends-with"
    case substringBefore = "substring-before", substringAfter = "substring-after", translate, normalizeSpace = "normalize-space"
    case int, number, string, boolean, booleanFromString = "boolean-from-string", round, floor, ceiling, abs, pow, sqrt, exp, exp10
    case log, log10, sin, cos, tan, asin, acos, atan, atan2, pi, min, max, sum, count, countNonEmpty = "count-non-empty", position
    case today, now, date, decimalDateTime = "decimal-date-time", formatDate = "format-date", formatDateTime = "format-date-time"
    case `true`, `false`

    /// Fewest and most arguments (nil: any number).
    public var arity: (Int, Int?) {
        switch self {
        case .true, .false, .pi, .today, .now: return (0, 0)
        case .position, .string, .number, .stringLength, .normalizeSpace: return (0, 1)
        case .not, .boolean, .booleanFromString, .int, .floor, .ceiling, .abs, .sqrt, .exp, .exp10, .log, .log10, .sin, .cos, .tan,
             .asin, .acos, .atan, .sum, .count, .countNonEmpty, .countSelected, .date, .decimalDateTime: return (1, 1)
        case .coalesce, .selected, .selectedAt, .regex, .contains, .startsWith, .endsWith, .substringBefore, .substringAfter,
             .pow, .atan2, .formatDate, .formatDateTime: return (2, 2)
        case .round: return (1, 2)
        case .substr: return (2, 3)
        case .if, .translate: return (3, 3)
        case .concat, .min, .max: return (1, nil)
        }
    }
}

/// What an evaluation reads from outside: the answers, the question's own answer, the repeat
/// position, and the clock. `resolve` is the hook that maps `${name}` to a value — the form
/// engine decides which instance (`pumps[2]/amps`) a name means from where the expression
/// stands, and returns `.nodes` for a repeat's question read from outside the repeat.
public struct ExpressionContext {
    public var resolve: (String) throws(ExpressionError) -> ExpressionValue
    /// The value of `.`.
    public var current: ExpressionValue
    /// `position()`: the 1-based number of the repeat instance the expression stands in.
    public var position: Int?
    public var now: Date
    public var timeZone: TimeZone

    public init(now: Date, timeZone: TimeZone, current: ExpressionValue = .string(""), position: Int? = nil,
                resolve: @escaping (String) throws(ExpressionError) -> ExpressionValue) {
        self.resolve = resolve
        self.current = current
        self.position = position
        self.now = now
        self.timeZone = timeZone
    }

    /// The clock and zone of the rest of MIKit (`LocalDate.today`, `OffsetDateTime.now`).
    public init(temporal: TemporalContext, current: ExpressionValue = .string(""), position: Int? = nil,
                resolve: @escaping (String) throws(ExpressionError) -> ExpressionValue) {
        self.init(now: temporal.now, timeZone: temporal.timeZone, current: current, position: position, resolve: resolve)
    }

    /// A context that reads answers from a dictionary (a missing name is `''`).
    public init(answers: [String: ExpressionValue], current: ExpressionValue = .string(""), position: Int? = nil,
                now: Date, timeZone: TimeZone) {
        self.init(now: now, timeZone: timeZone, current: current, position: position) { name throws(ExpressionError) in
            answers[name] ?? .string("")
        }
    }
}

extension Expression {
    public func evaluate(in context: ExpressionContext) throws(ExpressionError) -> ExpressionValue {
        var evaluator = ExpressionEvaluator(context: context, limits: limits, patterns: regexes.patterns)
        return try evaluator.evaluate(root)
    }

    /// For `relevant`, `constraint` and `required`: XPath's boolean() of the result.
    public func evaluateBoolean(in context: ExpressionContext) throws(ExpressionError) -> Bool {
        try evaluate(in: context).booleanValue
    }

    /// For `calculation` and `default`: XPath's string() of the result, which is what gets stored.
    public func evaluateString(in context: ExpressionContext) throws(ExpressionError) -> String {
        try evaluate(in: context).stringValue
    }
}

struct ExpressionEvaluator {
    let context: ExpressionContext
    let limits: ExpressionLimits
    let patterns: [String: NSRegularExpression]
    var work = 0

    init(context: ExpressionContext, limits: ExpressionLimits, patterns: [String: NSRegularExpression]) {
        self.context = context
        self.limits = limits
        self.patterns = patterns
    }

    private mutating func spend(_ steps: Int = 1) throws(ExpressionError) {
        work += steps
        if work > limits.maxWork {
            throw ExpressionError(.tooMuchWork, at: nil, "evaluating the expression took more than \(limits.maxWork) steps")
        }
    }

    private func checkLength(_ count: Int, at position: Int?) throws(ExpressionError) {
        if count > limits.maxStringLength {
            throw ExpressionError(.tooMuchWork, at: position, "a text in the expression grew past \(limits.maxStringLength) characters")
        }
    }

    private func number(_ value: ExpressionValue) -> Double { value.numberValue(in: context.timeZone) }

    mutating func evaluate(_ node: ExpressionNode) throws(ExpressionError) -> ExpressionValue {
        try spend()
        switch node {
        case .number(let value): return .number(value)
        case .string(let text): return .string(text)
        case .reference(let name, let position):
            do { return try context.resolve(name) } catch {
                // The resolver's refusal, placed at the reference when it did not say where.
                throw error.position == nil ? ExpressionError(error.kind, at: position, error.message) : error
            }
        case .current: return context.current
        case .negate(let operand): return .number(-number(try evaluate(operand)))
        case .binary(let op, let left, let right): return try binary(op, left, right)
        case .call(let function, let arguments, let position): return try call(function, arguments, at: position)
        }
    }

    private mutating func binary(_ op: BinaryOperator, _ leftNode: ExpressionNode, _ rightNode: ExpressionNode) throws(ExpressionError) -> ExpressionValue {
        switch op {
        case .or:
            if try evaluate(leftNode).booleanValue { return .boolean(true) }
            return .boolean(try evaluate(rightNode).booleanValue)
        case .and:
            if !(try evaluate(leftNode).booleanValue) { return .boolean(false) }
            return .boolean(try evaluate(rightNode).booleanValue)
        default: break
        }
        let left = try evaluate(leftNode)
        let right = try evaluate(rightNode)
        switch op {
        case .plus: return .number(number(left) + number(right))
        case .minus: return .number(number(left) - number(right))
        case .times: return .number(number(left) * number(right))
        case .div: return .number(number(left) / number(right))
        case .mod:
            // Truncated: the result has the sign of the dividend, as Java's and C's %.
            let (a, b) = (number(left), number(right))
            return .number(a.truncatingRemainder(dividingBy: b))
        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            try spend(left.items.count * right.items.count)
            return .boolean(compare(op, left, right))
        case .or, .and: return .boolean(false)
        }
    }

    /// XPath 1.0 §3.4, with a node list standing for a node-set.
    func compare(_ op: BinaryOperator, _ left: ExpressionValue, _ right: ExpressionValue) -> Bool {
        switch (left, right) {
        case (.nodes(let a), .nodes(let b)):
            return a.contains { x in b.contains { y in compare(op, .string(x), .string(y)) } }
        case (.nodes, .boolean):
            return compare(op, .boolean(left.booleanValue), right)
        case (.boolean, .nodes):
            return compare(op, left, .boolean(right.booleanValue))
        case (.nodes(let a), _):
            return a.contains { compare(op, .string($0), right) }
        case (_, .nodes(let b)):
            return b.contains { compare(op, left, .string($0)) }
        default: break
        }
        switch op {
        case .equal, .notEqual:
            let equal: Bool
            if case .boolean = left { equal = left.booleanValue == right.booleanValue }
            else if case .boolean = right { equal = left.booleanValue == right.booleanValue }
            else if case .number = left { equal = number(left) == number(right) }
            else if case .number = right { equal = number(left) == number(right) }
            else { equal = left.stringValue == right.stringValue }
            return op == .equal ? equal : !equal
        case .less: return number(left) < number(right)
        case .lessOrEqual: return number(left) <= number(right)
        case .greater: return number(left) > number(right)
        case .greaterOrEqual: return number(left) >= number(right)
        default: return false
        }
    }

    private mutating func call(_ function: ExpressionFunction, _ arguments: [ExpressionNode], at position: Int) throws(ExpressionError) -> ExpressionValue {
        // Lazy ones first: if() evaluates only the branch it takes.
        if function == .if {
            return try evaluate(arguments[0]).booleanValue ? evaluate(arguments[1]) : evaluate(arguments[2])
        }
        var values: [ExpressionValue] = []
        values.reserveCapacity(arguments.count)
        for argument in arguments { values.append(try evaluate(argument)) }
        func string(_ index: Int) -> String { values[index].stringValue }
        func num(_ index: Int) -> Double { number(values[index]) }
        switch function {
        case .if: return .boolean(false)
        case .true: return .boolean(true)
        case .false: return .boolean(false)
        case .not: return .boolean(!values[0].booleanValue)
        case .boolean: return .boolean(values[0].booleanValue)
        case .booleanFromString: return .boolean(["true", "1"].contains(string(0)))
        case .string: return .string(values.isEmpty ? context.current.stringValue : string(0))
        case .number: return .number(values.isEmpty ? number(context.current) : num(0))
        case .coalesce: return values[0].stringValue.isEmpty ? values[1] : values[0]
        case .selected:
            let wanted = string(1).trimmingCharacters(in: .whitespaces)
            return .boolean(Self.words(string(0)).contains(wanted))
        case .countSelected: return .number(Double(Self.words(string(0)).count))
        case .selectedAt:
            let words = Self.words(string(0))
            let index = num(1)
            guard index.isFinite, index >= 0, index < Double(words.count) else { return .string("") }
            return .string(words[Int(index)])
        case .stringLength:
            return .number(Double((values.isEmpty ? context.current.stringValue : string(0)).unicodeScalars.count))
        case .normalizeSpace:
            let text = values.isEmpty ? context.current.stringValue : string(0)
            return .string(text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " "))
        case .concat:
            var out = ""
            for value in values {
                try spend(value.items.count)
                for item in value.items {
                    try checkLength(out.utf8.count + item.utf8.count, at: position)
                    out += item
                }
            }
            return .string(out)
        case .substr:
            let characters = Array(string(0))
            let length = characters.count
            func index(_ value: Double) -> Int {
                guard !value.isNaN else { return 0 }
                let whole = value.isInfinite ? (value < 0 ? -Double(length) - 1 : Double(length)) : value.rounded(.towardZero)
                let clamped = Swift.max(-Double(length) - 1, Swift.min(Double(length), whole))
                var result = Int(clamped)
                if result < 0 { result += length }
                return Swift.max(0, Swift.min(length, result))
            }
            let start = index(num(1))
            let end = values.count > 2 ? index(num(2)) : length
            return .string(start < end ? String(characters[start..<end]) : "")
        case .contains:
            let needle = string(1)
            return .boolean(needle.isEmpty || string(0).contains(needle))
        case .startsWith: return .boolean(string(0).hasPrefix(string(1)))
        case .endsWith: return .boolean(string(0).hasSuffix(string(1)))
        case .substringBefore:
            let needle = string(1)
            guard !needle.isEmpty, let range = string(0).range(of: needle) else { return .string("") }
            return .string(String(string(0)[..<range.lowerBound]))
        case .substringAfter:
            let needle = string(1)
            if needle.isEmpty { return .string(string(0)) }
            guard let range = string(0).range(of: needle) else { return .string("") }
            return .string(String(string(0)[range.upperBound...]))
        case .translate:
            let from = Array(string(1))
            let to = Array(string(2))
            var out = ""
            for character in string(0) {
                if let index = from.firstIndex(of: character) {
                    if index < to.count { out.append(to[index]) }
                } else {
                    out.append(character)
                }
            }
            return .string(out)
        case .regex:
            let subject = string(0)
            if subject.count > limits.maxRegexSubjectLength {
                throw ExpressionError(.regex, at: position, "regex() was given a text of \(subject.count) characters; at most \(limits.maxRegexSubjectLength) are allowed")
            }
            let expression: NSRegularExpression
            if let compiled = patterns[string(1)] {
                expression = compiled
            } else {
                do { expression = try ExpressionRegex.compile(string(1), limits: limits) } catch {
                    throw ExpressionError(.regex, at: position, error.message)
                }
            }
            let range = NSRange(subject.startIndex..<subject.endIndex, in: subject)
            return .boolean(expression.firstMatch(in: subject, options: [], range: range) != nil)
        case .int: return .number(num(0).rounded(.towardZero))
        case .floor: return .number(num(0).rounded(.down))
        case .ceiling: return .number(num(0).rounded(.up))
        case .round:
            let value = num(0)
            guard values.count == 2 else { return .number(Self.xpathRound(value)) }
            // ODK's round(x, places): half away from zero at the given decimal place.
            let places = num(1).rounded(.towardZero)
            guard value.isFinite, places.isFinite else { return .number(places.isNaN ? .nan : value) }
            let scale = Foundation.pow(10, Swift.max(-308, Swift.min(308, places)))
            let scaled = Swift.abs(value) * scale
            guard scaled.isFinite else { return .number(value) }
            let rounded = Self.xpathRound(scaled) / scale
            return .number(value < 0 ? -rounded : rounded)
        case .abs: return .number(Swift.abs(num(0)))
        case .pow: return .number(Foundation.pow(num(0), num(1)))
        case .sqrt: return .number(num(0).squareRoot())
        case .exp: return .number(Foundation.exp(num(0)))
        case .exp10: return .number(Foundation.pow(10, num(0)))
        case .log: return .number(Foundation.log(num(0)))
        case .log10: return .number(Foundation.log10(num(0)))
        case .sin: return .number(Foundation.sin(num(0)))
        case .cos: return .number(Foundation.cos(num(0)))
        case .tan: return .number(Foundation.tan(num(0)))
        case .asin: return .number(Foundation.asin(num(0)))
        case .acos: return .number(Foundation.acos(num(0)))
        case .atan: return .number(Foundation.atan(num(0)))
        case .atan2: return .number(Foundation.atan2(num(0), num(1)))
        case .pi: return .number(Double.pi)
        case .min, .max:
            var result: Double?
            for value in values {
                try spend(value.items.count)
                for item in value.items {
                    let x = ExpressionValue.number(from: item, timeZone: context.timeZone)
                    if x.isNaN { return .number(.nan) }
                    result = result.map { function == .min ? Swift.min($0, x) : Swift.max($0, x) } ?? x
                }
            }
            return .number(result ?? .nan)
        case .sum:
            try spend(values[0].items.count)
            return .number(values[0].items.reduce(0) { $0 + ExpressionValue.number(from: $1, timeZone: context.timeZone) })
        case .count:
            return .number(Double(values[0].items.count))
        case .countNonEmpty:
            return .number(Double(values[0].items.filter { !$0.isEmpty }.count))
        case .position:
            guard let index = context.position else {
                throw ExpressionError(.evaluation, at: position, "position() is only meaningful inside a repeat")
            }
            return .number(Double(index))
        case .today:
            let offset = context.timeZone.secondsFromGMT(for: context.now)
            let days = ((context.now.timeIntervalSince1970 + Double(offset)) / 86_400).rounded(.down)
            return .string(ExpressionDate(seconds: days * 86_400, offset: 0, hasTime: false).dateText)
        case .now:
            let seconds = (context.now.timeIntervalSince1970 * 1000).rounded(.down) / 1000
            return .string(ExpressionDate(seconds: seconds, offset: context.timeZone.secondsFromGMT(for: context.now), hasTime: true).dateTimeText)
        case .date:
            if string(0).isEmpty { return .string("") }
            guard let moment = ExpressionDate.from(values[0], timeZone: context.timeZone) else {
                throw ExpressionError(.evaluation, at: position, "date() cannot read '\(string(0).prefix(40))' as a date")
            }
            return .string(moment.dateText)
        case .decimalDateTime:
            guard let moment = ExpressionDate.from(values[0], timeZone: context.timeZone) else { return .number(.nan) }
            return .number(moment.days)
        case .formatDate, .formatDateTime:
            guard let moment = ExpressionDate.from(values[0], timeZone: context.timeZone) else { return .string("") }
            let out = moment.format(string(1))
            try checkLength(out.utf8.count, at: position)
            return .string(out)
        }
    }

    /// XPath's round(): the closest integer, halves towards +∞; NaN, ±∞ and ±0 unchanged, and
    /// -0.5 ≤ x < 0 gives -0.
    static func xpathRound(_ value: Double) -> Double {
        guard value.isFinite, value != 0 else { return value }
        let floor = value.rounded(.down)
        let result = value - floor >= 0.5 ? floor + 1 : floor
        return result == 0 && value < 0 ? -0.0 : result
    }

    static func words(_ list: String) -> [String] {
        list.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map(String.init)
    }
}
