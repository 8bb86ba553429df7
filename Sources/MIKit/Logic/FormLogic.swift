import Foundation

/// One answer's place in a form: a question in one instance of each repeat around it (none for a
/// question outside every repeat, whose key is its id alone).
public struct AnswerSlot: Sendable, Equatable {
    public var question: Question
    public var instance: [InstanceStep]
    /// The question's position in `Template.questions`, from 0.
    public var index: Int

    public init(question: Question, instance: [InstanceStep] = [], index: Int) {
        self.question = question
        self.instance = instance
        self.index = index
    }

    public var path: AnswerPath { AnswerPath(question.id, in: instance) }
    /// The key of its answer in `Form.answers`: `trees[2]/cbh`, or `cbh`.
    public var key: String { path.description }
}

/// A form laid out as it is asked: its questions, its groups, and its repeats with their
/// instances — what `mi fill`, `mi review`, the PDF and the office walk.
public indirect enum FormNode: Sendable {
    case question(AnswerSlot)
    /// A group, in the instance it stands in, with what it holds.
    case group(QuestionGroup, instance: [InstanceStep], children: [FormNode])
    /// A repeat in its parent instance, with each of its instances.
    case `repeat`(QuestionGroup, parent: [InstanceStep], instances: [RepeatInstance])
}

/// One instance of a repeat: its steps (the parent's and its own) and what it holds.
public struct RepeatInstance: Sendable {
    public var instance: [InstanceStep]
    public var children: [FormNode]
    public var number: Int { instance.last?.index ?? 0 }
}

/// A template's questions with their groups nested, in order (`Template.items`).
public indirect enum TemplateItem: Sendable {
    case question(Question, index: Int)
    case group(QuestionGroup, [TemplateItem])
}

extension Template {
    /// The questions with their groups and repeats nested around them, in order: each group opens
    /// before its first question and closes after its last.
    public var items: [TemplateItem] {
        var stack: [(group: QuestionGroup?, items: [TemplateItem])] = [(nil, [])]
        func close() {
            guard stack.count > 1, let (group, items) = stack.popLast(), let group else { return }
            stack[stack.count - 1].items.append(.group(group, items))
        }
        for (index, question) in questions.enumerated() {
            let chain = groupChain(of: question)
            var common = 0
            while common < chain.count, common + 1 < stack.count, stack[common + 1].group?.id == chain[common].id { common += 1 }
            while stack.count - 1 > common { close() }
            for group in chain.dropFirst(common) { stack.append((group, [])) }
            stack[stack.count - 1].items.append(.question(question, index: index))
        }
        while stack.count > 1 { close() }
        return stack[0].items
    }
}

/// Evaluates a template's form logic (`QuestionLogic`: relevance, constraints, required,
/// calculations, defaults, choice filters; groups and repeats) over a form's answers, with ODK's
/// semantics. The one place `mi answer`, answers files, `mi fill`, `mi submit`, `mi simulate`,
/// `mi review` and mi-server's upload check judge logic, so a form `mi` accepted is judged the
/// same everywhere.
///
/// Inside a repeat instance `${name}` reads the question of the same instance; read from
/// outside its repeat it gives every instance's answer (`.nodes`, for `sum()`, `count()` & co.),
/// and `${repeat}` gives one node per instance (`count(${trees})`).
public struct FormLogic: Sendable {
    public let template: Template
    private let questionIndex: [String: Int]
    private let groupsByID: [String: QuestionGroup]
    /// The repeats around each question and each group (a repeat includes itself), outermost first.
    private let repeatChains: [String: [QuestionGroup]]
    /// The groups around each question, outermost first.
    private let groupChains: [String: [QuestionGroup]]
    /// The calculations that read each name, directly.
    private let readers: [String: [String]]

