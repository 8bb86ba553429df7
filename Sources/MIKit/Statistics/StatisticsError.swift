import Foundation

/// Statistics that cannot be computed as asked.
public enum StatisticsError: ClassifiedError, Equatable {
    /// The group-by question is not a question of the template.
    case unknownGroupBy(question: String, template: String, choices: [String])
    /// The group-by question is a question of another type than multiple choice or true/false.
    case groupByNotChoice(question: String, type: String, choices: [String])
    /// A technician asked for another technician's forms.
    case otherTechnician(user: String, actor: String)

    public var failureClass: FailureClass {
        switch self {
        case .unknownGroupBy, .groupByNotChoice: return .usage
        case .otherTechnician: return .notPermitted
        }
    }

    public var code: String {
        switch self {
        case .unknownGroupBy: return "unknown-group-by"
        case .groupByNotChoice: return "group-by-not-choice"
        case .otherTechnician: return "other-technician"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .unknownGroupBy(let question, let template, let choices):
            return "template \(SafeName.printable(template)) has no question \"\(SafeName.printable(question))\" to group by"
                + Self.hint(choices)
        case .groupByNotChoice(let question, let type, let choices):
            return "question \(SafeName.printable(question)) is \(type) — only a multiple-choice or true/false question can group forms"
                + Self.hint(choices)
        case .otherTechnician(let user, let actor):
            return "\(SafeName.printable(actor)) is a technician and sees only their own forms, not \(SafeName.printable(user))'s "
                + "— leave out the user, or ask a foreman"
        }
    }

    private static func hint(_ choices: [String]) -> String {
        choices.isEmpty ? " (it has no multiple-choice or true/false question)"
            : " — give one of: " + choices.map(SafeName.printable).joined(separator: ", ")
    }
}
