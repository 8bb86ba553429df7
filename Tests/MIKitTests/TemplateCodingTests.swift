import Foundation
@testable import MIKit
import TestSupport
import XCTest

final class TemplateCodingTests: XCTestCase {
    private let coding = TemplateCoding()

    /// Decodes, expecting a `TemplateError`, and returns it.
    private func templateError(_ data: Data, keys: TemplateKeys = .default, source: String = "t.json",
                               file: StaticString = #filePath, line: UInt = #line) -> TemplateError? {
        do {
            let template = try TemplateCoding(keys: keys).decode(data, source: source)
            XCTFail("decoded \(template.id) although it is invalid", file: file, line: line)
            return nil
        } catch let error as TemplateError {
            return error
        } catch {
            XCTFail("expected a TemplateError, got \(error)", file: file, line: line)
            return nil
        }
    }

    private func decodeOne(_ question: String, keys: TemplateKeys = .default) throws -> Question {
        let template = try TemplateCoding(keys: keys).decode(TemplateFixture.json(questions: [question]), source: "t.json")
        XCTAssertEqual(template.questions.count, 1)
        return try XCTUnwrap(template.questions.first)
    }

    // MARK: - Control characters

    /// Publishing refuses a control character in any text, naming the question and field; a
    /// template read from where it is kept is taken as it is (printed escaped), so forms
    /// started from it stay readable.
    func testPublishingRefusesControlCharactersInEveryTextWhileStoredTemplatesAreRead() throws {
        let strict = TemplateCoding(refusesControlCharacters: true)
        let json = Data(#"""
            {"id": "t", "title": "Pump\u001b]0;x\u0007", "version": 1, "consent": "ok\u001b[2J",
             "questions": [
              {"id": "a", "type": "trueFalse", "text": "A\u001b[31m?", "help": "h\u0000"},
              {"id": "b", "type": "multipleChoice", "text": "B", "options": ["x", "y\u009b"]},
              {"id": "c", "type": "table", "text": "C", "rows": ["r\t"], "columns": ["c\u007f"]},
              {"id": "d", "type": "shortAnswer", "text": "Line 1\nLine 2", "help": "one\ntwo"}]}
            """#.utf8)
        do {
            _ = try strict.decode(json, source: "t.json")
            XCTFail("published with control characters")
        } catch let error as TemplateError {
            let fields = Set(error.problems.map { "\($0.question ?? "-")/\($0.field ?? "-")" })
            XCTAssertEqual(fields, ["-/title", "-/consent", "a/text", "a/help", "b/options", "c/rows", "c/columns"])
            XCTAssertTrue(error.problems.allSatisfy { $0.message.contains("contains the control character U+") }, "\(error.problems)")
            XCTAssertFalse(error.localizedDescription.unicodeScalars.contains { TextRules.isControl($0) && $0 != "\n" },
                           error.localizedDescription)
        }
        // The consent text is held to the rule wherever it is read (the acceptance is for its bytes).
        XCTAssertThrowsError(try TemplateCoding().decode(json, source: "t.json"))
        let withoutConsent = String(decoding: json, as: UTF8.self).replacingOccurrences(of: #""consent": "ok\u001b[2J","#, with: "")
        let stored = try TemplateCoding().decode(Data(withoutConsent.utf8), source: "t.json")
        XCTAssertEqual(stored.title, "Pump\u{1B}]0;x\u{07}", "kept as it is; mi escapes it when it prints it")
    }

    /// Problems quote hostile texts escaped, so printing an error cannot drive the terminal.
    func testTemplateErrorsShowTheTemplatesTextsEscaped() {
        let json = Data(#"{"id": "t", "title": "T", "version": 1, "questions": [{"id": "q\u001b", "type": "x\u001b[2J", "text": "?"}, {"id": "m", "type": "multipleChoice", "text": "?", "options": ["\u001b", "\u001b"]}]}"#.utf8)
        let error = templateError(json)
        let text = error?.localizedDescription ?? ""
        XCTAssertFalse(text.unicodeScalars.contains { TextRules.isControl($0) && $0 != "\n" }, text)
        XCTAssertTrue(text.contains("\\e[2J"), text)
    }

    // MARK: - Shipped samples

    func testEverySampleTemplateDecodes() throws {
        let files = TemplateFixture.sampleFiles()
        XCTAssertGreaterThanOrEqual(files.count, 3, "Samples/templates should hold the sample templates")
        for file in files {
            let template = try coding.decode(try Data(contentsOf: file), source: file.lastPathComponent)
            XCTAssertEqual(template.id + ".json", file.lastPathComponent, "a sample's file is named after its id")
            XCTAssertFalse(template.questions.isEmpty, file.lastPathComponent)
        }
    }

    func testPumpInspectionSampleMatchesTheFixtureCopy() throws {
        let file = TemplateFixture.samplesFolder.appendingPathComponent("pump-inspection.json")
        let shipped = try coding.decode(try Data(contentsOf: file), source: "pump-inspection.json")
        XCTAssertEqual(shipped, try TemplateFixture.sampleTemplate())
    }

    func testSampleTemplateHeaderIsRead() throws {
        let template = try TemplateFixture.sampleTemplate()
        XCTAssertEqual(template.id, "pump-inspection")
        XCTAssertEqual(template.title, "Centrifugal pump — monthly inspection")
        XCTAssertEqual(template.version, 4)
        XCTAssertEqual(template.questions.map(\.id),
                       ["guard", "leaks", "leak_photo", "noise", "checks", "pressure", "hours", "bearings", "notes"])
        XCTAssertEqual(template.question(id: "guard")?.help, "Check all four bolts. A loose guard counts as not in place.")
        XCTAssertNil(template.question(id: "notes")?.help)
        XCTAssertEqual(template.index(of: "bearings"), 7)
    }

    // MARK: - The five kinds

    func testMultipleChoiceWithoutMaxAnswersDefaultsToOne() throws {
        let question = try decodeOne(#"{"id": "q", "type": "multipleChoice", "text": "Q", "options": ["A", "B"]}"#)
        XCTAssertEqual(question.kind, .multipleChoice(options: ["A", "B"], maxAnswers: 1))
    }

    func testMultipleChoiceMaxAnswersZeroMeansAny() throws {
        let question = try decodeOne(#"{"id": "q", "type": "multipleChoice", "text": "Q", "options": ["A", "B", "C"], "Max-answers": 0}"#)
        XCTAssertEqual(question.kind, .multipleChoice(options: ["A", "B", "C"], maxAnswers: 0))
        XCTAssertEqual(question.typeDescription, "multiple choice, any number of answers")
    }

    func testMultipleChoiceMaxAnswersN() throws {
        let question = try decodeOne(#"{"id": "q", "type": "multipleChoice", "text": "Q", "options": ["A", "B", "C"], "Max-answers": 2}"#)
        XCTAssertEqual(question.kind, .multipleChoice(options: ["A", "B", "C"], maxAnswers: 2))
        XCTAssertEqual(question.typeDescription, "multiple choice, up to 2 answers")
    }

    func testTrueFalseAndShortAnswer() throws {
        XCTAssertEqual(try decodeOne(#"{"id": "q", "type": "trueFalse", "text": "Q"}"#).kind, .trueFalse)
        XCTAssertEqual(try decodeOne(#"{"id": "q", "type": "shortAnswer", "text": "Q", "help": "H"}"#).kind, .shortAnswer)
        XCTAssertEqual(try decodeOne(#"{"id": "q", "type": "shortAnswer", "text": "Q", "help": "H"}"#).help, "H")
    }

    func testNumericIntegerWithMinAndMax() throws {
        let question = try decodeOne(#"{"id": "q", "type": "numeric", "text": "Q", "integer": true, "min": -5, "max": 10}"#)
        XCTAssertEqual(question.kind, .numeric(integer: true, min: -5, max: 10))
        XCTAssertEqual(question.typeDescription, "whole number from -5 to 10")
    }

    func testNumericDefaultsToDecimalWithoutBounds() throws {
        let question = try decodeOne(#"{"id": "q", "type": "numeric", "text": "Q"}"#)
        XCTAssertEqual(question.kind, .numeric(integer: false, min: nil, max: nil))
    }

    func testNumericWithOnlyMinAndDecimalBound() throws {
        let question = try decodeOne(#"{"id": "q", "type": "numeric", "text": "Q", "min": 0.5}"#)
        XCTAssertEqual(question.kind, .numeric(integer: false, min: 0.5, max: nil))
    }

    func testTableRowsColumnsAndNoCells() throws {
        let question = try decodeOne(#"{"id": "q", "type": "table", "text": "Q", "rows": ["r0", "r1", "r2"], "columns": ["c0", "c1"], "noCells": [[2, 1], [0, 0]]}"#)
        XCTAssertEqual(question.kind, .table(rows: ["r0", "r1", "r2"], columns: ["c0", "c1"],
                                             noCells: [Cell(row: 2, column: 1), Cell(row: 0, column: 0)]))
        XCTAssertEqual(question.typeDescription, "table, 3 × 2")
    }

    func testTableWithoutNoCellsHasNone() throws {
        let question = try decodeOne(#"{"id": "q", "type": "table", "text": "Q", "rows": ["r"], "columns": ["c"]}"#)
        XCTAssertEqual(question.kind, .table(rows: ["r"], columns: ["c"], noCells: []))
    }

    // MARK: - Validation names template, question and field

    func testDuplicateQuestionIdsAreNamed() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "q1", "type": "trueFalse", "text": "A"}"#,
            #"{"id": "q1", "type": "shortAnswer", "text": "B"}"#,
        ], id: "dup")
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.template, "dup")
        XCTAssertEqual(error.problems, [.init(question: "q1", field: "id", message: "duplicate question id (question 2)")])
    }

    /// A repeated id is reported even while the repeating question has no text yet.
    func testADuplicateIdIsNamedWhileItsTextIsEmpty() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "q1", "type": "trueFalse", "text": "A"}"#,
            #"{"id": "q1", "type": "trueFalse", "text": ""}"#,
        ], id: "dup")
        let error = try XCTUnwrap(templateError(data))
        XCTAssertTrue(error.problems.contains(.init(question: "q1", field: "id", message: "duplicate question id (question 2)")),
                      "\(error.problems)")
        XCTAssertTrue(error.problems.contains { $0.field == "text" }, "\(error.problems)")
    }

    func testMaxAnswersAboveOptionCountIsNamed() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "seal", "type": "multipleChoice", "text": "S", "options": ["A", "B"], "Max-answers": 3}"#,
        ], id: "ext")
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.template, "ext")
        XCTAssertEqual(error.problems.count, 1)
        XCTAssertEqual(error.problems.first?.question, "seal")
        XCTAssertEqual(error.problems.first?.field, "Max-answers")
        XCTAssertTrue(error.problems.first?.message.contains("3 is more than the 2 options") == true, "\(error.problems)")
        XCTAssertTrue(error.localizedDescription.contains(#"template ext: question seal, field "Max-answers""#),
                      error.localizedDescription)
    }

    func testNegativeMaxAnswersIsRefused() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "q", "type": "multipleChoice", "text": "S", "options": ["A", "B"], "Max-answers": -1}"#,
        ])
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.problems.map(\.field), ["Max-answers"])
    }

    func testNoCellOutsideTheTableIsNamed() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "temps", "type": "table", "text": "T", "rows": ["a", "b"], "columns": ["x"], "noCells": [[2, 0]]}"#,
        ], id: "tab")
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.template, "tab")
        XCTAssertEqual(error.problems.count, 1)
        XCTAssertEqual(error.problems.first?.question, "temps")
        XCTAssertEqual(error.problems.first?.field, "noCells")
        XCTAssertTrue(error.problems.first?.message.contains("[2, 0] is outside the 2 × 1 table") == true, "\(error.problems)")
    }

    func testNoCellThatIsNotAPairIsNamed() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "temps", "type": "table", "text": "T", "rows": ["a", "b"], "columns": ["x", "y"], "noCells": [[1]]}"#,
        ])
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.problems.map(\.field), ["noCells"])
    }

    func testTableWhereEveryCellTakesNoValueIsRefused() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "temps", "type": "table", "text": "T", "rows": ["a"], "columns": ["x"], "noCells": [[0, 0]]}"#,
        ])
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.problems.map(\.field), ["noCells"])
    }

    func testMinGreaterThanMaxIsNamed() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "p", "type": "numeric", "text": "P", "min": 10, "max": 2}"#,
        ], id: "num")
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.template, "num")
        XCTAssertEqual(error.problems, [.init(question: "p", field: "min", message: "min 10 is greater than max 2")])
    }

    func testDecimalBoundOfAnIntegerQuestionIsRefused() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "p", "type": "numeric", "text": "P", "integer": true, "max": 2.5}"#,
        ])
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.problems.map(\.field), ["max"])
    }

    func testUnknownTypeIsNamed() throws {
        let data = TemplateFixture.json(questions: [#"{"id": "q", "type": "essay", "text": "Q"}"#], id: "unk")
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.template, "unk")
        XCTAssertEqual(error.problems.count, 1)
        XCTAssertEqual(error.problems.first?.question, "q")
        XCTAssertEqual(error.problems.first?.field, "type")
        XCTAssertTrue(error.problems.first?.message.hasPrefix(#"unknown question type "essay""#) == true, "\(error.problems)")
        XCTAssertTrue(error.problems.first?.message.contains(#""multipleChoice""#) == true, "lists the known types")
    }

    func testMissingTextIsNamed() throws {
        let data = TemplateFixture.json(questions: [#"{"id": "q7", "type": "trueFalse"}"#], id: "miss")
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.template, "miss")
        XCTAssertEqual(error.problems, [.init(question: "q7", field: "text", message: "missing")])
        XCTAssertEqual(error.problems.first?.description, #"question q7, field "text": missing"#)
    }

    func testQuestionWithoutIdIsNamedByPosition() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "a", "type": "trueFalse", "text": "A"}"#,
            #"{"type": "trueFalse", "text": "B"}"#,
        ])
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.problems, [.init(question: "#2", field: "id", message: "missing")])
    }

    func testNonIntegerVersionIsNamed() throws {
        let error = try XCTUnwrap(templateError(TemplateFixture.json(questions: [#"{"id": "q", "type": "trueFalse", "text": "Q"}"#],
                                                                     id: "ver", version: "1.5")))
        XCTAssertEqual(error.template, "ver")
        XCTAssertEqual(error.problems, [.init(question: nil, field: "version",
                                              message: "expected a whole number of at least 0, found 1.5")])
    }

    func testStringVersionIsRefused() throws {
        let error = try XCTUnwrap(templateError(TemplateFixture.json(questions: [#"{"id": "q", "type": "trueFalse", "text": "Q"}"#],
                                                                     version: #""3""#)))
        XCTAssertEqual(error.problems.map(\.field), ["version"])
        XCTAssertTrue(error.problems.first?.message.contains(#"found "3""#) == true, "\(error.problems)")
    }

    func testInvalidJSONNamesTheSource() throws {
        let error = try XCTUnwrap(templateError(Data(#"{"id": "x", "questions": ["#.utf8), source: "broken.json"))
        XCTAssertEqual(error.template, "broken.json")
        XCTAssertEqual(error.problems.count, 1)
        XCTAssertTrue(error.problems.first?.message.hasPrefix("not valid JSON") == true, "\(error.problems)")
    }

    func testTopLevelArrayIsRefused() throws {
        let error = try XCTUnwrap(templateError(Data("[1, 2]".utf8), source: "array.json"))
        XCTAssertEqual(error.template, "array.json")
        XCTAssertEqual(error.problems.first?.message, "expected a JSON object, found an array")
    }

    func testTemplateIdThatIsNotASafeNameIsRefused() throws {
        let error = try XCTUnwrap(templateError(TemplateFixture.json(questions: [#"{"id": "q", "type": "trueFalse", "text": "Q"}"#],
                                                                     id: "../etc")))
        XCTAssertEqual(error.problems.map(\.field), ["id"])
        XCTAssertNil(error.problems.first?.question)
    }

    func testEmptyQuestionListIsRefused() throws {
        let error = try XCTUnwrap(templateError(TemplateFixture.json(questions: [])))
        XCTAssertEqual(error.problems.map(\.field), ["questions"])
    }

    func testSeveralProblemsAreReportedAtOnce() throws {
        let data = TemplateFixture.json(questions: [
            #"{"id": "a", "type": "multipleChoice", "text": "A", "options": ["x"], "Max-answers": 2}"#,
            #"{"id": "b", "type": "numeric", "text": "B", "min": 3, "max": 1}"#,
            #"{"id": "c", "type": "nope", "text": "C"}"#,
            #"{"id": "d", "type": "trueFalse"}"#,
            #"{"id": "a", "type": "trueFalse", "text": "A again"}"#,
        ], id: "many", version: "-1")
        let error = try XCTUnwrap(templateError(data))
        XCTAssertEqual(error.template, "many")
        XCTAssertEqual(error.problems.count, 6, "\(error.problems)")
        let places = error.problems.map { "\($0.question ?? "-")/\($0.field ?? "-")" }
        XCTAssertEqual(Set(places), ["-/version", "a/Max-answers", "b/min", "c/type", "d/text", "a/id"])
        XCTAssertTrue(error.localizedDescription.contains("has 6 problems"), error.localizedDescription)
    }

    // MARK: - Renamed keys

    private let renamed = TemplateKeys(names: [
        .maxAnswers: "max-choices", .noCells: "blocked", .multipleChoice: "MC", .max: "upTo",
    ])

    func testKeySetsNameEveryKeyAndCompareByTheNamesTheyGive() {
        for key in TemplateKeys.Key.allCases {
            XCTAssertEqual(TemplateKeys.default[key], key.defaultName)
            XCTAssertEqual(TemplateKeys.logical[key], key.rawValue)
        }
        XCTAssertEqual(TemplateKeys.default[.maxAnswers], "Max-answers")
        XCTAssertEqual(TemplateKeys.logical[.maxAnswers], "maxAnswers")
        XCTAssertEqual(renamed[.maxAnswers], "max-choices")
        XCTAssertEqual(renamed[.id], "id", "a key not renamed keeps its default name")
        // However a set was made, the names it gives decide equality.
        XCTAssertEqual(TemplateKeys.logical, TemplateKeys(names: Dictionary(uniqueKeysWithValues: TemplateKeys.Key.allCases.map { ($0, $0.rawValue) })))
        XCTAssertEqual(TemplateKeys.default, TemplateKeys(names: [.maxAnswers: "Max-answers"]))
        XCTAssertNotEqual(TemplateKeys.default, TemplateKeys.logical)
        XCTAssertNotEqual(TemplateKeys.default, renamed)
    }

    func testRenamedKeysAreRead() throws {
        let data = Data(#"""
        {"id": "r", "title": "Renamed", "version": 2, "questions": [
          {"id": "mc", "type": "MC", "text": "Pick", "options": ["A", "B", "C"], "max-choices": 2},
          {"id": "n", "type": "numeric", "text": "N", "min": 1, "upTo": 9},
          {"id": "t", "type": "table", "text": "T", "rows": ["r0", "r1"], "columns": ["c0"], "blocked": [[1, 0]]}
        ]}
        """#.utf8)
        let template = try TemplateCoding(keys: renamed).decode(data, source: "r.json")
        XCTAssertEqual(template.id, "r")
        XCTAssertEqual(template.questions.map(\.kind), [
            .multipleChoice(options: ["A", "B", "C"], maxAnswers: 2),
            .numeric(integer: false, min: 1, max: 9),
            .table(rows: ["r0", "r1"], columns: ["c0"], noCells: [Cell(row: 1, column: 0)]),
        ])
    }

    func testRenamingMaxAnswersToMaxWorksForTheCoder() throws {
        // The brief's example: Max-answers called "max" (the coder alone does not check conflicts;
        // the loader does, see ConfigurationTests).
        let keys = TemplateKeys(names: [.maxAnswers: "max", .noCells: "blocked", .multipleChoice: "MC"])
        let question = try decodeOne(#"{"id": "q", "type": "MC", "text": "Q", "options": ["A", "B", "C"], "max": 3}"#, keys: keys)
        XCTAssertEqual(question.kind, .multipleChoice(options: ["A", "B", "C"], maxAnswers: 3))
    }

    func testDefaultMaxAnswersKeyIsIgnoredAfterRenaming() throws {
        let question = try decodeOne(#"{"id": "q", "type": "MC", "text": "Q", "options": ["A", "B", "C"], "Max-answers": 3}"#,
                                     keys: renamed)
        XCTAssertEqual(question.kind, .multipleChoice(options: ["A", "B", "C"], maxAnswers: 1),
                       "Max-answers is no longer the key; the default of 1 applies")
    }

    func testDefaultNoCellsKeyIsIgnoredAfterRenaming() throws {
        let question = try decodeOne(#"{"id": "q", "type": "table", "text": "Q", "rows": ["r"], "columns": ["a", "b"], "noCells": [[0, 1]]}"#,
                                     keys: renamed)
        XCTAssertEqual(question.kind, .table(rows: ["r"], columns: ["a", "b"], noCells: []))
    }

    func testDefaultTypeNameIsUnknownAfterRenaming() throws {
        let data = Data(#"{"id": "r", "title": "R", "version": 1, "questions": [{"id": "q", "type": "multipleChoice", "text": "Q", "options": ["A"]}]}"#.utf8)
        let error = try XCTUnwrap(templateError(data, keys: renamed))
        XCTAssertEqual(error.problems.count, 1)
        XCTAssertEqual(error.problems.first?.field, "type")
        XCTAssertTrue(error.problems.first?.message.contains(#""MC""#) == true, "lists the renamed type: \(error.problems)")
    }

    func testDefaultIdKeyIsMissingAfterRenaming() throws {
        let keys = TemplateKeys(names: [.id: "key"])
        let error = try XCTUnwrap(templateError(Data(TemplateFixture.sampleJSON.utf8), keys: keys, source: "sample.json"))
        XCTAssertEqual(error.template, "sample.json", "the id is unknown, so the source names the template")
        XCTAssertTrue(error.problems.contains(.init(question: nil, field: "key", message: "missing")), "\(error.problems)")
        XCTAssertTrue(error.problems.contains(.init(question: "#1", field: "key", message: "missing")), "\(error.problems)")
    }

    func testEncodeThenDecodeWithRenamedKeysRoundTrips() throws {
        let original = try TemplateFixture.sampleTemplate()
        let coder = TemplateCoding(keys: TemplateKeys(names: [
            .maxAnswers: "max-choices", .noCells: "blocked", .multipleChoice: "MC", .max: "upTo",
            .id: "key", .title: "name", .type: "kind", .table: "grid",
        ]))
        let data = try coder.encodeData(original)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains(#""max-choices""#), text)
        XCTAssertTrue(text.contains(#""blocked""#), text)
        XCTAssertTrue(text.contains(#""MC""#), text)
        XCTAssertFalse(text.contains(#""Max-answers""#), text)
        XCTAssertFalse(text.contains(#""noCells""#), text)
        XCTAssertFalse(text.contains(#""multipleChoice""#), text)
        XCTAssertFalse(text.contains(#""id""#), text)
        XCTAssertTrue(text.contains(#""grid""#), text)
        XCTAssertEqual(try coder.decode(data, source: "round-trip.json"), original)
    }

    func testEncodeThenDecodeWithDefaultKeysRoundTrips() throws {
        let original = try TemplateFixture.sampleTemplate()
        XCTAssertEqual(try coding.decode(try coding.encodeData(original), source: "x.json"), original)
    }

    func testEncodedWithRenamedKeysDoesNotDecodeWithDefaults() throws {
        let data = try TemplateCoding(keys: renamed).encodeData(try TemplateFixture.sampleTemplate())
        XCTAssertNotNil(templateError(data))
    }
}
