import Foundation
import MIDirectory
import MIKit
import NIOConcurrencyHelpers

/// The acceptance rules of an upload: what the server checks before it stores a form a
/// foreman uploads, rather than taking form.json's word. The form part must be a valid
/// form.json whose answers MI could have stored; its `user` a safe name of a technician the
/// directory knows, spelled as the directory spells it; its template one this server has
/// (some version of it), whose logic (`FormLogic`, the published version's) the answers keep;
/// no simulated answers unless the server takes them; the respondent's acceptance of the
/// consent text the server published; and the media parts exactly those its answers list.
/// Every way in — `PUT` with a manifest, `POST` multipart, resumable parts — goes through
/// `SubmissionIntake`, which applies them; once per user is the repository's (it needs the
/// stored rows), worded here. Every refusal is a `SubmissionRefusal`.
struct SubmissionAcceptance: Sendable {
    /// Seconds a client is told to wait when the directory cannot be asked: `mi upload` tries
    /// 4 times, each resending the body and waiting up to LDAP.TimeoutSeconds for the lookup,
    /// so a longer wait would hold the foreman for minutes before it says "try again later".
    static let retryAfterSeconds = 10

    let technicians: TechnicianLookup
    /// The published templates: a form's template must be one of them, its logic and consent
    /// text are the published version's.
    let catalog: TemplateCatalog?
    /// `Server.AcceptSimulated`: whether forms made by `mi simulate` are stored.
    let acceptSimulated: Bool

    init(technicians: TechnicianLookup, catalog: TemplateCatalog?, acceptSimulated: Bool = false) {
        self.technicians = technicians
        self.catalog = catalog
        self.acceptSimulated = acceptSimulated
    }

    /// The form judged by every rule that needs no stored row and no media: its user, its
    /// template and logic, simulated answers, consent. Throws 422 (`unacceptable`, consent's
    /// with its code) naming what the server refuses, or 503 (`directoryUnavailable`) when the
    /// directory cannot say who the user is: nothing is stored unchecked.
    func judge(_ form: Form) async throws {
        try await check(form)
        if form.isSimulated && !acceptSimulated { throw Self.simulatedRefused(form) }
        if let digest = Self.requiredConsent(of: form, catalog: catalog), form.consent?.sha256 != digest {
            throw Self.consentRefused(form, digest: digest)
        }
    }

    /// The form's user and template: 422 naming the user or the template the server refuses,
    /// 503 (with Retry-After) when the directory cannot be asked.
    func check(_ form: Form) async throws {
        let id = form.id.description
        let which = "form \(id) (\(SafeName.printable(form.name)))"
        if let reason = SafeName.problem(form.user) {
            throw SubmissionRefusal(.unacceptable, "\(which) names the user \"\(SafeName.printable(form.user))\", which cannot be a user name: \(reason) — the form was not stored; it must be a technician's own form made with `mi`")
        }
        var published: Template?
        if let catalog {
            let templateID = form.template.id, version = form.template.version
            let (known, entry) = try await Blocking.run { (catalog.template(id: templateID) != nil, catalog.template(id: templateID, version: version)) }
            guard known else {
                throw SubmissionRefusal(.unacceptable, "\(which) is of template \(SafeName.printable(templateID)), which this server does not have — the form was not stored; publish the template on the server (or upload forms of its templates only)")
            }
            published = entry.flatMap { try? catalog.coding.decode($0.data, source: $0.fileName) }
        }
        try Self.checkLogic(form, template: published ?? form.template, which: which)
        let found: DirectoryUser?
        do {
            found = try await technicians.user(named: form.user)
        } catch let error as DirectoryError {
            throw SubmissionRefusal(.directoryUnavailable(retryAfterSeconds: Self.retryAfterSeconds),
                                    "the server cannot check with the directory that \(SafeName.printable(form.user)) is a technician (\(error.errorDescription ?? error.code)) — the form was not stored; upload it again in a minute")
        }
        guard let found else {
            throw SubmissionRefusal(.unacceptable, "\(which) names the user \(form.user), whom the directory does not know — the form was not stored; it must be a technician's own form made with `mi`")
        }
        guard found.userName == form.user else {
            throw SubmissionRefusal(.unacceptable, "\(which) names the user \(form.user), which the directory spells \(SafeName.printable(found.userName)) — the form was not stored; it must be a technician's own form made with `mi`")
        }
        guard found.role == .technician else {
            throw SubmissionRefusal(.unacceptable, "\(which) names the user \(form.user), who is a \(found.role.rawValue), not a technician — the form was not stored; only technicians' forms are uploaded")
        }
    }
}

