import Foundation
import MIKit
import MITransport

/// Carries out the template cache's `TemplateSyncPlan` against the server: downloads what the
/// plan lists with the pictures its questions show, fetches pictures still missing from earlier
/// syncs, then removes what the server no longer publishes.
enum TemplateSync {
    struct Result {
        var downloaded: [String] = []
        var removed: [String] = []
        /// Pictures that could not be cached: the template is usable without them.
        var missingFiles: [MissingFile] = []
    }

    /// A picture of a template that is not in the cache after the sync, and why.
    struct MissingFile: Encodable {
        var template: String
        var file: String
        var reason: String

        var message: String {
            "could not download \(file) of template \(template) (\(reason)) — the template can be filled without the picture; `mi templates` tries again"
        }
    }

    /// The caller holds the store's lock.
    static func apply(_ listing: [TemplateListing], client: ServerClient, cache: TemplateCache, refresh: Bool) throws -> Result {
        let plan = try TemplateSyncPlan(listing: listing, cached: cache.digests(), refresh: refresh)
        var result = Result()
        let downloading = Set(plan.download.map(\.id))
        for entry in plan.download {
            let template = try cache.install(try client.template(id: entry.id), source: entry.id + ".json", expectedID: entry.id)
            result.downloaded.append(entry.id)
            result.missingFiles += downloadFiles(template.files, of: template, client: client, cache: cache)
        }
        // Templates that did not change may still lack a picture an earlier sync could not get.
        for entry in cache.all().templates where !downloading.contains(entry.template.id) && !plan.remove.contains(entry.template.id) {
            let missing = cache.missingFiles(of: entry.template)
            result.missingFiles += downloadFiles(missing, of: entry.template, client: client, cache: cache)
        }
        try cache.remove(plan.remove)
        result.removed = plan.remove
        return result
    }

    /// Downloads `names` of `template` into the cache (replacing older copies) and drops the
    /// pictures it no longer names; a file that fails is reported, not thrown.
    private static func downloadFiles(_ names: [String], of template: Template, client: ServerClient,
                                      cache: TemplateCache) -> [MissingFile] {
        var missing: [MissingFile] = []
        for name in names {
            do {
                try cache.installFile(try client.templateFile(id: template.id, name: name), name: name, of: template.id)
            } catch {
                missing.append(MissingFile(template: template.id, file: name, reason: error.localizedDescription))
            }
        }
        try? cache.pruneFiles(of: template)
        return missing
    }
}
