import Foundation

/// The foreman's desk: the queue, general comments, sending forms back, reassignment.
/// Callers hold the store's lock around each call, and check the actor is a foreman.
extension Workflow {
    /// What waits for a foreman: completed forms, oldest submission first, and incomplete forms
    /// by technician, oldest first; optionally of one technician or one template. `listing` is
    /// the one the sweep just read under the same lock (see `SweepResult.listing`); without it
    /// the store is read.
    public func queue(user: String? = nil, template: String? = nil, listing all: StoreListing? = nil) throws -> ForemanQueue {
        var queue = ForemanQueue()
        for area in Store.Area.allCases {
            let listing = try all?.list(area, user: user) ?? store.list(area, user: user)
            queue.unreadable += listing.unreadable
            let forms = listing.forms.filter { template == nil || $0.summary.templateID == template }
            switch area {
            case .completed:
                queue.completed = forms.sorted {
                    ($0.summary.submittedAt ?? $0.summary.updatedAt, $0.location.user, $0.location.name)
                        < ($1.summary.submittedAt ?? $1.summary.updatedAt, $1.location.user, $1.location.name)
                }
            case .incomplete:
                queue.incomplete = forms.sorted {
                    ($0.location.user, $0.summary.expiryStart, $0.location.name) < ($1.location.user, $1.summary.expiryStart, $1.location.name)
                }
            }
        }
        return queue
    }

    /// Adds a general comment to a completed form, with the foreman's name and the time.
    public func comment(_ reference: String, text: String) throws -> Form {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw WorkflowError.emptyText(what: "comment", hint: "write what the technician should know") }
        try TextRules.check(trimmed, field: "comment", allowNewlines: true)
        let location = try resolve(reference)
        guard location.area == .completed else {
            throw WorkflowError.formNotSubmitted(form: "\(location.user)/\(location.name)", operation: .commented)
        }
        var form = try store.load(location)
        let date = now()
        form.foremanComments.append(ForemanComment(at: date, by: actor.name, text: trimmed))
        form.record(AuditEvent(at: date, by: actor.name, action: .commented, note: trimmed))
        try store.save(form, at: location)
        return form
    }

    /// Sends a completed form back to its technician's incomplete forms with a note; its expiry
    /// restarts now, and the technician is told at their next login.
    public func sendBack(_ reference: String, note: String) throws -> (FormLocation, Form) {
        let trimmed = note.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw WorkflowError.emptyText(what: "note", hint: "say what to correct with --note TEXT") }
        try TextRules.check(trimmed, field: "note", allowNewlines: true)
        let location = try resolve(reference)
        guard location.area == .completed else {
            throw WorkflowError.formNotSubmitted(form: "\(location.user)/\(location.name)", operation: .returned)
        }
        var form = try store.load(location)
        let date = now()
        let name = try freeName(base: form.name, user: form.user, ignoring: location)
        form.status = .incomplete
        form.submittedAt = nil
        form.returnedAt = date
        form.returnNote = trimmed
        form.record(AuditEvent(at: date, by: actor.name, action: .returned, note: trimmed))
        if name != form.name {
            form.record(AuditEvent(at: date, by: actor.name, action: .renamed, from: form.name, to: name))
            form.name = name
        }
        // form.json first, then the one rename: a crash between leaves the form where it was,
        // and the folder decides.
        try store.save(form, at: location)
        let destination = try store.move(location, to: .incomplete, user: form.user, name: name)
        try store.post(UserMessage(at: date, text: "form \(name) was sent back by \(actor.name): \(trimmed)"), to: form.user)
        return (destination, form)
    }

    /// Moves an incomplete form with all its media to another technician (`target`, already
    /// checked against the directory) in one rename, renaming it when the target already has
    /// a form of that name; the previous technician and the new one each find a message at
    /// their next login.
    /// `displayName` is the target's name from the directory, recorded for the PDF. A form of a
    /// once-per-user template is refused when the target already has one (`existingForm`).
    public func reassign(_ reference: String, to target: String,
                         displayName: String? = nil) throws -> (from: FormLocation, to: FormLocation, form: Form) {
        try SafeName.check(target, as: "user name")
        let location = try resolve(reference)
        guard location.area == .incomplete else {
            throw WorkflowError.formSubmitted(form: "\(location.user)/\(location.name)", operation: .reassigned)
        }
        guard location.user != target else {
            throw WorkflowError.alreadyAssigned(form: location.name, user: target)
        }
        var form = try store.load(location)
        try checkOncePerUser(form.template, user: target, excluding: form.id)
        let date = now()
        let previous = form.user
        let name = try freeName(base: form.name, user: target)
        form.user = target
        form.userDisplayName = Self.recordableDisplayName(displayName)
        form.record(AuditEvent(at: date, by: actor.name, action: .assigned, from: previous, to: target))
        if name != form.name {
            form.record(AuditEvent(at: date, by: actor.name, action: .renamed, from: form.name, to: name))
            form.name = name
        }
        try store.save(form, at: location)
        let destination = try store.move(location, to: .incomplete, user: target, name: name)
        try store.post(UserMessage(at: date, text: "form \(location.name) was reassigned to \(target) by \(actor.name)"), to: previous)
        try store.post(UserMessage(at: date, text: "form \(name) was assigned to you by \(actor.name) (it was \(previous)'s\(name == location.name ? "" : " \(location.name)"))"), to: target)
        return (location, destination, form)
    }
}

