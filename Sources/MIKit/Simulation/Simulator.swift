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
    /// file would give them; dates are drawn around `context.temporal.now`, in its zone (the
    /// form's start), locations near `context.near`.
    public mutating func updates(for template: Template, context: SimulationContext = SimulationContext(temporal: .system())) -> [AnswerUpdate] {
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
    /// Locations are drawn near `near` (a place drawn from the seed when nil); a template that
    /// records where a form is started gets a start location there too.
    public mutating func fill(_ form: inout Form, by user: String, at date: Date, near: Geopoint? = nil) throws {
        var filled = form
        filled.record(AuditEvent(at: date, by: user, action: .simulated))
        let base = near ?? Geopoint.simulationBase(seed: generator.seed)
        if filled.template.captureLocation, filled.startLocation == nil, let base {
            filled.startLocation = Geopoint.simulated(near: base, &generator)
        }
        let context = SimulationContext(temporal: form.temporalContext(now: form.createdAt), near: base)
        let changed = try form.template.hasLogic
            ? fillFollowingLogic(&filled, context: context, at: date)
            : Workflow.apply(updates(for: form.template, context: context), to: &filled)
        filled.record(AuditEvent(at: date, by: user, action: .answered, questions: changed))
        form = filled
    }

    /// How many values are drawn for a question whose constraint refuses them before a comment
    /// is left instead.
    public static let constraintAttempts = 8

    /// Answers a template with form logic question by question, in order, as `mi fill` would:
    /// only the questions asked (relevant, neither calculated nor read-only); a value the
    /// constraint refuses is drawn again up to `constraintAttempts` times, then a comment is left
    /// (a required question so left keeps the form from `mi submit`, as it would a technician's).
    /// A choice filter narrows the options drawn from.
    mutating func fillFollowingLogic(_ form: inout Form, context: SimulationContext, at date: Date) -> [String] {
        let logic = FormLogic(template: form.template)
        var changed: [String] = []
        for question in form.template.questions where logic.isAsked(question, in: form, now: date) {
            let optional = logic.isRequired(question, in: form, now: date) != true
            if optional, generator.chance(Self.commentOnlyRate) {
                if (try? Workflow.apply([AnswerUpdate(question: question.id, value: nil, comment: generator.pick(Self.comments))],
                                        to: &form, now: date)) != nil { changed.append(question.id) }
                continue
            }
            var answered = false
            for _ in 0..<Self.constraintAttempts {
                guard let value = simulatedValue(question, logic: logic, form: form, context: context, now: date) else { break }
                if (try? Workflow.apply([AnswerUpdate(question: question.id, value: .json(value))], to: &form, now: date)) != nil {
                    answered = true
                    break
                }
            }
            if !answered {
                _ = try? Workflow.apply([AnswerUpdate(question: question.id, value: nil, comment: question.type.simulatedStandIn)],
                                        to: &form, now: date)
            }
            changed.append(question.id)
        }
        return changed
    }

    /// A value drawn by the question's type; for a filtered multiple choice, from the options
    /// the filter lets through.
    mutating func simulatedValue(_ question: Question, logic: FormLogic, form: Form, context: SimulationContext, now: Date) -> JSONValue? {
        if question.logic.choiceFilter != nil, let names = logic.choiceNames(question, in: form, now: now) {
            guard !names.isEmpty else { return nil }
            return .array([.string(generator.pick(names))])
        }
        return question.type.simulatedValue(&generator, context: context)
    }
}
