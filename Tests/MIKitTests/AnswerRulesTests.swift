import Foundation
import MIKit
import TestSupport
import XCTest

final class AnswerRulesTests: XCTestCase {
    private var template: Template!

    override func setUpWithError() throws {
        template = try TemplateFixture.sampleTemplate()
    }

    /// The rules of a question of the sample template, by id.
    func rules(_ id: String) throws -> AnswerRules {
        let index = try XCTUnwrap(template.index(of: id), "no question \(id)")
        return Workflow.rules(for: index, in: template)
    }

    /// Asserts `body` throws an `AnswerError` naming `question` whose rule contains `fragment`.
    func assertRefused(_ question: String, _ fragment: String, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () throws -> AnswerValue) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let answerError = error as? AnswerError else {
                return XCTFail("expected an AnswerError, got \(error)", file: file, line: line)
            }
            XCTAssertTrue(answerError.question.hasPrefix(question + " ("), "names the question: \(answerError.question)",
                          file: file, line: line)
            XCTAssertTrue(answerError.rule.contains(fragment), "rule: \(answerError.rule)", file: file, line: line)
            XCTAssertTrue(answerError.localizedDescription.contains("question \(question)"), file: file, line: line)
        }
    }

    func testLabelNamesQuestionAndPosition() throws {
        XCTAssertEqual(try rules("pressure").label, "pressure (6 of 9)")
    }

    // MARK: - Numbers

    func testNumberInRangeIsAccepted() throws {
        XCTAssertEqual(try rules("pressure").value(fromWords: ["4.5"]), .number(4.5))
        XCTAssertEqual(try rules("pressure").value(fromJSON: .number(16)), .number(16))
        XCTAssertEqual(try rules("pressure").value(fromJSON: .string("0")), .number(0))
    }

    func testNumberAboveMaximumIsRefused() throws {
        let rules = try rules("pressure")
        assertRefused("pressure", "16.5 is above the maximum 16") { try rules.value(fromWords: ["16.5"]) }
        assertRefused("pressure", "above the maximum") { try rules.value(fromJSON: .number(100)) }
    }

    func testNumberBelowMinimumIsRefused() throws {
        let rules = try rules("hours")
        assertRefused("hours", "-1 is below the minimum 0") { try rules.value(fromWords: ["-1"]) }
    }

    func testDecimalForIntegerQuestionIsRefused() throws {
        let rules = try rules("hours")
        assertRefused("hours", "12.5 is not a whole number") { try rules.value(fromWords: ["12.5"]) }
        assertRefused("hours", "not a whole number") { try rules.value(fromJSON: .number(0.25)) }
        XCTAssertEqual(try rules.value(fromWords: ["1200"]), .number(1200))
    }

    func testTextForNumericQuestionIsRefused() throws {
        let rules = try rules("pressure")
        assertRefused("pressure", #""high" is not a number"#) { try rules.value(fromWords: ["high"]) }
        assertRefused("pressure", "not a number") { try rules.value(fromJSON: .string("12 bar")) }
        assertRefused("pressure", "expected a number, found a boolean") { try rules.value(fromJSON: .bool(true)) }
    }

    func testNonFiniteNumbersAreRefused() throws {
        let rules = try rules("pressure")
        assertRefused("pressure", "not a number") { try rules.value(fromWords: ["nan"]) }
        assertRefused("pressure", "not a number") { try rules.value(fromWords: ["inf"]) }
    }

    func testTwoWordsForANumberAreRefused() throws {
        let rules = try rules("pressure")
        assertRefused("pressure", "expected one number, got 2 values") { try rules.value(fromWords: ["1", "2"]) }
    }

    // MARK: - Multiple choice

    func testOptionByLabelIsCaseInsensitive() throws {
        XCTAssertEqual(try rules("noise").value(fromWords: ["humming"]), .choices(["Humming"]))
        XCTAssertEqual(try rules("noise").value(fromWords: ["GRINDING"]), .choices(["Grinding"]))
        XCTAssertEqual(try rules("noise").value(fromJSON: .array([.string("normal")])), .choices(["Normal"]))
    }

    func testOptionByNumberFromWords() throws {
        XCTAssertEqual(try rules("noise").value(fromWords: ["2"]), .choices(["Humming"]))
        XCTAssertEqual(try rules("leaks").value(fromWords: ["5", "2"]), .choices(["Mechanical seal", "Casing drain"]))
    }

    func testOptionNumberOutOfRangeIsRefused() throws {
        let rules = try rules("noise")
        assertRefused("noise", "there is no option 5 (options are 1 to 4)") { try rules.value(fromWords: ["5"]) }
        assertRefused("noise", "there is no option 0") { try rules.value(fromWords: ["0"]) }
    }

    func testOptionNumbersAreNotAcceptedFromAnAnswersFile() throws {
        let rules = try rules("noise")
        assertRefused("noise", #""2" is not one of the options"#) { try rules.value(fromJSON: .array([.string("2")])) }
    }

    func testUnknownOptionIsRefusedListingTheOptions() throws {
        let rules = try rules("noise")
        assertRefused("noise", #""Squeaking" is not one of the options (1. Normal, 2. Humming"#) {
            try rules.value(fromWords: ["Squeaking"])
        }
    }

    func testTwoChoicesForAOneAnswerQuestionAreRefused() throws {
        let rules = try rules("noise")
        assertRefused("noise", "only one answer may be chosen, got 2") { try rules.value(fromWords: ["Normal", "Humming"]) }
        assertRefused("noise", "only one answer may be chosen") {
            try rules.value(fromJSON: .array([.string("Normal"), .string("Grinding")]))
        }
    }

    func testMoreChoicesThanMaxNAreRefused() throws {
        let rules = try rules("checks")
        XCTAssertEqual(try rules.value(fromWords: ["Vibration", "Alignment"]), .choices(["Alignment", "Vibration"]))
        assertRefused("checks", "at most 2 answers may be chosen, got 3") {
            try rules.value(fromWords: ["Alignment", "Lubrication", "Vibration"])
        }
    }

    func testMaxZeroAcceptsEveryOption() throws {
        let all = ["None", "Mechanical seal", "Suction flange", "Discharge flange", "Casing drain"]
        XCTAssertEqual(try rules("leaks").value(fromJSON: .array(all.reversed().map(JSONValue.string))), .choices(all))
    }

    func testTheSameOptionTwiceCountsOnce() throws {
        XCTAssertEqual(try rules("noise").value(fromWords: ["Normal", "normal", "1"]), .choices(["Normal"]))
    }

    func testNoOptionsAtAllIsRefused() throws {
        let rules = try rules("leaks")
        assertRefused("leaks", "choose at least one option") { try rules.value(fromJSON: .array([])) }
        assertRefused("leaks", "no value given") { try rules.value(fromWords: []) }
    }

    func testNonStringOptionInAnswersFileIsRefused() throws {
        let rules = try rules("leaks")
        assertRefused("leaks", "expected option labels (strings), found a number") { try rules.value(fromJSON: .array([.number(1)])) }
    }

    // MARK: - True/false

    func testTrueAndFalseWords() throws {
        let rules = try rules("guard")
        for word in ["true", "T", "yes", "Y", "1", " True "] {
            XCTAssertEqual(try rules.value(fromWords: [word]), .bool(true), word)
        }
        for word in ["false", "F", "no", "N", "0"] {
            XCTAssertEqual(try rules.value(fromWords: [word]), .bool(false), word)
        }
        XCTAssertEqual(try rules.value(fromJSON: .bool(false)), .bool(false))
        XCTAssertEqual(try rules.value(fromJSON: .string("yes")), .bool(true))
    }

    func testOtherWordsForTrueFalseAreRefused() throws {
        let rules = try rules("guard")
        assertRefused("guard", #"expected true or false (or yes/no), got "maybe""#) { try rules.value(fromWords: ["maybe"]) }
        assertRefused("guard", "expected true or false, found a number") { try rules.value(fromJSON: .number(1)) }
        assertRefused("guard", "got 2 values") { try rules.value(fromWords: ["yes", "no"]) }
    }

    // MARK: - Short answer

    func testShortAnswerIsTrimmedAndJoined() throws {
        XCTAssertEqual(try rules("notes").value(fromWords: ["  all", "fine  "]), .text("all fine"))
        XCTAssertEqual(try rules("notes").value(fromJSON: .string("\nok\n")), .text("ok"))
    }

    func testEmptyShortAnswerIsRefused() throws {
        let rules = try rules("notes")
        assertRefused("notes", "the answer is empty") { try rules.value(fromWords: ["   "]) }
        assertRefused("notes", "expected text, found a number") { try rules.value(fromJSON: .number(3)) }
    }

    // MARK: - Tables

    private let goodTable: JSONValue = .array([
        .array([.string("61"), .number(2.5)]),
        .array([.string("58"), .string("1.9")]),
        .array([.number(70), .null]),
    ])

    func testCompleteTableIsAccepted() throws {
        XCTAssertEqual(try rules("bearings").value(fromJSON: goodTable),
                       .cells([["61", "2.5"], ["58", "1.9"], ["70", nil]]))
    }

    func testTableFromOneJSONWord() throws {
        XCTAssertEqual(try rules("bearings").value(fromWords: [#"[["1","2"],["3","4"],["5",null]]"#]),
                       .cells([["1", "2"], ["3", "4"], ["5", nil]]))
    }

    func testValueInANoValueCellIsRefused() throws {
        let rules = try rules("bearings")
        let table: JSONValue = .array([
            .array([.string("61"), .string("2")]), .array([.string("58"), .string("2")]), .array([.string("70"), .string("3")]),
        ])
        assertRefused("bearings", #"cell [2, 1] (Motor / Vibration) takes no value, but got "3""#) { try rules.value(fromJSON: table) }
    }

    func testMissingValueCellIsRefused() throws {
        let rules = try rules("bearings")
        let table: JSONValue = .array([
            .array([.string("61"), .null]), .array([.string("58"), .string("2")]), .array([.string("70"), .null]),
        ])
        assertRefused("bearings", "cell [0, 1] (Drive end / Vibration) needs a value") { try rules.value(fromJSON: table) }
        let blank: JSONValue = .array([
            .array([.string("61"), .string("1")]), .array([.string(" "), .string("2")]), .array([.string("70"), .null]),
        ])
        assertRefused("bearings", "cell [1, 0] (Non-drive end / Temperature) needs a value") { try rules.value(fromJSON: blank) }
    }

    func testWrongRowCountIsRefused() throws {
        let rules = try rules("bearings")
        let table: JSONValue = .array([.array([.string("61"), .string("2")]), .array([.string("58"), .string("2")])])
        assertRefused("bearings", "expected 3 rows, found 2") { try rules.value(fromJSON: table) }
    }

    func testWrongColumnCountIsRefused() throws {
        let rules = try rules("bearings")
        let table: JSONValue = .array([.array([.string("61")]), .array([.string("58"), .string("2")]), .array([.string("70"), .null])])
        assertRefused("bearings", "row 0 (Drive end) must be an array of 2 cells") { try rules.value(fromJSON: table) }
    }

    func testTableThatIsNotJSONIsRefused() throws {
        let rules = try rules("bearings")
        assertRefused("bearings", "a table answer is one JSON array of rows") { try rules.value(fromWords: ["61", "2"]) }
        assertRefused("bearings", "expected an array of 3 rows, found a string") { try rules.value(fromJSON: .string("61")) }
    }

    func testNestedArrayInACellIsRefused() throws {
        let rules = try rules("bearings")
        let table: JSONValue = .array([
            .array([.array([]), .string("2")]), .array([.string("58"), .string("2")]), .array([.string("70"), .null]),
        ])
        assertRefused("bearings", "cell [0, 0] (Drive end / Temperature) must be text or a number") { try rules.value(fromJSON: table) }
    }
}
