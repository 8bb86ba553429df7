import Foundation
import Hummingbird
import MIDirectory
import MIKit
import NIOConcurrencyHelpers

/// What the server checks before it stores a form a foreman uploads, rather than taking
/// form.json's word: its `user` is a safe name of a technician the directory knows, spelled as
/// the directory spells it, and its template is one this server has (some version of it).
/// Every way in — `PUT` with a manifest, `POST` multipart, resumable parts — goes through
/// `SubmissionController.receiveAndRecord`, which calls `check` once the form part is read.
struct SubmissionAcceptance: Sendable {
    /// Seconds a client is told to wait when the directory cannot be asked: `mi upload` tries
    /// 4 times, each resending the body and waiting up to LDAP.TimeoutSeconds for the lookup,
    /// so a longer wait would hold the foreman for minutes before it says "try again later".
    static let retryAfterSeconds = 10

    let technicians: TechnicianLookup
    let catalog: TemplateCatalog?

    /// Throws 422 naming the user or the template the server refuses, or 503 (with Retry-After)
    /// when the directory cannot say who the user is: nothing is stored unchecked.
    func check(_ form: Form) async throws {
        let id = form.id.description
        let which = "form \(id) (\(SafeName.printable(form.name)))"
        if let reason = SafeName.problem(form.user) {
            throw HTTPError(.unprocessableContent, message: "\(which) names the user \"\(SafeName.printable(form.user))\", which cannot be a user name: \(reason) — the form was not stored; it must be a technician's own form made with `mi`")
        }
        var published: Template?
        if let catalog {
            let templateID = form.template.id, version = form.template.version
            let (known, entry) = try await Blocking.run { (catalog.template(id: templateID) != nil, catalog.template(id: templateID, version: version)) }
            guard known else {
                throw HTTPError(.unprocessableContent, message: "\(which) is of template \(SafeName.printable(templateID)), which this server does not have — the form was not stored; publish the template on the server (or upload forms of its templates only)")
            }
            published = entry.flatMap { try? catalog.coding.decode($0.data, source: $0.fileName) }
        }
        try Self.checkLogic(form, template: published ?? form.template, which: which)
        let found: DirectoryUser?
        do {
            found = try await technicians.user(named: form.user)
        } catch let error as DirectoryError {
            throw HTTPError(.serviceUnavailable, headers: [.retryAfter: String(Self.retryAfterSeconds)],
                            message: "the server cannot check with the directory that \(SafeName.printable(form.user)) is a technician (\(error.errorDescription ?? error.code)) — the form was not stored; upload it again in a minute")
        }
        guard let found else {
            throw HTTPError(.unprocessableContent, message: "\(which) names the user \(form.user), whom the directory does not know — the form was not stored; it must be a technician's own form made with `mi`")
        }
        guard found.userName == form.user else {
            throw HTTPError(.unprocessableContent, message: "\(which) names the user \(form.user), which the directory spells \(SafeName.printable(found.userName)) — the form was not stored; it must be a technician's own form made with `mi`")
        }
        guard found.role == .technician else {
            throw HTTPError(.unprocessableContent, message: "\(which) names the user \(form.user), who is a \(found.role.rawValue), not a technician — the form was not stored; only technicians' forms are uploaded")
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
        throw HTTPError(.unprocessableContent, message: "\(which) breaks its template's logic — \(problems) — the form was not stored; it must be submitted with `mi submit`, which checks the same rules")
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
        let user = try await SessionController.directoryThreads.runIfActive { try directory.lookup(user: name) }
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