    public init(template: Template) {
        self.template = template
        var index: [String: Int] = [:]
        for (position, question) in template.questions.enumerated() where index[question.id] == nil { index[question.id] = position }
        questionIndex = index
        groupsByID = Dictionary(template.groups.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var groupChains: [String: [QuestionGroup]] = [:]
        var repeatChains: [String: [QuestionGroup]] = [:]
        for group in template.groups {
            let chain = template.groupChain(from: group.id)
            repeatChains[group.id] = chain.filter(\.isRepeat)
        }
        for question in template.questions {
            let chain = template.groupChain(of: question)
            groupChains[question.id] = chain
            repeatChains[question.id] = chain.filter(\.isRepeat)
        }
        self.groupChains = groupChains
        self.repeatChains = repeatChains
        var readers: [String: [String]] = [:]
        for question in template.questions {
            for name in question.logic.calculation?.references ?? [] { readers[name, default: []].append(question.id) }
        }
        self.readers = readers
    }

    /// One way a form breaks its template's logic.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable, Equatable {
            /// A constraint is false for the answer given.
            case constraint
            /// A required question has no value.
            case required
            /// A question that is not relevant (or an instance that does not exist) holds an answer.
            case notRelevant
            /// A calculated value is not what the calculation gives.
            case calculation
            /// An expression could not be evaluated (a limit, a bad regex from an answer).
            case evaluation
            /// A repeat's instances are not what the template allows.
            case instances
        }
        /// The answer's path (`trees[2]/cbh`), or the repeat's.
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

    /// How deep reading a name may go through repeat counts that read other names.
    static let maxResolutionDepth = 24

    /// The value `${name}` reads in `instance`: the question of the same instance; every
    /// instance's (`.nodes`) for a question in a repeat the instance is not in; one node per
    /// instance for a repeat.
    func resolve(_ name: String, at instance: [InstanceStep], in form: Form, now: Date, depth: Int) throws(ExpressionError) -> ExpressionValue {
        guard depth < Self.maxResolutionDepth else {
            throw ExpressionError(.tooMuchWork, at: nil, "reading ${\(name)} goes through more than \(Self.maxResolutionDepth) repeat counts")
        }
        let chain = repeatChains[name] ?? []
        let isQuestion = questionIndex[name] != nil
        if isQuestion, chain.isEmpty { return .string(Self.string(of: form.answers[name]?.value)) }
        if !isQuestion, groupsByID[name]?.isRepeat != true { return .string("") }
        // The steps the reading instance shares with the name's repeats, then every instance of the rest.
        let inner = isQuestion ? chain : Array(chain.dropLast())
        var prefixes: [[InstanceStep]] = [[]]
        var expanded = false
        for (depthIndex, group) in inner.enumerated() {
            if !expanded, depthIndex < instance.count, instance[depthIndex].repeatID == group.id {
                prefixes = prefixes.map { $0 + [instance[depthIndex]] }
            } else {
                expanded = true
                var next: [[InstanceStep]] = []
                for prefix in prefixes {
                    let count = try instanceCount(group, in: prefix, form: form, now: now, depth: depth + 1)
                    for number in stride(from: 1, through: count, by: 1) { next.append(prefix + [InstanceStep(group.id, number)]) }
                }
                prefixes = next
            }
        }
        guard isQuestion else {
            guard let group = chain.last else { return .nodes([]) }
            var nodes: [String] = []
            for prefix in prefixes {
                let count = try instanceCount(group, in: prefix, form: form, now: now, depth: depth + 1)
                nodes += Array(repeating: "", count: count)
            }
            return .nodes(nodes)
        }
        let values = prefixes.map { Self.string(of: form.answers[AnswerPath(name, in: $0).description]?.value) }
        return expanded ? .nodes(values) : .string(values.first ?? "")
    }

    /// The moment `today()` and `now()` read: when the form was submitted, once it is (so the
    /// server recomputes what `mi submit` computed), else `now`.
    public static func moment(of form: Form, now: Date) -> Date { form.submittedAt ?? now }

    func context(_ form: Form, now: Date, at instance: [InstanceStep] = [], current: ExpressionValue = .string(""),
                 depth: Int = 0) -> ExpressionContext {
        ExpressionContext(temporal: form.temporalContext(now: Self.moment(of: form, now: now)), current: current,
                          position: instance.last?.index) { name throws(ExpressionError) in
            try self.resolve(name, at: instance, in: form, now: now, depth: depth)
        }
    }

    // MARK: - Repeats and the layout

    /// How many instances `group` (a repeat) has in the parent instance `parent`: its
    /// `repeatCount` (an expression's value rounded down, from 0 to `QuestionGroup.maxInstances`),
    /// or as many as were added (`Form.repeats`).
    public func instanceCount(_ group: QuestionGroup, in parent: [InstanceStep], form: Form, now: Date = Date()) -> Int {
        (try? instanceCount(group, in: parent, form: form, now: now, depth: 0)) ?? 0
    }

