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
        let completed = try createCompleted("done", daysOld: 30)
        try Files.write("video", to: completed.folder.appendingPathComponent("Qid0(1).mp4"))
        let before = try Data(contentsOf: completed.formFile)
        let result = try store.sweep(expiryDays: 7, now: now)
        XCTAssertEqual(result.expired.count, 0)
        XCTAssertEqual(try Data(contentsOf: completed.formFile), before)
        XCTAssertEqual(Files.names(in: completed.folder), ["Qid0(1).mp4", "form.json"])
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
        store.removeLeftovers(in: location)
        XCTAssertEqual(Files.names(in: location.folder), ["Qid0(1).jpg", "form.json"])
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
}
