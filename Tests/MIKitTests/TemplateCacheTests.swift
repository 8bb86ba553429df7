import Foundation
import MIKit
import TestSupport
import XCTest

final class TemplateCacheTests: XCTestCase {
    private var fixture: StoreFixture!
    private var cache: TemplateCache { TemplateCache(store: fixture.store, keys: .default) }

    override func setUpWithError() throws {
        fixture = try StoreFixture()
    }

    override func tearDown() {
        fixture = nil
    }

    func testInstalledTemplateIsStoredUnderItsIdVerbatim() throws {
        let file = fixture.store.templatesFolder.appendingPathComponent("pump-inspection.json")
        XCTAssertEqual(try Data(contentsOf: file), Data(TemplateFixture.sampleJSON.utf8))
        XCTAssertEqual(try cache.template(id: "pump-inspection"), try TemplateFixture.sampleTemplate())
    }

    func testInvalidTemplateIsNotInstalled() throws {
        let before = Files.names(in: fixture.store.templatesFolder)
        let bad = TemplateFixture.json(questions: [#"{"id": "q", "type": "essay", "text": "Q"}"#], id: "bad")
        XCTAssertThrowsError(try cache.install(bad, source: "bad.json")) { error in
            XCTAssertEqual((error as? TemplateError)?.template, "bad")
        }
        XCTAssertEqual(Files.names(in: fixture.store.templatesFolder), before)
    }

    func testInvalidFileInTheCacheIsListedApart() throws {
        try Files.write("{ broken", to: fixture.store.templatesFolder.appendingPathComponent("broken.json"))
        let all = cache.all()
        XCTAssertEqual(all.templates.map(\.template.id), ["pump-inspection"])
        XCTAssertEqual(all.invalid.map(\.file), ["broken.json"])
    }

    func testHostileTemplateIdIsRefusedBeforeReading() {
        XCTAssertThrowsError(try cache.template(id: "../Config")) { error in
            guard case StoreError.unsafeName(let kind, _, _)? = error as? StoreError else {
                return XCTFail("expected unsafeName, got \(error)")
            }
            XCTAssertEqual(kind, "template id")
        }
    }

    func testEmptyCacheSaysSo() throws {
        try FileManager.default.removeItem(at: fixture.store.templatesFolder)
        XCTAssertThrowsError(try cache.template(id: "pump-inspection")) { error in
            XCTAssertEqual(error as? StoreError, .noTemplates(cache: fixture.store.templatesFolder.path))
        }
    }
}
