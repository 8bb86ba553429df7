import Foundation
import MIKit
import TestSupport
import XCTest

final class SweepTests: XCTestCase {
    private var fixture: StoreFixture!
    private var store: Store { fixture.store }
    private let day: TimeInterval = 86_400
    private var now: Date { TestClock.start }

    override func setUpWithError() throws {
        fixture = try StoreFixture()
    }

    override func tearDown() {
        fixture = nil
    }

    @discardableResult
    private func create(_ name: String, user: String = "ana", daysOld: Double) throws -> FormLocation {
        try store.create(try fixture.form(name: name, user: user, createdAt: now.addingTimeInterval(-daysOld * day)))
    }

    @discardableResult
    private func createCompleted(_ name: String, user: String = "ana", daysOld: Double) throws -> FormLocation {
        let location = try create(name, user: user, daysOld: daysOld)
        return try store.move(location, to: .completed, user: user, name: name)
    }

    func testEightDayOldIncompleteFormIsDeletedAndSixDayOldIsKept() throws {
        let old = try create("old", daysOld: 8)
        let young = try create("young", daysOld: 6)
        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(result.expired.map(\.location.folder.path), [old.folder.path])
        XCTAssertFalse(Files.exists(old.folder))
        XCTAssertTrue(Files.exists(young.formFile))
        XCTAssertEqual(try store.list(.incomplete).forms.map(\.location.name), ["young"])
    }

    func testFormIsKeptUntilExactlyExpiryDaysHavePassed() throws {
        let edge = try create("edge", daysOld: 7)
        XCTAssertEqual(try store.sweep(expiryDays: 7, now: now).expired.count, 0)
        XCTAssertTrue(Files.exists(edge.formFile))
        let later = try store.sweep(expiryDays: 7, now: now.addingTimeInterval(1))
        XCTAssertEqual(later.expired.map(\.location.folder.path), [edge.folder.path])
        XCTAssertFalse(Files.exists(edge.folder))
    }

    func testExpiryIsMeasuredFromCreationNotLastChange() throws {
        let location = try create("busy", daysOld: 8)
        var form = try store.load(location)
        form.record(AuditEvent(at: now, by: "ana", action: .answered, questions: ["guard"]))
        try store.save(form, at: location)
        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(result.expired.map(\.location.folder.path), [location.folder.path])
        XCTAssertFalse(Files.exists(location.folder))
    }

    func testCompletedFormsAreNeverTouched() throws {
        var form = try fixture.form(name: "done", createdAt: now.addingTimeInterval(-30 * day))
        form.status = .completed
        let question = try XCTUnwrap(form.template.questions.first).id
        form.answers[question] = Answer(media: ["Qid0(1).mp4"])
        let completed = try store.move(try store.create(form), to: .completed, user: "ana", name: "done")
        try Files.write("video", to: completed.folder.appendingPathComponent("Qid0(1).mp4"))
        let before = try Data(contentsOf: completed.formFile)
        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(result.expired.count, 0)
        XCTAssertEqual(result.repaired, [])
        XCTAssertEqual(try Data(contentsOf: completed.formFile), before)
        XCTAssertEqual(Files.names(in: completed.folder), ["Qid0(1).mp4", "form.json"])
    }

    // MARK: - What killed processes leave

    /// A process id that is not running: a child that has exited and been reaped.
    private func deadPID() throws -> pid_t {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        let pid = process.processIdentifier
        XCTAssertNotEqual(kill(pid, 0), 0, "the reaped child is gone")
        return pid
    }

    func testTemporaryNamesCarryTheWritersPID() throws {
        let name = DurableFile.temporaryName()
        XCTAssertTrue(name.hasPrefix(DurableFile.temporaryPrefix))
        XCTAssertEqual(DurableFile.writer(ofTemporary: name), getpid())
        XCTAssertFalse(DurableFile.isLeftover(temporary: name), "this process is alive")
        XCTAssertNil(DurableFile.writer(ofTemporary: ".mi-tmp-dead"))
        XCTAssertTrue(DurableFile.isLeftover(temporary: ".mi-tmp-dead"), "an old name without a pid is a leftover")
        XCTAssertFalse(DurableFile.isLeftover(temporary: "form.json"))
        XCTAssertEqual(DurableFile.writer(ofTemporary: ".mi-tmp-\(try deadPID())-x").map { $0 > 0 }, true)
    }

