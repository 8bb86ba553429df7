import Foundation

/// Finding forms and questions by what a person types: names, `user/name`, id prefixes,
/// question ids or numbers; and choosing free form names.
extension Workflow {
    // MARK: - Finding forms

    /// A form of `user` (the actor by default; for a foreman, anyone's) by what a person types:
    /// its name, `user/name`, the name in another case, or an unambiguous start of the name or
    /// (4+ characters) of the id. Several matches are a usage mistake that names them; none
    /// names the closest names ("did you mean …?"). Every command that takes a FORM finds it here.
    public func resolve(_ reference: String, user: String? = nil, areas: [Store.Area] = Store.Area.allCases) throws -> FormLocation {
        if user == nil, actor.role == .foreman { return try resolveAnywhere(reference, areas: areas) }
        let owner = user ?? actor.name
        // A folder of that name is the form, readable or not (an unreadable one then says so).
        if SafeName.problem(reference) == nil {
            for area in areas {
                let location = try store.location(area, user: owner, name: reference)
                if FileManager.default.fileExists(atPath: location.folder.path) { return location }
            }
        }
        var forms: [ListedForm] = []
        for area in areas { forms += try store.list(area, user: owner).forms }
        // Someone else's forms (a foreman's `user/name`) are named with their owner.
        let qualified = owner != actor.name
        return try Self.match(reference, in: forms, owner: owner) { qualified ? "\($0.user)/\($0.name)" : $0.name }
    }

    /// Any user's form: `user/name`, a name only one user has, or what `match` finds among all.
    func resolveAnywhere(_ reference: String, areas: [Store.Area]) throws -> FormLocation {
        if let slash = reference.firstIndex(of: "/") {
            let owner = String(reference[..<slash])
            return try resolve(String(reference[reference.index(after: slash)...]),
                               user: try SafeName.check(owner, as: "user name"), areas: areas)
        }
        var named: [FormLocation] = []
        if SafeName.problem(reference) == nil {
            for area in areas {
                for owner in store.users(in: area) {
                    let location = try store.location(area, user: owner, name: reference)
                    if FileManager.default.fileExists(atPath: location.folder.path) { named.append(location) }
                }
            }
        }
        if named.count == 1, let only = named.first { return only }
        if named.count > 1 {
            throw StoreError.ambiguousForm(reference, matches: named.map { "\($0.user)/\($0.name)" })
        }
        var forms: [ListedForm] = []
        for area in areas { forms += try store.list(area).forms }
        return try Self.match(reference, in: forms, owner: "any technician") { "\($0.user)/\($0.name)" }
    }

    /// The one form of `forms` that `reference` means when no form has exactly that name: the
    /// name in another case, else the start of a name (in any case) or of an id (4+ characters).
    /// Throws `ambiguousForm` listing the matches by `label`, or `formNotFound` with the names
    /// closest to the reference.
    static func match(_ reference: String, in forms: [ListedForm], owner: String,
                      label: (FormLocation) -> String) throws -> FormLocation {
        let lowered = reference.lowercased()
        func one(_ found: [ListedForm]) throws -> FormLocation? {
            var seen = Set<String>()
            let locations = found.map(\.location).filter { seen.insert($0.path).inserted }
            if locations.count > 1 { throw StoreError.ambiguousForm(reference, matches: locations.map(label).sorted()) }
            return locations.first
        }
        if let found = try one(forms.filter { $0.location.name.lowercased() == lowered }) { return found }
        if !lowered.isEmpty {
            let byName = forms.filter { $0.location.name.lowercased().hasPrefix(lowered) }
            let byID = lowered.count >= 4 ? forms.filter { $0.summary.id.description.hasPrefix(lowered) } : []
            if let found = try one(byName + byID) { return found }
        }
        _ = try SafeName.check(reference, as: "form name")
        let closest = Suggestions.closest(to: reference, among: forms.map(\.location)) { $0.name }
        throw StoreError.formNotFound(reference, user: owner, suggestions: closest.map(label))
    }

    /// Loads a form the actor may change: their own and still incomplete (the rule that
    /// submitted forms can't change, for every command that changes one).
    public func openForChange(_ reference: String, operation: WorkflowError.Operation = .changed) throws -> (FormLocation, Form) {
        let location = try resolve(reference)
        guard location.area == .incomplete else {
            throw WorkflowError.formSubmitted(form: location.name, operation: operation)
        }
        store.removeLeftovers(in: location)
        return (location, try store.load(location))
    }

    /// A question by id or, failing that, by number from 1.
    public static func question(_ reference: String, in template: Template) throws -> (index: Int, question: Question) {
        if let index = template.index(of: reference) { return (index, template.questions[index]) }
        if let number = Int(reference), template.questions.indices.contains(number - 1) {
            return (number - 1, template.questions[number - 1])
        }
        let ids = template.questions.map(\.id).joined(separator: ", ")
        throw AnswerError(question: reference, rule: "no such question in template \(template.id) (questions: \(ids))")
    }

