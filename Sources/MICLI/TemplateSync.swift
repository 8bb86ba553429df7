import Foundation
import MIKit
import MITransport

/// Brings the template cache in line with the server's list: downloads what is new or changed
/// (by SHA-256 of the file), removes what the server no longer publishes. Forms in progress
/// keep their own copy, so removing a template never strands one.
enum TemplateSync {
    struct Result { var downloaded: [String] = []; var removed: [String] = [] }

    /// The caller holds the store's lock.
    static func apply(_ listing: [TemplateListing], client: ServerClient, cache: TemplateCache, refresh: Bool) throws -> Result {
        var result = Result()
        let local = cache.folder
        for entry in listing {
            try SafeName.check(entry.id, as: "template id")
            let file = local.appendingPathComponent(entry.id + ".json")
            let current = FileManager.default.fileExists(atPath: file.path) ? try? FileDigest.sha256(of: file).hex : nil
            guard refresh || current != entry.sha256.lowercased() else { continue }
            let data = try client.template(id: entry.id)
            let installed = try cache.install(data, source: entry.id + ".json")
            guard installed.id == entry.id else {
                throw TemplateError(template: entry.id, problems: [.init(question: nil, field: "id", message: "the server's template \(entry.id) says its id is \(installed.id) — tell the administrator")])
            }
            result.downloaded.append(entry.id)
        }
        let published = Set(listing.map(\.id))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: local.path)) ?? []
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let id = String(name.dropLast(5))
            guard !published.contains(id) else { continue }
            try FileManager.default.removeItem(at: local.appendingPathComponent(name))
            result.removed.append(id)
        }
        if !result.removed.isEmpty { try DurableFile.syncFolder(local) }
        return result
    }
}