    func instanceCount(_ group: QuestionGroup, in parent: [InstanceStep], form: Form, now: Date, depth: Int) throws(ExpressionError) -> Int {
        switch group.repeatCount {
        case nil: return min(max(form.repeats[AnswerPath.countKey(group.id, in: parent)] ?? 0, 0), QuestionGroup.maxInstances)
        case .fixed(let count)?: return count
        case .expression(let expression)?:
            let number = try expression.evaluate(in: context(form, now: now, at: parent, depth: depth)).numberValue()
            guard number.isFinite, number > 0 else { return 0 }
            return Int(min(number.rounded(.down), Double(QuestionGroup.maxInstances)))
        }
    }

    /// What a repeat's `repeatCount` asks for before it is held to `maxInstances`: for the
    /// message of a count past it.
    func requestedCount(_ group: QuestionGroup, in parent: [InstanceStep], form: Form, now: Date) -> Double? {
        guard case .expression(let expression)? = group.repeatCount else { return nil }
        return try? expression.evaluate(in: context(form, now: now, at: parent)).numberValue()
    }

    /// The form laid out as it is asked, every repeat with its instances.
    public func layout(of form: Form, now: Date = Date()) -> [FormNode] {
        func nodes(_ items: [TemplateItem], _ instance: [InstanceStep]) -> [FormNode] {
            items.map { item -> FormNode in
                switch item {
                case .question(let question, let index):
                    return .question(AnswerSlot(question: question, instance: instance, index: index))
                case .group(let group, let children):
                    guard group.isRepeat else { return .group(group, instance: instance, children: nodes(children, instance)) }
                    let count = instanceCount(group, in: instance, form: form, now: now)
                    let instances = stride(from: 1, through: count, by: 1).map { number -> RepeatInstance in
                        let steps = instance + [InstanceStep(group.id, number)]
                        return RepeatInstance(instance: steps, children: nodes(children, steps))
                    }
                    return .repeat(group, parent: instance, instances: instances)
                }
            }
        }
        return nodes(template.items, [])
    }

    /// Every answer's place in the form, in the order asked: a flat form's questions, each
    /// repeat's questions once per instance.
    public func slots(in form: Form, now: Date = Date()) -> [AnswerSlot] {
        guard template.hasRepeats else { return template.questions.enumerated().map { AnswerSlot(question: $0.element, index: $0.offset) } }
        var result: [AnswerSlot] = []
        func walk(_ nodes: [FormNode]) {
            for node in nodes {
                switch node {
                case .question(let slot): result.append(slot)
                case .group(_, _, let children): walk(children)
                case .repeat(_, _, let instances): for instance in instances { walk(instance.children) }
                }
            }
        }
        walk(layout(of: form, now: now))
        return result
    }

    /// The slots of one question: one per instance of the repeats around it.
    func slots(of question: Question, in form: Form, now: Date) -> [AnswerSlot] {
        let index = questionIndex[question.id] ?? 0
        var prefixes: [[InstanceStep]] = [[]]
        for group in repeatChains[question.id] ?? [] {
            prefixes = prefixes.flatMap { prefix in
                stride(from: 1, through: instanceCount(group, in: prefix, form: form, now: now), by: 1).map { prefix + [InstanceStep(group.id, $0)] }
            }
        }
        return prefixes.map { AnswerSlot(question: question, instance: $0, index: index) }
    }

    /// The slot a path names, when the question exists and the path's repeats are the
    /// question's (whether the instances exist is not checked).
    public func slot(at path: AnswerPath) -> AnswerSlot? {
        guard let index = questionIndex[path.name], let chain = repeatChains[path.name],
              chain.map(\.id) == path.instance.map(\.repeatID) else { return nil }
        return AnswerSlot(question: template.questions[index], instance: path.instance, index: index)
    }

    /// The repeats around a question or a repeat (a repeat includes itself), outermost first.
    public func repeatChain(of name: String) -> [QuestionGroup] { repeatChains[name] ?? [] }

