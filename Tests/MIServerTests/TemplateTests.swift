import Foundation
import Hummingbird
import HummingbirdTesting
@testable import MIServer
import TestSupport
import XCTest

final class TemplateTests: XCTestCase {
    /// `GET /api/v1/templates`, asserted 200.
    static func list(_ client: any TestClientProtocol, token: String) async throws -> [[String: Any]] {
        let response = try await client.get("/api/v1/templates", token: token)
        XCTAssertEqual(response.status, .ok)
        return try XCTUnwrap(response.json as? [[String: Any]])
    }

    func testListCarriesIdTitleVersionAndSHA256OfTheExactBytesSortedById() async throws {
        let fixture = try ServerFixture()
        let second = TemplateFixture.json(questions: [#"{"id": "q", "type": "trueFalse", "text": "Ok?"}"#], id: "aardvark", version: "7")
        try Files.write(second, to: fixture.templates.appendingPathComponent("zz-last-file.json"))
        try await fixture.test { client in
            let token = try await client.login("ana")
            let templates = try await Self.list(client, token: token)
            XCTAssertEqual(templates.map { $0["id"] as? String }, ["aardvark", "pump-inspection"])
            XCTAssertEqual(templates[0]["version"] as? Int, 7)
            XCTAssertEqual(templates[0]["sha256"] as? String, ServerFixture.sha256(second))
            XCTAssertEqual(templates[1]["title"] as? String, "Centrifugal pump — monthly inspection")
            XCTAssertEqual(templates[1]["version"] as? Int, 4)
            XCTAssertEqual(templates[1]["sha256"] as? String, ServerFixture.sha256(Data(TemplateFixture.sampleJSON.utf8)))
        }
    }

    func testTemplateIsServedAsItsExactBytesWithETag() async throws {
        let fixture = try ServerFixture()
        let bytes = Data(TemplateFixture.sampleJSON.utf8)
        try await fixture.test { client in
            let token = try await client.login("ana")
            let response = try await client.get("/api/v1/templates/pump-inspection", token: token)
            XCTAssertEqual(response.status, .ok)
            XCTAssertEqual(Data(buffer: response.body), bytes)
            XCTAssertEqual(response.headers[.contentType], "application/json")
            XCTAssertEqual(response.headers[.eTag], "\"\(ServerFixture.sha256(bytes))\"")
            // An id sent percent-encoded (as a client encoding every character but letters may) is the same id.
            let encoded = try await client.get("/api/v1/templates/pump%2Dinspection", token: token)
            XCTAssertEqual(Data(buffer: encoded.body), bytes)
        }
    }

    func testUnknownTemplateIs404() async throws {
        let fixture = try ServerFixture()
        try await fixture.test { client in
            let token = try await client.login("ana")
            for id in ["nothing", "..", "pump-inspection.json"] {
                let response = try await client.get("/api/v1/templates/\(id)", token: token)
                XCTAssertEqual(response.status, .notFound, id)
                XCTAssertNotNil(response.errorMessage)
            }
        }
    }

    func testInvalidTemplateIsLoggedAndNotServed() async throws {
        let fixture = try ServerFixture()
        try Files.write(#"{"id": "broken", "title": "B", "version": 1, "questions": [{"id": "q", "type": "slider", "text": "?"}]}"#,
                        to: fixture.templates.appendingPathComponent("broken.json"))
        try Files.write("{ not json", to: fixture.templates.appendingPathComponent("garbage.json"))
        try Files.write(TemplateFixture.sampleJSON, to: fixture.templates.appendingPathComponent("duplicate-id.json"))
        try await fixture.test { client in
            let token = try await client.login("ana")
            let templates = try await Self.list(client, token: token)
            XCTAssertEqual(templates.map { $0["id"] as? String }, ["pump-inspection"])
            try await assertStatus(.notFound, await client.get("/api/v1/templates/broken", token: token))
        }
        let errors = fixture.logs.messages.filter { $0.hasPrefix("error") }
        XCTAssertTrue(errors.contains { $0.contains("broken.json") && $0.contains("slider") }, "\(errors)")
        XCTAssertTrue(errors.contains { $0.contains("garbage.json") && $0.contains("not valid JSON") }, "\(errors)")
        // duplicate-id.json sorts first, so pump-inspection.json is the one refused.
        XCTAssertTrue(errors.contains { $0.contains("pump-inspection.json") && $0.contains("version 4 of \"pump-inspection\" is also in duplicate-id.json") }, "\(errors)")
    }

    func testTemplatesAddedChangedAndRemovedWhileRunningArePickedUp() async throws {
        let fixture = try ServerFixture()
        let folder = fixture.templates
        try await fixture.test { client in
            let token = try await client.login("ana")
            let count = try await Self.list(client, token: token).count
            XCTAssertEqual(count, 1)

            let added = TemplateFixture.json(questions: [#"{"id": "q", "type": "trueFalse", "text": "Ok?"}"#], id: "new-one")
            try Files.write(added, to: folder.appendingPathComponent("new-one.json"))
            var templates = try await Self.list(client, token: token)
            XCTAssertEqual(templates.map { $0["id"] as? String }, ["new-one", "pump-inspection"])

            // Same size, new content (a version bump).
            let changed = TemplateFixture.json(questions: [#"{"id": "q", "type": "trueFalse", "text": "Ok?"}"#], id: "new-one", version: "2")
            XCTAssertEqual(changed.count, added.count)
            try Files.write(changed, to: folder.appendingPathComponent("new-one.json"))
            templates = try await Self.list(client, token: token)
            XCTAssertEqual(templates.first?["version"] as? Int, 2)
            XCTAssertEqual(templates.first?["sha256"] as? String, ServerFixture.sha256(changed))
            let served = try await client.get("/api/v1/templates/new-one", token: token)
            XCTAssertEqual(Data(buffer: served.body), changed)

            // Broken while running: logged, no longer served, the server keeps going.
            try Files.write("{", to: folder.appendingPathComponent("new-one.json"))
            templates = try await Self.list(client, token: token)
            XCTAssertEqual(templates.map { $0["id"] as? String }, ["pump-inspection"])

            try FileManager.default.removeItem(at: folder.appendingPathComponent("new-one.json"))
            let remaining = try await Self.list(client, token: token).count
            XCTAssertEqual(remaining, 1)
        }
        XCTAssertTrue(fixture.logs.messages.contains { $0.hasPrefix("error") && $0.contains("new-one.json") })
    }
}
