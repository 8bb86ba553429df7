import Foundation
import MIKit
import TestSupport
import XCTest

/// The editor's checks and preview, and how published versions are numbered.
final class TemplateDraftTests: XCTestCase {
    private let coding = TemplateCoding()

    private func json(_ text: String) throws -> JSONValue { try JSONValue.parse(Data(text.utf8)) }

    // MARK: - Prompts

    func testMultipleChoicePromptListsEveryOptionAndAsksForNumbers() {
        let question = Question(id: "seal", text: "Seal state?", kind: .multipleChoice(options: ["a", "b", "c"], maxAnswers: 2))
        XCTAssertEqual(QuestionPrompt.lines(for: question, index: 1, count: 4), [
            "Question 2 of 4 [seal] — multiple choice, up to 2 answers", "Seal state?", "  1. a", "  2. b", "  3. c",
        ])
        XCTAssertEqual(QuestionPrompt.answerPrompt(for: question), "Option numbers, comma-separated > ")
        let one = Question(id: "x", text: "X", kind: .multipleChoice(options: ["a"], maxAnswers: 1))
        XCTAssertEqual(QuestionPrompt.answerPrompt(for: one), "Option number > ")
    }

    func testTablePreviewAsksOnlyTheCellsThatTakeAValue() {
        let question = Question(id: "t", text: "Readings", kind: .table(rows: ["r1", "r2"], columns: ["c1", "c2"],
                                                                       noCells: [Cell(row: 0, column: 1)]))
        XCTAssertEqual(QuestionPrompt.valueCells(of: question), [Cell(row: 0, column: 0), Cell(row: 1, column: 0), Cell(row: 1, column: 1)])
        XCTAssertEqual(QuestionPrompt.preview(of: question, index: 0, count: 1),
                       "Question 1 of 1 [t] — table, 2 × 2\nReadings\n  r1 · c1: \n  r2 · c1: \n  r2 · c2: ")
        XCTAssertEqual(QuestionPrompt.cellPrompt(row: "r", column: "c", current: "5"), "  r · c [5]: ")
    }

    func testPreviewEscapesControlCharactersAsFillDoes() {
        let question = Question(id: "q", text: "Bad\u{1B}[2J", kind: .shortAnswer)
        XCTAssertFalse(QuestionPrompt.preview(of: question, index: 0, count: 1).contains("\u{1B}"))
    }

    // MARK: - Drafts

