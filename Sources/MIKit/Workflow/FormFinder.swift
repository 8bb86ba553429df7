import Foundation

/// Finding forms and questions by what a person types: names, `user/name`, id prefixes,
/// question ids or numbers; and choosing free form names.
extension Workflow {
    // MARK: - Finding forms

    /// A form of `user` (the actor by default; for a foreman, anyone's) by its name, `user/name`,
    /// or an unambiguous prefix of its id.
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
        let lowered = reference.lowercased()
        let matches = lowered.count >= 4 ? forms.filter { $0.summary.id.uuidString.lowercased().hasPrefix(lowered) } : []
        if matches.count == 1, let only = matches.first { return only.location }
        if matches.count > 1 { throw StoreError.ambiguousForm(reference, matches: matches.map(\.location.name)) }
        _ = try SafeName.check(reference, as: "form name")
        throw StoreError.formNotFound(reference, user: owner)
    }

    /// Any user's form: `user/name`, a name only one user has, or an id prefix.
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
        let lowered = reference.lowercased()
        var matches: [FormLocation] = []
        if lowered.count >= 4 {
            for area in areas {
                matches += try store.list(area).forms
                    .filter { $0.summary.id.uuidString.lowercased().hasPrefix(lowered) }.map(\.location)
            }
        }
        if matches.count == 1, let only = matches.first { return only }
        if matches.count > 1 { throw StoreError.ambiguousForm(reference, matches: matches.map { "\($0.user)/\($0.name)" }) }
        _ = try SafeName.check(reference, as: "form name")
        throw StoreError.formNotFound(reference, user: "any technician")
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

    public static func rules(for index: Int, in template: Template) -> AnswerRules {
        AnswerRules(question: template.questions[index], position: index + 1, count: template.questions.count)
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
