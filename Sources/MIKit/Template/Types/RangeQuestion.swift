import Foundation

/// `range`: a number on a scale from `start` to `end` in steps of `step` (a 1–5 rating is
/// start 1, end 5, step 1; `step` is 1 when not given), stored as a number. Off-step and
/// out-of-range values are refused naming the nearest allowed ones (`RangeRule`).
public struct RangeQuestion: QuestionType {
    public var rule: RangeRule

    public init(rule: RangeRule) { self.rule = rule }

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("range")
    public static let displayName = "Range"
    public static let keys: [TemplateKeys.Key] = [.start, .end, .step]
    public static let editorFields = [EditorField(.start, .number, "Start"), EditorField(.end, .number, "End"), EditorField(.step, .number, "Step")]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        func number(_ key: TemplateKeys.Key, default fallback: Double? = nil) -> Double? {
            guard let value = object[validator.keys[key]], value != .null else {
                if fallback == nil { validator.problem(label, key, "missing: a range needs \(validator.keys[.start]), \(validator.keys[.end]) and \(validator.keys[.step])") }
                return fallback
            }
            guard let number = value.numberValue else {
                validator.problem(label, key, "expected a number, found \(value.kindDescription)")
                return nil
            }
            return number
        }
        let start = number(.start), end = number(.end), step = number(.step, default: 1)
        guard let start, let end, let step else { return nil }
        guard step > 0 else {
            validator.problem(label, .step, "step \(formatNumber(step)) must be greater than 0 (a scale from a higher start to a lower end runs downwards by itself)")
            return nil
        }
        do {
            return Self(rule: try RangeRule(start: start, end: end, step: step))
        } catch {
            let key: TemplateKeys.Key = error.rule.hasPrefix("start and end") || error.rule.hasPrefix("end") ? .end
                : error.rule.hasPrefix("start") ? .start : .step
            validator.problem(label, key, error.rule)
            return nil
        }
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        object[keys[.start]] = .number(rule.start)
        object[keys[.end]] = .number(rule.end)
        object[keys[.step]] = .number(rule.step)
    }

    public var typeDescription: String {
        "range from \(formatNumber(rule.start)) to \(formatNumber(rule.end)) in steps of \(formatNumber(rule.step))"
    }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        do { return .number(try rule.value(fromLine: line.trimmingCharacters(in: .whitespacesAndNewlines))) } catch { throw rules.refuse(error.rule) }
    }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        if let number = json.numberValue {
            do { return .number(try rule.checked(number)) } catch { throw rules.refuse(error.rule) }
        }
        if let string = json.stringValue { return try value(fromLine: string, rules: rules) }
        throw rules.refuse("expected a number from \(formatNumber(rule.start)) to \(formatNumber(rule.end)), found \(json.kindDescription)")
    }

    // MARK: mi fill

    public var answerHint: String { "\(formatNumber(rule.start))–\(formatNumber(rule.end)) " }
    /// Every value when the scale has at most 20.
    public var completions: [String] { rule.values(limit: 20)?.map(formatNumber) ?? [] }

    // MARK: Simulation, statistics

    /// A value on the scale, roughly normal around its middle (any, on a scale of over a million steps).
    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        let count = rule.count
        guard count > 0 else { return nil }
        let index: Int
        if count <= 1_000_000 {
            let middle = Double(count - 1) / 2
            index = Int(Swift.min(Swift.max((middle + middle / 2.5 * generator.normal()).rounded(), 0), Double(count - 1)))
        } else {
            index = generator.below(count)
        }
        return rule.value(at: index).map(JSONValue.number)
    }

    public var tally: TallyShape {
        .numbers(integer: rule.start.rounded() == rule.start && rule.step.rounded() == rule.step)
    }
}

extension TemplateKeys.Key {
    public static let range = RangeQuestion.typeKey
    public static let start = TemplateKeys.Key("start")
    public static let end = TemplateKeys.Key("end")
    public static let step = TemplateKeys.Key("step")
}

extension Question.Kind {
    public static func range(start: Double, end: Double, step: Double) throws(ValueError) -> Self {
        Self(RangeQuestion(rule: try RangeRule(start: start, end: end, step: step)))
    }
}
