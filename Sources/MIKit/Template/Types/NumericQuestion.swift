import Foundation

/// `numeric`: a number (with a dot), whole when `integer`, within optional `min` and `max`.
public struct NumericQuestion: QuestionType {
    public var integer: Bool
    public var min: Double?
    public var max: Double?

    public init(integer: Bool, min: Double?, max: Double?) {
        self.integer = integer
        self.min = min
        self.max = max
    }

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("numeric")
    public static let displayName = "Number"
    public static let keys: [TemplateKeys.Key] = [.integer, .min, .max]
    public static let editorFields = [
        EditorField(.integer, .flag, "Whole numbers only"), EditorField(.min, .number, "Minimum"), EditorField(.max, .number, "Maximum"),
    ]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        var integer = false
        if let value = object[validator.keys[.integer]] {
            if let bool = value.boolValue { integer = bool } else {
                validator.problem(label, .integer, "expected true or false, found \(value.kindDescription)")
            }
        }
        func bound(_ key: TemplateKeys.Key) -> Double? {
            guard let value = object[validator.keys[key]], value != .null else { return nil }
            guard let number = value.numberValue else {
                validator.problem(label, key, "expected a number, found \(value.kindDescription)")
                return nil
            }
            if integer, number.rounded() != number {
                validator.problem(label, key, "\(formatNumber(number)) is not a whole number, but the question takes whole numbers")
            }
            return number
        }
        let min = bound(.min)
        let max = bound(.max)
        if let min, let max, min > max {
            validator.problem(label, .min, "min \(formatNumber(min)) is greater than max \(formatNumber(max))")
        }
        return Self(integer: integer, min: min, max: max)
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        object[keys[.integer]] = .bool(integer)
        if let min { object[keys[.min]] = .number(min) }
        if let max { object[keys[.max]] = .number(max) }
    }

    public var typeDescription: String {
        var text = integer ? "whole number" : "number"
        switch (min, max) {
        case let (min?, max?): text += " from \(formatNumber(min)) to \(formatNumber(max))"
        case let (min?, nil): text += " of at least \(formatNumber(min))"
        case let (nil, max?): text += " of at most \(formatNumber(max))"
        case (nil, nil): break
        }
        return text
    }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        let words = trimmed.split(whereSeparator: \.isWhitespace)
        guard words.count <= 1 else { throw rules.refuse("expected one number, got \(words.count) values") }
        return try number(trimmed, rules)
    }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        if let number = json.numberValue { return try check(number, rules) }
        if let string = json.stringValue { return try number(string, rules) }
        throw rules.refuse("expected a number, found \(json.kindDescription)")
    }

    /// A stored number is kept even outside `min`…`max` or not whole, as a form written elsewhere
    /// may hold one: the scorers have rules for such values (IPAQ leaves out a case with days
    /// over 7) and the server scores what it received. Only a value that is not a number is refused.
    public func checkStored(_ stored: AnswerValue, rules: AnswerRules) throws {
        guard case .number(let number) = stored, number.isFinite else {
            throw rules.refuse("expected a number, found \"\(stored.display)\"")
        }
    }

    func number(_ string: String, _ rules: AnswerRules) throws -> AnswerValue {
        let trimmed = string.trimmingCharacters(in: .whitespaces)
        guard let number = Double(trimmed), number.isFinite else {
            if AnswerRules.isDecimalComma(trimmed) {
                throw rules.refuse("\"\(trimmed)\" is not a number — use a dot: \(trimmed.replacingOccurrences(of: ",", with: "."))")
            }
            throw rules.refuse("\"\(string)\" is not a number")
        }
        return try check(number, rules)
    }

    func check(_ number: Double, _ rules: AnswerRules) throws -> AnswerValue {
        guard number.isFinite else { throw rules.refuse("not a finite number") }
        if integer, number.rounded() != number { throw rules.refuse("\(formatNumber(number)) is not a whole number") }
        if let min, number < min { throw rules.refuse("\(formatNumber(number)) is below the minimum \(formatNumber(min))") }
        if let max, number > max { throw rules.refuse("\(formatNumber(number)) is above the maximum \(formatNumber(max))") }
        return .number(number)
    }

    // MARK: mi fill

    public var answerHint: String { "Number " }

    // MARK: Simulation, statistics

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        Self.simulated(integer: integer, min: min, max: max, &generator).map(JSONValue.number)
    }

    /// Roughly normal around the middle of the range, clamped to it; whole when `integer`.
    static func simulated(integer: Bool, min: Double?, max: Double?, _ generator: inout SeededGenerator) -> Double? {
        var low = min ?? (max.map { $0 - 100 } ?? 0)
        var high = max ?? (min.map { $0 + 100 } ?? 100)
        if integer { (low, high) = (low.rounded(.up), high.rounded(.down)) }
        guard low <= high else { return nil }
        let middle = (low + high) / 2
        let spread = (high - low) / 6
        var value = Swift.min(Swift.max(middle + spread * generator.normal(), low), high)
        value = integer ? value.rounded() : (value * 100).rounded() / 100
        return Swift.min(Swift.max(value, low), high)
    }

    public var tally: TallyShape { .numbers(integer: integer) }
}

extension TemplateKeys.Key {
    public static let numeric = NumericQuestion.typeKey
    public static let integer = TemplateKeys.Key("integer")
    public static let min = TemplateKeys.Key("min")
    public static let max = TemplateKeys.Key("max")
}

extension Question.Kind {
    public static func numeric(integer: Bool, min: Double?, max: Double?) -> Self {
        Self(NumericQuestion(integer: integer, min: min, max: max))
    }
}
