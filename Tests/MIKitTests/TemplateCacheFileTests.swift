import Foundation
import MIKit
import TestSupport
import XCTest

/// The pictures a cached template shows: `Documents/.templates/<id>/<name>`.
final class TemplateCacheFileTests: XCTestCase {
    private var fixture: StoreFixture!
    private var cache: TemplateCache { TemplateCache(store: fixture.store, keys: .default) }
    private let pictured = TemplateFixture.json(questions: [
        #"{"id": "watch", "type": "shortAnswer", "text": "What is it?", "image": "reloj.png"}"#,
        #"{"id": "pen", "type": "shortAnswer", "text": "And this?", "image": "boligrafo.png"}"#,
        #"{"id": "again", "type": "shortAnswer", "text": "Once more?", "image": "reloj.png"}"#,
    ], id: "pictured")

    override func setUpWithError() throws {
        fixture = try StoreFixture()
    }

    override func tearDown() {
        fixture = nil
    }

    func testPicturesAreCachedBesideTheTemplateAndTheMissingOnesListed() throws {
        let template = try cache.install(pictured, source: "pictured.json")
        XCTAssertEqual(template.files, ["reloj.png", "boligrafo.png"], "each file once, in question order")
        XCTAssertEqual(cache.missingFiles(of: template), ["reloj.png", "boligrafo.png"])
        XCTAssertNil(cache.image(of: template.questions[0], in: template))
        try cache.installFile(Data([1, 2, 3]), name: "reloj.png", of: "pictured")
        let url = fixture.store.templatesFolder.appendingPathComponent("pictured/reloj.png")
        XCTAssertEqual(try Data(contentsOf: url), Data([1, 2, 3]))
        XCTAssertEqual(cache.image(of: template.questions[2], in: template), url)
        XCTAssertEqual(cache.missingFiles(of: template), ["boligrafo.png"])
        XCTAssertEqual(cache.all().templates.map(\.template.id), ["pictured", "pump-inspection"], "the pictures' folder is not a template")
    }

    func testHostileNamesAreRefusedAndWriteNothing() throws {
        for (name, id) in [("../pictured.json", "pictured"), ("reloj.png", "../x"), ("a/b.png", "pictured"), ("..", "pictured")] {
            XCTAssertThrowsError(try cache.installFile(Data([1]), name: name, of: id), "\(id)/\(name)")
        }
        XCTAssertEqual(Files.names(in: fixture.store.templatesFolder), ["pump-inspection.json"])
    }

    func testPruneDropsPicturesNoLongerNamedAndRemoveDropsTheFolder() throws {
        let template = try cache.install(pictured, source: "pictured.json")
        for name in ["reloj.png", "boligrafo.png", "old.png"] { try cache.installFile(Data([9]), name: name, of: "pictured") }
        try cache.pruneFiles(of: template)
        XCTAssertEqual(Files.names(in: cache.filesFolder(of: "pictured")).sorted(), ["boligrafo.png", "reloj.png"])
        try cache.remove(["pictured"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: cache.filesFolder(of: "pictured").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: fixture.store.templatesFolder.appendingPathComponent("pictured.json").path))
    }
}
