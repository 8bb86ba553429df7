import Foundation

/// `calculate`: a hidden question that holds the value of its `calculation` (form logic,
/// `QuestionLogic`), as XLSForm's `calculate` rows. It is never asked and never open; `mi answer`
/// refuses it; `FormLogic` recomputes its value whenever an input changes, and mi-server
/// recomputes it at upload rather than trusting form.json. Other expressions read it as
/// `${id}`; readers and exports show the value as text.
public struct CalculateQuestion: QuestionType {
    public init() {}

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("calculate")
    public static let displayName = "Calculation"
    public static let keys: [TemplateKeys.Key] = []

    public static func decode(_ object: [String: JSONValue], question: String, validator: inout TemplateValidator) -> Self? { Self() }
    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {}

    public var typeDescription: String { "calculation" }

    // MARK: Answers

    /// The value as computed (what `FormLogic` stores): text.
    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue { .text(line) }

    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue {
        switch json {
        case .string(let text): return .text(text)
        case .number(let number): return .text(ExpressionValue.format(number))
        case .bool(let flag): return .text(flag ? "true" : "false")
        case .null, .array, .object: throw rules.refuse("expected the calculated value as text, found \(json.kindDescription)")
        }
    }

    public var holdsCalculation: Bool { true }

    /// Computed, never answered: done whatever it holds.
    public func isDone(_ answer: Answer) -> Bool { true }

    // MARK: Simulation, statistics, exports, search

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? { nil }
    public var tally: TallyShape { .texts }
}

extension TemplateKeys.Key {
    public static let calculate = CalculateQuestion.typeKey
}

extension Question.Kind {
    public static let calculate = Self(CalculateQuestion())
}
