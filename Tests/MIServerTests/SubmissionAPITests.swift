import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `GET /api/v1/submissions` (pages of summaries, a technician's restricted to their own) and
/// `GET /api/v1/submissions/{id}/media/{name}` (Range), against the real router, on SQLite here
/// and on PostgreSQL in `PostgresSubmissionAPITests`.
class SubmissionAPITests: EngineTestCase {
    static let bobFormID = FormID("0B0B0B0B-9A7B-4C3D-8E5F-1A2B3C4D5E6F") ?? FormID()

    /// Uploads ana's sample form and one of bob's, as fiona.
    static func uploadTwo(_ client: any TestClientProtocol, foreman: String) async throws {
        try await assertStatus(.created, await client.upload(try ServerFixture.upload(), token: foreman))
        let bob = try ServerFixture.formData(id: Self.bobFormID, user: "bob", note: "válvula rota", media: [])
        try await assertStatus(.created, await client.upload(try ServerFixture.upload(formData: bob, media: [:]), token: foreman))
    }

    static func page(_ response: TestResponse) throws -> SubmissionPage {
        XCTAssertEqual(response.status, .ok, response.text)
        return try WireJSON.decoder().decode(SubmissionPage.self, from: Data(buffer: response.body))
    }

    func testForemenListEveryoneTechniciansOnlyThemselves() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            try await Self.uploadTwo(client, foreman: foreman)
            let all = try Self.page(try await client.get("/api/v1/submissions", token: foreman))
            XCTAssertEqual(all.submissions.map(\.user), ["bob", "ana"])
            XCTAssertNil(all.nextCursor)
            let ana = try XCTUnwrap(all.submissions.last)
            XCTAssertEqual(ana.templateID, TemplateFixture.sampleID)
            XCTAssertEqual(ana.formName, "pump-1")
            XCTAssertEqual(ana.uploadedBy, "fiona")
            XCTAssertEqual(ana.media, 2)
            XCTAssertEqual(ana.answered, 4, "three answered, and leak_photo, not relevant while leaks has no answer")
            XCTAssertEqual(ana.questions, 9)

            let first = try Self.page(try await client.get("/api/v1/submissions?limit=1", token: foreman))
            XCTAssertEqual(first.submissions.map(\.user), ["bob"])
            let cursor = try XCTUnwrap(first.nextCursor)
            let second = try Self.page(try await client.get("/api/v1/submissions?limit=1&cursor=\(cursor)", token: foreman))
            XCTAssertEqual(second.submissions.map(\.user), ["ana"])
            XCTAssertNil(second.nextCursor)

            let search = try Self.page(try await client.get("/api/v1/submissions?q=VALVULA", token: foreman))
            XCTAssertEqual(search.submissions.map(\.user), ["bob"])
            let filtered = try Self.page(try await client.get("/api/v1/submissions?user=ana&template=pump-inspection&from=2026-03-02&to=2026-03-02", token: foreman))
            XCTAssertEqual(filtered.submissions.map(\.user), ["ana"])

            let technician = try await client.login("ana")
            for uri in ["/api/v1/submissions", "/api/v1/submissions?user=bob", "/api/v1/submissions?q=valvula"] {
                let mine = try Self.page(try await client.get(uri, token: technician))
                XCTAssertEqual(mine.submissions.map(\.user), uri.hasSuffix("valvula") ? [] : ["ana"], uri)
            }
        }
    }

    func testBadParametersAre400NamingTheParameter() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            for (query, name) in [("limit=0", "limit"), ("limit=x", "limit"), ("sort=price", "sort"), ("order=up", "order"),
                                  ("from=2026-02-31", "from"), ("to=soon", "to"), ("cursor=%21%21", "cursor"),
                                  ("from=2026-03-05&to=2026-03-04", "to")] {
                let response = try await client.get("/api/v1/submissions?\(query)", token: foreman)
                XCTAssertEqual(response.status, .badRequest, query)
                XCTAssertTrue(response.errorMessage?.contains("`\(name)`") ?? false, response.text)
            }
        }
    }

    func testMediaIsServedWholeOrByRange() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            try await Self.uploadTwo(client, foreman: foreman)
            let id = ServerFixture.formID.description
            let photo = try XCTUnwrap(ServerFixture.media["Qid0(1).jpg"])
            let base = "/api/v1/submissions/\(id)/media/Qid0(1).jpg"
            func get(_ uri: String, token: String, range: String?) async throws -> TestResponse {
                var headers: HTTPFields = [.authorization: "Bearer \(token)"]
                if let range { headers[.range] = range }
                return try await client.execute(uri: uri, method: .get, headers: headers) { $0 }
            }

            let whole = try await get(base, token: foreman, range: nil)
            XCTAssertEqual(whole.status, .ok)
            XCTAssertEqual(Data(buffer: whole.body), photo)
            XCTAssertEqual(whole.headers[.contentType], "image/jpeg")
            XCTAssertEqual(whole.headers[.acceptRanges], "bytes")
            let encoded = try await get("/api/v1/submissions/\(id)/media/Qid0%281%29.jpg", token: foreman, range: "bytes=0-9")
            XCTAssertEqual(encoded.status, .partialContent, "a browser's percent-encoded name: \(encoded.text)")
            let video = try await get("/api/v1/submissions/\(id.uppercased())/media/Qid6(1).mp4", token: foreman, range: nil)
            XCTAssertEqual(video.headers[.contentType], "video/mp4")
            XCTAssertEqual(Data(buffer: video.body), ServerFixture.media["Qid6(1).mp4"])

            for (range, bytes) in [("bytes=0-99", 0...99), ("bytes=4900-", 4900...4999), ("bytes=-10", 4990...4999),
                                   ("bytes=4990-9999", 4990...4999)] {
                let part = try await get(base, token: foreman, range: range)
                XCTAssertEqual(part.status, .partialContent, range)
                XCTAssertEqual(Data(buffer: part.body), photo.subdata(in: bytes.lowerBound..<(bytes.upperBound + 1)), range)
                XCTAssertEqual(part.headers[.contentRange], "bytes \(bytes.lowerBound)-\(bytes.upperBound)/5000", range)
            }
            let beyond = try await get(base, token: foreman, range: "bytes=5000-")
            XCTAssertEqual(beyond.status, .rangeNotSatisfiable)
            XCTAssertEqual(beyond.headers[.contentRange], "bytes */5000")
            let several = try await get(base, token: foreman, range: "bytes=0-1,5-9")
            XCTAssertEqual(several.status, .ok)
            XCTAssertEqual(Data(buffer: several.body), photo)

            for uri in ["/api/v1/submissions/\(id)/media/Qid9(1).jpg", "/api/v1/submissions/\(id)/media/form",
                        "/api/v1/submissions/\(id)/media/..", "/api/v1/submissions/\(UUID().uuidString)/media/Qid0(1).jpg",
                        "/api/v1/submissions/nope/media/Qid0(1).jpg"] {
                try await assertStatus(.notFound, await get(uri, token: foreman, range: nil))
            }

            // ana reads her own media, not bob's form (403, not 404: the office links to it).
            let technician = try await client.login("ana")
            try await assertStatus(.ok, await get(base, token: technician, range: nil))
            let bob = Self.bobFormID.description
            let refused = try await get("/api/v1/submissions/\(bob)/media/Qid0(1).jpg", token: technician, range: nil)
            XCTAssertEqual(refused.status, .forbidden)
            XCTAssertTrue(refused.errorMessage?.contains("only their own") ?? false, refused.text)
        }
    }

    func testSubmissionsStoredBeforeSummariesAreIndexedAtStart() async throws {
        let fixture = try makeFixture()
        try await fixture.test { client in
            try await Self.uploadTwo(client, foreman: try await client.login("fiona"))
        }
        // Both rows lose their summary, as rows stored before v2 have none; bob's form.json
        // is then unreadable.
        let repository = try await fixture.openRepository()
        try await forgetSummaries(of: repository)
        let before = try await repository.unsummarizedIDs()
        XCTAssertEqual(before.count, 2)
        let bob = Self.bobFormID
        try Data("{".utf8).write(to: fixture.layout.submission(bob).appendingPathComponent("form.json"))

        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            let all = try Self.page(try await client.get("/api/v1/submissions", token: foreman))
            XCTAssertEqual(all.submissions.map(\.templateID), ["", TemplateFixture.sampleID])
            let found = try Self.page(try await client.get("/api/v1/submissions?q=motor", token: foreman))
            XCTAssertEqual(found.submissions.map(\.user), ["ana"])
        }
        XCTAssertTrue(fixture.logs.messages.contains { $0.contains("not indexed") && !$0.contains("ana") }, "\(fixture.logs.messages)")
        let after = try await repository.unsummarizedIDs()
        XCTAssertEqual(after, [bob])
    }
}

/// `SubmissionAPITests` with mi-server on PostgreSQL: the listing API gives the same results as on SQLite.
final class PostgresSubmissionAPITests: SubmissionAPITests {
    override class var engine: RepositoryEngine { .postgres }

    func testUploadsLandInPostgreSQL() async throws { try await assertUploadsLandInTheEngine() }
}