extension SubmissionAcceptance {
    /// The form judged again by its template's logic (`FormLogic`, the same as `mi submit`'s):
    /// the published version of the template when the server has it (a form's own copy could
    /// have had its logic removed), calculations recomputed rather than trusted. Throws 422
    /// naming each question and its message; nothing is stored.
    static func checkLogic(_ form: Form, template: Template, which: String) throws {
        guard template.hasLogic else { return }
        let logic = FormLogic(template: template)
        let violations = logic.violations(in: form, now: FormLogic.moment(of: form, now: form.updatedAt),
                                          requireAnswers: form.status == .completed)
        guard !violations.isEmpty else { return }
        let problems = violations.map { "question \(SafeName.printable($0.question)): \($0.message)" }.joined(separator: "; ")
        throw SubmissionRefusal(.unacceptable, "\(which) breaks its template's logic — \(problems) — the form was not stored; it must be submitted with `mi submit`, which checks the same rules")
    }

    /// The received form part (form.json in `folder`), and the scores it claims (compared,
    /// never stored): 400 when it is missing or no valid form.json, 422 when it holds an answer
    /// MI never stores.
    static func decodeForm(in folder: URL, parts: [ReceivedPart]) throws -> (Form, [String: ScoreValue]?) {
        guard parts.contains(where: { $0.name == UploadPart.formName }) else {
            throw SubmissionRefusal(.malformed, "the upload has no part named \"\(UploadPart.formName)\" holding \(UploadPart.formFilename) — use `mi upload`")
        }
        let data = try Data(contentsOf: folder.appendingPathComponent(UploadPart.formFilename))
        do {
            let form = try FormFile.decode(data)
            try TextRules.check(form)
            do {
                try form.checkStoredAnswers()
            } catch let error as AnswerError {
                throw SubmissionRefusal(.unacceptable, "form \(form.id.description) (\(SafeName.printable(form.name))) was not stored: question \(error.question): \(error.rule) — MI never stores such an answer, so form.json was written or changed by something else; check it with `mi review`")
            }
            return (form, FormFile.claimedScores(data))
        } catch let error as SubmissionRefusal {
            throw error
        } catch let error as TextRuleError {
            throw SubmissionRefusal(.malformed, "the form part was refused: \(error.errorDescription ?? error.code)")
        } catch let error as FormFileError {
            throw SubmissionRefusal(.malformed, "the form part is not a valid form.json: \(error.reason) — check the form with `mi review`")
        } catch {
            throw SubmissionRefusal(.malformed, "the form part is not a valid form.json: \(error) — check the form with `mi review`")
        }
    }

    /// The media parts must be exactly the media form.json's answers list.
    static func checkMedia(_ parts: [ReceivedPart], against form: Form) throws {
        let listed = Set(form.answers.values.flatMap(\.media))
        for name in listed.sorted() {
            if let reason = SafeName.problem(name) {
                throw SubmissionRefusal(.malformed, "form.json lists media \"\(SafeName.printable(name))\", which cannot be a file name: \(reason)")
            }
        }
        let received = Set(parts.map(\.name).filter { $0 != UploadPart.formName })
        let missing = listed.subtracting(received).sorted()
        let extra = received.subtracting(listed).sorted()
        guard missing.isEmpty && extra.isEmpty else {
            var problems: [String] = []
            if !missing.isEmpty { problems.append("missing \(missing.joined(separator: ", "))") }
            if !extra.isEmpty { problems.append("not listed in form.json: \(extra.joined(separator: ", "))") }
            throw SubmissionRefusal(.malformed, "the media parts do not match form.json (\(problems.joined(separator: "; "))) — check the form's media with `mi media` and upload again")
        }
    }

    /// 422 for a form made by `mi simulate`, unless the server is set to accept them: simulated
    /// answers must never be mistaken for real inspections.
    static func simulatedRefused(_ form: Form) -> SubmissionRefusal {
        SubmissionRefusal(.unacceptable, "form \(form.id.description) (\(SafeName.printable(form.name))) holds simulated answers (made by `mi simulate`), not a real inspection — this server refuses simulated forms; to accept them (a demo or test server) set Server.AcceptSimulated to true in its Config.plist")
    }

