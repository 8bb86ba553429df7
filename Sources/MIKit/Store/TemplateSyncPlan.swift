import Foundation

/// What bringing the template cache in line with the server's list means: which templates to
/// download (new, or changed by SHA-256 of the file; every one with `refresh`) and which cached
/// ones to remove (no longer published). Forms in progress keep their own copy of their
/// template, so removing one never strands a form.
public struct TemplateSyncPlan: Sendable, Equatable {
    /// The listing entries to download, in the listing's order.
    public var download: [TemplateListing]
    /// The ids of cached templates the server no longer lists, sorted.
    public var remove: [String]

    /// A plan with these steps.
    public init(download: [TemplateListing], remove: [String]) {
        self.download = download
        self.remove = remove
    }

    /// The plan for the server's `listing` against the cache's `cached` files (id → lowercase
    /// hex SHA-256). Every id in the listing must be a safe file name: one that is not stops the
    /// plan before anything changes.
    public init(listing: [TemplateListing], cached: [String: String], refresh: Bool) throws {
        for entry in listing { try SafeName.check(entry.id, as: "template id") }
        download = listing.filter { refresh || cached[$0.id] != $0.sha256.lowercased() }
        let published = Set(listing.map(\.id))
        remove = cached.keys.filter { !published.contains($0) }.sorted()
    }
}

/// A template the server sent is not the one it listed.
public enum TemplateSyncError: ClassifiedError, Sendable, Equatable {
    /// The file served for `listed` declares the id `served`.
    case otherTemplateServed(listed: String, served: String)

    public var failureClass: FailureClass { .badData }

    public var code: String {
        switch self {
        case .otherTemplateServed: return "server-template-id-differs"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .otherTemplateServed(let listed, let served):
            return "the server lists template \(listed), but the file it serves for it says its id is \(served) — the cache was not changed; tell the administrator to fix the template's id"
        }
    }
}
