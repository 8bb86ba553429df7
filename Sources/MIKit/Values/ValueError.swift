import Foundation

/// A typed or stored value that breaks a rule of its kind (a date that does not exist, a point
/// off the globe, a rating off the scale). `rule` says what is wrong and what is accepted, without
/// naming the question: a question type wraps it as `AnswerError(question:rule:)`, and a template
/// check names the template and key.
public struct ValueError: ClassifiedError, Sendable, Equatable {
    public let rule: String

    public init(_ rule: String) { self.rule = rule }

    public var errorDescription: String? { rule }
    public var failureClass: FailureClass { .badData }
    public var code: String { "invalid-value" }

    /// `"text"` for a message: control and invisible characters escaped, cut to 60 characters so
    /// that a pasted page does not become the message.
    static func quoted(_ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "\"\(SafeName.printable(shown))\""
    }
}
