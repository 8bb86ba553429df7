import Foundation

/// The technician's and foreman's operations as functions over the store. Callers hold the
/// store's lock around each call (see `Workspace.locked`).
public struct Workflow: Sendable {
    public let store: Store
    public let templates: TemplateCache
    public let configuration: Configuration
    public let actor: Actor
    public let now: @Sendable () -> Date

    public init(configuration: Configuration, actor: Actor, now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.store = Store(root: configuration.documents)
        self.templates = TemplateCache(store: store, keys: configuration.templateKeys)
        self.actor = actor
        self.now = now
    }

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

    /// Loads a form the actor may change: their own and still incomplete.
    func openForChange(_ reference: String) throws -> (FormLocation, Form) {
        let location = try resolve(reference)
        guard location.area == .incomplete else {
            throw WorkflowError("form \(location.name) is submitted and waits for the foreman's review — it can no longer be changed")
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

    // MARK: - Technician

    /// Starts a form from a cached template. The name defaults to `<template>-<date>-<time>`.
    public func startForm(templateID: String, name: String? = nil) throws -> (FormLocation, Form) {
        let template = try templates.template(id: templateID)
        let date = now()
        let chosen: String
        if let name {
            chosen = try SafeName.check(name, as: "form name")
            if try nameTaken(chosen, user: actor.name) {
                throw WorkflowError("you already have a form named \(chosen) — choose another name")
            }
        } else {
            chosen = try freeName(base: "\(template.id)-\(Self.nameStamp(date))", user: actor.name)
        }
        var form = Form(name: chosen, user: actor.name, template: template, createdAt: date)
        form.record(AuditEvent(at: date, by: actor.name, action: .created, note: "template \(template.id) v\(template.version)"))
        return (try store.create(form), form)
    }

    /// Sets answers and comments for several questions at once: all are checked first, and
    /// form.json is written only when every one is valid.
    public func answer(_ reference: String, _ updates: [AnswerUpdate]) throws -> Form {
        let (location, original) = try openForChange(reference)
        var form = original
        var changed: [String] = []
        for update in updates {
            let (index, question) = try Self.question(update.question, in: form.template)
            let rules = Self.rules(for: index, in: form.template)
            var answer = form.answer(for: question.id)
            switch update.value {
            case .none: break
            case .words(let words): answer.value = try rules.value(fromWords: words)
            case .json(let json): answer.value = try rules.value(fromJSON: json)
            case .validated(let value): answer.value = value
            }
            if let comment = update.comment {
                let trimmed = comment.trimmingCharacters(in: .whitespacesAndNewlines)
                answer.comment = trimmed.isEmpty ? nil : trimmed
            }
            form.answers[question.id] = answer
            changed.append(question.id)
        }
        guard form != original else { return form }
        form.record(AuditEvent(at: now(), by: actor.name, action: .answered, questions: changed))
        try store.save(form, at: location)
        return form
    }

    /// Parses an answers file: `{question id: value}` or `{question id: {"value": …, "comment": …}}`.
    public static func updates(fromAnswersFile data: Data) throws -> [AnswerUpdate] {
        let json: JSONValue
        do { json = try JSONValue.parse(data) } catch let error as DecodingError {
            throw WorkflowError("the answers file is not valid JSON: \(error.summary) — fix the file and run again; nothing was saved")
        }
        guard let object = json.objectValue else {
            throw WorkflowError("the answers file must be a JSON object of question id → value, found \(json.kindDescription); nothing was saved")
        }
        return try object.keys.sorted().compactMap { key -> AnswerUpdate? in
            guard let value = object[key] else { return nil }
            guard case .object(let parts) = value else { return AnswerUpdate(question: key, value: .json(value)) }
            let unknown = parts.keys.filter { !["value", "comment"].contains($0) }.sorted()
            guard unknown.isEmpty else {
                throw AnswerError(question: key, rule: "unknown field(s) \(unknown.joined(separator: ", ")) — give \"value\" and/or \"comment\"")
            }
            guard parts["value"] != nil || parts["comment"] != nil else {
                throw AnswerError(question: key, rule: "give a \"value\", a \"comment\", or both")
            }
            var comment: String?
            if let raw = parts["comment"], raw != .null {
                guard let text = raw.stringValue else {
                    throw AnswerError(question: key, rule: "the comment must be text, found \(raw.kindDescription)")
                }
                comment = text
            }
            return AnswerUpdate(question: key, value: parts["value"].flatMap { $0 == .null ? nil : .json($0) },
                                comment: comment)
        }
    }

    /// Copies files into the form's folder as the question's media (`Qid1(3).mp4`), streaming,
    /// and records each one only once it is complete and synced.
    public func attach(_ reference: String, question questionReference: String, files: [URL]) throws -> [MediaFile] {
        let (location, original) = try openForChange(reference)
        let (index, question) = try Self.question(questionReference, in: original.template)
        var form = original
        var attached: [MediaFile] = []
        for file in files {
            let kind = try MediaKind.of(file)
            let name = try MediaNaming.nextName(questionIndex: index, extension: file.pathExtension.lowercased(),
                                                form: form, questionID: question.id, folder: location.folder)
            let (temporary, bytes) = try DurableFile.streamCopy(from: file, into: location.folder)
            do {
                try DurableFile.moveNoReplace(temporary, to: location.folder.appendingPathComponent(name))
            } catch {
                try? FileManager.default.removeItem(at: temporary)
                throw error
            }
            var answer = form.answer(for: question.id)
            answer.media.append(name)
            form.answers[question.id] = answer
            form.record(AuditEvent(at: now(), by: actor.name, action: .attached, questions: [question.id], media: name))
            try store.save(form, at: location)
            attached.append(MediaFile(name: name, questionID: question.id, kind: kind, bytes: bytes))
        }
        return attached
    }

    /// The media of a form with their sizes on disk.
    public func media(of form: Form, at location: FormLocation) -> [MediaFile] {
        form.template.questions.flatMap { question in
            form.answer(for: question.id).media.map { name in
                let size = (try? FileManager.default.attributesOfItem(atPath: location.folder.appendingPathComponent(name).path))?[.size] as? NSNumber
                return MediaFile(name: name, questionID: question.id,
                                 kind: MediaKind(extension: (name as NSString).pathExtension) ?? .photo,
                                 bytes: size?.int64Value, missing: size == nil)
            }
        }
    }

    /// Removes one media file: first from form.json, then from disk.
    public func detach(_ reference: String, media name: String) throws -> Form {
        let (location, original) = try openForChange(reference)
        guard let questionID = original.answers.first(where: { $0.value.media.contains(name) })?.key else {
            let all = original.answers.values.flatMap(\.media).sorted()
            throw WorkflowError("form \(location.name) has no media \"\(SafeName.printable(name))\"" +
                                (all.isEmpty ? "" : " (it has: \(all.joined(separator: ", ")))") + " — `mi media \(location.name)` lists them")
        }
        var form = original
        form.answers[questionID]?.media.removeAll { $0 == name }
        form.record(AuditEvent(at: now(), by: actor.name, action: .detached, questions: [questionID], media: name))
        try store.save(form, at: location)
        let file = location.folder.appendingPathComponent(try SafeName.check(name, as: "media name"))
        try? FileManager.default.removeItem(at: file)
        try? DurableFile.syncFolder(location.folder)
        return form
    }

    /// Checks every question has an answer or a comment, then moves the whole folder to
    /// `CompletedMIs/<user>/` in one rename.
    public func submit(_ reference: String) throws -> (FormLocation, Form) {
        let (location, original) = try openForChange(reference)
        let open = original.openQuestions
        guard open.isEmpty else {
            let list = open.map { q in "\(q.id) (\((original.template.index(of: q.id) ?? 0) + 1))" }.joined(separator: ", ")
            throw WorkflowError("form \(location.name) cannot be submitted: \(open.count) question(s) have neither an answer nor a comment: \(list) — answer them with `mi fill \(location.name)` or `mi answer`")
        }
        var form = original
        let date = now()
        form.status = .completed
        form.submittedAt = date
        form.record(AuditEvent(at: date, by: actor.name, action: .submitted))
        var name = form.name
        if try store.list(.completed, user: form.user).forms.contains(where: { $0.location.name == name }) {
            name = try freeName(base: form.name, user: form.user)
            form.record(AuditEvent(at: date, by: actor.name, action: .renamed, from: form.name, to: name))
            form.name = name
        }
        // form.json first, then the move: a crash between the two leaves the form in Users/,
        // where it still counts as incomplete and can be submitted again.
        try store.save(form, at: location)
        let destination = try store.move(location, to: .completed, user: form.user, name: name)
        return (destination, form)
    }

    /// Deletes one of the actor's incomplete forms with all its media.
    public func delete(_ reference: String) throws -> FormLocation {
        let location = try resolve(reference)
        guard location.area == .incomplete else {
            throw WorkflowError("form \(location.name) is submitted; only incomplete forms can be deleted")
        }
        try store.remove(location)
        return location
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

/// One question's new value and/or comment.
public struct AnswerUpdate: Sendable {
    public enum Input: Sendable {
        case words([String])
        case json(JSONValue)
        case validated(AnswerValue)
    }
    public var question: String
    public var value: Input?
    /// nil leaves the comment as it is; an empty string removes it.
    public var comment: String?

    public init(question: String, value: Input?, comment: String? = nil) {
        self.question = question
        self.value = value
        self.comment = comment
    }
}
