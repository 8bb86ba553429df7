import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The local completed forms of one template that the acting user may see, oldest submission
/// first: a technician's own (`CompletedMIs/<user>`), a foreman's everyone's (or `user`'s).
public struct LocalCompletedForms: Sendable {
    /// The forms, in submission order.
    public var forms: [ListedForm]
    /// Forms whose form.json could not be read (reported, left as they are).
    public var unreadable: [UnreadableForm]
    /// The version that lays out an export: the template cache's, or a form's own copy when a
    /// form was made from a newer one (or the template is no longer in the cache).
    public var layout: Template
}

extension Workflow {
    /// The completed forms of `templateID` for an export, with the layout template. A
    /// technician asking for another technician's forms is refused. `listing` is the sweep's,
    /// read under the same lock; without it the store is read.
    public func completedForms(of templateID: String, user: String? = nil,
                               listing all: StoreListing? = nil) throws -> LocalCompletedForms {
        try SafeName.check(templateID, as: "template id")
        var user = user
        if actor.role == .technician {
            if let user, user != actor.name { throw ExportError.otherTechnician(user) }
            user = actor.name
        }
        let listing = try all?.list(.completed, user: user) ?? store.list(.completed, user: user)
        let forms = listing.forms.filter { $0.summary.templateID == templateID }.sorted {
            ($0.summary.submittedAt ?? $0.summary.updatedAt, $0.location.user, $0.location.name)
                < ($1.summary.submittedAt ?? $1.summary.updatedAt, $1.location.user, $1.location.name)
        }
        let cached = try? templates.template(id: templateID)
        var layout = cached
        if let newest = forms.max(by: { $0.summary.templateVersion < $1.summary.templateVersion }),
           newest.summary.templateVersion > cached?.version ?? Int.min,
           let copy = try? store.load(newest.location).template {
            layout = copy
        }
        guard let layout else { _ = try templates.template(id: templateID); throw StoreError.templateNotFound(templateID) }
        return LocalCompletedForms(forms: forms, unreadable: listing.unreadable, layout: layout)
    }
}

/// `mi export`'s source: local form folders, read one at a time.
public struct LocalExportSource: ExportSource {
    public let store: Store
    public let locations: [FormLocation]

    public init(store: Store, locations: [FormLocation]) {
        self.store = store
        self.locations = locations
    }

    public var count: Int { locations.count }

    public func load(_ index: Int) throws -> ExportedForm {
        let location = locations[index]
        let (form, file) = try store.loadWithFile(location)
        var paths: [String: String] = [:]
        for name in ExportWriter.mediaNames(of: form) where SafeName.problem(name) == nil {
            let path = location.path + "/" + name
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG { paths[name] = path }
        }
        return ExportedForm(json: file, form: form, mediaPaths: paths)
    }
}
