import Foundation

/// `trueFalse`: true or false (typed as true/false, yes/no, t/f, y/n or 1/0).
public struct TrueFalseQuestion: QuestionType {
    public init() {}

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("trueFalse")
    public static let displayName = "True / false"
    public static let keys: [TemplateKeys.Key] = []

    public static func decode(_ object: [String: JSONValue], question: String, validator: inout TemplateValidator) -> Self? { Self() }
    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {}

    public var typeDescription: String { "true/false" }

    // MARK: Answers

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        let words = trimmed.split(whereSeparator: \.isWhitespace)
        guard words.count <= 1 else { throw rules.refuse("expected one of true or false, got \(words.count) values") }
        return try rules.truth(trimmed)
    }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        if let bool = json.boolValue { return .bool(bool) }
        if let string = json.stringValue { return try rules.truth(string) }
        throw rules.refuse("expected true or false, found \(json.kindDescription)")
    }

    // MARK: mi fill

    public var answerHint: String { "true/false " }

    // MARK: Simulation, statistics, exports

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? { .bool(generator.chance(0.5)) }

    public var tally: TallyShape { .choices(labels: ["true", "false"], multipleAnswers: false) }

    // MARK: Presentation

    public func presentation(of value: AnswerValue?) -> AnswerShape? {
        switch value {
        case .bool(let yes)?: return .yesNo(yes)
        case let other?: return .text(other.display)
        case nil: return nil
        }
    }
}

extension TemplateKeys.Key {
    public static let trueFalse = TrueFalseQuestion.typeKey
}

extension Question.Kind {
    public static let trueFalse = Self(TrueFalseQuestion())
}
