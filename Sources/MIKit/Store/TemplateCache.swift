import Foundation

/// The offline template cache, `Documents/.templates/<id>.json`: where downloads land and
/// where `mi new` reads from. Files keep the JSON exactly as published (the configured key names).
public struct TemplateCache: Sendable {
    public let folder: URL
    public let coding: TemplateCoding

    public init(store: Store, keys: TemplateKeys) {
        folder = store.templatesFolder
        coding = TemplateCoding(keys: keys)
    }

    public struct Entry: Sendable {
        public var template: Template
        public var file: URL
        public var modified: Date?
    }

    /// Every valid template in the cache, by id; invalid files are returned apart with the reason.
    public func all() -> (templates: [Entry], invalid: [(file: String, error: String)]) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var templates: [Entry] = []
        var invalid: [(String, String)] = []
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let file = folder.appendingPathComponent(name)
            do {
                let template = try coding.decode(try Data(contentsOf: file), source: name)
                let modified = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date
                templates.append(Entry(template: template, file: file, modified: modified))
            } catch {
                invalid.append((name, error.localizedDescription))
            }
        }
        return (templates.sorted { $0.template.id < $1.template.id }, invalid)
    }

    public func template(id: String) throws -> Template {
        try SafeName.check(id, as: "template id")
        let file = folder.appendingPathComponent(id + ".json")
        guard let data = FileManager.default.contents(atPath: file.path) else {
            if all().templates.isEmpty { throw StoreError.noTemplates(cache: folder.path) }
            throw StoreError.templateNotFound(id)
        }
        return try coding.decode(data, source: id + ".json")
    }

    /// Validates template JSON and stores it under its id, replacing an older copy atomically.
    @discardableResult
    public func install(_ data: Data, source: String) throws -> Template {
        let template = try coding.decode(data, source: source)
        try DurableFile.makeFolder(folder)
        try DurableFile.write(data, to: folder.appendingPathComponent(template.id + ".json"))
        return template
    }
}
