import Foundation

/// The offline template cache, `Documents/.templates/<id>.json`: where downloads land and
/// where `mi new` reads from. Files keep the JSON exactly as published (the configured key names).
/// The pictures a template's questions show sit beside it in `Documents/.templates/<id>/<name>`.
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
        var templates: [Entry] = []
        var invalid: [(String, String)] = []
        for name in cachedFileNames() {
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
    /// With `expectedID` (a download of a listed template), a template declaring another id is
    /// refused before anything is written.
    @discardableResult
    public func install(_ data: Data, source: String, expectedID: String? = nil) throws -> Template {
        let template = try coding.decode(data, source: source)
        if let expectedID, template.id != expectedID {
            throw TemplateSyncError.otherTemplateServed(listed: expectedID, served: template.id)
        }
        try DurableFile.makeFolder(folder)
        try DurableFile.write(data, to: folder.appendingPathComponent(template.id + ".json"))
        return template
    }

    /// The cached template files by id (the file name without `.json`), each with the lowercase
    /// hex SHA-256 of its bytes: what `TemplateSyncPlan` compares with the server's list. A file
    /// that cannot be read is left out, so a sync downloads it again over it.
    public func digests() -> [String: String] {
        var digests: [String: String] = [:]
        for name in cachedFileNames() {
            digests[String(name.dropLast(5))] = try? FileDigest.sha256(of: folder.appendingPathComponent(name)).hex
        }
        return digests
    }

    /// Removes the cached templates with these ids and their pictures, then syncs the folder.
    public func remove(_ ids: [String]) throws {
        guard !ids.isEmpty else { return }
        for id in ids {
            let file = folder.appendingPathComponent(try SafeName.check(id, as: "template id") + ".json")
            for url in [file, filesFolder(of: id)] where FileManager.default.fileExists(atPath: url.path) || url == file {
                do {
                    try FileManager.default.removeItem(at: url)
                } catch {
                    throw StoreError.io(operation: "remove", path: url.path, reason: error.localizedDescription)
                }
            }
        }
        try DurableFile.syncFolder(folder)
    }

    /// The folder of template `id`'s pictures (`id` already a safe name).
    public func filesFolder(of id: String) -> URL { folder.appendingPathComponent(id, isDirectory: true) }

    /// Where picture `name` of template `id` is cached (whether it is there or not).
    public func file(_ name: String, of id: String) throws -> URL {
        filesFolder(of: try SafeName.check(id, as: "template id")).appendingPathComponent(try SafeName.check(name, as: "file name"))
    }

    /// The cached path of question `question`'s picture of `template`, nil when the question
    /// shows none or the file is not cached.
    public func image(of question: Question, in template: Template) -> URL? {
        guard let name = question.image, let url = try? file(name, of: template.id),
              FileManager.default.fileExists(atPath: url.path) else { return nil }
        return url
    }

    /// The pictures `template` names that are not cached, in question order.
    public func missingFiles(of template: Template) -> [String] {
        template.files.filter { name in
            guard let url = try? file(name, of: template.id) else { return true }
            return !FileManager.default.fileExists(atPath: url.path)
        }
    }

    /// Stores picture `name` of template `id`, replacing an older copy atomically.
    public func installFile(_ data: Data, name: String, of id: String) throws {
        let url = try file(name, of: id)
        try DurableFile.makeFolder(folder)
        try DurableFile.makeFolder(url.deletingLastPathComponent())
        try DurableFile.write(data, to: url)
    }

    /// Removes the cached pictures of `template` that its questions no longer name (left by
    /// an older version).
    public func pruneFiles(of template: Template) throws {
        let folder = filesFolder(of: template.id)
        let kept = Set(template.files)
        var removed = false
        for name in DurableFile.directoryNames(folder) where !kept.contains(name) && !name.hasPrefix(".") {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            removed = true
        }
        if removed { try DurableFile.syncFolder(folder) }
    }

    /// The names of the template files in the cache (`<id>.json`, hidden files skipped), sorted.
    private func cachedFileNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
    }
}