    /// 422 `consent-required` for a form of a template with a consent text whose acceptance is
    /// missing or is for another text than the form's own copy of the template holds.
    static func consentRefused(_ form: Form, digest: String) -> SubmissionRefusal {
        let which = form.consent.map { "its acceptance is for another text (SHA-256 \(SafeName.printable($0.sha256)))" }
            ?? "it has no acceptance"
        return SubmissionRefusal(.unacceptable, "form \(form.id.description) (\(SafeName.printable(form.name))) needs the respondent's acceptance of the consent text of template \(form.template.id) (SHA-256 \(digest)), but \(which) — the form was not stored; the technician accepts it with `mi fill` or `mi answer --accept-consent` before submitting",
                                 code: APIErrorBody.consentRequiredCode)
    }

    /// The SHA-256 of the consent text `form`'s acceptance must be for, if any: the text the
    /// server published for the form's template version — a form whose copy of the template lost
    /// or changed the text is not taken on its word — or, for a version the server does not have
    /// (published elsewhere, since removed), the text of the form's own copy.
    static func requiredConsent(of form: Form, catalog: TemplateCatalog?) -> String? {
        if let entry = catalog?.template(id: form.template.id, version: form.template.version) {
            return entry.consentDigest
        }
        return form.template.consentDigest
    }

    /// 409 `once-per-user` naming the user's first submission of the template.
    static func oncePerUserRefused(_ form: Form, first: SubmissionSummary) -> SubmissionRefusal {
        let submitted = (first.submittedAt ?? first.receivedAt).formatted(Date.ISO8601FormatStyle().year().month().day())
        return SubmissionRefusal(.conflict, "template \(form.template.id) is answered once per person and \(form.user) already has a submission of it: form \(SafeName.printable(first.formName)) (id \(first.id)), submitted \(submitted) — form \(form.id.description) (\(SafeName.printable(form.name))) was not stored",
                                 code: APIErrorBody.oncePerUserCode)
    }

    /// 409: the server holds this form's id with other content, as version `stored.storedVersion`
    /// (the upload's form says it `supersedes` a version, when it does).
    static func conflict(_ stored: Receipt, supersedes: Int? = nil) -> SubmissionRefusal {
        let version = stored.storedVersion
        let why: String
        switch supersedes {
        case .some(let older) where older != version:
            why = "this copy corrects version \(older), which is no longer the current one — it is stale; `mi sync` brings the current version back if the office sends it back again"
        case .some:
            why = "the office has not sent version \(version) back, so no corrected version is taken — ask the office to send it back first"
        case .none:
            why = "the local copy was changed after an upload; keep it and tell the administrator"
        }
        return SubmissionRefusal(.conflict, "the server already holds form \(stored.id) (\(stored.formName)) as version \(version), with different content — \(why)")
    }
}

/// Users looked up in the directory for `SubmissionAcceptance`, remembered for a little while
/// so that an upload of many forms asks the directory once per technician. A user found is
/// remembered for `foundSeconds`, one not found for `missingSeconds`; a failed lookup is not
/// remembered at all.
final class TechnicianLookup: Sendable {
    static let foundSeconds: TimeInterval = 300
    static let missingSeconds: TimeInterval = 30
    /// Entries kept at most: made-up names must not grow the table without bound.
    static let capacity = 1000

    private struct Entry {
        var user: DirectoryUser?
        var until: Date
    }

    let directory: any DirectoryService
    let now: @Sendable () -> Date
    private let entries = NIOLockedValueBox<[String: Entry]>([:])

    init(directory: any DirectoryService, now: @escaping @Sendable () -> Date) {
        self.directory = directory
        self.now = now
    }

    /// The directory's user of this name, or nil when it has none. Throws `DirectoryError`
    /// when the directory cannot be asked. Blocking LDAP runs on the directory's own threads.
    func user(named name: String) async throws -> DirectoryUser? {
        let now = now()
        if let entry = entries.withLockedValue({ $0[name] }), entry.until > now { return entry.user }
        let directory = self.directory
        let user = try await DirectoryThreads.pool.runIfActive { try directory.lookup(user: name) }
        let until = now.addingTimeInterval(user == nil ? Self.missingSeconds : Self.foundSeconds)
        entries.withLockedValue { entries in
            if entries.count >= Self.capacity {
                entries = entries.filter { $0.value.until > now }
                if entries.count >= Self.capacity { entries.removeAll() }
            }
            entries[name] = Entry(user: user, until: until)
        }
        return user
    }
}
