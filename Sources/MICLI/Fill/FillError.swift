import MIKit

/// A line of piped `mi fill` input that the dialogue cannot use. On a terminal the same
/// situations ask again; piped, fill stops (exit 65) so a script's next line is never taken as
/// a retry. Everything saved before the line stays saved.
enum FillError: ClassifiedError, Equatable {
    /// Enter alone at a question that has neither an answer nor a comment.
    case needsAnswerOrComment(question: String)
    /// Enter alone at a photo (audio, video) question that has neither a file nor a comment.
    case needsFileOrComment(question: String, kind: String)
    /// Enter alone at a table cell that has no value yet.
    case cellNeedsValue(question: String, cell: String)
    /// At the review, a line that is neither a question number nor a command.
    case notAQuestionNumber(line: String, count: Int)

    var failureClass: FailureClass { .badData }

    var code: String {
        switch self {
        case .needsAnswerOrComment, .needsFileOrComment: return "fill-needs-answer"
        case .cellNeedsValue: return "fill-cell-needs-value"
        case .notAQuestionNumber: return "fill-not-a-question-number"
        }
    }

    var errorDescription: String? {
        switch self {
        case .needsAnswerOrComment(let question):
            return "question \(question): answer the question or add a comment (:c TEXT) before going on"
        case .needsFileOrComment(let question, let kind):
            return "question \(question): type the path of the \(kind) file, or add a comment (:c TEXT), before going on"
        case .cellNeedsValue(let question, let cell):
            return "question \(question): \(cell) needs a value"
        case .notAQuestionNumber(let line, let count):
            return "\"\(line)\" is not a question number: type a number from 1 to \(count), :s to submit, or press Enter to save and exit"
        }
    }
}
