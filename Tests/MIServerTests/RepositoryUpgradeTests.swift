import Foundation
import GRDB
import Logging
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// A database that the server made before the repositories shared one core and one naming
/// (`Resources/upgrade`: an SQLite file written by that server's `SQLiteSubmissionRepository`,
/// and `pg_dump --inserts` of a PostgreSQL database written by its `PostgresSubmissionRepository`,
/// both holding `UpgradeFixture.submissions()`) is carried forward by the migrations, and every
/// old submission is served as before: receipt, listing, search, counts, statistics' forms,
/// technicians, backup snapshot, once per user.
class RepositoryUpgradeTests: XCTestCase {
    class var engine: RepositoryEngine { .sqlite }

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Resources/upgrade")

    /// The old database, opened by today's repository (its migrations run now).
    func openOldDatabase() async throws -> (any SubmissionRepository, TemporaryDirectory) {
        let folder = try TemporaryDirectory(prefix: "mi-upgrade")
        let logger = Logger(label: "test")
        switch Self.engine {
        case .sqlite:
            let path = folder.url.appendingPathComponent("mi-server.sqlite").path
            try FileManager.default.copyItem(atPath: Self.fixtures.appendingPathComponent("main.sqlite").path, toPath: path)
            let columns = try await DatabaseQueue(path: path).read { db in try db.columns(in: "submission").map(\.name) }
            XCTAssertTrue(columns.contains("user") && columns.contains("receivedAt"), "the fixture has the old naming: \(columns)")
            let repository = try SQLiteSubmissionRepository(path: path)
            let renamed = try await DatabaseQueue(path: path).read { db in
                (try db.columns(in: "submission").map(\.name), try db.columns(in: "part").map(\.name),
                 try db.columns(in: "once_per_user").map(\.name))
            }
            XCTAssertEqual(renamed.0, [
                "seq", "id", "technician", "form_name", "uploaded_by", "received_at", "summarized", "template_id", "template_title",
                "template_version", "user_display_name", "submitted_at", "submitted_sort", "answered", "questions", "media",
                "simulated", "scores", "form_name_sort", "review_state", "version",
            ])
            XCTAssertEqual(renamed.1, ["submission_id", "position", "name", "filename", "size", "sha256"])
            XCTAssertEqual(renamed.2, ["template_id", "technician", "submission_id"])
            return (repository, folder)
        case .postgres:
            let server = try SharedPostgres.server()
            let location = try server.makeDatabase()
            _ = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/psql"), [
                "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(server.port), "-U", server.user,
                "-d", location.database, "-f", Self.fixtures.appendingPathComponent("main-postgres.sql").path,
            ], environment: ["PGPASSWORD": server.password])
            XCTAssertEqual(try server.psql("SELECT count(*) FROM submission", database: location.database), "4\n")
            let repository = try await PostgresSubmissionRepository(location: location, password: server.password, logger: logger)
            return (repository, folder)
        }
    }

    func testEveryOldSubmissionIsServedAfterTheUpgrade() async throws {
        let (repository, folder) = try await openOldDatabase()
        let fixture = try UpgradeFixture.submissions()
        let unsummarized = try await repository.unsummarizedIDs()
        XCTAssertEqual(unsummarized, [])
        let ids = try await repository.submissionIDs()
        XCTAssertEqual(ids, Set(fixture.map(\.0.id)))

        for (receipt, form) in fixture {
            let stored = try await repository.receipt(id: receipt.id)
            var expected = receipt
            expected.scores = form.scoreValues
            XCTAssertEqual(stored, expected, receipt.formName)
        }

        // Listing: newest upload first, every summary as the form gives it; pages by cursor.
        let all = try await repository.submissions(SubmissionQuery(sort: .uploaded, order: .descending))
        XCTAssertEqual(all.submissions.map(\.formName), ["made-up", "Hall 9", "Hall 10", "north-pump"])
        for summary in all.submissions {
            let form = try XCTUnwrap(fixture.first { $0.0.id == summary.id }?.1)
            XCTAssertEqual(summary.reviewState, .received, "an old submission starts received")
            XCTAssertEqual(summary.templateID, form.summary.templateID)
            XCTAssertEqual(summary.templateTitle, form.summary.templateTitle)
            XCTAssertEqual(summary.answered, form.summary.answered)
            XCTAssertEqual(summary.questions, form.summary.questions)
            XCTAssertEqual(summary.user, form.user)
            XCTAssertEqual(summary.userDisplayName, form.userDisplayName)
            XCTAssertEqual(summary.submittedAt, form.submittedAt)
            XCTAssertEqual(summary.simulated, form.isSimulated)
        }
        let first = try await repository.submissions(SubmissionQuery(sort: .formName, order: .ascending, limit: 2))
        XCTAssertEqual(first.submissions.map(\.formName), ["Hall 9", "Hall 10"])
        let cursor = try XCTUnwrap(first.nextCursor.flatMap(SubmissionQuery.Cursor.init(encoded:)))
        let second = try await repository.submissions(SubmissionQuery(sort: .formName, order: .ascending, limit: 2, cursor: cursor))
        XCTAssertEqual(second.submissions.map(\.formName), ["made-up", "north-pump"])
        let byTechnician = try await repository.submissions(SubmissionQuery(user: "ana", sort: .technician, order: .ascending))
        XCTAssertEqual(byTechnician.submissions.map(\.formName), ["north-pump", "Hall 9"])
        let real = try await repository.count(SubmissionQuery(hideSimulated: true))
        XCTAssertEqual(real, 3)

        // Search: the old search text is found (diacritics folded), by word prefix.
        let valve = try await repository.submissions(SubmissionQuery(words: ["valvula"]))
        XCTAssertEqual(valve.submissions.map(\.formName), ["north-pump"])
        let flange = try await repository.submissions(SubmissionQuery(words: ["flan"]))
        XCTAssertEqual(flange.submissions.map(\.formName), ["Hall 10"])

        // Dashboard counts and the statistics' forms.
        let sample = try TemplateFixture.sampleTemplate()
        let counts = try await repository.counts(since: TestClock.start, user: nil, by: .submitted)
        XCTAssertEqual(counts.templates.map(\.count), [3, 1])
        XCTAssertEqual(counts.templates.first?.templateID, sample.id)
        XCTAssertEqual(counts.days.map(\.count), [1, 1, 2])
        let forms = try await repository.forms(of: sample.id, filters: StatisticsFilters(user: "bob"))
        XCTAssertEqual(forms.map(\.formName), ["Hall 10"])
        let users = try await repository.users()
        XCTAssertEqual(users, ["ana", "bob", "carla"])

        // The backup reads every receipt, in the order stored.
        let snapshot = try await repository.snapshot(scratch: folder.url.appendingPathComponent("snapshot.sqlite"), also: []).receipts
        XCTAssertEqual(snapshot.map(\.id), fixture.map(\.0.id))

        // Once per user still holds ana's form; a new upload is stored beside the old ones.
        let (_, onceForm) = fixture[2]
        var again = Form(id: FormID(), name: "Hall 11", user: "ana", template: onceForm.template, createdAt: TestClock.start)
        again.status = .completed
        let againReceipt = Receipt(id: again.id, user: "ana", formName: "Hall 11", uploadedBy: "ana",
                                   receivedAt: TestClock.start.addingTimeInterval(10 * 86_400), parts: [])
        let taken = try await repository.record(againReceipt, form: again, placeFiles: {}, removeFiles: {})
        guard case .taken(let holder) = taken else { return XCTFail("\(taken)") }
        XCTAssertEqual(holder.id, fixture[2].0.id)
        var other = again
        other.user = "bob"
        var otherReceipt = againReceipt
        otherReceipt.user = "bob"
        let recorded = try await repository.record(otherReceipt, form: other, placeFiles: {}, removeFiles: {})
        XCTAssertEqual(recorded, .recorded(otherReceipt))
        let newest = try await repository.submissions(SubmissionQuery(limit: 1))
        XCTAssertEqual(newest.submissions.map(\.id), [otherReceipt.id])
    }
}

/// `RepositoryUpgradeTests` from a PostgreSQL database that the earlier server wrote.
final class PostgresRepositoryUpgradeTests: RepositoryUpgradeTests {
    override class var engine: RepositoryEngine { .postgres }

    override func testEveryOldSubmissionIsServedAfterTheUpgrade() async throws {
        try await super.testEveryOldSubmissionIsServedAfterTheUpgrade()
    }
}