    /// Whether every instance of `instance` exists in `form`.
    public func instanceExists(_ instance: [InstanceStep], in form: Form, now: Date = Date()) -> Bool {
        for (depth, step) in instance.enumerated() {
            guard let group = groupsByID[step.repeatID],
                  step.index >= 1, step.index <= instanceCount(group, in: Array(instance.prefix(depth)), form: form, now: now) else { return false }
        }
        return true
    }

    // MARK: - Questions

    /// Whether a group (or one instance of a repeat) is shown: its `relevant` and those of the
    /// groups around it are true. `instance` is the group's own instance (a repeat's includes
    /// its own step).
    public func isRelevant(group: QuestionGroup, at instance: [InstanceStep], in form: Form, now: Date = Date()) -> Bool {
        for outer in template.groupChain(from: group.id) {
            guard let relevant = outer.relevant else { continue }
            let depth = (repeatChains[outer.id] ?? []).count
            if (try? relevant.evaluateBoolean(in: context(form, now: now, at: Array(instance.prefix(depth))))) == false { return false }
        }
        return true
    }

    /// Whether the answer at `slot` is asked: its question's `relevant` (or none) and every
    /// group's around it are true. An expression that cannot be evaluated leaves it relevant,
    /// so nothing is hidden by mistake.
    public func isRelevant(_ slot: AnswerSlot, in form: Form, now: Date = Date()) -> Bool {
        var groups: [String: Bool] = [:]
        return isRelevant(slot, in: form, now: now, groups: &groups)
    }

    /// `isRelevant`, each group's relevance in each instance evaluated once per `groups` cache.
    func isRelevant(_ slot: AnswerSlot, in form: Form, now: Date, groups cache: inout [String: Bool]) -> Bool {
        for group in groupChains[slot.question.id] ?? [] {
            guard let relevant = group.relevant else { continue }
            let depth = (repeatChains[group.id] ?? []).count
            let instance = Array(slot.instance.prefix(depth))
            let key = AnswerPath.prefix(instance) + group.id
            let value: Bool
            if let known = cache[key] {
                value = known
            } else {
                value = (try? relevant.evaluateBoolean(in: context(form, now: now, at: instance))) ?? true
                cache[key] = value
            }
            if !value { return false }
        }
        guard let relevant = slot.question.logic.relevant else { return true }
        return (try? relevant.evaluateBoolean(in: context(form, now: now, at: slot.instance))) ?? true
    }

    /// The form's slots with whether each is relevant, evaluated once: what a pass over the
    /// whole form (open questions, submission, the server's check) reads.
    public struct Evaluation: Sendable {
        public let slots: [AnswerSlot]
        public let relevant: [Bool]
    }

    public func evaluation(of form: Form, now: Date = Date()) -> Evaluation {
        let slots = slots(in: form, now: now)
        var groups: [String: Bool] = [:]
        let relevant = slots.map { slot -> Bool in
            // Relevance is only evaluated where it decides something: a question that takes an answer.
            guard slot.question.type.takesAnswer else { return true }
            return isRelevant(slot, in: form, now: now, groups: &groups)
        }
        return Evaluation(slots: slots, relevant: relevant)
    }

    /// The slots not done (`isDone`), in order, from one evaluation.
    public func openSlots(in form: Form, now: Date = Date()) -> [AnswerSlot] {
        let evaluation = evaluation(of: form, now: now)
        return zip(evaluation.slots, evaluation.relevant).filter { !isDone($0, relevant: $1, in: form, now: now) }.map(\.0)
    }

    /// A question outside every repeat as a slot.
    func slot(_ question: Question) -> AnswerSlot {
        AnswerSlot(question: question, index: questionIndex[question.id] ?? 0)
    }

    /// `isRelevant` of a question outside every repeat.
    public func isRelevant(_ question: Question, in form: Form, now: Date = Date()) -> Bool {
        isRelevant(slot(question), in: form, now: now)
    }

    /// `required` as it stands: nil when the question has no `required` key (the seed's
    /// answer-or-comment rule applies), else whether a value is demanded.
    public func isRequired(_ slot: AnswerSlot, in form: Form, now: Date = Date()) -> Bool? {
        switch slot.question.logic.required {
        case .unset: return nil
        case .always(let value): return value
        case .when(let expression): return (try? expression.evaluateBoolean(in: context(form, now: now, at: slot.instance))) ?? true
        }
    }