    func testValidDraftHasNoProblemsAndAPreviewOfEveryQuestion() throws {
        let draft = try json(#"{"id": "d", "title": "Draft", "questions": [{"id": "ok", "type": "trueFalse", "text": "Ok?"}, {"id": "n", "type": "numeric", "text": "How many?", "integer": true}]}"#)
        let report = coding.report(on: coding.numbered(draft, version: 4), source: "the draft")
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(report.preview, "Draft (2 questions)\n\nQuestion 1 of 2 [ok] — true/false\nOk?\ntrue/false > \n\nQuestion 2 of 2 [n] — whole number\nHow many?\nNumber > ")
    }

    func testProblemsNameTemplateQuestionAndFieldAndValidQuestionsStillPreview() throws {
        let draft = try json(#"{"id": "d", "title": "Draft", "questions": [{"id": "ok", "type": "trueFalse", "text": "Ok?"}, {"id": "pick", "type": "multipleChoice", "text": "Pick", "options": [], "Max-answers": 1}]}"#)
        let report = coding.report(on: coding.numbered(draft, version: 1), source: "the draft")
        XCTAssertFalse(report.problems.isEmpty)
        XCTAssertTrue(report.problems.allSatisfy { $0.template == "d" && $0.question == "pick" }, "\(report.problems)")
        XCTAssertTrue(report.problems.contains { $0.field == "options" }, "\(report.problems)")
        XCTAssertTrue(report.preview.contains("Question 1 of 2 [ok] — true/false"))
        XCTAssertTrue(report.preview.contains("Question 2 of 2 — not shown until its problems are corrected"))
    }

    /// Groups and repeats in the preview: each under its heading, its questions indented, a
    /// repeat saying how often it is asked, and a relevance condition under what it hides.
    func testPreviewShowsGroupsRepeatsAndConditions() throws {
        let draft = try json(#"""
            {"id": "d", "title": "Station", "questions": [
              {"id": "n", "type": "numeric", "text": "Pumps?", "integer": true},
              {"id": "leak", "type": "trueFalse", "text": "Leak?"},
              {"id": "leakage", "type": "group", "text": "Leak details", "relevant": "${leak} = 'true'", "questions": [
                {"id": "where", "type": "shortAnswer", "text": "Where?"}]},
              {"id": "pumps", "type": "repeat", "text": "Pump", "repeatCount": "${n}", "questions": [
                {"id": "amps", "type": "numeric", "text": "Amps", "relevant": "${n} > 1"},
                {"id": "seals", "type": "repeat", "text": "Seal", "questions": [{"id": "s", "type": "shortAnswer", "text": "State"}]},
                {"id": "three", "type": "repeat", "repeatCount": 3, "questions": [{"id": "t", "type": "shortAnswer", "text": "T"}]}]}
            ]}
            """#)
        let report = coding.report(on: coding.numbered(draft, version: 1), source: "the draft")
        XCTAssertEqual(report.problems, [])
        let expected = [
            "Station (6 questions)",
            "Question 1 of 6 [n] — whole number\nPumps?\nNumber > ",
            "Question 2 of 6 [leak] — true/false\nLeak?\ntrue/false > ",
            "Leak details [leakage] — group\n(asked only when ${leak} = 'true')",
            "  Question 3 of 6 [where] — short answer\n  Where?\n  > ",
            "Pump [pumps] — repeated for each of ${n}",
            "  Question 4 of 6 [amps] — number\n  (asked only when ${n} > 1)\n  Amps\n  Number > ",
            "  Seal [seals] — repeated as many times as needed",
            "    Question 5 of 6 [s] — short answer\n    State\n    > ",
            "  [three] — repeated 3 times",
            "    Question 6 of 6 [t] — short answer\n    T\n    > ",
        ]
        XCTAssertEqual(report.preview.components(separatedBy: "\n\n"), expected)

        // With a problem (a bad count), the headings still show, each question alone.
        var broken = draft
        if case .object(var object) = broken, case .array(var items)? = object["questions"], case .object(var pumps) = items[3] {
            pumps["repeatCount"] = .string("${n} +")
            items[3] = .object(pumps)
            object["questions"] = .array(items)
            broken = .object(object)
        }
        let partial = coding.report(on: coding.numbered(broken, version: 1), source: "the draft")
        XCTAssertEqual(partial.problems.map(\.question), ["pumps"])
        XCTAssertEqual(partial.problems.map(\.field), ["repeatCount"])
        XCTAssertTrue(partial.preview.contains("Pump [pumps] — repeated (${n} +) times"), partial.preview)
        XCTAssertTrue(partial.preview.contains("  Seal [seals] — repeated as many times as needed\n\n    Question 5 of 6 [s] — short answer"),
                      partial.preview)
        XCTAssertTrue(partial.preview.contains("Leak details [leakage] — group\n(asked only when ${leak} = 'true')"), partial.preview)
    }

    /// The editor's fields of a group and a repeat: a label, a relevance, and a repeat's count
    /// typed as a number or an expression.
    func testGroupEditorFields() {
        XCTAssertEqual(QuestionGroup.editorFields(for: .group).map(\.key), [.text, .relevant])
        XCTAssertEqual(QuestionGroup.editorFields(for: .repeat).map(\.key), [.text, .relevant, .repeatCount])
        XCTAssertEqual(QuestionGroup.editorFields(for: .repeat).map(\.input), [.text, .expression, .count])
        XCTAssertEqual(QuestionGroup.editorFields(for: .repeat).last?.editorJSON["input"] as? String, "count")
        XCTAssertEqual(QuestionGroup.typeKey(of: .repeat), .repeat)
        XCTAssertEqual(QuestionGroup.displayName(of: .group), "Group")
    }

    func testADraftThatIsNoObjectIsOneProblem() throws {
        let report = coding.report(on: coding.numbered(.array([]), version: 1), source: "the draft")
        XCTAssertEqual(report.problems.map(\.template), ["the draft"])
        XCTAssertEqual(report.preview, "")
    }

    func testNumberingUsesTheConfiguredVersionKey() throws {
        let renamed = TemplateCoding(keys: TemplateKeys(names: [.version: "revision"]))
        XCTAssertEqual(renamed.numbered(try json(#"{"id": "d"}"#), version: 3), try json(#"{"id": "d", "revision": 3}"#))
    }

    func testReportEncodesWithTheNamesTheEditorReads() throws {
        let report = TemplateDraftReport(problems: [.init(template: "d", question: "q", field: "options", message: "m")], preview: "p")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        XCTAssertEqual(object["preview"] as? String, "p")
        let problem = try XCTUnwrap((object["problems"] as? [[String: Any]])?.first)
        XCTAssertEqual(problem as? [String: String], ["template": "d", "question": "q", "field": "options", "message": "m"])
    }

    // MARK: - Versions

    func testNextVersionFollowsTheNewest() {
        XCTAssertEqual(TemplateVersioning.nextVersion(after: nil), 1)
        XCTAssertEqual(TemplateVersioning.nextVersion(after: 3), 4)
        XCTAssertEqual(TemplateVersioning.fileName(id: "pump", version: 4), "pump.v4.json")
    }

    func testUploadMustBeNewerThanTheNewest() throws {
        let template = try TemplateFixture.sampleTemplate()
        XCTAssertNoThrow(try TemplateVersioning.checkUploaded(template, file: "a.json", newest: nil))
        XCTAssertNoThrow(try TemplateVersioning.checkUploaded(template, file: "a.json", newest: template.version - 1))
        XCTAssertThrowsError(try TemplateVersioning.checkUploaded(template, file: "a.json", newest: template.version)) { error in
            let error = error as? TemplatePublishError
            XCTAssertEqual(error, .notNewer(template: "pump-inspection", file: "a.json", version: 4, newest: 4))
            XCTAssertEqual(error?.code, "template-version-not-newer")
            XCTAssertEqual(error?.failureClass, .refused)
            XCTAssertTrue(error?.errorDescription?.contains("a.json") ?? false)
            XCTAssertTrue(error?.errorDescription?.contains("set its version to 5") ?? false)
        }
        XCTAssertEqual(TemplatePublishError.versionTaken(template: "t", version: 2).code, "template-version-taken")
    }

    /// A new draft may not take a published id; a draft identical to the newest publishes nothing.
    func testADraftMayOnlyBecomeTheNextVersionOfItsOwnTemplate() throws {
        let newest = try TemplateFixture.sampleTemplate()
        var draft = newest
        draft.version = newest.version + 1
        XCTAssertNoThrow(try TemplateVersioning.checkDraft(draft, basedOn: nil, newest: nil), "a new id")
        XCTAssertThrowsError(try TemplateVersioning.checkDraft(draft, basedOn: nil, newest: newest)) { error in
            XCTAssertEqual(error as? TemplatePublishError, .idExists(template: "pump-inspection", newest: 4))
            XCTAssertTrue((error as? TemplatePublishError)?.errorDescription?.hasPrefix("this id exists — edit it instead?") ?? false)
        }
        XCTAssertThrowsError(try TemplateVersioning.checkDraft(draft, basedOn: "other", newest: newest))
        XCTAssertThrowsError(try TemplateVersioning.checkDraft(draft, basedOn: "pump-inspection", newest: newest)) { error in
            XCTAssertEqual((error as? TemplatePublishError)?.code, "template-unchanged")
        }
        draft.title += " (reworked)"
        XCTAssertNoThrow(try TemplateVersioning.checkDraft(draft, basedOn: "pump-inspection", newest: newest))
    }

    func testNaturalOrderComparesNumbersByValue() {
        let names = ["sim-3-12", "sim-3-2", "sim-10-1", "sim-3-1", "a", "sim-3-02"]
        XCTAssertEqual(names.sorted(by: NaturalOrder.precedes), ["a", "sim-3-1", "sim-3-02", "sim-3-2", "sim-3-12", "sim-10-1"])
        XCTAssertEqual(NaturalOrder.key("pump-7"), "pump-017")
        XCTAssertEqual(NaturalOrder.key("ñ0"), "ñ010")
    }

    // MARK: - Creating files

    func testCreateWritesANewFileAndNeverReplacesOne() throws {
        let folder = try TemporaryDirectory(prefix: "mikit-create")
        let url = folder.path("t.v1.json")
        try DurableFile.create(Data("first".utf8), at: url)
        XCTAssertThrowsError(try DurableFile.create(Data("second".utf8), at: url)) { error in
            XCTAssertEqual(error as? StoreError, .exists(path: url.path))
        }
        XCTAssertEqual(try Data(contentsOf: url), Data("first".utf8))
        XCTAssertEqual(Files.names(in: folder.url), ["t.v1.json"])
    }
}
