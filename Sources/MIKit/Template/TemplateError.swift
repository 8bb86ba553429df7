import Foundation

/// A template that cannot be used, with every problem found, each naming the question and field.
public struct TemplateError: ClassifiedError, Sendable, Equatable {
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The question's id (or its position when it has no usable id); nil for the template itself.
        public var question: String?
        /// The JSON key at fault, as the template spells it.
        public var field: String?
        public var message: String

        public init(question: String? = nil, field: String? = nil, message: String) {
            self.question = question
            self.field = field
            self.message = message
        }

        /// The problem in one line; the template's own texts in it (a hostile question id or
        /// option) are shown with their control characters escaped (`DisplayText`).
        public var description: String {
            var parts: [String] = []
            if let question { parts.append("question \(DisplayText.escaped(question))") }
            if let field { parts.append("field \"\(DisplayText.escaped(field))\"") }
            let message = DisplayText.escaped(self.message)
            return parts.isEmpty ? message : parts.joined(separator: ", ") + ": " + message
        }
    }

    /// The template's id when known, else where it came from (a file name).
    public var template: String
    public var problems: [Problem]
    public var failureClass: FailureClass { .badData }
    public init(template: String, problems: [Problem]) {
        self.template = template
        self.problems = problems
    }
    public var code: String { "invalid-template" }

    public var errorDescription: String? {
        if problems.count == 1, let only = problems.first {
            return "template \(DisplayText.escaped(template)): \(only) — correct the template (or TemplateKeys in Config.plist)"
        }
        return "template \(DisplayText.escaped(template)) has \(problems.count) problems — correct the template (or TemplateKeys in Config.plist):\n"
            + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}
