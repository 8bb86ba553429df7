import Foundation
import MIKit

/// Publishes templates into `Server.TemplatesDirectory` as `<id>.v<version>.json`, beside
/// the versions before them. Each file is written whole and synced, then renamed into place
/// without replacing anything: of two publishes of one version, one wins and the other gets
/// `TemplatePublishError.versionTaken`. The catalog notices the new file on its next look.
struct TemplatePublisher: Sendable {
    let catalog: TemplateCatalog

    /// The catalog's coding, refusing control characters in every text: what is published here
    /// is printed on technicians' terminals.
    var coding: TemplateCoding {
        var coding = catalog.coding
        coding.refusesControlCharacters = true
        return coding
    }

    /// The version the next draft of template `id` is published as.
    func nextVersion(of id: String?) -> Int {
        TemplateVersioning.nextVersion(after: id.flatMap { catalog.template(id: $0)?.version })
    }

    /// Checks a draft from the editor as the next version of its template would be, and
    /// whether it may be published there (`TemplateVersioning.checkDraft`): a new template
    /// (`basedOn` nil) with the id of a published one is reported on its id field.
    func check(_ draft: JSONValue, basedOn: String?) -> TemplateDraftReport {
        let coding = self.coding
        var report = coding.report(on: coding.numbered(draft, version: nextVersion(of: Self.id(of: draft, coding))), source: "the draft")
        if let id = Self.id(of: draft, coding), basedOn != id, let newest = catalog.template(id: id) {
            let refusal = TemplatePublishError.idExists(template: id, newest: newest.version)
            report.problems.insert(.init(template: id, question: nil, field: coding.keys[.id],
                                         message: refusal.errorDescription ?? refusal.code, code: refusal.code), at: 0)
        }
        return report
    }

    /// Publishes a draft from the editor as the next version of its template. Throws the
    /// draft's `TemplateError`, or a `TemplatePublishError`: `idExists` when the draft would
    /// become a version of a template other than `basedOn` (the one the editor opened; nil
    /// for a new template), `unchanged` when it is the newest version again, `versionTaken`.
    func publish(draft: JSONValue, basedOn: String?) throws -> TemplateCatalog.Entry {
        let coding = self.coding
        let id = Self.id(of: draft, coding)
        let newestEntry = id.flatMap { catalog.template(id: $0) }
        let numbered = coding.numbered(draft, version: TemplateVersioning.nextVersion(after: newestEntry?.version))
        let template = try coding.decode(numbered, source: "the draft")
        let newest = try newestEntry.map { try coding.decode($0.data, source: $0.fileName) }
        try TemplateVersioning.checkDraft(template, basedOn: basedOn, newest: newest)
        return try write(coding.encodeData(template), of: template)
    }

    /// Publishes an uploaded file as it is: its version must be newer than the newest
    /// (`TemplateVersioning.checkUploaded`). Throws `TemplateError` or `TemplatePublishError`.
    func publish(upload data: Data, fileName: String) throws -> TemplateCatalog.Entry {
        guard data.count <= TemplateCatalog.maximumFileBytes else {
            throw TemplateError(template: fileName, problems: [.init(message: "the file is larger than \(TemplateCatalog.maximumFileBytes >> 20) MiB")])
        }
        let template = try coding.decode(data, source: fileName)
        try TemplateVersioning.checkUploaded(template, file: fileName, newest: catalog.template(id: template.id)?.version)
        return try write(data, of: template)
    }

    private func write(_ data: Data, of template: Template) throws -> TemplateCatalog.Entry {
        let name = TemplateVersioning.fileName(id: template.id, version: template.version)
        try DurableFile.makeFolder(catalog.folder)
        do {
            try DurableFile.create(data, at: catalog.folder.appendingPathComponent(name))
        } catch StoreError.exists {
            throw TemplatePublishError.versionTaken(template: template.id, version: template.version)
        }
        catalog.logger.info("published template \(template.id) v\(template.version) as \(name)")
        return TemplateCatalog.Entry(template: template, data: data, fileName: name, modified: Date())
    }

    private static func id(of draft: JSONValue, _ coding: TemplateCoding) -> String? {
        guard case .object(let object) = draft else { return nil }
        return object[coding.keys[.id]]?.stringValue
    }
}
