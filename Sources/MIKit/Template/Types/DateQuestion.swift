import Foundation

/// `date`: a calendar date, stored as ISO 8601 `2026-11-26`; typed as `2026-11-26` or `today`
/// (the date in the form's zone), within optional `min` and `max` (ISO dates in the template).
/// A day/month order (`03/04/2026`) is refused, never guessed (`LocalDate.parse`).
public struct DateQuestion: QuestionType {
    public var min: LocalDate?
    public var max: LocalDate?

    public init(min: LocalDate? = nil, max: LocalDate? = nil) {
        self.min = min
        self.max = max
    }

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("date")
    public static let displayName = "Date"
    public static let keys: [TemplateKeys.Key] = [.min, .max]
    public static let editorFields = [EditorField(.min, .date, "Earliest date"), EditorField(.max, .date, "Latest date")]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        let bounds = TemporalBounds<LocalDate>.decode(object, question: label, validator: &validator, parse: LocalDate.parse)
        return Self(min: bounds.min, max: bounds.max)
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        TemporalBounds.encode(min: min, max: max, into: &object, keys: keys)
    }

    public var typeDescription: String { "date" + TemporalBounds.description(min: min, max: max) }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        let date = try TemporalBounds.read(line, rules) { text throws(ValueError) in try LocalDate.parse(text, context: rules.temporal) }
        return .text(try TemporalBounds.checked(date, min: min, max: max, rules).isoString)
    }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        guard let string = json.stringValue else { throw rules.refuse("expected a date as text (\(LocalDate.accepted)), found \(json.kindDescription)") }
        return try value(fromLine: string, rules: rules)
    }

    // MARK: mi fill

    public var answerHint: String { "Date YYYY-MM-DD " }
    public var completions: [String] { ["today"] }

    // MARK: Simulation, statistics

    /// Without a form to place it by: a date in the window around 2026-11-26.
    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        simulatedValue(&generator, context: SimulationContext(temporal: TemporalContext(now: Date(timeIntervalSince1970: 1_795_651_200), timeZone: TimeZone(secondsFromGMT: 0) ?? .current)))
    }

    /// A date from 60 days before the form was started to 30 days after (kept within `min` and
    /// `max`; anywhere between them when the window misses them).
    public func simulatedValue(_ generator: inout SeededGenerator, context: SimulationContext) -> JSONValue? {
        let today = LocalDate.today(context.temporal)
        guard let day = SimulatedDays.day(around: today.daysSinceEpoch, min: min?.daysSinceEpoch, max: max?.daysSinceEpoch, &generator),
              let date = today.adding(days: day - today.daysSinceEpoch) else { return nil }
        return .string(date.isoString)
    }

    public var tally: TallyShape { .days }
}

/// The `min` / `max` of a date, time or date-and-time question, and the reading and checking
/// its three types share.
enum TemporalBounds<Value: BoundedValue> {
    /// `min` and `max` as ISO text of the type (`parse` reads them; no `today` / `now` in a
    /// template), each refused naming the template, the question and the key.
    static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator,
                       parse: (String) throws(ValueError) -> Value) -> (min: Value?, max: Value?) {
        func bound(_ key: TemplateKeys.Key) -> Value? {
            guard let value = object[validator.keys[key]], value != .null else { return nil }
            guard let text = value.stringValue else {
                validator.problem(label, key, "expected a \(Value.noun) as ISO 8601 text, found \(value.kindDescription)")
                return nil
            }
            do { return try parse(text) } catch {
                validator.problem(label, key, error.rule)
                return nil
            }
        }
        let min = bound(.min)
        let max = bound(.max)
        if let min, let max, max < min {
            validator.problem(label, .min, "min \(min.isoString) is after max \(max.isoString)")
        }
        return (min, max)
    }

    /// One typed line read by `parse`, refused naming the question.
    static func read(_ line: String, _ rules: AnswerRules, _ parse: (String) throws(ValueError) -> Value) throws -> Value {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        do { return try parse(trimmed) } catch { throw rules.refuse(error.rule) }
    }

    static func checked(_ value: Value, min: Value?, max: Value?, _ rules: AnswerRules) throws -> Value {
        do { return try value.checked(min: min, max: max) } catch { throw rules.refuse(error.rule) }
    }
}

extension TemporalBounds {
    static func encode(min: Value?, max: Value?, into object: inout [String: JSONValue], keys: TemplateKeys) {
        if let min { object[keys[.min]] = .string(min.isoString) }
        if let max { object[keys[.max]] = .string(max.isoString) }
    }

    static func description(min: Value?, max: Value?) -> String {
        switch (min, max) {
        case let (min?, max?): return " from \(min.isoString) to \(max.isoString)"
        case let (min?, nil): return " from \(min.isoString)"
        case let (nil, max?): return " until \(max.isoString)"
        case (nil, nil): return ""
        }
    }
}

/// What the simulated dates of `date` and `dateTime` questions are drawn from.
enum SimulatedDays {
    /// A day (days since 1970-01-01) from 60 days before `center` to 30 after, within `min`…`max`;
    /// anywhere in `min`…`max` when the window lies outside it; nil when `min` is after `max`.
    static func day(around center: Int, min: Int?, max: Int?, _ generator: inout SeededGenerator) -> Int? {
        var low = center - 60, high = center + 30
        if let min { low = Swift.max(low, min) }
        if let max { high = Swift.min(high, max) }
        if low > high {
            low = min ?? (max.map { $0 - 90 } ?? center)
            high = max ?? (low + 90)
        }
        guard low <= high else { return nil }
        return generator.int(in: low...high)
    }
}

extension TemplateKeys.Key {
    public static let date = DateQuestion.typeKey
}

extension Question.Kind {
    public static func date(min: LocalDate? = nil, max: LocalDate? = nil) -> Self { Self(DateQuestion(min: min, max: max)) }
}
