import Foundation
import MIKit
import TestSupport
import XCTest

final class TextRulesTests: XCTestCase {
    private func refusal(_ text: String, allowNewlines: Bool = false) -> TextRuleError? {
        do {
            try TextRules.check(text, field: "answer to q", allowNewlines: allowNewlines)
            return nil
        } catch {
            return error
        }
    }

    func testPlainTextPasses() {
        XCTAssertNil(refusal("Hall 3, pump B — ok ✓ ∅ ünïcödé 😀"))
        XCTAssertNil(refusal(""))
    }

    func testEscapeIsRefusedWithItsPositionAndClass() {
        let error = refusal("ab\u{1B}[2J")
        XCTAssertEqual(error, .controlCharacter(field: "answer to q", scalar: 0x1B, position: 3))
        XCTAssertEqual(error?.failureClass, .badData)
        XCTAssertEqual(error?.failureClass.exitCode, 65)
        XCTAssertEqual(error?.code, "control-character")
        XCTAssertEqual(error?.errorDescription,
                       "the answer to q contains the control character U+001B (ESC: arrow and function keys send it) at character 3 — type plain text; nothing was saved")
    }

    func testC1DELAndTheRestOfC0AreRefused() {
        for scalar: UInt32 in [0x00, 0x07, 0x08, 0x0D, 0x1F, 0x7F, 0x80, 0x9B, 0x9F] {
            let text = "x" + String(Character(Unicode.Scalar(scalar)!))
            XCTAssertEqual(refusal(text), .controlCharacter(field: "answer to q", scalar: scalar, position: 2), "U+\(scalar)")
            XCTAssertNotNil(refusal(text, allowNewlines: true))
        }
        XCTAssertNil(refusal("x\u{A0}y"), "U+00A0 (no-break space) is past C1")
    }

    /// The byte-level shortcut never lets a control character through: every scalar up to U+FFFF,
    /// alone and after other text, is refused exactly when it is a control character.
    func testTheByteShortcutMissesNoControlCharacter() {
        for value: UInt32 in 0...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "pump ñ " + String(Character(scalar))
            if TextRules.isControl(scalar) {
                XCTAssertTrue(TextRules.mayHoldControl(text), "U+\(String(value, radix: 16))")
                XCTAssertNotNil(refusal(text), "U+\(String(value, radix: 16))")
            } else {
                XCTAssertNil(refusal(text), "U+\(String(value, radix: 16))")
            }
        }
        XCTAssertFalse(TextRules.mayHoldControl("Hall 3, pump B — ok ✓ ∅ ünïcödé 😀"))
    }

    func testTabIsRefusedWithAHint() {
        XCTAssertEqual(refusal("a\tb")?.errorDescription?.contains("a tab: use spaces"), true)
    }

    func testNewlineOnlyWhereSeveralLinesAreAllowed() {
        XCTAssertEqual(refusal("line 1\nline 2"), .controlCharacter(field: "answer to q", scalar: 0x0A, position: 7))
        XCTAssertNil(refusal("line 1\nline 2", allowNewlines: true))
        XCTAssertNotNil(refusal("line 1\r\nline 2", allowNewlines: true), "a carriage return is still refused")
    }

    func testAnswerValuesAndTableCellsAreChecked() {
        XCTAssertNoThrow(try TextRules.check(AnswerValue.number(3), field: "answer to q"))
        XCTAssertThrowsError(try TextRules.check(AnswerValue.choices(["ok", "\u{9B}2J"]), field: "answer to q"))
        XCTAssertThrowsError(try TextRules.check(AnswerValue.cells([["1", nil], [nil, "\u{1B}c"]]), field: "answer to t")) { error in
            XCTAssertEqual(error as? TextRuleError, .controlCharacter(field: "answer to t, row 2 column 2", scalar: 0x1B, position: 1))
        }
    }

    func testAWholeFormIsChecked() throws {
        var form = Form(name: "f", user: "ana", template: try TemplateFixture.sampleTemplate(), createdAt: Date())
        XCTAssertNoThrow(try TextRules.check(form))
        form.answers["guard"] = Answer(comment: "two\nlines")
        XCTAssertNoThrow(try TextRules.check(form))
        form.foremanComments = [ForemanComment(at: Date(), by: "fran", text: "\u{1B}]0;title\u{7}")]
        XCTAssertThrowsError(try TextRules.check(form)) { error in
            XCTAssertEqual((error as? TextRuleError)?.errorDescription?.hasPrefix("the foreman comment contains"), true)
        }
        form.foremanComments = []
        form.returnNote = "fix\u{7F}"
        XCTAssertThrowsError(try TextRules.check(form))
    }

    func testNamesFollowTheSameRule() {
        for name in ["pump\u{1B}[2J", "pump\u{9B}", "pump\u{7F}", "pump\tB"] {
            XCTAssertNotNil(SafeName.problem(name), name.debugDescription)
        }
    }

    // MARK: - Display

    func testEscapedShowsControlsAndLeavesTheRest() {
        XCTAssertEqual(DisplayText.escaped("plain ✓"), "plain ✓")
        XCTAssertEqual(DisplayText.escaped("\u{1B}[2Jgone"), "\\e[2Jgone")
        XCTAssertEqual(DisplayText.escaped("a\u{9B}b\u{7F}c\u{0}d\te\rf"), "a\\u{9b}b\\u{7f}c\\u{0}d\\u{9}e\\u{d}f")
        XCTAssertEqual(DisplayText.escaped("one\ntwo"), "one\\u{a}two")
        XCTAssertEqual(DisplayText.escaped("one\ntwo\u{1B}", keepingNewlines: true), "one\ntwo\\e")
        XCTAssertFalse(DisplayText.escaped("\u{1B}\u{9B}\u{7F}\u{1}").unicodeScalars.contains(where: TextRules.isControl))
        XCTAssertEqual(SafeName.printable("x\u{1B}\u{200E}"), "x\\e\\u{200e}")
    }
}