    public func isRequired(_ question: Question, in form: Form, now: Date = Date()) -> Bool? {
        isRequired(slot(question), in: form, now: now)
    }

    /// Whether the technician is asked the question (`mi fill`) and may answer it (`mi answer`):
    /// it takes an answer, is neither calculated nor read-only, and is relevant.
    public func isAsked(_ slot: AnswerSlot, in form: Form, now: Date = Date()) -> Bool {
        slot.question.type.takesAnswer && slot.question.logic.isAnsweredByHand && isRelevant(slot, in: form, now: now)
    }

    public func isAsked(_ question: Question, in form: Form, now: Date = Date()) -> Bool {
        isAsked(slot(question), in: form, now: now)
    }

    /// The logic's version of the answer-or-comment rule: whether the answer at `slot` is done.
    /// A question without logic keys, outside any relevance, follows the seed's rule; one that is
    /// not relevant, computed or read-only is done; `required: true` demands a value (a comment
    /// alone does not do); `required: false` lets it be left empty.
    public func isDone(_ slot: AnswerSlot, in form: Form, now: Date = Date()) -> Bool {
        guard slot.question.type.takesAnswer else { return true }
        return isDone(slot, relevant: isRelevant(slot, in: form, now: now), in: form, now: now)
    }

    func isDone(_ slot: AnswerSlot, relevant: Bool, in form: Form, now: Date) -> Bool {
        let question = slot.question
        let answer = form.answer(for: slot.key)
        guard question.type.takesAnswer else { return true }
        guard question.logic.isAnsweredByHand, relevant else { return true }
        switch isRequired(slot, in: form, now: now) {
        case nil: return question.type.isDone(answer)
        case false?: return answer.draft == nil
        case true?:
            var valueOnly = answer
            valueOnly.comment = nil
            return question.type.isDone(valueOnly)
        }
    }

    public func isDone(_ question: Question, in form: Form, now: Date = Date()) -> Bool {
        isDone(slot(question), in: form, now: now)
    }

    /// The message of the question's constraint when `value` breaks it at `slot` (nil when it
    /// holds, or there is none). `.` is `value`. A multiple choice's `choiceFilter` is checked
    /// here too: an option it does not offer is refused.
    public func constraintProblem(_ slot: AnswerSlot, value: AnswerValue, in form: Form, now: Date = Date()) -> String? {
        let question = slot.question
        if question.logic.choiceFilter != nil, case .choices(let chosen) = value,
           let offered = choiceNames(slot, in: form, now: now) {
            let refused = chosen.filter { !offered.contains($0) }
            if !refused.isEmpty {
                return "\(refused.map { "'\($0)'" }.joined(separator: ", ")) is not offered here (choice filter \(question.logic.choiceFilterText ?? "")); choose from: \(offered.joined(separator: ", "))"
            }
        }
        guard let constraint = question.logic.constraint else { return nil }
        let current = ExpressionValue.string(Self.string(of: value))
        do {
            if try constraint.evaluateBoolean(in: context(form, now: now, at: slot.instance, current: current)) { return nil }
        } catch {
            return "the constraint \(constraint.text) could not be checked: \(error)"
        }
        return constraintMessage(question)
    }

    public func constraintProblem(_ question: Question, value: AnswerValue, in form: Form, now: Date = Date()) -> String? {
        constraintProblem(slot(question), value: value, in: form, now: now)
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
        // Fields are read through a buffer (`questions[index].id`): an array's element would be
        // copied whole, which costs more than the walk, and templates are read often.
        var calculations: [String: [String]] = [:]
        var calculated: [String] = []
        template.questions.withUnsafeBufferPointer { questions in
            for index in questions.indices {
                if let calculation = questions[index].logic.calculation, calculations[questions[index].id] == nil {
                    calculations[questions[index].id] = calculation.references
                    calculated.append(questions[index].id)
                }
            }
        }
        guard !calculations.isEmpty else { return [] }
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
        for id in calculated where !done.contains(id) {
            visit(id, [])
        }
        return cycles
    }

