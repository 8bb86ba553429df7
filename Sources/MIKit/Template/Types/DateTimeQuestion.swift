import Foundation

/// `dateTime`: a date and time with the offset of the zone it was answered in, stored as ISO
/// 8601 `2026-11-26T14:30:00-06:00`; typed as `2026-11-26T14:30` (placed in the form's zone),
/// with an offset (`…T14:30+01:00`, `…Z`), or `now`; within optional `min` and `max` (ISO text
/// in the template, read in UTC when it gives no offset), compared as instants.
public struct DateTimeQuestion: QuestionType {
    public var min: OffsetDateTime?
    public var max: OffsetDateTime?

    public init(min: OffsetDateTime? = nil, max: OffsetDateTime? = nil) {
        self.min = min
        self.max = max
    }

    static let utc = TimeZone(secondsFromGMT: 0) ?? .current

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("dateTime")
    public static let displayName = "Date and time"
    public static let keys: [TemplateKeys.Key] = [.min, .max]
    public static let editorFields = [EditorField(.min, .dateTime, "Earliest"), EditorField(.max, .dateTime, "Latest")]

    public static func decode(_ object: [String: JSONValue], question label: String, validator: inout TemplateValidator) -> Self? {
        let bounds = TemporalBounds<OffsetDateTime>.decode(object, question: label, validator: &validator) { text throws(ValueError) in
            try OffsetDateTime.parse(text, timeZone: utc)
        }
        return Self(min: bounds.min, max: bounds.max)
    }

    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {
        TemporalBounds.encode(min: min, max: max, into: &object, keys: keys)
    }

    public var typeDescription: String { "date and time" + TemporalBounds.description(min: min, max: max) }

    /// Equal bounds: the same instant written with the same offset.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.min?.isoString == rhs.min?.isoString && lhs.max?.isoString == rhs.max?.isoString }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        let moment = try TemporalBounds.read(line, rules) { text throws(ValueError) in try OffsetDateTime.parse(text, context: rules.temporal) }
        return .text(try TemporalBounds.checked(moment, min: min, max: max, rules).isoString)
    }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        guard let string = json.stringValue else {
            throw rules.refuse("expected a date and time as text (\(OffsetDateTime.accepted)), found \(json.kindDescription)")
        }
        return try value(fromLine: string, rules: rules)
    }

    // MARK: mi fill

    public var answerHint: String { "Date and time YYYY-MM-DDTHH:MM " }
    public var completions: [String] { ["now"] }

    // MARK: Simulation, statistics

    /// Without a form to place it by: around 2026-11-26, in UTC.
    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? {
        simulatedValue(&generator, context: SimulationContext(temporal: TemporalContext(now: Date(timeIntervalSince1970: 1_795_651_200), timeZone: Self.utc)))
    }

    /// A day from 60 days before the form was started to 30 after and a time in working hours
    /// (07:00–18:00, on the quarter hour), in the form's zone, within `min` and `max`.
    public func simulatedValue(_ generator: inout SeededGenerator, context: SimulationContext) -> JSONValue? {
        let today = LocalDate.today(context.temporal)
        let low = min.map { $0.secondsSinceEpoch }, high = max.map { $0.secondsSinceEpoch }
        guard let day = SimulatedDays.day(around: today.daysSinceEpoch, min: low.map { $0 / 86_400 - 1 }, max: high.map { $0 / 86_400 + 1 }, &generator),
              let date = today.adding(days: day - today.daysSinceEpoch) else { return nil }
        let quarter = generator.int(in: 28...72) * 15 * 60
        let time = LocalTime(unchecked: quarter / 3600, quarter / 60 % 60, 0)
        guard var moment = try? OffsetDateTime(date: date, time: time, in: context.temporal.timeZone) else { return nil }
        // A window clipped to the bounds may still leave the drawn moment just outside them.
        if let min, moment < min { moment = min }
        if let max, moment > max { moment = max }
        return .string(moment.isoString)
    }

    public var tally: TallyShape { .days }
}

extension TemplateKeys.Key {
    public static let dateTime = DateTimeQuestion.typeKey
}

extension Question.Kind {
    public static func dateTime(min: OffsetDateTime? = nil, max: OffsetDateTime? = nil) -> Self {
        Self(DateTimeQuestion(min: min, max: max))
    }
}
