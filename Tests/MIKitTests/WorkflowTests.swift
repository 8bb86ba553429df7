import Foundation
import MIKit
import TestSupport
import XCTest

final class WorkflowTests: XCTestCase {
    private var fixture: StoreFixture!
    private var workflow: Workflow!
    private var store: Store { fixture.store }

    override func setUpWithError() throws {
        fixture = try StoreFixture()
        workflow = fixture.workflow(user: "ana")
    }

    override func tearDown() {
        workflow = nil
        fixture = nil
    }

    private func start(_ name: String = "pump-1") throws -> FormLocation {
        try workflow.startForm(templateID: TemplateFixture.sampleID, name: name).0
    }

    /// Answers every question of the sample template validly.
    private func answerEverything(_ form: String) throws {
        _ = try workflow.answer(form, TemplateFixture.completeAnswers)
    }

    // MARK: - Starting forms

    func testStartFormCreatesTheFolderWithFormJSON() throws {
        let (location, form) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "pump-1")
        XCTAssertEqual(location.folder.path, fixture.root.appendingPathComponent("Users/ana/pump-1").path)
        XCTAssertEqual(Files.names(in: location.folder), ["form.json"])
        XCTAssertEqual(form.user, "ana")
        XCTAssertEqual(form.status, .incomplete)
        XCTAssertEqual(form.createdAt, TestClock.start)
        XCTAssertEqual(form.template, try TemplateFixture.sampleTemplate(), "the form keeps a copy of the template")
        XCTAssertEqual(form.audit.map(\.action), [.created])
        XCTAssertEqual(try store.load(location), form)
    }

    func testStartFormWithoutANameUsesTemplateAndDate() throws {
        let (first, _) = try workflow.startForm(templateID: TemplateFixture.sampleID)
        let (second, _) = try workflow.startForm(templateID: TemplateFixture.sampleID)
        XCTAssertTrue(first.name.hasPrefix("pump-inspection-2026030"), first.name)
        XCTAssertEqual(second.name, first.name + "-2", "a second form in the same minute gets a suffix")
    }

    func testStartFormRefusesANameAlreadyUsed() throws {
        _ = try start("pump-1")
        XCTAssertThrowsError(try workflow.startForm(templateID: TemplateFixture.sampleID, name: "pump-1")) { error in
            XCTAssertTrue(error.localizedDescription.contains("already have a form named pump-1"), error.localizedDescription)
        }
    }

    func testStartFormRefusesAHostileName() throws {
        XCTAssertThrowsError(try workflow.startForm(templateID: TemplateFixture.sampleID, name: "../../x")) { error in
            guard case StoreError.unsafeName? = error as? StoreError else { return XCTFail("expected unsafeName, got \(error)") }
        }
        XCTAssertFalse(Files.exists(fixture.root.appendingPathComponent("Users")))
    }

    func testStartFormOfAnUnknownTemplateIsRefused() throws {
        XCTAssertThrowsError(try workflow.startForm(templateID: "no-such-template")) { error in
            XCTAssertEqual(error as? StoreError, .templateNotFound("no-such-template"))
        }
    }

    func testResolveFindsAFormByNameOrIdPrefix() throws {
        let (location, form) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "pump-1")
        XCTAssertEqual(try workflow.resolve("pump-1").folder.path, location.folder.path)
        XCTAssertEqual(try workflow.resolve(String(form.id.description.prefix(8))).folder.path,
                       location.folder.path)
        XCTAssertThrowsError(try workflow.resolve("pump-2")) { error in
            XCTAssertEqual(error as? StoreError, .formNotFound("pump-2", user: "ana", suggestions: ["pump-1"]))
        }
        XCTAssertThrowsError(try workflow.resolve("boiler")) { error in
            XCTAssertEqual(error as? StoreError, .formNotFound("boiler", user: "ana"))
        }
    }

    func testAnotherUserDoesNotSeeTheForm() throws {
        _ = try start("pump-1")
        XCTAssertThrowsError(try fixture.workflow(user: "bob").resolve("pump-1"))
    }

    // MARK: - Answers

    func testValidAnswersAreSavedWithAuditEntry() throws {
        _ = try start()
        fixture.clock.advance(by: 60)
        let form = try workflow.answer("pump-1", [
            AnswerUpdate(question: "pressure", value: .words(["4.5"]), comment: "  gauge fogged  "),
            AnswerUpdate(question: "2", value: .words(["mechanical SEAL", "5"])),
        ])
        XCTAssertEqual(form.answers["pressure"], Answer(value: .number(4.5), comment: "gauge fogged"))
        XCTAssertEqual(form.answers["leaks"]?.value, .choices(["Mechanical seal", "Casing drain"]), "question by number")
        XCTAssertEqual(form.audit.last?.action, .answered)
        XCTAssertEqual(form.audit.last?.questions, ["pressure", "leaks"])
        XCTAssertEqual(form.updatedAt, TestClock.start.addingTimeInterval(60))
        XCTAssertEqual(try store.load(try workflow.resolve("pump-1")), form)
    }

    func testInvalidAnswerLeavesFormJSONByteForByteUnchanged() throws {
        let location = try start()
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "guard", value: .words(["yes"]))])
        let before = try Data(contentsOf: location.formFile)

        XCTAssertThrowsError(try workflow.answer("pump-1", [AnswerUpdate(question: "pressure", value: .words(["99"]))])) { error in
            XCTAssertEqual((error as? AnswerError)?.question, "pressure (6 of 9)")
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
    }

    func testOneInvalidAnswerInABatchSavesNone() throws {
        let location = try start()
        let before = try Data(contentsOf: location.formFile)
        XCTAssertThrowsError(try workflow.answer("pump-1", [
            AnswerUpdate(question: "guard", value: .words(["yes"])),
            AnswerUpdate(question: "notes", value: .words(["fine"])),
            AnswerUpdate(question: "noise", value: .words(["Normal", "Grinding"])),
        ])) { error in
            XCTAssertEqual((error as? AnswerError)?.question, "noise (4 of 9)")
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
        XCTAssertEqual(Files.names(in: location.folder), ["form.json"])
    }

    func testUnknownQuestionIsRefusedAndNothingSaved() throws {
        let location = try start()
        let before = try Data(contentsOf: location.formFile)
        XCTAssertThrowsError(try workflow.answer("pump-1", [AnswerUpdate(question: "colour", value: .words(["red"]))])) { error in
            XCTAssertEqual((error as? AnswerError)?.question, "colour")
            XCTAssertTrue((error as? AnswerError)?.rule.contains("no such question") == true)
        }
        XCTAssertThrowsError(try workflow.answer("pump-1", [AnswerUpdate(question: "10", value: .words(["x"]))]))
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
    }

    func testAnswerWithNoChangeDoesNotRewriteTheFile() throws {
        let location = try start()
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "guard", value: .words(["yes"]))])
        let before = try Data(contentsOf: location.formFile)
        fixture.clock.advance(by: 60)
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "guard", value: .words(["true"]))])
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
    }

    func testEmptyCommentRemovesTheComment() throws {
        _ = try start()
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "notes", value: nil, comment: "later")])
        let form = try workflow.answer("pump-1", [AnswerUpdate(question: "notes", value: nil, comment: "  ")])
        XCTAssertNil(form.answers["notes"]?.comment)
        XCTAssertFalse(form.answer(for: "notes").isDone)
    }

    func testAnswersFileWithPlainValuesAndCommentObjectsIsApplied() throws {
        _ = try start()
        let file = Data(#"""
        {
          "guard": true,
          "leaks": ["none"],
          "pressure": {"value": 3.5, "comment": "steady"},
          "hours": "1200",
          "bearings": [["61", 2.5], ["58", "1.9"], [70, null]],
          "notes": {"comment": "nothing else"}
        }
        """#.utf8)
        let form = try workflow.answer("pump-1", try Workflow.updates(fromAnswersFile: file))
        XCTAssertEqual(form.answers["guard"]?.value, .bool(true))
        XCTAssertEqual(form.answers["leaks"]?.value, .choices(["None"]))
        XCTAssertEqual(form.answers["pressure"], Answer(value: .number(3.5), comment: "steady"))
        XCTAssertEqual(form.answers["hours"]?.value, .number(1200))
        XCTAssertEqual(form.answers["bearings"]?.value, .cells([["61", "2.5"], ["58", "1.9"], ["70", nil]]))
        XCTAssertEqual(form.answers["notes"], Answer(value: nil, comment: "nothing else"))
        XCTAssertEqual(form.openQuestions.map(\.id), ["noise", "checks"])
    }

    func testAnswersFileWithAnInvalidValueSavesNothing() throws {
        let location = try start()
        let before = try Data(contentsOf: location.formFile)
        let file = Data(#"{"guard": true, "hours": 12.5}"#.utf8)
        XCTAssertThrowsError(try workflow.answer("pump-1", try Workflow.updates(fromAnswersFile: file))) { error in
            XCTAssertEqual((error as? AnswerError)?.question, "hours (7 of 9)")
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
    }

    // MARK: - Media

    func testAttachNamesMediaByQuestionIndexAndNumber() throws {
        let location = try start()
        let photo = try fixture.mediaSource("IMG_0001.JPG", bytes: 1000)
        let movie = try fixture.mediaSource("clip.mp4", bytes: 5000)
        let attached = try workflow.attach("pump-1", question: "leaks", files: [photo, movie])
        XCTAssertEqual(attached.map(\.name), ["Qid1(1).jpg", "Qid1(2).mp4"])
        XCTAssertEqual(attached.map(\.kind), [.photo, .video])
        XCTAssertEqual(attached.map(\.bytes), [1000, 5000])
        XCTAssertEqual(try Data(contentsOf: location.folder.appendingPathComponent("Qid1(1).jpg")), try Data(contentsOf: photo))
        XCTAssertEqual(try Data(contentsOf: location.folder.appendingPathComponent("Qid1(2).mp4")), try Data(contentsOf: movie))
        XCTAssertEqual(Files.names(in: location.folder), ["Qid1(1).jpg", "Qid1(2).mp4", "form.json"])

        let form = try store.load(location)
        XCTAssertEqual(form.answers["leaks"]?.media, ["Qid1(1).jpg", "Qid1(2).mp4"])
        XCTAssertEqual(form.audit.filter { $0.action == .attached }.compactMap(\.media), ["Qid1(1).jpg", "Qid1(2).mp4"])
        XCTAssertFalse(form.answer(for: "leaks").isDone, "media alone do not answer a question")
        XCTAssertTrue(Files.exists(photo), "the original stays where it was")
    }

    func testMediaNumbersCountPerQuestion() throws {
        _ = try start()
        _ = try workflow.attach("pump-1", question: "leaks", files: [try fixture.mediaSource("a.jpg")])
        let other = try workflow.attach("pump-1", question: "guard", files: [try fixture.mediaSource("b.png")])
        XCTAssertEqual(other.map(\.name), ["Qid0(1).png"])
    }

    func testStrayMediaFileOnDiskIsNeverOverwritten() throws {
        let location = try start()
        _ = try workflow.attach("pump-1", question: "leaks", files: [
            try fixture.mediaSource("a.jpg"), try fixture.mediaSource("b.mp4"),
        ])
        // A killed attach left Qid1(3).mp4 behind without recording it.
        let stray = location.folder.appendingPathComponent("Qid1(3).mp4")
        try Data("stray".utf8).write(to: stray)
        let next = try workflow.attach("pump-1", question: "leaks", files: [try fixture.mediaSource("c.mp4")])
        XCTAssertEqual(next.map(\.name), ["Qid1(4).mp4"])
        XCTAssertEqual(try Data(contentsOf: stray), Data("stray".utf8))
        XCTAssertEqual(try store.load(location).answers["leaks"]?.media, ["Qid1(1).jpg", "Qid1(2).mp4", "Qid1(4).mp4"])
    }

    func testAttachRefusesAFileThatIsNotMedia() throws {
        let location = try start()
        let before = try Data(contentsOf: location.formFile)
        XCTAssertThrowsError(try workflow.attach("pump-1", question: "leaks", files: [try fixture.mediaSource("notes.txt")])) { error in
            XCTAssertTrue(error.localizedDescription.contains("notes.txt is not a photo, video or audio file"),
                          error.localizedDescription)
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
        XCTAssertEqual(Files.names(in: location.folder), ["form.json"])
    }

    func testAttachOfAMissingFileChangesNothing() throws {
        let location = try start()
        let before = try Data(contentsOf: location.formFile)
        XCTAssertThrowsError(try workflow.attach("pump-1", question: "leaks",
                                                 files: [fixture.directory.path("incoming", "gone.jpg")]))
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
        XCTAssertEqual(Files.names(in: location.folder), ["form.json"])
    }

    func testMediaListsSizesAndMissingFiles() throws {
        let location = try start()
        _ = try workflow.attach("pump-1", question: "notes", files: [
            try fixture.mediaSource("a.m4a", bytes: 10), try fixture.mediaSource("b.jpg", bytes: 20),
        ])
        try FileManager.default.removeItem(at: location.folder.appendingPathComponent("Qid8(2).jpg"))
        let media = workflow.media(of: try store.load(location), at: location)
        XCTAssertEqual(media.map(\.name), ["Qid8(1).m4a", "Qid8(2).jpg"])
        XCTAssertEqual(media.map(\.kind), [.audio, .photo])
        XCTAssertEqual(media.map(\.bytes), [10, nil])
        XCTAssertEqual(media.map(\.missing), [false, true])
    }

    func testDetachRemovesTheMediaFromFormAndDisk() throws {
        let location = try start()
        _ = try workflow.attach("pump-1", question: "leaks", files: [
            try fixture.mediaSource("a.jpg"), try fixture.mediaSource("b.mp4"),
        ])
        let form = try workflow.detach("pump-1", media: "Qid1(1).jpg")
        XCTAssertEqual(form.answers["leaks"]?.media, ["Qid1(2).mp4"])
        XCTAssertEqual(form.audit.last?.action, .detached)
        XCTAssertEqual(Files.names(in: location.folder), ["Qid1(2).mp4", "form.json"])
        XCTAssertEqual(try store.load(location).answers["leaks"]?.media, ["Qid1(2).mp4"])
    }

    func testDetachOfUnknownMediaIsRefusedAndListsTheMedia() throws {
        let location = try start()
        _ = try workflow.attach("pump-1", question: "leaks", files: [try fixture.mediaSource("a.jpg")])
        let before = try Data(contentsOf: location.formFile)
        XCTAssertThrowsError(try workflow.detach("pump-1", media: "../form.json")) { error in
            XCTAssertTrue(error.localizedDescription.contains("Qid1(1).jpg"), error.localizedDescription)
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
        XCTAssertEqual(Files.names(in: location.folder), ["Qid1(1).jpg", "form.json"])
    }

    // MARK: - Submit and delete

    func testSubmitIsRefusedWhileAQuestionHasNeitherAnswerNorComment() throws {
        let location = try start()
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "guard", value: .words(["yes"]))])
        let before = try Data(contentsOf: location.formFile)
        XCTAssertThrowsError(try workflow.submit("pump-1")) { error in
            let message = error.localizedDescription
            XCTAssertTrue(message.contains("cannot be submitted: 7 question(s)"), message)
            XCTAssertTrue(message.contains("leaks (2)"), message)
            XCTAssertTrue(message.contains("notes (9)"), message)
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before)
        XCTAssertTrue(Files.exists(location.formFile))
        XCTAssertFalse(Files.exists(fixture.root.appendingPathComponent("CompletedMIs/ana/pump-1")))
    }

    func testSubmitMovesTheWholeFolderToCompletedMIs() throws {
        let location = try start()
        _ = try workflow.attach("pump-1", question: "bearings", files: [try fixture.mediaSource("t.jpg")])
        try answerEverything("pump-1")
        fixture.clock.advance(by: 3600)

        let (destination, form) = try workflow.submit("pump-1")
        XCTAssertEqual(destination.folder.path, fixture.root.appendingPathComponent("CompletedMIs/ana/pump-1").path)
        XCTAssertEqual(destination.area, .completed)
        XCTAssertFalse(Files.exists(location.folder), "gone from Users")
        XCTAssertEqual(Files.names(in: destination.folder), ["Qid7(1).jpg", "form.json"])
        XCTAssertEqual(form.status, .completed)
        XCTAssertEqual(form.submittedAt, TestClock.start.addingTimeInterval(3600))
        XCTAssertEqual(form.audit.last?.action, .submitted)

        let loaded = try store.load(destination)
        XCTAssertEqual(loaded.status, .completed)
        XCTAssertEqual(loaded.submittedAt, form.submittedAt)
        XCTAssertEqual(try store.list(.incomplete, user: "ana").forms.count, 0)
        XCTAssertEqual(try store.list(.completed, user: "ana").forms.map(\.location.folder.path), [destination.folder.path])
    }

    func testACommentIsEnoughToSubmit() throws {
        _ = try start()
        let comments = try TemplateFixture.sampleTemplate().questions.map {
            AnswerUpdate(question: $0.id, value: nil, comment: "not accessible")
        }
        _ = try workflow.answer("pump-1", comments)
        XCTAssertNoThrow(try workflow.submit("pump-1"))
    }

    func testSubmittedFormCannotBeChangedOrDeleted() throws {
        _ = try start()
        try answerEverything("pump-1")
        let (destination, _) = try workflow.submit("pump-1")
        let before = try Data(contentsOf: destination.formFile)
        XCTAssertThrowsError(try workflow.answer("pump-1", [AnswerUpdate(question: "guard", value: .words(["no"]))])) { error in
            XCTAssertTrue(error.localizedDescription.contains("submitted"), error.localizedDescription)
        }
        XCTAssertThrowsError(try workflow.attach("pump-1", question: "guard", files: [try fixture.mediaSource("a.jpg")]))
        XCTAssertThrowsError(try workflow.delete("pump-1"))
        XCTAssertEqual(try Data(contentsOf: destination.formFile), before)
        XCTAssertEqual(Files.names(in: destination.folder), ["form.json"])
    }

    func testSubmitAgainUnderTheSameNameGetsANewName() throws {
        _ = try start("pump-1")
        try answerEverything("pump-1")
        _ = try workflow.submit("pump-1")
        // The name is free in Users again (only Users is checked by a technician's own folder).
        let location = try store.create(try fixture.form(name: "pump-1", createdAt: TestClock.start))
        _ = location
        try answerEverything("pump-1")
        let (second, form) = try workflow.submit("pump-1")
        XCTAssertEqual(second.name, "pump-1-2")
        XCTAssertEqual(form.name, "pump-1-2")
        XCTAssertEqual(form.audit.last?.action, .renamed)
        XCTAssertEqual(try store.list(.completed, user: "ana").forms.map(\.location.name), ["pump-1", "pump-1-2"])
    }

    func testDeleteRemovesTheFormWithItsMedia() throws {
        let location = try start()
        _ = try workflow.attach("pump-1", question: "leaks", files: [try fixture.mediaSource("a.jpg")])
        let deleted = try workflow.delete("pump-1")
        XCTAssertEqual(deleted.folder.path, location.folder.path)
        XCTAssertFalse(Files.exists(location.folder))
        XCTAssertFalse(Files.exists(location.folder.deletingLastPathComponent()))
        XCTAssertEqual(Files.find(prefix: DurableFile.temporaryPrefix, under: fixture.root), [])
        XCTAssertThrowsError(try workflow.resolve("pump-1"))
    }

    func testDeleteKeepsTheOtherForms() throws {
        let keep = try start("keep")
        _ = try start("drop")
        _ = try workflow.delete("drop")
        XCTAssertTrue(Files.exists(keep.formFile))
        XCTAssertEqual(try store.list(.incomplete).forms.map(\.location.name), ["keep"])
    }

    func testLeftoverTemporaryFileInTheFormFolderIsRemovedOnTheNextChange() throws {
        let location = try start()
        try Data("half".utf8).write(to: location.folder.appendingPathComponent(".mi-tmp-dead"))
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "guard", value: .words(["yes"]))])
        XCTAssertEqual(Files.names(in: location.folder), ["form.json"])
    }

    // MARK: - Text rule at submit and upload, display names

    /// A form started by a technician whose directory entry names them "Ana Pérez".
    private func startNamed(_ name: String = "pump-1") throws -> FormLocation {
        try workflow.startForm(templateID: TemplateFixture.sampleID, name: name, displayName: "Ana Pérez").0
    }

    private func assertRefused(_ body: @autoclosure () throws -> Any, _ fragment: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? TextRuleError)?.code, "control-character", "\(error)", file: file, line: line)
            XCTAssertTrue(error.localizedDescription.contains(fragment), error.localizedDescription, file: file, line: line)
        }
    }

    func testSubmitRefusesAFormSavedWithControlCharactersUntilCorrected() throws {
        let location = try startNamed()
        _ = try workflow.answer("pump-1", TemplateFixture.completeAnswers)
        var form = try store.load(location)
        form.answers["notes"]?.value = .text("left\u{1B}[D")
        try store.save(form, at: location)
        assertRefused(try workflow.submit("pump-1"), "answer to notes contains the control character U+001B")
        XCTAssertTrue(Files.exists(location.formFile), "the form stays where it was")
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "notes", value: .words(["left"]))])
        XCTAssertNoThrow(try workflow.submit("pump-1"))
    }

    func testUploadIsRefusedLocallyForAFormWithControlCharacters() throws {
        _ = try startNamed()
        _ = try workflow.answer("pump-1", TemplateFixture.completeAnswers)
        let (location, _) = try workflow.submit("pump-1")
        var form = try store.load(location)
        form.answers["guard"]?.comment = "\u{1B}c"
        try store.save(form, at: location)
        assertRefused(try fixture.workflow(user: "fiona", role: .foreman).prepareUpload(location), "comment on guard")
        XCTAssertNil(try store.load(location).audit.first { $0.action == .uploaded }, "nothing was recorded")
    }

    // MARK: - Display name

    func testStartFormRecordsTheTechniciansDisplayName() throws {
        let form = try store.load(try startNamed())
        XCTAssertEqual(form.userDisplayName, "Ana Pérez")
        XCTAssertEqual(form.technicianLabel, "Ana Pérez (ana)")
    }

    func testADisplayNameWithControlCharactersIsNotRecorded() throws {
        let (_, form) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "p", displayName: "Ana\u{1B}[2J")
        XCTAssertNil(form.userDisplayName)
        XCTAssertEqual(form.technicianLabel, "ana")
        let (_, blank) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "q", displayName: "  ")
        XCTAssertNil(blank.userDisplayName)
    }

    func testReassignRecordsTheNewTechniciansDisplayName() throws {
        _ = try startNamed()
        let result = try fixture.workflow(user: "fiona", role: .foreman).reassign("ana/pump-1", to: "carla", displayName: "Carla Núñez")
        XCTAssertEqual(try store.load(result.to).technicianLabel, "Carla Núñez (carla)")
    }

    func testAFormWrittenWithoutADisplayNameStillLoads() throws {
        let location = try startNamed()
        var text = try String(contentsOf: location.formFile, encoding: .utf8)
        XCTAssertTrue(text.contains(#","userDisplayName":"Ana Pérez""#), text)
        text = text.replacingOccurrences(of: #","userDisplayName":"Ana Pérez""#, with: "")
        try Data(text.utf8).write(to: location.formFile)
        let form = try store.load(location)
        XCTAssertNil(form.userDisplayName)
        XCTAssertEqual(form.technicianLabel, "ana")
    }

    func testTheDisplayNameIsPartOfTheFormsTextRule() throws {
        var form = try store.load(try startNamed())
        form.userDisplayName = "Ana\u{9B}2J"
        assertRefused(try TextRules.check(form), "technician's display name")
    }
}
