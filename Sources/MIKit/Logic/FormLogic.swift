import Foundation

/// Evaluates a template's form logic (`QuestionLogic`: relevance, constraints, required,
/// calculations, defaults, choice filters) over a form's answers, with ODK's semantics. The one
/// place `mi answer`, answers files, `mi fill`, `mi submit`, `mi simulate`, `mi review` and
/// mi-server's upload check judge logic, so a form `mi` accepted is judged the same everywhere.
///
/// References are resolved by question id (`${pressure}`): `resolve(_:in:)` is the single hook a
/// path (`pumps[2]/amps`) will go through once groups and repeats exist.
public struct FormLogic: Sendable {
    public let template: Template

    public init(template: Template) { self.template = template }

    /// One way a form breaks its template's logic.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable, Equatable {
            /// A constraint is false for the answer given.
            case constraint
            /// A required question has no value.
            case required
            /// A question that is not relevant holds an answer.
            case notRelevant
            /// A calculated value is not what the calculation gives.
            case calculation
            /// An expression could not be evaluated (a limit, a bad regex from an answer).
            case evaluation
        }
        public var question: String
        public var kind: Kind
        public var message: String

        public init(question: String, kind: Kind, message: String) {
            self.question = question
            self.kind = kind
            self.message = message
        }

        public var description: String { "question \(DisplayText.escaped(question)): \(DisplayText.escaped(message))" }
    }

    // MARK: - Values

    /// An answer as expressions read it (XPath string, as ODK): text as typed, a number's
    /// shortest text, `true`/`false`, choice names separated by spaces, a point as
    /// `lat lon [alt [acc]]`; `''` for no answer (and for a table, which has no single value).
    public static func string(of value: AnswerValue?) -> String {
        guard let value else { return "" }
        switch value {
        case .text(let text): return text
        case .number(let number): return ExpressionValue.format(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .choices(let names): return names.joined(separator: " ")
        case .cells: return ""
        case .location(let point): return point.typedString
        }
    }

    /// The value `${name}` reads: the question's answer. The hook a repeat's path will extend.
    func resolve(_ name: String, in answers: [String: Answer]) -> ExpressionValue {
        .string(Self.string(of: answers[name]?.value))
    }

    /// The moment `today()` and `now()` read: when the form was submitted, once it is (so the
    /// server recomputes what `mi submit` computed), else `now`.
    public static func moment(of form: Form, now: Date) -> Date { form.submittedAt ?? now }

    func context(_ form: Form, now: Date, current: ExpressionValue = .string("")) -> ExpressionContext {
        let answers = form.answers
        return ExpressionContext(temporal: form.temporalContext(now: Self.moment(of: form, now: now)), current: current) { name throws(ExpressionError) in
            self.resolve(name, in: answers)
        }
    }

    // MARK: - Questions

    /// Whether the question is asked: its `relevant` is true (or it has none). An expression
    /// that cannot be evaluated leaves the question relevant, so nothing is hidden by mistake.
    public func isRelevant(_ question: Question, in form: Form, now: Date = Date()) -> Bool {
        guard let relevant = question.logic.relevant else { return true }
        return (try? relevant.evaluateBoolean(in: context(form, now: now))) ?? true
    }

    /// `required` as it stands: nil when the question has no `required` key (the seed's
    /// answer-or-comment rule applies), else whether a value is demanded.
    public func isRequired(_ question: Question, in form: Form, now: Date = Date()) -> Bool? {
        switch question.logic.required {
        case .unset: return nil
        case .always(let value): return value
        case .when(let expression): return (try? expression.evaluateBoolean(in: context(form, now: now))) ?? true
        }
    }

    /// Whether the technician is asked the question (`mi fill`) and may answer it (`mi answer`):
    /// it takes an answer, is neither calculated nor read-only, and is relevant.
    public func isAsked(_ question: Question, in form: Form, now: Date = Date()) -> Bool {
        question.type.takesAnswer && question.logic.isAnsweredByHand && isRelevant(question, in: form, now: now)
    }

    /// The logic's version of the answer-or-comment rule: whether the question is done. A
    /// question without logic keys follows the seed's rule; one that is not relevant, computed
    /// or read-only is done; `required: true` demands a value (a comment alone does not do);
    /// `required: false` lets it be left empty.
    public func isDone(_ question: Question, in form: Form, now: Date = Date()) -> Bool {
        let answer = form.answer(for: question.id)
        guard question.type.takesAnswer else { return true }
        guard !question.logic.isEmpty else { return question.type.isDone(answer) }
        guard question.logic.isAnsweredByHand, isRelevant(question, in: form, now: now) else { return true }
        switch isRequired(question, in: form, now: now) {
        case nil: return question.type.isDone(answer)
        case false?: return answer.draft == nil
        case true?:
            var valueOnly = answer
            valueOnly.comment = nil
            return question.type.isDone(valueOnly)
        }
    }

    /// The message of the question's constraint when `value` breaks it (nil when it holds, or
    /// there is none). `.` is `value`.
    /// A multiple choice's `choiceFilter` is checked here too: an option it does not offer is
    /// refused.
    public func constraintProblem(_ question: Question, value: AnswerValue, in form: Form, now: Date = Date()) -> String? {
        if question.logic.choiceFilter != nil, case .choices(let chosen) = value,
           let offered = choiceNames(question, in: form, now: now) {
            let refused = chosen.filter { !offered.contains($0) }
            if !refused.isEmpty {
                return "\(refused.map { "'\($0)'" }.joined(separator: ", ")) is not offered here (choice filter \(question.logic.choiceFilterText ?? "")); choose from: \(offered.joined(separator: ", "))"
            }
        }
        guard let constraint = question.logic.constraint else { return nil }
        let current = ExpressionValue.string(Self.string(of: value))
        do {
            if try constraint.evaluateBoolean(in: context(form, now: now, current: current)) { return nil }
        } catch {
            return "the constraint \(constraint.text) could not be checked: \(error)"
        }
        return constraintMessage(question)
    }

    /// The template's `constraintMessage`, or a default naming the constraint.
    public func constraintMessage(_ question: Question) -> String {
        question.logic.constraintMessage ?? "the answer does not meet the question's constraint (\(question.logic.constraint?.text ?? ""))"
    }

    /// The template's `requiredMessage`, or the default.
    public func requiredMessage(_ question: Question) -> String {
        question.logic.requiredMessage ?? "an answer is required (a comment alone does not do)"
    }

    // MARK: - Calculations

    /// The calculation questions in an order where each comes after the calculations it reads.
    var calculationOrder: [Question] {
        let calculated = Dictionary(template.questions.filter { $0.logic.calculation != nil }.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var order: [Question] = []
        var state: [String: Bool] = [:]  // false: being visited, true: done
        func visit(_ question: Question) {
            if state[question.id] != nil { return }
            state[question.id] = false
            for name in question.logic.calculation?.references ?? [] {
                if let input = calculated[name] { visit(input) }
            }
            state[question.id] = true
            order.append(question)
        }
        for question in template.questions where calculated[question.id] != nil { visit(question) }
        return order
    }

    /// Calculations that read themselves, directly or through others (each cycle once, as ids).
    static func calculationCycles(_ template: Template) -> [[String]] {
        let calculations = Dictionary(template.questions.compactMap { question in question.logic.calculation.map { (question.id, $0.references) } },
                                      uniquingKeysWith: { first, _ in first })
        var cycles: [[String]] = []
        var done: Set<String> = []
        func visit(_ id: String, _ path: [String]) {
            if let start = path.firstIndex(of: id) {
                cycles.append(Array(path[start...]) + [id])
                return
            }
            guard !done.contains(id), let inputs = calculations[id] else { return }
            for input in inputs { visit(input, path + [id]) }
            done.insert(id)
        }
        for question in template.questions where calculations[question.id] != nil && !done.contains(question.id) {
            visit(question.id, [])
        }
        return cycles
    }

    /// The value a calculation gives in `form`: nil when the question is not relevant or the
    /// result is `''` or not a value the question's type takes.
    func calculatedValue(_ question: Question, in form: Form, now: Date) throws(ExpressionError) -> AnswerValue? {
        guard let calculation = question.logic.calculation, isRelevant(question, in: form, now: now) else { return nil }
        let text = try calculation.evaluateString(in: context(form, now: now))
        guard !text.isEmpty else { return nil }
        if question.type.holdsCalculation { return .text(text) }
        let rules = AnswerRules(question: question, position: (template.index(of: question.id) ?? 0) + 1,
                                count: template.questions.count, temporal: form.temporalContext(now: Self.moment(of: form, now: now)))
        return try? question.type.value(fromLine: text, rules: rules)
    }

    /// `form` with every calculation recomputed from its inputs, in dependency order (a value
    /// that cannot be computed is left empty). Form.json's values are never trusted.
    public func recalculated(_ form: Form, now: Date = Date()) -> Form {
        var result = form
        for question in calculationOrder {
            let value = try? calculatedValue(question, in: result, now: now)
            var answer = result.answer(for: question.id)
            guard answer.value != value else { continue }
            answer.value = value
            result.answers[question.id] = answer.value == nil && answer.comment == nil && answer.media.isEmpty ? nil : answer
        }
        return result
    }

    /// The answers a new form starts with: each `default`, then the calculations.
    public func withDefaults(_ form: Form, now: Date = Date()) -> Form {
        var result = form
        for (index, question) in template.questions.enumerated() {
            guard let text = question.logic.defaultValue, result.answers[question.id]?.value == nil else { continue }
            let rules = AnswerRules(question: question, position: index + 1, count: template.questions.count,
                                    temporal: form.temporalContext(now: now))
            guard let value = try? question.type.value(fromLine: text, rules: rules) else { continue }
            var answer = result.answer(for: question.id)
            answer.value = value
            result.answers[question.id] = answer
        }
        return recalculated(result, now: now)
    }

    // MARK: - Submission

    /// The questions that are not relevant but hold a value (or a table being typed, or, for a
    /// question answered by its files, a file), in template order: what submission clears.
    public func irrelevantAnswers(in form: Form, now: Date = Date()) -> [String] {
        template.questions.filter { question in
            let answer = form.answer(for: question.id)
            return (answer.value != nil || answer.draft != nil || Self.holdsAnswerFiles(question, answer))
                && question.logic.calculation == nil && !isRelevant(question, in: form, now: now)
        }.map(\.id)
    }

    /// Whether `answer` holds files that are the answer of `question` (a photo question's
    /// photo), as opposed to media attached beside a value (a gauge's photo by its reading).
    static func holdsAnswerFiles(_ question: Question, _ answer: Answer) -> Bool {
        question.type.answerMedia != nil && !answer.media.isEmpty
    }

    /// `form` as it is submitted: the values of questions that are not relevant removed (and
    /// the files of those answered by their files), again until relevance settles, since a
    /// removed value may change another's, and the calculations recomputed. Returns the ids
    /// cleared; the caller removes the files no longer listed.
    public func preparedForSubmission(_ form: Form, now: Date = Date()) -> (form: Form, cleared: [String]) {
        var result = recalculated(form, now: now)
        var cleared: [String] = []
        for _ in 0...template.questions.count {
            let irrelevant = irrelevantAnswers(in: result, now: now)
            if irrelevant.isEmpty { break }
            for id in irrelevant {
                var answer = result.answer(for: id)
                answer.value = nil
                answer.draft = nil
                // A file that is the answer goes with it; media beside a value stay.
                if let question = template.question(id: id), question.type.answerMedia != nil { answer.media = [] }
                result.answers[id] = answer.comment == nil && answer.media.isEmpty ? nil : answer
                if !cleared.contains(id) { cleared.append(id) }
            }
            result = recalculated(result, now: now)
        }
        return (result, cleared)
    }

    /// Everything in `form` that breaks the template's logic, in template order: a value kept
    /// for a question that is not relevant, a constraint broken, a calculated value other than
    /// the calculation's, and (`requireAnswers`) a required question without a value. What
    /// `mi submit` refuses and mi-server refuses with 422.
    public func violations(in form: Form, now: Date = Date(), requireAnswers: Bool = true) -> [Violation] {
        var result: [Violation] = []
        for question in template.questions where question.type.takesAnswer {
            let answer = form.answer(for: question.id)
            let relevant = isRelevant(question, in: form, now: now)
            if question.logic.calculation != nil {
                do {
                    let expected = try calculatedValue(question, in: form, now: now)
                    if expected != answer.value {
                        result.append(Violation(question: question.id, kind: .calculation,
                            message: "the calculated value is \(Self.quoted(answer.value)) but its calculation \(question.logic.calculation?.text ?? "") gives \(Self.quoted(expected))"))
                    }
                } catch {
                    result.append(Violation(question: question.id, kind: .evaluation, message: "the calculation could not be evaluated: \(error)"))
                }
                continue
            }
            guard relevant else {
                if answer.value != nil || Self.holdsAnswerFiles(question, answer) {
                    result.append(Violation(question: question.id, kind: .notRelevant,
                        message: "the question is not relevant (\(question.logic.relevant?.text ?? "")) but holds an answer"))
                }
                continue
            }
            if let value = answer.value, let message = constraintProblem(question, value: value, in: form, now: now) {
                result.append(Violation(question: question.id, kind: .constraint, message: message))
            }
            if requireAnswers, isRequired(question, in: form, now: now) == true, !isDone(question, in: form, now: now) {
                result.append(Violation(question: question.id, kind: .required, message: requiredMessage(question)))
            }
        }
        return result
    }

    static func quoted(_ value: AnswerValue?) -> String {
        value.map { "'\(string(of: $0))'" } ?? "empty"
    }

    // MARK: - Choice filters

    /// The options of a multiple-choice question its `choiceFilter` lets through in `form`
    /// (an option's attributes are the filter's bare names); all options when it has no filter.
    public func choiceNames(_ question: Question, in form: Form, now: Date = Date()) -> [String]? {
        guard let choices = question.type.filterableChoices else { return nil }
        guard let filter = question.logic.choiceFilter else { return choices.map(\.name) }
        let base = context(form, now: now)
        return choices.filter { option in
            var local = base
            let answers = form.answers
            let attributes = option.attributes.merging(["name": option.name, "label": option.label]) { _, own in own }
            local.resolve = { name throws(ExpressionError) in
                if name.hasPrefix(QuestionLogic.optionPrefix) {
                    return .string(attributes[String(name.dropFirst(QuestionLogic.optionPrefix.count))] ?? "")
                }
                return self.resolve(name, in: answers)
            }
            local.current = .string(option.name)
            return (try? filter.evaluateBoolean(in: local)) ?? false
        }.map(\.name)
    }
}

/// A form that breaks its template's logic (`FormLogic.violations`): every problem, each with
/// its question and message.
public struct FormLogicError: ClassifiedError, Sendable, Equatable {
    public var form: String
    public var violations: [FormLogic.Violation]
    public init(form: String, violations: [FormLogic.Violation]) { self.form = form; self.violations = violations }
    public var failureClass: FailureClass { .badData }
    public var code: String { "form-logic" }
    public var errorDescription: String? {
        let lines = violations.map { "  \($0)" }.joined(separator: "\n")
        return "form \(DisplayText.escaped(form)) breaks its template's logic — nothing was submitted; correct these answers:\n\(lines)"
    }
}
