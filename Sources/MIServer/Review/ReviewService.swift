import Foundation
import Hummingbird
import MIKit

/// The office's review of stored submissions, one set of rules for the API and the office:
/// who may change a state or send a form back, what a change and a send-back must hold, and
/// what a technician gets back.
struct ReviewService: Sendable {
    let store: any ReviewStore
    let repository: any SubmissionRepository
    let layout: DataLayout
    let now: @Sendable () -> Date

    /// The longest note kept, in characters.
    static let maximumNoteLength = 4000

    /// Submission `id`'s review, for anyone who may read the submission (404 unknown, 403
    /// another technician's).
    func review(of id: String, session: SessionClaims) async throws -> SubmissionReview {
        return try await review(of: try await submission(id, session: session).id)
    }

    /// A foreman sets submission `id`'s state (`edited` is the server's alone: 422).
    func change(_ id: String, to state: ReviewState, note: String?, session: SessionClaims) async throws -> SubmissionReview {
        guard session.role == .foreman else { throw Self.foremenOnly(session, "change a submission's review state") }
        let (receipt, formID) = try await submission(id, session: session)
        guard ReviewState.settable.contains(state) else {
            throw HTTPError(.unprocessableContent, message: "the review state \"\(state.rawValue)\" is set by the server only (a newer version replaced the form) — choose one of \(Self.settableList)")
        }
        let event = ReviewEvent(reviewState: state, by: session.sub, at: now(), note: try Self.note(note, field: "note"))
        try await store.record(event, submission: formID, version: receipt.storedVersion)
        return try await review(of: formID)
    }

    /// A foreman sends submission `id` back to its technician with flagged questions (each an
    /// answer path of the stored form) and an overall note: at least one of the two.
    func sendBack(_ id: String, _ request: SendBackRequest, session: SessionClaims) async throws -> SubmissionReview {
        guard session.role == .foreman else { throw Self.foremenOnly(session, "send a form back") }
        let (receipt, formID) = try await submission(id, session: session)
        let (form, _) = try await SubmissionAccess.form(of: receipt, layout: layout)
        let flags = try Self.flags(request.flags, of: form)
        let note = try Self.note(request.note, field: "note")
        guard !flags.isEmpty || note != nil else {
            throw HTTPError(.unprocessableContent, message: "a send-back needs at least one flagged question or a note — say what the technician should fix")
        }
        try await store.sendBack(StoredSendBack(submissionID: formID, version: receipt.storedVersion, by: session.sub, at: now(),
                                                note: note, flags: flags, open: true))
        return try await review(of: formID)
    }

    /// The open send-backs as their technicians get them back: a technician's own; a foreman's
    /// everyone's, or `user`'s when given.
    func returned(session: SessionClaims, user: String?) async throws -> [SentBackForm] {
        let technician: String? = session.role == .foreman ? user : session.sub
        var forms: [SentBackForm] = []
        for sendBack in try await store.openSendBacks() {
            // A send-back of an older version was answered by the current one.
            guard let receipt = try await repository.receipt(id: sendBack.submissionID),
                  receipt.storedVersion == sendBack.version else { continue }
            if let technician, receipt.user != technician { continue }
            let (form, _) = try await SubmissionAccess.form(of: receipt, layout: layout)
            forms.append(SentBackForm(id: receipt.id, version: sendBack.version, formName: receipt.formName,
                                      templateID: form.template.id, by: sendBack.by, at: sendBack.at, note: sendBack.note,
                                      flags: sendBack.flags))
        }
        return forms
    }

    // MARK: - Versions

    /// Every stored version of submission `id`, for anyone who may read it.
    func versions(of id: String, session: SessionClaims) async throws -> SubmissionVersions {
        let (receipt, formID) = try await submission(id, session: session)
        let versions = try await repository.versions(id: formID)
        return SubmissionVersions(id: formID, current: receipt.storedVersion, versions: versions)
    }

