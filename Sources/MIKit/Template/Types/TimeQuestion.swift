import Foundation

/// `time`: a time of day on the 24-hour clock, stored as `14:30` (`14:30:05` when it has
/// seconds); typed as `14:30`, `14:30:05` or `now` (the time in the form's zone), within
/// optional `min` and `max` (`HH:MM` in the template). `25:00` and `2:30 pm` are refused with
/// what to write (`LocalTime.parse`).
public struct TimeQuestion: QuestionType {
    public var min: LocalTime?
    public var max: LocalTime?

    public init(min: LocalTime? = nil, max: LocalTime? = nil) {
        self.min = min
        self.max = max
    }

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("time")
    public static let displayName = "Time"
    public static let keys: [TemplateKeys.Key] = [.min, .max]
    public static let editorFields = [EditorField(.min, .time, "Earliest time"), EditorField(.max, .time, "Latest time")]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        let bounds = TemporalBounds<LocalTime>.decode(object, question: label, validator: &validator, parse: LocalTime.parse)
        return Self(min: bounds.min, max: bounds.max)
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        if let min { object[keys[.min]] = .string(min.shortString) }
        if let max { object[keys[.max]] = .string(max.shortString) }
    }

    public var typeDescription: String {
        switch (min, max) {
        case let (min?, max?): return "time from \(min.shortString) to \(max.shortString)"
        case let (min?, nil): return "time from \(min.shortString)"
        case let (nil, max?): return "time until \(max.shortString)"
        case (nil, nil): return "time"
        }
    }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        let time = try TemporalBounds.read(line, rules) { text throws(ValueError) in try LocalTime.parse(text, context: rules.temporal) }
        return .text(try TemporalBounds.checked(time, min: min, max: max, rules).shortString)
    }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        guard let string = json.stringValue else { throw rules.refuse("expected a time as text (\(LocalTime.accepted)), found \(json.kindDescription)") }
        return try value(fromLine: string, rules: rules)
    }

    // MARK: mi fill

    public var answerHint: String { "Time HH:MM " }
    public var completions: [String] { ["now"] }

    // MARK: Simulation, statistics

    /// A time in working hours, 07:00 to 18:00, on the quarter hour (within `min` and `max`;
    /// anywhere between them when working hours miss them).
    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        let quarter = 15 * 60
        var low = 7 * 3600, high = 18 * 3600
        if let min { low = Swift.max(low, min.secondOfDay) }
        if let max { high = Swift.min(high, max.secondOfDay) }
        if low > high { (low, high) = (min?.secondOfDay ?? 0, max?.secondOfDay ?? 86_399) }
        let first = (low + quarter - 1) / quarter, last = high / quarter
        let second = first <= last ? generator.int(in: first...last) * quarter : (low > high ? nil : generator.int(in: low...high))
        guard let second else { return nil }
        return .string(LocalTime(unchecked: second / 3600, second / 60 % 60, second % 60).shortString)
    }

    public var tally: TallyShape { .hours }
}

extension TemplateKeys.Key {
    public static let time = TimeQuestion.typeKey
}

extension Question.Kind {
    public static func time(min: LocalTime? = nil, max: LocalTime? = nil) -> Self { Self(TimeQuestion(min: min, max: max)) }
}
