import Foundation
import Hummingbird
import HummingbirdTesting
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// The server computes a scored form's scores from its answers on upload and stores them:
/// the receipt and the listing carry them, and form.json's own `scores` are never taken.
final class ScoreRecomputationTests: XCTestCase {
    static let ipaqFormID = FormID("1FA9A000-9A7B-4C3D-8E5F-1A2B3C4D5E6F") ?? FormID()

    /// A completed IPAQ form of `user` with `ipaqCase`'s answers and the consent accepted.
    static func ipaqForm(_ ipaqCase: IPAQCase, id: FormID = ipaqFormID, user: String = "ana") throws -> Form {
        let template = try TemplateFixture.sample("ipaq")
        var form = Form(id: id, name: "ipaq-1", user: user, template: template, createdAt: TestClock.start)
        form.status = .completed
        form.submittedAt = TestClock.start
        form.consent = ConsentAcceptance(by: user, at: TestClock.start, sha256: template.consentDigest ?? "")
        return ipaqCase.applied(to: form)
    }

    /// form.json of `form` with its `scores` snapshot replaced by `forged`.
    static func forging(_ form: Form, scores forged: [String: Any]) throws -> Data {
        var object = try XCTUnwrap(JSONSerialization.jsonObject(with: try FormFile.encode(form)) as? [String: Any])
        object["scores"] = forged
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    static func upload(_ data: Data) throws -> MultipartBody {
        try ServerFixture.upload(formData: data, media: [:])
    }

    /// A server that publishes the IPAQ sample, as it must for its forms to be stored.
    static func fixture() throws -> ServerFixture {
        let fixture = try ServerFixture()
        try FileManager.default.copyItem(at: TemplateFixture.samplesFolder.appendingPathComponent("ipaq.json"),
                                         to: fixture.templates.appendingPathComponent("ipaq.json"))
        return fixture
    }

    func testForgedScoresAreReplacedByTheServersOwn() async throws {
        let fixture = try Self.fixture()
        let form = try Self.ipaqForm(try XCTUnwrap(IPAQCases.all.first))
        let computed = try XCTUnwrap(form.scoreValues)
        let forged: [String: Any] = ["ipaq.totalMET": 99_999, "ipaq.category": "high"]
        XCTAssertNotEqual(computed["ipaq.totalMET"], .number(99_999))
        let forgedData = try Self.forging(form, scores: forged)
        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            let created = try await client.upload(try Self.upload(forgedData), token: foreman)
            XCTAssertEqual(created.status, .created, created.text)
            XCTAssertEqual(try created.receipt().scores, computed)

            let shown = try await client.get("/api/v1/submissions/\(Self.ipaqFormID.description)", token: foreman)
            XCTAssertEqual(try shown.receipt().scores, computed)
            let page = try SubmissionAPITests.page(try await client.get("/api/v1/submissions?template=ipaq", token: foreman))
            XCTAssertEqual(page.submissions.map(\.scores), [computed])

            // The same form again (forged the same way) is the same submission: 200, same scores.
            let again = try await client.upload(try Self.upload(forgedData), token: foreman)
            XCTAssertEqual(again.status, .ok, again.text)
            XCTAssertEqual(try again.receipt().scores, computed)
        }
        XCTAssertTrue(fixture.logs.messages.contains { $0.contains("scores differ from the server's") }, "\(fixture.logs.messages)")
    }

    func testMatchingScoresAreNotLoggedAndUnscoredFormsCarryNone() async throws {
        let fixture = try Self.fixture()
        let form = try Self.ipaqForm(try XCTUnwrap(IPAQCases.all.first))
        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            let created = try await client.upload(try Self.upload(try FormFile.encode(form)), token: foreman)
            XCTAssertEqual(created.status, .created, created.text)
            XCTAssertEqual(try created.receipt().scores, form.scoreValues)

            // A template without a scorer: no "scores" key at all, in the receipt or the listing.
            let pump = try await client.upload(try ServerFixture.upload(), token: foreman)
            XCTAssertEqual(pump.status, .created, pump.text)
            let receipt = try XCTUnwrap(pump.json as? [String: Any])
            XCTAssertNil(receipt["scores"])
            let listing = try await client.get("/api/v1/submissions?template=\(TemplateFixture.sampleID)", token: foreman)
            let rows = try XCTUnwrap((listing.json as? [String: Any])?["submissions"] as? [[String: Any]])
            XCTAssertEqual(rows.count, 1)
            XCTAssertNil(rows.first?["scores"])
        }
        XCTAssertFalse(fixture.logs.messages.contains { $0.contains("scores differ") }, "\(fixture.logs.messages)")
    }

    /// Rows stored before scores were kept get them from their form.json at the next start.
    func testTheBackfillComputesScoresOfStoredForms() async throws {
        let fixture = try Self.fixture()
        let form = try Self.ipaqForm(try XCTUnwrap(IPAQCases.all.first))
        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try Self.upload(try FormFile.encode(form)), token: foreman))
        }
        let repository = try SQLiteSubmissionRepository(path: fixture.layout.database.path)
        try await repository.forgetSummaries()
        let id = Self.ipaqFormID
        let forgotten = try await repository.receipt(id: id)
        XCTAssertNil(forgotten?.scores)
        try await SubmissionBackfill.run(repository: repository, layout: fixture.layout, logger: fixture.logs.logger())
        let receipt = try await repository.receipt(id: id)
        XCTAssertEqual(receipt?.scores, form.scoreValues)
        XCTAssertNotNil(receipt?.scores)
    }

    /// The export's score columns come from the answers, not from form.json's forged figures.
    func testExportColumnsHoldTheRecomputedScores() async throws {
        let fixture = try Self.fixture()
        let form = try Self.ipaqForm(try XCTUnwrap(IPAQCases.all.first))
        let sheet = try XCTUnwrap(form.scores)
        let forgedData = try Self.forging(form, scores: ["ipaq.totalMET": 99_999, "ipaq.category": "high"])
        try await fixture.test { client in
            let foreman = try await client.login("fiona")
            try await assertStatus(.created, await client.upload(try Self.upload(forgedData), token: foreman))
            let archive = try ExportAPITests.archive(try await client.get("/api/v1/templates/ipaq/export.zip", token: foreman))
            let records = try ExportAPITests.records(try XCTUnwrap(archive.entry("ipaq.csv")).data)
            XCTAssertEqual(records.count, 2)
            let cells = Dictionary(uniqueKeysWithValues: zip(records[0], records[1]))
            for key in ScoreSheet.keys(of: .ipaqShort) {
                XCTAssertEqual(cells[key], sheet[key]?.display ?? "", key)
            }
            XCTAssertNotEqual(cells["ipaq.totalMET"], "99999")
        }
    }

    func testStoredScoresRoundTripAndUnreadableTextIsNone() throws {
        let scores: [String: ScoreValue] = ["ipaq.totalMET": .number(1386.5), "ipaq.category": .text("moderate")]
        let text = try XCTUnwrap(try StoredScores.encode(scores))
        XCTAssertEqual(text, #"{"ipaq.category":"moderate","ipaq.totalMET":1386.5}"#)
        XCTAssertEqual(StoredScores.decode(text), scores)
        XCTAssertNil(try StoredScores.encode(nil))
        XCTAssertNil(StoredScores.decode(nil))
        XCTAssertNil(StoredScores.decode("[1, 2"))
    }
}
