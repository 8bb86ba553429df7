import Foundation

/// `shortAnswer`: text as typed, trimmed, at most 10,000 characters.
public struct ShortAnswerQuestion: QuestionType {
    public init() {}

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("shortAnswer")
    public static let displayName = "Short answer"
    public static let keys: [TemplateKeys.Key] = []

    public static func decode(_ object: [String: JSONValue], question: String, validator: inout TemplateValidator) -> Self? { Self() }
    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {}

    public var typeDescription: String { "short answer" }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue { try rules.text(line) }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        guard let string = json.stringValue else { throw rules.refuse("expected text, found \(json.kindDescription)") }
        return try rules.text(string)
    }

    // MARK: Simulation, statistics

    /// Plausible short answers.
    static let words = [
        "OK", "Clean", "Minor wear", "Replaced seal", "Leak at flange", "Loose bolt tightened",
        "Needs follow-up", "Corrosion on casing", "Within tolerance", "Noise at start-up",
        "Filter changed", "Label missing", "Painted", "Vibration normal", "Oil topped up",
    ]

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? { .string(generator.pick(Self.words)) }

    public var tally: TallyShape { .texts }
}

extension TemplateKeys.Key {
    public static let shortAnswer = ShortAnswerQuestion.typeKey
}

extension Question.Kind {
    public static let shortAnswer = Self(ShortAnswerQuestion())
}