/// The foreman's queue.
public struct ForemanQueue: Sendable {
    public var completed: [ListedForm] = []
    public var incomplete: [ListedForm] = []
    public var unreadable: [UnreadableForm] = []
    public init() {}
}

/// Uploading completed forms: the parts to send, and the local copy kept until the server's
/// receipt matches every part.
extension Workflow {
    /// The parts of a completed form's upload, in order: `form` (form.json), then every media
    /// file. Nothing is written: the form's history records no upload before the server's
    /// receipt is verified (an attempt that fails must not read as "uploaded"), and every
    /// attempt sends the very same bytes, so the server recognises a retry. The upload itself
    /// is recorded by the server (its receipt names the foreman and the time), and the local
    /// copy is removed once that receipt is verified.
    public func prepareUpload(_ location: FormLocation) throws -> (form: Form, parts: [UploadPart]) {
        guard location.area == .completed else {
            throw WorkflowError.formNotSubmitted(form: "\(location.user)/\(location.name)", operation: .uploaded)
        }
        let form = try store.load(location)
        // mi-server refuses text with control characters; say so before sending anything.
        try TextRules.check(form)
        var parts = [UploadPart.form(location.formFile)]
        // Every answer's media in the order asked (each repeat's once per instance: `Form.slots`),
        // then those of any answer at no slot, so the parts are always what form.json lists.
        let asked = form.slots.map(\.key)
        let others = Set(form.answers.keys).subtracting(asked).sorted()
        for key in asked + others {
            for media in form.answer(for: key).media {
                let file = location.folder.appendingPathComponent(try SafeName.check(media, as: "media name"))
                guard FileManager.default.fileExists(atPath: file.path) else {
                    throw WorkflowError.mediaMissing(form: "\(location.user)/\(location.name)", media: media)
                }
                parts.append(UploadPart(name: media, file: file))
            }
        }
        return (form, parts)
    }
}

extension Workflow {
    /// The rule for who may receive a reassigned form: a user the directory knows (`role` is
    /// nil when it does not) who is a technician.
    public static func checkAssignee(_ user: String, role: Actor.Role?) throws(AssignmentError) {
        guard let role else { throw .noSuchUser(user) }
        guard role == .technician else { throw .notATechnician(user) }
    }
}

/// A reassignment refused before anything moves.
public enum AssignmentError: ClassifiedError, Sendable, Equatable {
    case noSuchUser(String)
    case notATechnician(String)

    public var failureClass: FailureClass {
        if case .noSuchUser = self { return .notFound }
        return .badData
    }

    public var code: String {
        switch self {
        case .noSuchUser: return "no-such-user"
        case .notATechnician: return "not-a-technician"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .noSuchUser(let user):
            return "there is no user \(user) in the directory — `mi users` lists who can receive forms; nothing was moved"
        case .notATechnician(let user):
            return "\(user) is a foreman — forms can be assigned to technicians only; nothing was moved"
        }
    }
}
