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

    // MARK: - Technician

    /// Starts a form from a cached template. The name defaults to `<template>-<date>-<time>`.
    /// `displayName` is the technician's name from the directory, recorded for the PDF.
    /// A template answered once per user is refused while the actor has a form of it here or
    /// remembered from the server (`existingForm`).
    /// `startLocation` is where the form is started (a `captureLocation` template's, or one
    /// typed with `mi new --location`): recorded with an audit event saying where it came from,
    /// or, when unavailable, an audit event saying why none was recorded.
    /// `language` (`Fill.Language`, `LANG`) is recorded when the template has a language it
    /// names (`Template.language(matching:)`) other than its default; `requiredLanguage`
    /// (`mi new --lang`) must name one of the template's languages.
    public func startForm(templateID: String, name: String? = nil, displayName: String? = nil,
                          startLocation: StartLocation? = nil, language: String? = nil,
                          requiredLanguage: String? = nil) throws -> (FormLocation, Form) {
        try checkOncePerUser(try templates.template(id: templateID), user: actor.name)
        var form = try newForm(templateID: templateID, name: name, displayName: displayName)
        if let language, let matched = form.template.language(matching: language), matched != form.template.defaultLanguage {
            form.language = matched
        }
        if let required = requiredLanguage {
            guard let matched = form.template.language(matching: required) else {
                throw WorkflowError.noSuchLanguage(template: form.template.id, requested: required, languages: form.template.languages)
            }
            form.language = matched == form.template.defaultLanguage ? nil : matched
        }
        if let startLocation { form.recordStart(startLocation, by: actor.name, at: form.createdAt) }
        return (try store.create(form), form)
    }

    /// A new form as `startForm` makes it, not yet written (the once-per-user rule is
    /// `startForm`'s: `mi simulate` makes many made-up forms of a template).
    func newForm(templateID: String, name: String?, displayName: String?) throws -> Form {
        let template = try templates.template(id: templateID)
        let date = now()
        let chosen: String
        if let name {
            chosen = try SafeName.check(name, as: "form name")
            if try nameTaken(chosen, user: actor.name) {
                throw WorkflowError.nameTaken(chosen)
            }
        } else {
            chosen = try freeName(base: "\(template.id)-\(Self.nameStamp(date))", user: actor.name)
        }
        var form = Form(name: chosen, user: actor.name, template: template, createdAt: date)
        form.userDisplayName = Self.recordableDisplayName(displayName)
        form.timeZone = TimeZone.current.identifier
        form.record(AuditEvent(at: date, by: actor.name, action: .created, note: "template \(template.id) v\(template.version)"))
        if template.hasLogic { form = FormLogic(template: template).withDefaults(form, now: date) }
        return form
    }

    /// Sets answers and comments for several questions at once: all are checked first, and
    /// form.json is written only when every one is valid. A form whose template has a consent
    /// text takes no answer until it is accepted: before (`acceptConsent`) or with these answers
    /// (`acceptingConsent`, saved together with them, or not at all).
    public func answer(_ reference: String, _ updates: [AnswerUpdate], acceptingConsent: Bool = false) throws -> Form {
        let (location, original) = try openForChange(reference)
        var form = original
        let date = now()
        if acceptingConsent { form.acceptConsent(by: actor.name, at: date) }
        try Self.checkConsent(form, name: location.name)
        let changed = try Self.apply(updates, to: &form, now: date)
        guard form != original else { return form }
        // A withdrawn answer is its own event ("cleared"); a comment given with it, and every
        // other update, is "answered". A clear of a question that had no value records nothing.
        let cleared = zip(updates, changed).compactMap { update, key -> String? in
            guard case .clear = update.value else { return nil }
            let before = original.answer(for: key)
            return before.value != nil || before.draft != nil ? key : nil
        }
        let answered = zip(updates, changed).compactMap { update, key -> String? in
            if case .clear = update.value, update.comment == nil || original.answer(for: key).comment == form.answer(for: key).comment { return nil }
            return key
        }
        if !cleared.isEmpty { form.record(AuditEvent(at: date, by: actor.name, action: .cleared, questions: cleared)) }
        if !answered.isEmpty { form.record(AuditEvent(at: date, by: actor.name, action: .answered, questions: answered)) }
        try store.save(form, at: location)
        return form
    }

    /// Checks and applies updates to `form`'s answers (all or, on the first refusal, none);
    /// returns the key (path) of each update's answer, in order. The one path by which answers
    /// enter a form. An answer in the instance one past the last of an open repeat adds it.
    static func apply(_ updates: [AnswerUpdate], to form: inout Form, now: Date = Date()) throws -> [String] {
        var updated = form
        var changed: [String] = []
        for update in updates {
            var adds = update.value != nil
            if case .clear? = update.value { adds = false }
            let slot = try slot(update.question, in: &updated, adding: adds, now: now)
            let question = slot.question
            if !question.logic.isAnsweredByHand, update.value != nil {
                throw rules(for: slot, in: updated).refuse(question.logic.calculation != nil
                    ? "its value is calculated (\(question.logic.calculation?.text ?? "")) and cannot be answered"
                    : "it is read-only and cannot be answered")
            }
            var answer = updated.answer(for: slot.key)
            try answer.apply(update, rules: rules(for: slot, in: updated))
            updated.answers[slot.key] = answer
            changed.append(slot.key)
        }
        if updated.template.hasLogic {
            let grown = updated.repeats != form.repeats
            try checkLogic(of: changed, in: &updated, now: now, structural: grown)
        }
        form = updated
        return changed
    }

    /// Form logic after answers change: the calculations that depend on them are recomputed
    /// (all of them when instances were added or removed: `structural`), and each changed
    /// answer that now holds a value must be relevant and meet its constraint.
    static func checkLogic(of changed: [String], in form: inout Form, now: Date, structural: Bool = false) throws {
        let logic = FormLogic(template: form.template)
        let names = Set(changed.compactMap { AnswerPath(parsing: $0)?.name })
        form = logic.recalculated(form, now: now, changed: structural ? nil : names)
        var seen: Set<String> = []
        for key in changed where seen.insert(key).inserted {
            guard let path = AnswerPath(parsing: key), let slot = logic.slot(at: path), let value = form.answer(for: key).value else { continue }
            if !logic.isRelevant(slot, in: form, now: now) {
                let why = slot.question.logic.relevant.map { "(\($0.text))" } ?? "(its group is not relevant)"
                throw rules(for: slot, in: form).refuse("the question is not relevant now \(why), so it takes no answer")
            }
            if let message = logic.constraintProblem(slot, value: value, in: form, now: now) {
                throw rules(for: slot, in: form).refuse(message)
            }
        }
    }

    /// Checks the consent is accepted and every question has an answer or a comment, then
    /// moves the whole folder to `CompletedMIs/<user>/` in one rename.
    public func submit(_ reference: String) throws -> (FormLocation, Form) {
        let (location, original) = try openForChange(reference)
        try Self.checkConsent(original, name: location.name)
        // Every question the office flagged needs a changed answer or a reply first; the flags
        // stay in form.json, with the replies, for the office to see.
        let unanswered = original.unansweredFlags
        guard unanswered.isEmpty else {
            throw WorkflowError.unansweredFlags(form: location.name, flags: unanswered.map { ReviewFlag(question: $0.question, note: $0.note) })
        }
        let date = now()
        var prepared = original
        var cleared: [String] = []
        let open: [AnswerSlot]
        if original.template.hasLogic {
            // As ODK: what is not relevant is not submitted; calculations are computed afresh;
            // then every constraint and required question is checked (one evaluation for all).
            prepared.submittedAt = date
            let submission = FormLogic(template: original.template).submission(prepared, now: date)
            (prepared, cleared, open) = (submission.form, submission.cleared, submission.open)
            guard submission.violations.isEmpty else { throw FormLogicError(form: location.name, violations: submission.violations) }
            prepared.submittedAt = nil
        } else {
            open = prepared.openSlots
        }
        guard open.isEmpty else {
            func label(_ slot: AnswerSlot) -> String { "\(slot.key) (\(slot.index + 1))" }
            let drafts = open.filter { original.answer(for: $0.key).draft != nil }
            throw WorkflowError.openQuestions(
                form: location.name,
                questions: open.filter { original.answer(for: $0.key).draft == nil }.map(label),
                drafts: drafts.map {
                    .init(question: label($0), typed: original.answer(for: $0.key).draftCellCount,
                          cells: QuestionPrompt.valueCells(of: $0.question).count)
                })
        }
        // A form saved before the text rule (arrow keys typed into an answer) is corrected
        // before it leaves the technician, never refused by the server later.
        try TextRules.check(original)
        var form = prepared
        // The files of an answer cleared (a photo question's photo) leave with it.
        let kept = Set(form.answers.values.flatMap(\.media))
        let removedFiles = original.answers.keys.sorted().flatMap { original.answer(for: $0).media }.filter { !kept.contains($0) }
        if !cleared.isEmpty {
            let files = removedFiles.isEmpty ? "" : "; their files are removed: " + removedFiles.joined(separator: ", ")
            form.record(AuditEvent(at: date, by: actor.name, action: .cleared, questions: cleared,
                                   note: "not relevant at submission: the answers are not submitted" + files))
        }
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
        if !removedFiles.isEmpty {
            for file in removedFiles {
                guard let safe = try? SafeName.check(file, as: "media name") else { continue }
                try? FileManager.default.removeItem(at: location.folder.appendingPathComponent(safe))
            }
            try? DurableFile.syncFolder(location.folder)
        }
        let destination = try store.move(location, to: .completed, user: form.user, name: name)
        return (destination, form)
    }

    /// Sets the language an incomplete form is filled and printed in (`mi fill --lang`):
    /// `requested` must name one of its template's languages (`Template.language(matching:)`).
    public func setLanguage(_ reference: String, to requested: String) throws -> Form {
        let (location, original) = try openForChange(reference, operation: .filled)
        guard let language = original.template.language(matching: requested) else {
            throw WorkflowError.noSuchLanguage(template: original.template.id, requested: requested, languages: original.template.languages)
        }
        var form = original
        form.language = language == original.template.defaultLanguage ? nil : language
        guard form != original else { return form }
        try store.save(form, at: location)
        return form
    }

    /// Deletes one of the actor's incomplete forms with all its media.
    public func delete(_ reference: String) throws -> FormLocation {
        let location = try resolve(reference)
        guard location.area == .incomplete else {
            throw WorkflowError.formSubmitted(form: location.name, operation: .deleted)
        }
        try store.remove(location)
        return location
    }

    /// A display name worth keeping: not empty and plain text (a directory entry with control
    /// characters is not recorded; the PDF then names the user alone).
    static func recordableDisplayName(_ name: String?) -> String? {
        guard let name = name?.trimmingCharacters(in: .whitespaces), !name.isEmpty,
              (try? TextRules.check(name, field: "display name")) != nil else { return nil }
        return name
    }
}