/// The text rule applied by the workflow: nothing refused is saved.
final class WorkflowTextRuleTests: XCTestCase {
    private var fixture: StoreFixture!
    private var workflow: Workflow!

    override func setUpWithError() throws {
        fixture = try StoreFixture()
        workflow = fixture.workflow(user: "ana")
    }

    override func tearDown() {
        workflow = nil
        fixture = nil
    }

    private func assertRefusedAndUnchanged(_ location: FormLocation, _ body: () throws -> Void,
                                           file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try Data(contentsOf: location.formFile)
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? TextRuleError)?.code, "control-character", "\(error)", file: file, line: line)
        }
        XCTAssertEqual(try Data(contentsOf: location.formFile), before, "form.json is unchanged", file: file, line: line)
    }

    func testAnswersFromEverySourceAreChecked() throws {
        let (location, _) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "f")
        try assertRefusedAndUnchanged(location) { _ = try workflow.answer("f", [AnswerUpdate(question: "notes", value: .words(["\u{1B}[2J"]))]) }
        try assertRefusedAndUnchanged(location) { _ = try workflow.answer("f", [AnswerUpdate(question: "notes", value: .json(.string("a\u{9B}")))]) }
        try assertRefusedAndUnchanged(location) {
            _ = try workflow.answer("f", [AnswerUpdate(question: "bearings", value: .validated(.cells([["6\u{1B}[D1", "2.5"]])))])
        }
        try assertRefusedAndUnchanged(location) {
            _ = try workflow.answer("f", [AnswerUpdate(question: "notes", value: .words(["fine"])),
                                          AnswerUpdate(question: "guard", value: nil, comment: "bad\u{7F}")])
        }
        let saved = try workflow.answer("f", [AnswerUpdate(question: "guard", value: nil, comment: "line 1\nline 2")])
        XCTAssertEqual(saved.answers["guard"]?.comment, "line 1\nline 2")
    }

    func testForemanCommentAndNoteAreChecked() throws {
        let (location, _) = try workflow.startForm(templateID: TemplateFixture.sampleID, name: "f")
        let completed = try fixture.store.move(location, to: .completed, user: "ana", name: "f")
        let foreman = fixture.workflow(user: "fran", role: .foreman)
        try assertRefusedAndUnchanged(completed) { _ = try foreman.comment("f", text: "look \u{1B}[31mhere") }
        try assertRefusedAndUnchanged(completed) { _ = try foreman.sendBack("f", note: "redo\u{9B}") }
        XCTAssertEqual(try foreman.comment("f", text: "two\nlines").foremanComments.map(\.text), ["two\nlines"])
    }
}
