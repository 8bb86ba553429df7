import Foundation
import TestSupport
import XCTest

@testable import MIKit

/// Cases found by review: each once went wrong.
final class RegressionTests: XCTestCase {
    func testPathWithSpacesIsAConfigurationErrorNotACrash() throws {
        let folder = try TemporaryDirectory()
        let url = try ConfigFixture.write(into: folder.url, [.set("Server.Paths.TemplateList", "/api/v1/my templates"),
                                                             .set("Server.Paths.Template", "/t/{id}?format=json")])
        let report = ConfigurationLoader.check(url)
        XCTAssertTrue(report.errors.contains { $0.keyPath == "Server.Paths.TemplateList" }, "\(report.problems)")
        XCTAssertTrue(report.errors.contains { $0.keyPath == "Server.Paths.Template" }, "\(report.problems)")
    }

    func testURLAssemblyEncodesAndNeedsAnIDWhereThePathHasOne() throws {
        let fixture = try StoreFixture()
        var server = fixture.configuration.server
        XCTAssertNil(server.url(.template), "a path with {id} needs an id")
        XCTAssertEqual(server.url(.template, id: "a b/c")?.absoluteString, "https://mi.example.com:8443/api/v1/templates/a%20b%2Fc")
        server.paths.templateList = "/api/v1/my templates"
        XCTAssertEqual(server.url(.templateList)?.absoluteString, "https://mi.example.com:8443/api/v1/my%20templates")
    }

    func testExpiredFormWithADamagedBodyIsReportedAndKept() throws {
        let fixture = try StoreFixture()
        let form = try fixture.form(name: "old", createdAt: fixture.clock.now.addingTimeInterval(-30 * 86_400))
        let location = try fixture.store.create(form)
        let data = try Data(contentsOf: location.formFile)
        let cut = try XCTUnwrap(data.range(of: Data(#","answers":"#.utf8)))
        let damaged = data[..<cut.upperBound]
        try damaged.write(to: location.formFile)
        let result = try fixture.store.sweep(expiryDays: 7, now: fixture.clock.now)
        XCTAssertEqual(result.expired.count, 0)
        XCTAssertEqual(result.unreadable.map(\.location.name), ["old"])
        XCTAssertEqual(try Data(contentsOf: location.formFile), Data(damaged))
    }

    func testLocationsOfTheSameFormAreEqual() throws {
        let fixture = try StoreFixture()
        let created = try fixture.store.create(try fixture.form(name: "pump-1", createdAt: fixture.clock.now))
        let listed = try XCTUnwrap(try fixture.store.list(.incomplete).forms.first?.location)
        XCTAssertEqual(created, listed)
        XCTAssertEqual(created.hashValue, listed.hashValue)
    }

    func testAnswersFileRefusesACommentThatIsNotTextAndAnEmptyObject() {
        XCTAssertThrowsError(try Workflow.updates(fromAnswersFile: Data(#"{"notes": {"value": "x", "comment": 5}}"#.utf8))) {
            XCTAssertTrue($0.localizedDescription.contains("the comment must be text"), $0.localizedDescription)
        }
        XCTAssertThrowsError(try Workflow.updates(fromAnswersFile: Data(#"{"guard": {}}"#.utf8))) {
            XCTAssertTrue($0.localizedDescription.contains("give a \"value\""), $0.localizedDescription)
        }
        XCTAssertThrowsError(try Workflow.updates(fromAnswersFile: Data(#"{"guard": {"valeu": true}}"#.utf8))) {
            XCTAssertTrue($0.localizedDescription.contains("unknown field(s) valeu"), $0.localizedDescription)
        }
    }
}
