import Foundation

/// Every question type MI knows, in the order messages and the office editor list them. A new
/// type is one file under `Types/` and one line here.
public enum QuestionTypes {
    public static let all: [any QuestionType.Type] = [
        MultipleChoiceQuestion.self,
        TrueFalseQuestion.self,
        ShortAnswerQuestion.self,
        NumericQuestion.self,
        TableQuestion.self,
        DateQuestion.self,
        TimeQuestion.self,
        DateTimeQuestion.self,
        RangeQuestion.self,
        NoteQuestion.self,
        GeopointQuestion.self,
        BarcodeQuestion.self,
        PhotoQuestion.self,
        AudioQuestion.self,
        VideoQuestion.self,
        CalculateQuestion.self,
    ]

    /// The type a template's `type` value names under `keys`.
    static func named(_ name: String, keys: TemplateKeys) -> (any QuestionType.Type)? {
        all.first { keys[$0.typeKey] == name }
    }

    /// Every type by its name under `keys`, as `named(_:keys:)` finds them (the first type of a
    /// name): for reading a whole template, one lookup a question.
    static func byName(keys: TemplateKeys) -> [String: any QuestionType.Type] {
        var types: [String: any QuestionType.Type] = [:]
        for type in all where types[keys[type.typeKey]] == nil { types[keys[type.typeKey]] = type }
        return types
    }
}
