import Foundation
import MIKit
@testable import MIServer
import TestSupport
import XCTest

/// `record` and the summaries' readers, the same on every engine: idempotence by id, the
/// once-per-user key, files removed when the insert fails, races decided by the database.
class SubmissionRecordTests: XCTestCase {
    class var engine: RepositoryEngine { .sqlite }

    /// Counts the callbacks `record` makes.
    final class Calls: @unchecked Sendable {
        private let lock = NSLock()
        private var placed = 0
        private var removed = 0
        var placedCount: Int { lock.withLock { placed } }
        var removedCount: Int { lock.withLock { removed } }
        func place() { lock.withLock { placed += 1 } }
        func remove() { lock.withLock { removed += 1 } }
    }

    func form(user: String = "ana", oncePerUser: Bool = false, name: String = "north-pump") throws -> (Receipt, Form) {
        var template = try TemplateFixture.sampleTemplate()
        template.oncePerUser = oncePerUser
        let id = FormID()
        var form = Form(id: id, name: name, user: user, template: template, createdAt: TestClock.start)
        form.status = .completed
        form.submittedAt = TestClock.start
        form.answers["notes"] = Answer(value: .text("Válvula rota"))
        let receipt = Receipt(id: id, user: user, formName: name, uploadedBy: "fiona",
                              receivedAt: TestClock.start.addingTimeInterval(60),
                              parts: [Receipt.Part(name: "form.json", filename: "form.json", size: 12, sha256: String(repeating: "a", count: 64))])
        return (receipt, form)
    }

    func testASecondRecordOfTheSameIDGetsTheStoredReceiptAndPlacesNothing() async throws {
        let (repository, folder) = try await Self.engine.makeRepository()
        _ = folder
        let (receipt, form) = try form()
        let calls = Calls()
        let first = try await repository.record(receipt, form: form, placeFiles: { calls.place() }, removeFiles: { calls.remove() })
        XCTAssertEqual(first, .recorded(receipt))
        var later = receipt
        later.receivedAt = receipt.receivedAt.addingTimeInterval(500)
        let second = try await repository.record(later, form: form, placeFiles: { calls.place() }, removeFiles: { calls.remove() })
        XCTAssertEqual(second, .existing(receipt))
        XCTAssertEqual(calls.placedCount, 1)
        XCTAssertEqual(calls.removedCount, 0)
        let stored = try await repository.receipt(id: receipt.id)
        XCTAssertEqual(stored, receipt)
        let missing = try await repository.receipt(id: FormID())
        XCTAssertNil(missing)
    }

