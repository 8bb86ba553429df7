import Foundation

extension AnswerValue {
    /// The value as form.json stores it (and as an answers file may give it).
    public var json: JSONValue {
        switch self {
        case .text(let text): return .string(text)
        case .number(let number): return .number(number)
        case .bool(let bool): return .bool(bool)
        case .choices(let names): return .array(names.map(JSONValue.string))
        case .cells(let rows): return .array(rows.map { .array($0.map { $0.map(JSONValue.string) ?? .null }) })
        case .location(let point): return point.json
        }
    }
}

extension Form {
    /// Checks the answers a form.json holds against the form's own template copy, by the rules
    /// `mi answer` and answers files go through, for a form that arrives from elsewhere (an
    /// upload to the server): nothing given to a question that takes no answer (a note), every
    /// value one its question's type accepts as stored (`QuestionType.checkStored`: a real date
    /// in range, a point on the globe, a value on a range's step, no typed value for a photo
    /// question), and no more files than a media question takes. Throws the first problem,
    /// naming the question.
    public func checkStoredAnswers() throws {
        let slots = Dictionary(self.slots.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let logic = FormLogic(template: template)
        for (key, answer) in answers.sorted(by: { $0.key < $1.key }) {
            guard let slot = slots[key] ?? AnswerPath(parsing: key).flatMap(logic.slot(at:)) else {
                throw AnswerError(question: key, rule: "the template has no question at this path")
            }
            let rules = Workflow.rules(for: slot, in: self)
            if answer.value != nil || answer.comment != nil || !answer.media.isEmpty || answer.draft != nil {
                try rules.checkTakesAnswer()
            }
            if let value = answer.value { try slot.question.type.checkStored(value, rules: rules) }
            if !answer.media.isEmpty { try slot.question.type.checkMedia(answer.media, rules: rules) }
        }
    }
}