    func testTemporaryFilesOfDeadWritersAreRemovedAndALiveWritersAreKept() throws {
        let location = try create("f", daysOld: 1)
        let dead = try deadPID()
        let deadCopy = ".mi-tmp-\(dead)-\(UUID().uuidString)"
        let liveCopy = ".mi-tmp-\(getpid())-\(UUID().uuidString)"
        let deadStaging = "Users/ana/.mi-tmp-\(dead)-\(UUID().uuidString)"
        try Files.write("half a video", to: location.folder.appendingPathComponent(deadCopy))
        try Files.write("a video being copied", to: location.folder.appendingPathComponent(liveCopy))
        try Files.write("half a form", to: fixture.root.appendingPathComponent(deadStaging + "/form.json"))

        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertFalse(Files.exists(location.folder.appendingPathComponent(deadCopy)))
        XCTAssertTrue(Files.exists(location.folder.appendingPathComponent(liveCopy)), "a live writer's file is never removed")
        XCTAssertFalse(Files.exists(fixture.root.appendingPathComponent(deadStaging)))
        XCTAssertEqual(Set(result.repaired), [.temporaryRemoved(path: deadStaging),
                                              .temporaryRemoved(path: "Users/ana/f/\(deadCopy)")])
    }

    func testTemporaryFilesOfDeadWritersOfMessagesAndTheTemplateCacheAreRemoved() throws {
        let dead = try deadPID()
        let messages = "Errors/.mi-tmp-\(dead)-\(UUID().uuidString)"
        let template = ".templates/.mi-tmp-\(dead)-\(UUID().uuidString)"
        let live = ".templates/.mi-tmp-\(getpid())-\(UUID().uuidString)"
        for path in [messages, template, live] { try Files.write("half", to: fixture.root.appendingPathComponent(path)) }

        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(Set(result.repaired), [.temporaryRemoved(path: messages), .temporaryRemoved(path: template)])
        XCTAssertTrue(Files.exists(fixture.root.appendingPathComponent(live)))
        XCTAssertTrue(Files.exists(fixture.root.appendingPathComponent(".templates/\(TemplateFixture.sampleID).json")))
    }

    func testMediaThatFormJSONDoesNotListIsRemovedAndListedMediaKept() throws {
        let workflow = fixture.workflow()
        let (location, form) = try workflow.startForm(templateID: TemplateFixture.sampleTemplate().id, name: "f")
        let question = try XCTUnwrap(form.template.questions.first).id
        let attached = try workflow.attach("f", question: question, files: [try fixture.mediaSource("a.jpg")])
        // An attach killed after its rename, before form.json recorded the file.
        try Files.write("never acknowledged", to: location.folder.appendingPathComponent("Qid0(2).jpg"))

        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(Files.names(in: location.folder), [attached[0].name, "form.json"].sorted())
        XCTAssertEqual(result.repaired, [.unlistedMediaRemoved(path: "Users/ana/f/Qid0(2).jpg")])
        XCTAssertEqual(try store.load(location).answers[question]?.media, [attached[0].name])
    }

    func testSubmitCutShortBetweenSaveAndMoveIsCompleted() throws {
        let location = try create("f", daysOld: 1)
        var form = try store.load(location)
        form.status = .completed
        form.submittedAt = now
        form.record(AuditEvent(at: now, by: "ana", action: .submitted))
        try store.save(form, at: location)

        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(result.repaired, [.submitCompleted(from: "Users/ana/f", to: "CompletedMIs/ana/f")])
        XCTAssertFalse(Files.exists(location.folder))
        let moved = try store.location(.completed, user: "ana", name: "f")
        XCTAssertEqual(try store.readSummary(moved).status, .completed)
        XCTAssertEqual(try store.load(moved).audit.last?.action, .submitted)
        XCTAssertEqual(try store.list(.completed).forms.map(\.location.name), ["f"])
    }