    /// The answer a reference names in `form`: a path (`trees[2]/cbh`), or a question outside
    /// every repeat by id or number. With `adding`, an instance one past the last of an open
    /// repeat (one without `repeatCount`) is added to `form` (`Form.repeats`, with its defaults);
    /// any other instance must exist.
    public static func slot(_ reference: String, in form: inout Form, adding: Bool = false, now: Date = Date()) throws -> AnswerSlot {
        let template = form.template
        let logic = FormLogic(template: template)
        let path: AnswerPath
        if template.index(of: reference) != nil || Int(reference) != nil || AnswerPath(parsing: reference) == nil {
            let (_, question) = try question(reference, in: template)
            path = AnswerPath(question.id)
        } else if let parsed = AnswerPath(parsing: reference) {
            path = parsed
        } else {
            throw AnswerError(question: reference, rule: "not a question id, number or path such as trees[2]/cbh")
        }
        guard let index = template.index(of: path.name) else {
            if let group = template.group(id: path.name) {
                let example = AnswerPath(template.questions.first { template.groupChain(of: $0).contains { $0.id == group.id } }?.id ?? "QUESTION",
                                         in: logic.repeatChain(of: group.id).map { InstanceStep($0.id, 1) })
                throw AnswerError(question: reference, rule: "\(group.id) is a \(group.kind.rawValue), not a question: answer a question inside it (\(example))"
                                  + (group.isRepeat ? "; `mi answer FORM \(AnswerPath.countKey(group.id, in: Array(logic.repeatChain(of: group.id).dropLast().map { InstanceStep($0.id, 1) }))) --remove N` removes an instance" : ""))
            }
            _ = try question(path.name, in: template)
            throw AnswerError(question: reference, rule: "no such question in template \(template.id)")
        }
        let question = template.questions[index]
        let chain = logic.repeatChain(of: question.id)
        guard chain.map(\.id) == path.instance.map(\.repeatID) else {
            if chain.isEmpty {
                throw AnswerError(question: reference, rule: "\(question.id) stands in no repeat: name it \(question.id)")
            }
            let example = AnswerPath(question.id, in: chain.map { InstanceStep($0.id, 1) })
            throw AnswerError(question: reference, rule: "\(question.id) stands in the repeat \(chain.map(\.id).joined(separator: " › ")): name its instance, as in \(example)")
        }
        for (depth, step) in path.instance.enumerated() {
            let group = chain[depth]
            let parent = Array(path.instance.prefix(depth))
            let count = logic.instanceCount(group, in: parent, form: form, now: now)
            if step.index <= count { continue }
            let countKey = AnswerPath.countKey(group.id, in: parent)
            if adding, group.repeatCount == nil, step.index == count + 1, count < QuestionGroup.maxInstances {
                form.repeats[countKey] = step.index
                form = logic.withDefaults(form, now: now, under: Array(path.instance.prefix(depth + 1)))
                continue
            }
            let has = count == 1 ? "1 instance" : "\(count) instances"
            let how: String
            switch group.repeatCount {
            case .expression(let expression)?: how = " (its count is \(expression.text))"
            case .fixed?: how = " (a fixed count)"
            case nil: how = adding ? "; \(countKey)[\(count + 1)] adds the next" : ""
            }
            throw AnswerError(question: reference, rule: "\(countKey) has \(has)\(how)")
        }
        return AnswerSlot(question: question, instance: path.instance, index: index)
    }

    /// The rules of the answer at `slot`, named by its path, with the form's clock and zone.
    public static func rules(for slot: AnswerSlot, in form: Form) -> AnswerRules {
        AnswerRules(question: slot.question, position: slot.index + 1, count: form.template.questions.count,
                    temporal: form.temporalContext(), path: slot.instance.isEmpty ? nil : slot.key)
    }

    public static func rules(for index: Int, in template: Template, temporal: TemporalContext = .system()) -> AnswerRules {
        AnswerRules(question: template.questions[index], position: index + 1, count: template.questions.count, temporal: temporal)
    }

    /// The rules of question `index` of `form`, with `today` and `now` read in the form's zone.
    public static func rules(for index: Int, in form: Form) -> AnswerRules {
        rules(for: index, in: form.template, temporal: form.temporalContext())
    }

    // MARK: - Names

    static func nameStamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyyMMdd-HHmm"
        return formatter.string(from: date)
    }

    /// Whether `user` has a form of that name in either area (other than the one `ignoring`).
    func nameTaken(_ name: String, user: String, ignoring: FormLocation? = nil) throws -> Bool {
        try Store.Area.allCases.contains { area in
            let location = try store.location(area, user: user, name: name)
            return location != ignoring && FileManager.default.fileExists(atPath: location.folder.path)
        }
    }

    /// `base`, or `base-2`, `base-3`… whichever no form of `user` has in either area.
    func freeName(base: String, user: String, ignoring: FormLocation? = nil) throws -> String {
        var candidate = base
        var counter = 2
        while try nameTaken(candidate, user: user, ignoring: ignoring) {
            candidate = "\(base)-\(counter)"
            counter += 1
        }
        return candidate
    }
}