    /// The value a calculation gives at `slot`: nil when it is not relevant or the result is
    /// `''` or not a value the question's type takes.
    func calculatedValue(_ slot: AnswerSlot, in form: Form, now: Date) throws(ExpressionError) -> AnswerValue? {
        let question = slot.question
        guard let calculation = question.logic.calculation, isRelevant(slot, in: form, now: now) else { return nil }
        let text = try calculation.evaluateString(in: context(form, now: now, at: slot.instance))
        guard !text.isEmpty else { return nil }
        if question.type.holdsCalculation { return .text(text) }
        let rules = AnswerRules(question: question, position: slot.index + 1, count: template.questions.count,
                                temporal: form.temporalContext(now: Self.moment(of: form, now: now)), path: slot.key)
        return try? question.type.value(fromLine: text, rules: rules)
    }

    /// The calculations that read any of `names`, directly or through other calculations.
    func calculations(reading names: some Sequence<String>) -> Set<String> {
        var result: Set<String> = []
        var pending = Array(names)
        while let name = pending.popLast() {
            for reader in readers[name] ?? [] where result.insert(reader).inserted { pending.append(reader) }
        }
        return result
    }

    /// `form` with calculations recomputed from their inputs, in dependency order (a value that
    /// cannot be computed is left empty). Form.json's values are never trusted. With `changed`
    /// (the ids of the questions whose answers changed), only the calculations that depend on
    /// them are evaluated again; without, all of them.
    public func recalculated(_ form: Form, now: Date = Date(), changed: Set<String>? = nil) -> Form {
        let affected = changed.map { calculations(reading: $0) }
        var result = form
        for question in calculationOrder where affected?.contains(question.id) ?? true {
            for slot in slots(of: question, in: result, now: now) {
                let value = try? calculatedValue(slot, in: result, now: now)
                var answer = result.answer(for: slot.key)
                guard answer.value != value else { continue }
                answer.value = value
                result.answers[slot.key] = answer.value == nil && answer.comment == nil && answer.media.isEmpty ? nil : answer
            }
        }
        return result
    }

    /// The answers a new form (or, with `under`, a new instance) starts with: each `default`,
    /// then the calculations.
    public func withDefaults(_ form: Form, now: Date = Date(), under instance: [InstanceStep]? = nil) -> Form {
        var result = form
        for slot in slots(in: form, now: now) {
            if let instance, Array(slot.instance.prefix(instance.count)) != instance || slot.instance.count < instance.count { continue }
            guard let text = slot.question.logic.defaultValue, result.answers[slot.key]?.value == nil else { continue }
            let rules = AnswerRules(question: slot.question, position: slot.index + 1, count: template.questions.count,
                                    temporal: form.temporalContext(now: now), path: slot.key)
            guard let value = try? slot.question.type.value(fromLine: text, rules: rules) else { continue }
            var answer = result.answer(for: slot.key)
            answer.value = value
            result.answers[slot.key] = answer
        }
        return recalculated(result, now: now)
    }

    // MARK: - Submission

    /// The answers that are not submitted, by key, in order: values of questions that are not
    /// relevant (and tables being typed, and the files of a question answered by its files),
    /// then values kept for instances that no longer exist (a repeat count lowered) or paths that
    /// name nothing in the template. What submission clears.
    public func irrelevantAnswers(in form: Form, now: Date = Date()) -> [String] {
        irrelevantAnswers(in: form, evaluation: evaluation(of: form, now: now))
    }

    func irrelevantAnswers(in form: Form, evaluation: Evaluation) -> [String] {
        var result = zip(evaluation.slots, evaluation.relevant).filter { slot, relevant in
            let answer = form.answer(for: slot.key)
            return (answer.value != nil || answer.draft != nil || Self.holdsAnswerFiles(slot.question, answer))
                && slot.question.logic.calculation == nil && !relevant
        }.map(\.0.key)
        result += strayAnswers(in: form, slots: evaluation.slots)
        return result
    }

    /// Whether `answer` holds files that are the answer of `question` (a photo question's
    /// photo), as opposed to media attached beside a value (a gauge's photo by its reading).
    static func holdsAnswerFiles(_ question: Question, _ answer: Answer) -> Bool {
        question.type.answerMedia != nil && !answer.media.isEmpty
    }

