import Foundation

/// Fills forms with valid random answers, reproducibly from a seed (seed 002's simulated
/// repository): enough realistic data to try the statistics, exports and reports without real
/// inspections. Every value goes through the same `AnswerRules` a typed answer goes through, and
/// the form is marked `simulated` in its audit trail so it is never mistaken for a real one.
public struct Simulator: Sendable {
    /// The share of questions left with a comment instead of an answer, as technicians do when
    /// something cannot be inspected.
    public static let commentOnlyRate = 0.05

    /// Why a question was not answered.
    static let comments = [
        "Not accessible today", "Area closed for maintenance", "Instrument missing",
        "Could not check: equipment running", "Ask the operator next visit",
    ]

    public private(set) var generator: SeededGenerator

    public init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    /// Answers (or comments) for every question of `template` that takes one, as an answers
    /// file would give them; dates are drawn around `context.now`, in its zone (the form's start).
    public mutating func updates(for template: Template, context: TemporalContext = .system()) -> [AnswerUpdate] {
        template.questions.filter(\.type.takesAnswer).map { question in
            if generator.chance(Self.commentOnlyRate) {
                return AnswerUpdate(question: question.id, value: nil, comment: generator.pick(Self.comments))
            }
            guard let value = question.type.simulatedValue(&generator, context: context) else {
                return AnswerUpdate(question: question.id, value: nil, comment: question.type.simulatedStandIn)
            }
            return AnswerUpdate(question: question.id, value: .json(value))
        }
    }

    /// Fills `form` with answers for every question, checked by `AnswerRules`, and records that
    /// they are simulated. Throws (leaving `form` unchanged) only if a rule refuses a value,
    /// which would be a defect of the simulator.
    public mutating func fill(_ form: inout Form, by user: String, at date: Date) throws {
        var filled = form
        filled.record(AuditEvent(at: date, by: user, action: .simulated))
        let changed = try Workflow.apply(updates(for: form.template, context: form.temporalContext(now: form.createdAt)), to: &filled)
        filled.record(AuditEvent(at: date, by: user, action: .answered, questions: changed))
        form = filled
    }
}
