import Foundation

/// `note`: text shown in its place among the questions (a heading, an instruction), never
/// answered. It is never open (completion, `mi submit`, counts), has no CSV column, is left out
/// of statistics, and `mi answer` to it is refused; `mi fill` shows it and moves on.
public struct NoteQuestion: QuestionType {
    public init() {}

    // MARK: Template keys

    public static let typeKey = TemplateKeys.Key("note")
    public static let displayName = "Note"
    public static let keys: [TemplateKeys.Key] = []

    public static func decode(_ object: [String: JSONValue], question: String, validator: inout TemplateValidator) -> Self? { Self() }
    public func encode(into object: inout [String: JSONValue], keys: TemplateKeys) {}

    public var typeDescription: String { "note" }

    // MARK: Answers

    public var takesAnswer: Bool { false }

    public func value(fromLine line: String, rules: AnswerRules) throws -> AnswerValue { throw Self.refusal(rules) }
    public func value(fromJSON json: JSONValue, rules: AnswerRules) throws -> AnswerValue { throw Self.refusal(rules) }

    static func refusal(_ rules: AnswerRules) -> AnswerError {
        rules.refuse("this is a note: it shows text and takes no answer, comment or media")
    }

    // MARK: Simulation, statistics, exports, search

    public func simulatedValue(_ generator: inout SeededGenerator) -> JSONValue? { nil }
    public var tally: TallyShape { .notCounted }
    public func csvHeader(question id: String) -> [String] { [] }
    public func csvCells(_ value: AnswerValue?, question id: String, form: Form) -> [String] { [] }
    public func searchText(_ value: AnswerValue) -> String? { nil }

    // MARK: Presentation

    public func presentation(of value: AnswerValue?) -> AnswerShape? { .note }
}

extension TemplateKeys.Key {
    public static let note = NoteQuestion.typeKey
}

extension Question.Kind {
    public static let note = Self(NoteQuestion())
}
