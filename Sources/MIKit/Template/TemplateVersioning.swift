import Foundation

/// How a published template gets its version and its file name in `Server.TemplatesDirectory`.
///
/// A draft from the editor gets the next version after the newest one. An uploaded file keeps
/// its own bytes (downloads give back exactly what was uploaded), so its version must already
/// be newer than the newest; it is refused otherwise rather than renumbered behind the
/// administrator's back.
public enum TemplateVersioning {
    /// The version a draft is published as: one more than the newest, 1 for a new template.
    public static func nextVersion(after newest: Int?) -> Int { (newest ?? 0) + 1 }

    /// Refuses an uploaded template whose version is not newer than `newest`.
    public static func checkUploaded(_ template: Template, file: String, newest: Int?) throws(TemplatePublishError) {
        if let newest, template.version <= newest {
            throw .notNewer(template: template.id, file: file, version: template.version, newest: newest)
        }
    }

    /// Refuses a draft from the editor that would overwrite another template or repeat the
    /// newest version. `basedOn` is the id of the template the editor opened (nil for "New
    /// template"): a draft may only become the next version of the template it was opened from,
    /// never, by its id, of another one. `newest` is the newest published version of the
    /// draft's id, if any; a draft identical to it (its version aside) publishes nothing.
    public static func checkDraft(_ template: Template, basedOn: String?, newest: Template?) throws(TemplatePublishError) {
        guard let newest else { return }
        if basedOn != template.id {
            throw .idExists(template: template.id, newest: newest.version)
        }
        var same = template
        same.version = newest.version
        if same == newest {
            throw .unchanged(template: template.id, version: newest.version)
        }
    }

    /// `<id>.v<version>.json`: one file per version, so older versions stay beside the newest.
    public static func fileName(id: String, version: Int) -> String { "\(id).v\(version).json" }
}

/// Why a template could not be published (its content's problems are a `TemplateError`).
public enum TemplatePublishError: ClassifiedError, Equatable {
    /// An uploaded file's version is not newer than the newest the server has.
    case notNewer(template: String, file: String, version: Int, newest: Int)
    /// Another publish took this version first.
    case versionTaken(template: String, version: Int)
    /// A new template (not opened from an existing one) has the id of a published template.
    case idExists(template: String, newest: Int)
    /// The draft is the newest version again (a second click on Publish, or no change made).
    case unchanged(template: String, version: Int)

    public var failureClass: FailureClass { .refused }

    public var code: String {
        switch self {
        case .notNewer: "template-version-not-newer"
        case .versionTaken: "template-version-taken"
        case .idExists: "template-id-exists"
        case .unchanged: "template-unchanged"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .notNewer(let template, let file, let version, let newest):
            "\(file): template \(template) has version \(version), but version \(newest) is already published — "
                + "set its version to \(newest + 1) or more and upload it again (the editor numbers versions itself)"
        case .versionTaken(let template, let version):
            "version \(version) of template \(template) was published by someone else a moment ago — "
                + "reload to see it, then publish again"
        case .idExists(let template, let newest):
            "this id exists — edit it instead? Template \(template) is already published (version \(newest)); "
                + "open it in the editor to publish its next version, or give this template another id"
        case .unchanged(let template, let version):
            "nothing to publish: the draft is identical to version \(version) of template \(template), the newest — "
                + "change something first"
        }
    }
}