    func testSubmitCutShortTakesAFreeNameWhenTheCompletedOneIsTaken() throws {
        try createCompleted("f", daysOld: 2)
        let location = try create("f-x", daysOld: 1)
        var form = try store.load(location)
        form.status = .completed
        form.record(AuditEvent(at: now, by: "ana", action: .submitted))
        form.name = "f"
        try store.save(form, at: location)

        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertTrue(result.repaired.contains(.submitCompleted(from: "Users/ana/f-x", to: "CompletedMIs/ana/f-2")), "\(result.repaired)")
        XCTAssertEqual(try store.list(.completed).forms.map(\.location.name), ["f", "f-2"])
    }

    func testOtherStatusMismatchesFollowTheFolder() throws {
        // In Users/ saying completed without a submit last: stays, and says incomplete.
        let incomplete = try create("edited", daysOld: 1)
        var form = try store.load(incomplete)
        form.status = .completed
        try store.save(form, at: incomplete)
        // In CompletedMIs/ saying incomplete (a send-back cut short): stays, and says completed.
        let completed = try createCompleted("returned", daysOld: 1)

        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(Set(result.repaired), [.statusCorrected(path: "Users/ana/edited", status: .incomplete),
                                              .statusCorrected(path: "CompletedMIs/ana/returned", status: .completed)])
        XCTAssertEqual(try store.readSummary(incomplete).status, .incomplete)
        XCTAssertEqual(try store.readSummary(completed).status, .completed)
        XCTAssertEqual(try store.sweep(expiryDays: 7, now: now).repaired, [], "a second sweep finds nothing")
    }

    func testDryRunReportsButDeletesNothing() throws {
        let old = try create("old", daysOld: 8)
        let leftover = fixture.root.appendingPathComponent("Users/ana/.mi-tmp-dead")
        try Files.write("half", to: leftover)
        let emptyUser = fixture.root.appendingPathComponent("Users/carl")
        try FileManager.default.createDirectory(at: emptyUser, withIntermediateDirectories: true)

        let result = try store.sweep(expiryDays: 7, now: now, dryRun: true)
        XCTAssertEqual(result.expired.map(\.location.folder.path), [old.folder.path])
        XCTAssertTrue(Files.exists(old.formFile))
        XCTAssertTrue(Files.exists(leftover))
        XCTAssertTrue(Files.isDirectory(emptyUser))
    }

    func testLeftoverTemporaryEntriesInUserFoldersAreRemoved() throws {
        let kept = try create("kept", daysOld: 1)
        let users = fixture.root.appendingPathComponent("Users")
        try Files.write("half a form", to: users.appendingPathComponent("ana/.mi-tmp-1111/form.json"))
        try Files.write("half a file", to: users.appendingPathComponent("ana/.mi-tmp-2222"))
        let completedLeftover = fixture.root.appendingPathComponent("CompletedMIs/bob/.mi-tmp-3333/form.json")
        try Files.write("half a move", to: completedLeftover)

        _ = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(Files.names(in: users.appendingPathComponent("ana")), ["kept"])
        XCTAssertTrue(Files.exists(kept.formFile))
        XCTAssertEqual(Files.find(prefix: DurableFile.temporaryPrefix, under: fixture.root), [])
        XCTAssertFalse(Files.exists(fixture.root.appendingPathComponent("CompletedMIs/bob")),
                       "bob's folder held only a leftover, so it is empty and removed")
    }

    func testEmptyUserFoldersAreRemovedInBothAreas() throws {
        try create("kept", user: "ana", daysOld: 1)
        try create("expired", user: "bob", daysOld: 9)
        let carl = fixture.root.appendingPathComponent("Users/carl")
        let dora = fixture.root.appendingPathComponent("CompletedMIs/dora")
        try FileManager.default.createDirectory(at: carl, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dora, withIntermediateDirectories: true)

        _ = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(Files.names(in: fixture.root.appendingPathComponent("Users")), ["ana"])
        XCTAssertEqual(Files.names(in: fixture.root.appendingPathComponent("CompletedMIs")), [])
    }

    func testTemporaryFilesInsideAFormFolderAreRemovedByRemoveLeftovers() throws {
        let location = try create("f", daysOld: 1)
        try Files.write("half a photo", to: location.folder.appendingPathComponent(".mi-tmp-abc"))
        try Files.write("photo", to: location.folder.appendingPathComponent("Qid0(1).jpg"))
        try Files.write("half a photo", to: location.folder.appendingPathComponent(".mi-tmp-\(getpid())-abc"))
        store.removeLeftovers(in: location)
        XCTAssertEqual(Files.names(in: location.folder).filter { !$0.hasPrefix(".") }, ["Qid0(1).jpg", "form.json"])
        XCTAssertEqual(Files.find(prefix: DurableFile.temporaryPrefix, under: location.folder).map { $0.hasPrefix(".mi-tmp-\(getpid())-") }, [true],
                       "only this live process's file is left")
    }

