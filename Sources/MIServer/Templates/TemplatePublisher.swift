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

    /// Checks a draft from the editor as the next version of its template would be.
    func check(_ draft: JSONValue) -> TemplateDraftReport {
        let coding = self.coding
        return coding.report(on: coding.numbered(draft, version: nextVersion(of: Self.id(of: draft, coding))), source: "the draft")
    }

    /// Publishes a draft from the editor as the next version of its template. Throws the
    /// draft's `TemplateError`, or `TemplatePublishError.versionTaken`.
    func publish(draft: JSONValue) throws -> TemplateCatalog.Entry {
        let coding = self.coding
        let numbered = coding.numbered(draft, version: nextVersion(of: Self.id(of: draft, coding)))
        let template = try coding.decode(numbered, source: "the draft")
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
