import Foundation

/// A form that makes a user's next form of a once-per-user template a second one: where it is,
/// so the refusal can say what to do with it.
public struct ExistingForm: Codable, Sendable, Equatable, CustomStringConvertible {
    /// Where the form was found.
    public enum Place: String, Codable, Sendable {
        /// In this store's incomplete forms.
        case incomplete
        /// In this store's completed forms, waiting for upload.
        case completed
        /// On the server (seen in its listing, or uploaded from this store).
        case server
    }

    public var templateID: String
    public var id: FormID
    public var name: String
    public var place: Place
    /// When it was started (an incomplete form) or submitted.
    public var date: Date

    public init(templateID: String, id: FormID, name: String, place: Place, date: Date) {
        self.templateID = templateID
        self.id = id
        self.name = name
        self.place = place
        self.date = date
    }

    /// "pump-1 (id 1a2b3c4d, started 2026-11-23, incomplete — continue it with `mi fill pump-1`)".
    public var description: String {
        let day = date.formatted(Date.ISO8601FormatStyle().year().month().day())
        let short = String(id.description.prefix(8))
        switch place {
        case .incomplete:
            return "\(name) (id \(short), started \(day), incomplete — continue it with `\(ShellWord.mi("fill", name))`, or delete it with `\(ShellWord.mi("delete", name))`)"
        case .completed:
            return "\(name) (id \(short), submitted \(day), waiting for upload)"
        case .server:
            return "\(name) (id \(short), submitted \(day), on the server)"
        }
    }
}

extension Workflow {
    /// The rule of `"oncePerUser"` templates: `user`'s form of `templateID` that is in this store
    /// (either area) or remembered from the server, other than `excluding`; nil when there is
    /// none or the template is not once per user. The caller holds the store's lock.
    public func existingForm(of template: Template, user: String, excluding: FormID? = nil) throws -> ExistingForm? {
        guard template.oncePerUser else { return nil }
        for area in Store.Area.allCases {
            let found = try store.list(area, user: user).forms
                .filter { $0.summary.templateID == template.id && $0.summary.id != excluding }
                .min { ($0.summary.createdAt, $0.location.name) < ($1.summary.createdAt, $1.location.name) }
            if let found {
                return ExistingForm(templateID: template.id, id: found.summary.id, name: found.location.name,
                                    place: area == .incomplete ? .incomplete : .completed,
                                    date: found.summary.submittedAt ?? found.summary.createdAt)
            }
        }
        return try store.rememberedForms(of: user).first { $0.templateID == template.id && $0.id != excluding }
    }

    /// Throws `WorkflowError.oncePerUser` when `existingForm` finds one. The caller holds the lock.
    public func checkOncePerUser(_ template: Template, user: String, excluding: FormID? = nil) throws {
        if let existing = try existingForm(of: template, user: user, excluding: excluding) {
            throw WorkflowError.oncePerUser(template: template.id, user: user, existing: existing)
        }
    }

    /// Notes that the server holds `user`'s form (uploaded from here, or in the server's
    /// listing), so that `mi new` refuses a second one offline too. The caller holds the lock.
    public func rememberOnServer(_ form: ExistingForm, user: String) throws {
        var form = form
        form.place = .server
        try store.remember(form, for: user)
    }

    /// Notes the forms of the server's listing of `user`'s submissions of `template` (a
    /// once-per-user one): simulated ones do not count, as on the server. Returns what was noted.
    @discardableResult
    public func rememberOnServer(_ listing: [SubmissionSummary], of template: Template, user: String) throws -> [ExistingForm] {
        guard template.oncePerUser else { return [] }
        let forms = listing.filter { $0.templateID == template.id && $0.user == user && !$0.simulated }.map { summary in
            ExistingForm(templateID: summary.templateID, id: summary.id, name: summary.formName, place: .server,
                         date: summary.submittedAt ?? summary.receivedAt)
        }
        for form in forms { try rememberOnServer(form, user: user) }
        return forms
    }

    /// Notes an uploaded form when its template is once per user (see `rememberOnServer`).
    public func rememberUploaded(_ form: Form) throws {
        guard form.template.oncePerUser else { return }
        try rememberOnServer(ExistingForm(templateID: form.template.id, id: form.id, name: form.name, place: .server,
                                          date: form.submittedAt ?? form.createdAt), user: form.user)
    }
}

extension Store {
    /// `.once/<user>.json`: the forms of once-per-user templates the server is known to hold.
    public var onceFolder: URL { root.appendingPathComponent(".once") }

    private func onceFile(for user: String) throws -> URL {
        onceFolder.appendingPathComponent(try SafeName.check(user, as: "user name") + ".json")
    }

    /// The forms of once-per-user templates the server is known to hold for `user`, oldest
    /// first. The caller holds the lock.
    public func rememberedForms(of user: String) throws -> [ExistingForm] {
        let file = try onceFile(for: user)
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        do {
            return try FormFile.decoder().decode([ExistingForm].self, from: data)
        } catch {
            throw StoreError.unreadableForm(path: file.path, reason: "not a list of remembered once-per-user forms — delete it; it is rebuilt from the server")
        }
    }

    /// Remembers `form` for `user`; a form already remembered (same id) is replaced. Written
    /// like messages: temporary file, fsync, rename. The caller holds the lock.
    func remember(_ form: ExistingForm, for user: String) throws {
        let file = try onceFile(for: user)
        let existing = try rememberedForms(of: user)
        let updated = existing.filter { $0.id != form.id } + [form]
        guard updated != existing else { return }
        try DurableFile.makeFolder(onceFolder)
        let encoder = FormFile.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        try DurableFile.write(try encoder.encode(updated.sorted { ($0.date, $0.name) < ($1.date, $1.name) }), to: file)
    }
}