    /// The keys holding a value that no slot of the form has, sorted.
    func strayAnswers(in form: Form, slots: [AnswerSlot]) -> [String] {
        guard form.answers.count > 0 else { return [] }
        let keys = Set(slots.map(\.key))
        return form.answers.filter { !keys.contains($0.key) && ($0.value.value != nil || $0.value.draft != nil) }.map(\.key).sorted()
    }

    /// `form` as it is submitted: the values of questions that are not relevant removed (and
    /// the files of those answered by their files), again until relevance settles, since a
    /// removed value may change another's, and the calculations recomputed. Returns the keys
    /// cleared; the caller removes the files no longer listed.
    public func preparedForSubmission(_ form: Form, now: Date = Date()) -> (form: Form, cleared: [String]) {
        let (result, cleared, _) = prepared(form, now: now)
        return (result, cleared)
    }

    /// `preparedForSubmission` with the evaluation of the form it returns, for the checks after it.
    func prepared(_ form: Form, now: Date) -> (form: Form, cleared: [String], evaluation: Evaluation) {
        var result = recalculated(form, now: now)
        var cleared: [String] = []
        var evaluation = evaluation(of: result, now: now)
        for _ in 0...template.questions.count {
            let irrelevant = irrelevantAnswers(in: result, evaluation: evaluation)
            if irrelevant.isEmpty { break }
            for key in irrelevant {
                var answer = result.answer(for: key)
                answer.value = nil
                answer.draft = nil
                // A file that is the answer goes with it; media beside a value stay.
                if let name = AnswerPath(parsing: key)?.name, let question = template.question(id: name), question.type.answerMedia != nil {
                    answer.media = []
                }
                result.answers[key] = answer.comment == nil && answer.media.isEmpty ? nil : answer
                if !cleared.contains(key) { cleared.append(key) }
            }
            result = recalculated(result, now: now)
            evaluation = self.evaluation(of: result, now: now)
        }
        return (result, cleared, evaluation)
    }

    /// What `mi submit` decides in one evaluation of the form: the form as submitted (values
    /// that are not relevant cleared, calculations recomputed), the keys cleared, what breaks
    /// the logic (`violations`) and the answers still open (`Form.openSlots`).
    public func submission(_ form: Form, now: Date = Date()) -> (form: Form, cleared: [String], violations: [Violation], open: [AnswerSlot]) {
        let (result, cleared, evaluation) = prepared(form, now: now)
        let violations = violations(in: result, now: now, requireAnswers: true, evaluation: evaluation)
        let open = zip(evaluation.slots, evaluation.relevant).filter { !isDone($0, relevant: $1, in: result, now: now) }.map(\.0)
        return (result, cleared, violations, open)
    }

    /// Everything in `form` that breaks the template's logic, in the order asked: a value kept
    /// for a question that is not relevant (or in an instance that does not exist), a constraint
    /// broken, a calculated value other than the calculation's, a repeat count past the limit,
    /// and (`requireAnswers`) a required question without a value. What `mi submit` refuses and
    /// mi-server refuses with 422.
    public func violations(in form: Form, now: Date = Date(), requireAnswers: Bool = true) -> [Violation] {
        violations(in: form, now: now, requireAnswers: requireAnswers, evaluation: evaluation(of: form, now: now))
    }

    func violations(in form: Form, now: Date, requireAnswers: Bool, evaluation: Evaluation) -> [Violation] {
        var result: [Violation] = []
        result += instanceViolations(in: form, now: now)
        let slots = evaluation.slots
        for (slot, relevant) in zip(slots, evaluation.relevant) where slot.question.type.takesAnswer {
            let question = slot.question
            let answer = form.answer(for: slot.key)
            if question.logic.calculation != nil {
                do {
                    let expected = try calculatedValue(slot, in: form, now: now)
                    if expected != answer.value {
                        result.append(Violation(question: slot.key, kind: .calculation,
                            message: "the calculated value is \(Self.quoted(answer.value)) but its calculation \(question.logic.calculation?.text ?? "") gives \(Self.quoted(expected))"))
                    }
                } catch {
                    result.append(Violation(question: slot.key, kind: .evaluation, message: "the calculation could not be evaluated: \(error)"))
                }
                continue
            }
            guard relevant else {
                if answer.value != nil || Self.holdsAnswerFiles(question, answer) {
                    let why = question.logic.relevant.map { "(\($0.text))" } ?? "(its group is not relevant)"
                    result.append(Violation(question: slot.key, kind: .notRelevant,
                        message: "the question is not relevant \(why) but holds an answer"))
                }
                continue
            }
            if let value = answer.value, let message = constraintProblem(slot, value: value, in: form, now: now) {
                result.append(Violation(question: slot.key, kind: .constraint, message: message))
            }
            if requireAnswers, isRequired(slot, in: form, now: now) == true, !isDone(slot, relevant: true, in: form, now: now) {
                result.append(Violation(question: slot.key, kind: .required, message: requiredMessage(question)))
            }
        }
        for key in strayAnswers(in: form, slots: slots) {
            let message: String
            if let path = AnswerPath(parsing: key), slot(at: path) != nil {
                message = "the answer is in an instance the form does not have (\(AnswerPath.prefix(path.instance).dropLast()))"
            } else {
                message = "the template has no question at this path"
            }
            result.append(Violation(question: key, kind: .notRelevant, message: message))
        }
        return result
    }

