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

    /// How many instances an open repeat (one without `repeatCount`) is given: 1 to this.
    public static let maxOpenInstances = 3

    /// Answers a template with form logic answer by answer, in the order `mi fill` asks them
    /// (`FormLogic.layout`, laid out again after every answer, so a repeat count or a relevance
    /// that an answer changes is followed at once): only the questions asked (relevant, neither
    /// calculated nor read-only; nothing in a group that is not relevant); a counted repeat gets
    /// the instances its count says, an open one 1 to `maxOpenInstances`; a value the constraint
    /// refuses is drawn again up to `constraintAttempts` times, then a comment is left (a
    /// required question so left keeps the form from `mi submit`, as it would a technician's).
    /// A choice filter narrows the options drawn from.
    mutating func fillFollowingLogic(_ form: inout Form, context: SimulationContext, at date: Date) -> [String] {
        let logic = FormLogic(template: form.template)
        var changed: [String] = []
        var handled: Set<String> = []
        var grown: Set<String> = []
        while let next = nextStep(logic, form: form, now: date, handled: handled, grown: grown) {
            switch next {
            case .grow(let group, let parent):
                let countKey = AnswerPath.countKey(group.id, in: parent)
                grown.insert(countKey)
                let count = generator.int(in: 1...Self.maxOpenInstances)
                var added = form
                added.repeats[countKey] = count
                for number in 1...count {
                    added = logic.withDefaults(added, now: date, under: parent + [InstanceStep(group.id, number)])
                }
                if (try? Workflow.checkLogic(of: [], in: &added, now: date, structural: true)) != nil { form = added }
            case .answer(let slot):
                handled.insert(slot.key)
                guard logic.isAsked(slot, in: form, now: date) else { continue }
                if answer(slot, logic: logic, form: &form, context: context, now: date) { changed.append(slot.key) }
            }
        }
        return changed
    }

    enum Step {
        case grow(QuestionGroup, parent: [InstanceStep])
        case answer(AnswerSlot)
    }

    /// The first thing still to do in the form as it stands: an open repeat not yet given its
    /// instances, or an answer not yet handled; nil when the form is done. Groups (and repeat
    /// instances) that are not relevant are passed by.
    func nextStep(_ logic: FormLogic, form: Form, now: Date, handled: Set<String>, grown: Set<String>) -> Step? {
        func walk(_ nodes: [FormNode]) -> Step? {
            for node in nodes {
                switch node {
                case .question(let slot):
                    if !handled.contains(slot.key) { return .answer(slot) }
                case .group(let group, let instance, let children):
                    guard logic.isRelevant(group: group, at: instance, in: form, now: now) else { continue }
                    if let step = walk(children) { return step }
                case .repeat(let group, let parent, let instances):
                    if group.repeatCount == nil, !grown.contains(AnswerPath.countKey(group.id, in: parent)),
                       logic.isRelevant(group: group, at: parent + [InstanceStep(group.id, 1)], in: form, now: now) {
                        return .grow(group, parent: parent)
                    }
                    for instance in instances where logic.isRelevant(group: group, at: instance.instance, in: form, now: now) {
                        if let step = walk(instance.children) { return step }
                    }
                }
            }
            return nil
        }
        return walk(logic.layout(of: form, now: now))
    }

    /// One answer (or a comment instead) at `slot`; whether anything was saved.
    mutating func answer(_ slot: AnswerSlot, logic: FormLogic, form: inout Form, context: SimulationContext, now date: Date) -> Bool {
        let optional = logic.isRequired(slot, in: form, now: date) != true
        if optional, generator.chance(Self.commentOnlyRate) {
            return (try? Workflow.apply([AnswerUpdate(question: slot.key, value: nil, comment: generator.pick(Self.comments))],
                                        to: &form, now: date)) != nil
        }
        for _ in 0..<Self.constraintAttempts {
            guard let value = simulatedValue(slot, logic: logic, form: form, context: context, now: date) else { break }
            if (try? Workflow.apply([AnswerUpdate(question: slot.key, value: .json(value))], to: &form, now: date)) != nil {
                return true
            }
        }
        return (try? Workflow.apply([AnswerUpdate(question: slot.key, value: nil, comment: slot.question.type.simulatedStandIn)],
                                    to: &form, now: date)) != nil
    }

    /// A value drawn by the question's type; for a filtered multiple choice, from the options
    /// the filter lets through.
    mutating func simulatedValue(_ slot: AnswerSlot, logic: FormLogic, form: Form, context: SimulationContext, now: Date) -> JSONValue? {
        let question = slot.question
        if question.logic.choiceFilter != nil, let names = logic.choiceNames(slot, in: form, now: now) {
            guard !names.isEmpty else { return nil }
            return .array([.string(generator.pick(names))])
        }
        return question.type.simulatedValue(&generator, context: context)
    }
}
