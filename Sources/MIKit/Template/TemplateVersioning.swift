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

    /// `<id>.v<version>.json`: one file per version, so older versions stay beside the newest.
    public static func fileName(id: String, version: Int) -> String { "\(id).v\(version).json" }
}

/// Why a template could not be published (its content's problems are a `TemplateError`).
public enum TemplatePublishError: ClassifiedError, Equatable {
    /// An uploaded file's version is not newer than the newest the server has.
    case notNewer(template: String, file: String, version: Int, newest: Int)
    /// Another publish took this version first.
    case versionTaken(template: String, version: Int)

    public var failureClass: FailureClass { .refused }

    public var code: String {
        switch self {
        case .notNewer: "template-version-not-newer"
        case .versionTaken: "template-version-taken"
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
        }
    }
}
