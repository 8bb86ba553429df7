import Foundation
import MIKit
import MITransport

/// Carries out the template cache's `TemplateSyncPlan` against the server: downloads what the
/// plan lists, then removes what the server no longer publishes.
enum TemplateSync {
    struct Result { var downloaded: [String] = []; var removed: [String] = [] }

    /// The caller holds the store's lock.
    static func apply(_ listing: [TemplateListing], client: ServerClient, cache: TemplateCache, refresh: Bool) throws -> Result {
        let plan = try TemplateSyncPlan(listing: listing, cached: cache.digests(), refresh: refresh)
        var result = Result()
        for entry in plan.download {
            try cache.install(try client.template(id: entry.id), source: entry.id + ".json", expectedID: entry.id)
            result.downloaded.append(entry.id)
        }
        try cache.remove(plan.remove)
        result.removed = plan.remove
        return result
    }
}