    func testTwentyConcurrentRecordsOfOneIDStoreOneAndAllGetItsReceipt() async throws {
        let (repository, folder) = try await Self.engine.makeRepository()
        _ = folder
        let (receipt, form) = try form()
        let calls = Calls()
        let outcomes = try await withThrowingTaskGroup(of: RecordOutcome.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await repository.record(receipt, form: form, placeFiles: { calls.place() }, removeFiles: { calls.remove() })
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(outcomes.filter { $0 == .recorded(receipt) }.count, 1)
        XCTAssertEqual(outcomes.filter { $0 == .existing(receipt) }.count, 19)
        XCTAssertEqual(calls.placedCount, 1)
        let ids = try await repository.submissionIDs()
        XCTAssertEqual(ids, [receipt.id])
    }

    func testOncePerUserKeepsTheFirstFormOfAUserAndTakesOthersUsers() async throws {
        let (repository, folder) = try await Self.engine.makeRepository()
        _ = folder
        let (first, firstForm) = try form(oncePerUser: true)
        let (second, secondForm) = try form(oncePerUser: true, name: "again")
        let (bobs, bobsForm) = try form(user: "bob", oncePerUser: true)
        let recorded = try await repository.record(first, form: firstForm, placeFiles: {}, removeFiles: {})
        XCTAssertEqual(recorded, .recorded(first))
        let calls = Calls()
        let taken = try await repository.record(second, form: secondForm, placeFiles: { calls.place() }, removeFiles: {})
        guard case .taken(let holder) = taken else { return XCTFail("expected .taken, got \(taken)") }
        XCTAssertEqual(holder.id, first.id)
        XCTAssertEqual(holder.formName, "north-pump")
        XCTAssertEqual(calls.placedCount, 0)
        let other = try await repository.record(bobs, form: bobsForm, placeFiles: {}, removeFiles: {})
        XCTAssertEqual(other, .recorded(bobs))
        let users = try await repository.users()
        XCTAssertEqual(users, ["ana", "bob"])
    }

    func testAFailedPlacingRemovesTheFilesAndStoresNothing() async throws {
        let (repository, folder) = try await Self.engine.makeRepository()
        _ = folder
        let (receipt, form) = try form()
        struct DiskFull: Error {}
        let calls = Calls()
        do {
            _ = try await repository.record(receipt, form: form, placeFiles: { throw DiskFull() }, removeFiles: { calls.remove() })
            XCTFail("the error must come back")
        } catch is DiskFull {}
        XCTAssertEqual(calls.removedCount, 1)
        let stored = try await repository.receipt(id: receipt.id)
        XCTAssertNil(stored)
        let again = try await repository.record(receipt, form: form, placeFiles: {}, removeFiles: {})
        XCTAssertEqual(again, .recorded(receipt))
    }

    func testDiscardingRemovesOnlyUnrecordedFilesAndWaitsForACommitUnderWay() async throws {
        let (repository, folder) = try await Self.engine.makeRepository()
        _ = folder
        let (stored, storedForm) = try form(name: "stored")
        _ = try await repository.record(stored, form: storedForm, placeFiles: {}, removeFiles: {})
        let calls = Calls()
        let kept = try await repository.discardUnrecorded(id: stored.id, version: 1, remove: { calls.remove() })
        XCTAssertFalse(kept)
        let leftover = try await repository.discardUnrecorded(id: FormID(), version: 1, remove: { calls.remove() })
        XCTAssertTrue(leftover)
        XCTAssertEqual(calls.removedCount, 1)

        // Another server has placed the files of `racing` and is committing: the sweep waits for
        // its commit, then finds the row and keeps the files.
        let (racing, racingForm) = try form(name: "racing")
        let committing = Task {
            try await repository.record(racing, form: racingForm, placeFiles: {
                calls.place()
                Thread.sleep(forTimeInterval: 0.4)
            }, removeFiles: {})
        }
        while calls.placedCount == 0 { try await Task.sleep(nanoseconds: 5_000_000) }
        let discarded = try await repository.discardUnrecorded(id: racing.id, version: 1, remove: { calls.remove() })
        XCTAssertFalse(discarded, "the files of a commit under way are kept")
        let outcome = try await committing.value
        XCTAssertEqual(outcome, .recorded(racing))
        XCTAssertEqual(calls.removedCount, 1)
    }

    func testFormsOfATemplateFilterByUserVersionAndSubmissionTime() async throws {
        let (repository, folder) = try await Self.engine.makeRepository()
        _ = folder
        let (anas, anasForm) = try form()
        var (bobs, bobsForm) = try form(user: "bob")
        bobsForm.submittedAt = TestClock.start.addingTimeInterval(86_400)
        bobs.receivedAt = TestClock.start.addingTimeInterval(86_500)
        _ = try await repository.record(anas, form: anasForm, placeFiles: {}, removeFiles: {})
        _ = try await repository.record(bobs, form: bobsForm, placeFiles: {}, removeFiles: {})
        let template = anasForm.template.id
        let all = try await repository.forms(of: template, filters: StatisticsFilters())
        XCTAssertEqual(all.map(\.id), [anas.id, bobs.id])
        XCTAssertEqual(all.first?.answered, anasForm.summary.answered)
        var filters = StatisticsFilters()
        filters.user = "bob"
        let bob = try await repository.forms(of: template, filters: filters)
        XCTAssertEqual(bob.map(\.id), [bobs.id])
        filters = StatisticsFilters()
        filters.from = TestClock.start.addingTimeInterval(3600)
        let later = try await repository.forms(of: template, filters: filters)
        XCTAssertEqual(later.map(\.id), [bobs.id])
        filters = StatisticsFilters()
        filters.version = anasForm.template.version + 1
        let none = try await repository.forms(of: template, filters: filters)
        XCTAssertEqual(none, [])
        let other = try await repository.forms(of: "no-such-template", filters: StatisticsFilters())
        XCTAssertEqual(other, [])
        let unsummarized = try await repository.unsummarizedIDs()
        XCTAssertEqual(unsummarized, [])
    }

    func testTheBackfillSummarizesRowsStoredWithoutASummary() async throws {
        let (repository, folder) = try await Self.engine.makeRepository()
        _ = folder
        let (receipt, form) = try form()
        _ = try await repository.record(receipt, form: form, placeFiles: {}, removeFiles: {})
        try await forgetSummaries(of: repository)
        let unsummarized = try await repository.unsummarizedIDs()
        XCTAssertEqual(unsummarized, [receipt.id])
        let unfound = try await repository.submissions(SubmissionQuery(words: ["valvula"]))
        XCTAssertEqual(unfound.submissions, [])

        try await repository.summarize(id: receipt.id, form: form)
        let after = try await repository.unsummarizedIDs()
        XCTAssertEqual(after, [])
        let found = try await repository.submissions(SubmissionQuery(words: ["valvula"]))
        XCTAssertEqual(found.submissions.map(\.id), [receipt.id])
        XCTAssertEqual(found.submissions.first?.templateID, form.template.id)
    }
}

/// `SubmissionRecordTests` against PostgreSQL.
final class PostgresSubmissionRecordTests: SubmissionRecordTests {
    override class var engine: RepositoryEngine { .postgres }

    override func testASecondRecordOfTheSameIDGetsTheStoredReceiptAndPlacesNothing() async throws {
        try await super.testASecondRecordOfTheSameIDGetsTheStoredReceiptAndPlacesNothing()
    }

    override func testTwentyConcurrentRecordsOfOneIDStoreOneAndAllGetItsReceipt() async throws {
        try await super.testTwentyConcurrentRecordsOfOneIDStoreOneAndAllGetItsReceipt()
    }

    override func testOncePerUserKeepsTheFirstFormOfAUserAndTakesOthersUsers() async throws {
        try await super.testOncePerUserKeepsTheFirstFormOfAUserAndTakesOthersUsers()
    }

    override func testAFailedPlacingRemovesTheFilesAndStoresNothing() async throws {
        try await super.testAFailedPlacingRemovesTheFilesAndStoresNothing()
    }

    override func testDiscardingRemovesOnlyUnrecordedFilesAndWaitsForACommitUnderWay() async throws {
        try await super.testDiscardingRemovesOnlyUnrecordedFilesAndWaitsForACommitUnderWay()
    }

    override func testFormsOfATemplateFilterByUserVersionAndSubmissionTime() async throws {
        try await super.testFormsOfATemplateFilterByUserVersionAndSubmissionTime()
    }

    override func testTheBackfillSummarizesRowsStoredWithoutASummary() async throws {
        try await super.testTheBackfillSummarizesRowsStoredWithoutASummary()
    }
}
