import Foundation

/// A form the office sent back, as `mi sync` puts it among the technician's incomplete forms,
/// and the technician's replies to its flags.
extension Workflow {
    /// What became of one returned form.
    public enum Received: Sendable {
        /// Placed among the incomplete forms, with its flags.
        case placed(FormLocation, Form)
        /// A form with that id is already here (not overwritten).
        case alreadyHere(FormLocation)
    }

    /// The form with id `id` among `user`'s incomplete and completed forms.
    public func localForm(id: FormID, user: String) throws -> FormLocation? {
        for area in [Store.Area.incomplete, .completed] {
            if let found = try store.list(area, user: user).forms.first(where: { $0.summary.id == id }) {
                return found.location
            }
        }
        return nil
    }

    /// Puts `returned`'s stored form.json (`formFile`) and its media (`media`, each file the form
    /// lists, by name, downloaded into the store's staging folder and moved from there) among
    /// the actor's incomplete forms in one rename: incomplete again, with
    /// `supersedes` the version it came back as, the office's flags (each with the answer as it
    /// stood), the note, and an audit event. A form with that id already here is left as it is.
    /// The caller holds the store's lock and has checked the bytes against the receipt.
    public func receiveReturned(_ returned: SentBackForm, formFile: Data,
                                media: [(name: String, file: URL)]) throws -> Received {
        let id = returned.id
        if let existing = try localForm(id: id, user: actor.name) { return .alreadyHere(existing) }
        var form: Form
        do {
            form = try FormFile.decode(formFile)
        } catch let error as FormFileError {
            throw ReturnedFormError(id: returned.id.description, reason: "its form.json cannot be read: \(error.reason)")
        }
        guard form.id == id else {
            throw ReturnedFormError(id: returned.id.description, reason: "its form.json is form \(form.id)")
        }
        guard form.user == actor.name else {
            throw ReturnedFormError(id: returned.id.description, reason: "it is \(form.user)'s form, not \(actor.name)'s")
        }
        let listed = Set(form.answers.values.flatMap(\.media))
        let given = Set(media.map(\.name))
        guard listed == given, given.count == media.count, !given.contains(Store.formFileName) else {
            let missing = listed.subtracting(given).sorted()
            throw ReturnedFormError(id: returned.id.description, reason: missing.isEmpty
                ? "its media files are not the ones form.json lists"
                : "media missing: \(missing.joined(separator: ", "))")
        }
        let paths = Set(form.slots.map(\.key)).union(form.template.questions.map(\.id))
        if let unknown = returned.flags.first(where: { !paths.contains($0.question) && form.answers[$0.question] == nil }) {
            throw ReturnedFormError(id: returned.id.description, reason: "the office flagged \(SafeName.printable(unknown.question)), which is no question of the form")
        }
        let date = now()
        form.status = .incomplete
        form.submittedAt = nil
        form.returnedAt = returned.at
        form.returnNote = returned.note
        form.supersedes = returned.version
        form.flags = returned.flags.map {
            FormFlag(question: $0.question, note: $0.note, by: returned.by, at: returned.at, returned: form.answer(for: $0.question))
        }
        let flagged = returned.flags.map(\.question)
        form.record(AuditEvent(at: returned.at, by: returned.by, action: .returned, questions: flagged.isEmpty ? nil : flagged,
                               note: ["version \(returned.version) sent back in the office", returned.note].compactMap { $0 }.joined(separator: ": ")))
        form.updatedAt = max(form.updatedAt, date)
        let name = try freeName(base: form.name, user: form.user)
        if name != form.name {
            form.record(AuditEvent(at: date, by: actor.name, action: .renamed, from: form.name, to: name))
            form.name = name
        }
        return .placed(try store.create(form, files: media), form)
    }

    /// Records the technician's reply to the office's flag on `question` (its path, or a
    /// question's id or number as `mi answer` takes it): the flag counts as answered.
    public func reply(_ reference: String, question: String, text: String) throws -> Form {
        let (location, original) = try openForChange(reference)
        var form = original
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else {
            throw WorkflowError.emptyText(what: "reply", hint: "say what you did about the flag with --reply TEXT")
        }
        try TextRules.check(trimmed, field: "reply", allowNewlines: true)
        var path = question
        if form.flag(at: path) == nil, let slot = try? Self.slot(question, in: &form) { path = slot.key }
        guard let index = form.flags.firstIndex(where: { $0.question == path }) else {
            throw WorkflowError.noSuchFlag(form: location.name, question: question, flagged: original.flags.map(\.question))
        }
        form = original
        for flag in form.flags.indices where form.flags[flag].question == form.flags[index].question {
            form.flags[flag].reply = trimmed
        }
        form.record(AuditEvent(at: now(), by: actor.name, action: .replied, questions: [path], note: trimmed))
        try store.save(form, at: location)
        return form
    }
}

/// A returned form that cannot be placed: what is wrong with what the server sent.
public struct ReturnedFormError: ClassifiedError, Sendable, Equatable {
    public var id: String
    public var reason: String
    public init(id: String, reason: String) { self.id = id; self.reason = reason }
    public var failureClass: FailureClass { .badData }
    public var code: String { "returned-form-invalid" }
    public var errorDescription: String? { "the returned form \(id) was not placed: \(reason) — nothing was changed; tell the office" }
}