    /// Version `number` (its text, from a path or query) of submission `id`: its receipt.
    func version(_ number: String, of id: String, session: SessionClaims) async throws -> Receipt {
        try Self.version(number, in: try await versions(of: id, session: session))
    }

    /// Version `number` among `all`: 404 naming those there are.
    static func version(_ number: String, in all: SubmissionVersions) throws -> Receipt {
        guard let wanted = Int(number), let receipt = all.versions.first(where: { $0.storedVersion == wanted }) else {
            throw SubmissionRefusal(.notFound, "submission \(all.id) has no version \(SafeName.printable(number)) — it has \(all.versions.map { String($0.storedVersion) }.joined(separator: ", "))")
        }
        return receipt
    }

    /// What changed from version `from` to version `to` among `all` (`FormDiff`): `to` is the
    /// current version unless given, `from` the one before `to`.
    func diff(_ all: SubmissionVersions, from: String?, to: String?) async throws -> SubmissionDiff {
        let later = try Self.version(to ?? String(all.current), in: all)
        let earlier = try Self.version(from ?? String(later.storedVersion - 1), in: all)
        let (old, _) = try await SubmissionAccess.form(of: earlier, layout: layout)
        let (new, _) = try await SubmissionAccess.form(of: later, layout: layout)
        return SubmissionDiff(id: later.id, from: earlier.storedVersion, to: later.storedVersion,
                              changes: FormDiff.changes(from: (old, earlier), to: (new, later)))
    }

    /// Submission `id` (any spelling) when `session` may read it: its receipt and form id.
    private func submission(_ id: String, session: SessionClaims) async throws -> (receipt: Receipt, id: FormID) {
        let receipt = try await SubmissionAccess.receipt(id, for: session, in: repository)
        return (receipt, receipt.id)
    }

    /// The review of a submission known to exist.
    func review(of id: FormID) async throws -> SubmissionReview {
        async let history = store.events(of: id)
        async let open = store.openSendBack(of: id)
        let events = try await history
        let sendBack = try await open
        return SubmissionReview(id: id, reviewState: events.last?.reviewState ?? .received, history: events,
                                flags: sendBack?.flags ?? [],
                                sendBack: sendBack.map { .init(version: $0.version, by: $0.by, at: $0.at, note: $0.note) })
    }

    // MARK: - Rules

    static var settableList: String { ReviewState.settable.map(\.rawValue).joined(separator: ", ") }

    static func foremenOnly(_ session: SessionClaims, _ action: String) -> HTTPError {
        HTTPError(.forbidden, message: "only a foreman may \(action) — you are logged in as \(session.sub), a technician; ask your foreman")
    }

    /// A note trimmed, nil when empty; 422 when longer than `maximumNoteLength`.
    static func note(_ text: String?, field: String) throws -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard text.count <= maximumNoteLength else {
            throw HTTPError(.unprocessableContent, message: "the \(field) has \(text.count) characters; at most \(maximumNoteLength) are kept — shorten it")
        }
        return text
    }

    /// The flags checked against the stored form: each names an answer path of one of its
    /// questions that takes an answer (`Form.slots`, repeats' instances included), once.
    static func flags(_ flags: [ReviewFlag], of form: Form) throws -> [ReviewFlag] {
        let paths = Set(form.slots.filter { $0.question.type.takesAnswer }.map(\.key))
        var seen = Set<String>()
        var checked: [ReviewFlag] = []
        for flag in flags {
            let path = flag.question.trimmingCharacters(in: .whitespaces)
            guard paths.contains(path) else {
                throw HTTPError(.unprocessableContent, message: "\"\(SafeName.printable(flag.question))\" is not a question of form \(form.name) (template \(form.template.id)) — flag an answer path such as \(paths.sorted().prefix(3).joined(separator: ", "))")
            }
            guard seen.insert(path).inserted else {
                throw HTTPError(.unprocessableContent, message: "question \(path) is flagged twice — give it one flag with one note")
            }
            checked.append(ReviewFlag(question: path, note: try note(flag.note, field: "note of flag \(path)") ?? ""))
        }
        return checked
    }
}
