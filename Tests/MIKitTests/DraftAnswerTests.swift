import Foundation
import MIKit
import TestSupport
import XCTest

/// A table typed cell by cell is kept as a draft: saved, shown, but never counted as done.
final class DraftAnswerTests: XCTestCase {
    private var fixture: StoreFixture!
    private var workflow: Workflow!

    override func setUpWithError() throws {
        fixture = try StoreFixture()
        workflow = fixture.workflow(user: "ana")
        _ = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "pump-1")
    }

    override func tearDown() {
        workflow = nil
        fixture = nil
    }

    private let twoCells: [[String?]] = [["61", nil], [" 58 ", nil], [nil, nil]]

    private func answerAllButTheTable() throws {
        _ = try workflow.answer("pump-1", [
            AnswerUpdate(question: "guard", value: .words(["yes"])),
            AnswerUpdate(question: "leaks", value: .words(["1"])),
            AnswerUpdate(question: "noise", value: .words(["1"])),
            AnswerUpdate(question: "checks", value: .words(["1,2"])),
            AnswerUpdate(question: "pressure", value: .words(["4.5"])),
            AnswerUpdate(question: "hours", value: .words(["1200"])),
            AnswerUpdate(question: "notes", value: .words(["ok"])),
        ])
    }

    func testADraftIsSavedTrimmedAndTheQuestionStaysOpen() throws {
        let form = try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .draft(twoCells))])
        let answer = form.answer(for: "bearings")
        XCTAssertEqual(answer.draft, [["61", nil], ["58", nil], [nil, nil]])
        XCTAssertNil(answer.value)
        XCTAssertEqual(answer.draftCellCount, 2)
        XCTAssertFalse(answer.isDone)
        XCTAssertEqual(form.summary.answered, 1, "only leak_photo, not relevant while leaks has no answer, is not open")
        XCTAssertEqual(try fixture.store.load(try workflow.resolve("pump-1")), form, "form.json keeps the draft")
    }

    func testADraftKeepsACommentedQuestionOpen() throws {
        let form = try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .draft(twoCells), comment: "sensor loose")])
        XCTAssertEqual(form.answer(for: "bearings").comment, "sensor loose")
        XCTAssertFalse(form.isDone(form.template.questions[7]))
        XCTAssertEqual(form.openQuestions.map(\.id).first, "guard")
        XCTAssertTrue(form.openQuestions.map(\.id).contains("bearings"))
    }

    func testADraftBesideAnOlderValueKeepsTheValueButIsNotDone() throws {
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .words([#"[["1","2"],["3","4"],["5",null]]"#]))])
        let form = try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .draft([["9", "2"], ["3", "4"], ["5", nil]]))])
        XCTAssertEqual(form.answer(for: "bearings").value, .cells([["1", "2"], ["3", "4"], ["5", nil]]))
        XCTAssertFalse(form.answer(for: "bearings").isDone)
    }

    func testACompleteValueEndsTheDraft() throws {
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .draft(twoCells))])
        let form = try workflow.answer("pump-1", [
            AnswerUpdate(question: "bearings", value: .validated(.cells([["61", "2"], ["58", "1"], ["70", nil]]))),
        ])
        XCTAssertNil(form.answer(for: "bearings").draft)
        XCTAssertTrue(form.answer(for: "bearings").isDone)
        XCTAssertEqual(form.summary.answered, 2, "bearings, and leak_photo, which is not relevant")
    }

    func testAnEmptyDraftIsNoDraft() throws {
        let form = try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .draft([[nil, " "], [nil, nil], [nil, nil]]))])
        XCTAssertNil(form.answer(for: "bearings").draft)
    }

    func testADraftWithAValueInANoValueCellIsRefusedAndNothingSaved() throws {
        let before = try fixture.store.load(try workflow.resolve("pump-1"))
        XCTAssertThrowsError(try workflow.answer("pump-1", [
            AnswerUpdate(question: "bearings", value: .draft([["61", nil], [nil, nil], [nil, "3"]])),
        ])) { error in
            XCTAssertTrue((error as? AnswerError)?.rule.contains("cell [2, 1] (Motor / Vibration) takes no value") == true, "\(error)")
        }
        XCTAssertEqual(try fixture.store.load(try workflow.resolve("pump-1")), before)
    }

    func testADraftOfTheWrongShapeIsRefused() throws {
        XCTAssertThrowsError(try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .draft([["61", nil]]))])) { error in
            XCTAssertTrue((error as? AnswerError)?.rule.contains("expected 3 rows, found 1") == true, "\(error)")
        }
    }

    func testSubmitIsRefusedWhileADraftIsOpen() throws {
        try answerAllButTheTable()
        _ = try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .draft(twoCells), comment: "later")])
        XCTAssertThrowsError(try workflow.submit("pump-1")) { error in
            XCTAssertEqual(error as? WorkflowError, .openQuestions(
                form: "pump-1", questions: [], drafts: [.init(question: "bearings (8)", typed: 2, cells: 5)]))
            XCTAssertTrue(error.localizedDescription.contains("bearings (8) is a table still being typed (2 of 5 cells)"), "\(error)")
            XCTAssertFalse(error.localizedDescription.contains("neither an answer nor a comment"), "\(error)")
        }
    }

    func testTheSummaryInFormJSONCountsADraftAsOpen() throws {
        try answerAllButTheTable()
        let form = try workflow.answer("pump-1", [AnswerUpdate(question: "bearings", value: .draft(twoCells))])
        let data = try FormFile.encode(form)
        XCTAssertEqual(try FormFile.decodeSummary(data).answered, 8)
        XCTAssertEqual(try FormFile.decode(data).answer(for: "bearings").draft, form.answer(for: "bearings").draft)
    }

    func testOneCellIsTrimmedAndAnEmptyOneRefused() throws {
        let rules = Workflow.rules(for: 7, in: try TemplateFixture.sampleTemplate())
        XCTAssertEqual(try rules.cell("  61 ", row: 0, column: 0), "61")
        XCTAssertThrowsError(try rules.cell("  ", row: 1, column: 0)) { error in
            XCTAssertTrue((error as? AnswerError)?.rule.contains("cell [1, 0] (Non-drive end / Temperature) needs a value") == true, "\(error)")
        }
    }
}
