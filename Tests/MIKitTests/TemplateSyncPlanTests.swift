import Foundation
import MIKit
import TestSupport
import XCTest

/// Which templates a sync downloads and removes, decided from the server's list and the cache.
final class TemplateSyncPlanTests: XCTestCase {
    private let a = TemplateListing(id: "a", title: "A", version: 1, sha256: String(repeating: "a", count: 64))
    private let b = TemplateListing(id: "b", title: "B", version: 2, sha256: String(repeating: "b", count: 64))

    func testNewTemplatesAreDownloaded() throws {
        let plan = try TemplateSyncPlan(listing: [a, b], cached: [:], refresh: false)
        XCTAssertEqual(plan, TemplateSyncPlan(download: [a, b], remove: []))
    }

    func testUnchangedTemplatesAreKept() throws {
        let plan = try TemplateSyncPlan(listing: [a, b], cached: ["a": a.sha256, "b": b.sha256], refresh: false)
        XCTAssertEqual(plan, TemplateSyncPlan(download: [], remove: []))
    }

    func testChangedTemplatesAreDownloaded() throws {
        let plan = try TemplateSyncPlan(listing: [a, b], cached: ["a": a.sha256, "b": String(repeating: "0", count: 64)],
                                        refresh: false)
        XCTAssertEqual(plan.download, [b])
    }

    /// The server may spell the digest in capitals; the cache's is lowercase.
    func testDigestsCompareWhateverTheirCase() throws {
        var upper = a
        upper.sha256 = a.sha256.uppercased()
        XCTAssertEqual(try TemplateSyncPlan(listing: [upper], cached: ["a": a.sha256], refresh: false).download, [])
    }

    func testRefreshDownloadsEverything() throws {
        let plan = try TemplateSyncPlan(listing: [a, b], cached: ["a": a.sha256, "b": b.sha256], refresh: true)
        XCTAssertEqual(plan.download, [a, b])
    }

    func testTemplatesNoLongerListedAreRemovedInOrder() throws {
        let plan = try TemplateSyncPlan(listing: [a], cached: ["a": a.sha256, "z": "1", "c": "2"], refresh: false)
        XCTAssertEqual(plan, TemplateSyncPlan(download: [], remove: ["c", "z"]))
    }

    func testAnEmptyListingRemovesTheWholeCache() throws {
        XCTAssertEqual(try TemplateSyncPlan(listing: [], cached: ["a": "1"], refresh: false).remove, ["a"])
    }

    func testAnUnsafeIDStopsThePlan() {
        let hostile = TemplateListing(id: "../etc/passwd", title: "x", version: 1, sha256: a.sha256)
        XCTAssertThrowsError(try TemplateSyncPlan(listing: [a, hostile], cached: [:], refresh: false)) { error in
            guard case .unsafeName? = error as? StoreError else { return XCTFail("\(error)") }
        }
    }
}

/// The cache's side of a sync: digests of what it holds, downloads checked before they are written, removals.
final class TemplateCacheSyncTests: XCTestCase {
    private var fixture: StoreFixture!
    private var cache: TemplateCache!

    override func setUpWithError() throws {
        fixture = try StoreFixture()
        cache = TemplateCache(store: fixture.store, keys: fixture.configuration.templateKeys)
    }

    override func tearDown() {
        cache = nil
        fixture = nil
    }

    func testDigestsAreTheSHA256OfEachFileByID() throws {
        let data = Data(TemplateFixture.sampleJSON.utf8)
        XCTAssertEqual(cache.digests(), [TemplateFixture.sampleID: FileDigest.sha256(of: data)])
    }

    /// A cached file that cannot be read is left out of the digests, so the sync downloads it again.
    func testAnUnreadableCachedFileHasNoDigest() throws {
        try FileManager.default.createDirectory(at: cache.folder.appendingPathComponent("broken.json"), withIntermediateDirectories: false)
        XCTAssertEqual(Array(cache.digests().keys), [TemplateFixture.sampleID])
    }

    func testADownloadDeclaringAnotherIDIsRefusedBeforeWriting() throws {
        let before = Files.names(in: cache.folder)
        XCTAssertThrowsError(try cache.install(Data(TemplateFixture.sampleJSON.utf8), source: "other.json", expectedID: "other")) { error in
            XCTAssertEqual(error as? TemplateSyncError, .otherTemplateServed(listed: "other", served: TemplateFixture.sampleID))
            XCTAssertEqual((error as? TemplateSyncError)?.code, "server-template-id-differs")
            XCTAssertEqual((error as? TemplateSyncError)?.failureClass, .badData)
        }
        XCTAssertEqual(Files.names(in: cache.folder), before)
    }

    func testRemoveDeletesTheListedTemplates() throws {
        try cache.remove([TemplateFixture.sampleID])
        XCTAssertEqual(cache.digests(), [:])
        XCTAssertNoThrow(try cache.remove([]))
    }
}