    /// Open repeats' counts that name no repeat, or go past `QuestionGroup.maxInstances`, and
    /// counts from expressions that ask for more than it.
    func instanceViolations(in form: Form, now: Date) -> [Violation] {
        var result: [Violation] = []
        for (key, count) in form.repeats.sorted(by: { $0.key < $1.key }) {
            guard let path = AnswerPath(parsing: key), let group = groupsByID[path.name], group.isRepeat, group.repeatCount == nil,
                  (repeatChains[group.id] ?? []).dropLast().map(\.id) == path.instance.map(\.repeatID) else {
                result.append(Violation(question: key, kind: .instances, message: "the form counts instances of a repeat the template does not have (an open repeat without a count)"))
                continue
            }
            if count > QuestionGroup.maxInstances {
                result.append(Violation(question: key, kind: .instances, message: "\(count) instances; a repeat has at most \(QuestionGroup.maxInstances)"))
            }
        }
        func walk(_ nodes: [FormNode]) {
            for node in nodes {
                switch node {
                case .question: break
                case .group(_, _, let children): walk(children)
                case .repeat(let group, let parent, let instances):
                    if let asked = requestedCount(group, in: parent, form: form, now: now), asked.isFinite, asked >= Double(QuestionGroup.maxInstances + 1) {
                        result.append(Violation(question: AnswerPath.countKey(group.id, in: parent), kind: .instances,
                            message: "the count \(group.repeatCount?.text ?? "") gives \(ExpressionValue.format(asked)) instances; a repeat has at most \(QuestionGroup.maxInstances)"))
                    }
                    for instance in instances { walk(instance.children) }
                }
            }
        }
        walk(layout(of: form, now: now))
        return result
    }

    static func quoted(_ value: AnswerValue?) -> String {
        value.map { "'\(string(of: $0))'" } ?? "empty"
    }

    // MARK: - Choice filters

    /// The options of a multiple-choice question its `choiceFilter` lets through at `slot`
    /// (an option's attributes are the filter's bare names); all options when it has no filter.
    public func choiceNames(_ slot: AnswerSlot, in form: Form, now: Date = Date()) -> [String]? {
        let question = slot.question
        guard let choices = question.type.filterableChoices else { return nil }
        guard let filter = question.logic.choiceFilter else { return choices.map(\.name) }
        let base = context(form, now: now, at: slot.instance)
        return choices.filter { option in
            var local = base
            let attributes = option.attributes.merging(["name": option.name, "label": option.label]) { _, own in own }
            let instance = slot.instance
            local.resolve = { name throws(ExpressionError) in
                if name.hasPrefix(QuestionLogic.optionPrefix) {
                    return .string(attributes[String(name.dropFirst(QuestionLogic.optionPrefix.count))] ?? "")
                }
                return try self.resolve(name, at: instance, in: form, now: now, depth: 0)
            }
            local.current = .string(option.name)
            return (try? filter.evaluateBoolean(in: local)) ?? false
        }.map(\.name)
    }

    public func choiceNames(_ question: Question, in form: Form, now: Date = Date()) -> [String]? {
        choiceNames(slot(question), in: form, now: now)
    }
}

/// A form that breaks its template's logic (`FormLogic.violations`): every problem, each with
/// its question's path and message.
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