    func testUnreadableExpiredFormIsReportedNeverDeleted() throws {
        let location = try create("broken", daysOld: 30)
        try Data("garbage".utf8).write(to: location.formFile)
        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(result.expired.count, 0)
        XCTAssertEqual(result.unreadable.map(\.location.folder.path), [location.folder.path])
        XCTAssertEqual(try Data(contentsOf: location.formFile), Data("garbage".utf8))
    }

    func testExpiryDateIsCreationPlusExpiryDays() throws {
        let summary = try fixture.form(name: "x", createdAt: now).summary
        XCTAssertEqual(Store.expiryDate(of: summary, expiryDays: 7), now.addingTimeInterval(7 * day))
    }

    // MARK: - The sweep's listing

    private func describe(_ listing: FormListing) -> [String] {
        listing.forms.map { "\($0.location.relativePath) \($0.location.path) \($0.summary)" }
            + listing.unreadable.map { "unreadable \($0.location.relativePath): \($0.reason)" }
    }

    func testTheSweepsListingIsWhatAFreshListingOfEitherAreaGives() throws {
        try create("kept", user: "ana", daysOld: 1)
        try create("expired", user: "ana", daysOld: 9)
        try create("draft", user: "bob", daysOld: 2)
        try createCompleted("done", user: "bob", daysOld: 3)
        let broken = try createCompleted("broken", user: "ana", daysOld: 1)
        try Data("garbage".utf8).write(to: broken.formFile)
        // A submit cut short: repaired into CompletedMIs/, listed there, not in Users/.
        let cut = try create("cut", user: "ana", daysOld: 1)
        var form = try store.load(cut)
        form.status = .completed
        form.submittedAt = now
        form.record(AuditEvent(at: now, by: "ana", action: .submitted))
        try store.save(form, at: cut)

        let listing = try XCTUnwrap(try store.sweep(expiryDays: 7, now: now).listing)
        for area in Store.Area.allCases {
            for user in [nil, "ana", "bob", "nobody"] {
                XCTAssertEqual(describe(try listing.list(area, user: user)), describe(try store.list(area, user: user)), "\(area) \(user ?? "all")")
            }
        }
        XCTAssertEqual(try listing.list(.completed).forms.map(\.location.relativePath), ["CompletedMIs/ana/cut", "CompletedMIs/bob/done"])
        XCTAssertEqual(try listing.list(.incomplete).forms.map(\.location.relativePath), ["Users/ana/kept", "Users/bob/draft"])
        XCTAssertEqual(try listing.list(.completed).unreadable.map(\.location.relativePath), ["CompletedMIs/ana/broken"])
    }

    func testTheSweepsListingRefusesAnUnsafeUserNameAsTheStoreDoes() throws {
        try create("kept", daysOld: 1)
        let listing = try XCTUnwrap(try store.sweep(expiryDays: 7, now: now).listing)
        XCTAssertThrowsError(try listing.list(.incomplete, user: "../ana")) { error in
            guard case StoreError.unsafeName? = error as? StoreError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try store.list(.incomplete, user: "../ana"))
    }

    func testADryRunHasNoListing() throws {
        try create("kept", daysOld: 1)
        XCTAssertNil(try store.sweep(expiryDays: 7, now: now, dryRun: true).listing)
    }

    func testFileContentsAreReadWholeAndAMissingFileNamesItsPath() throws {
        let file = fixture.root.appendingPathComponent("blob")
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: file)
        XCTAssertEqual(try DurableFile.contents(atPath: file.path), bytes)
        try Data().write(to: file)
        XCTAssertEqual(try DurableFile.contents(atPath: file.path), Data())
        let missing = fixture.root.appendingPathComponent("missing").path
        XCTAssertThrowsError(try DurableFile.contents(atPath: missing)) { error in
            XCTAssertTrue(error.localizedDescription.contains(missing) && error.localizedDescription.contains("No such file"),
                          error.localizedDescription)
        }
    }
}
