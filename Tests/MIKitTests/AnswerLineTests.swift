import Foundation
import MIKit
import TestSupport
import XCTest

/// The one parser for typed answers (`mi fill`'s lines and `mi answer`'s words).
final class AnswerLineTests: XCTestCase {
    private var template: Template!

    override func setUpWithError() throws {
        template = try TemplateFixture.sampleTemplate()
    }

    private func rules(_ id: String) throws -> AnswerRules {
        let index = try XCTUnwrap(template.index(of: id), "no question \(id)")
        return Workflow.rules(for: index, in: template)
    }

    private func assertRefused(_ body: @autoclosure () throws -> AnswerValue, _ fragment: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue((error as? AnswerError)?.rule.contains(fragment) == true, "\(error)", file: file, line: line)
        }
    }

    func testOptionNumbersAsACommaListOrASpaceList() throws {
        let leaks = try rules("leaks")
        for line in ["1,3", "1, 3", " 3 ,1 ", "1 3", "3  1"] {
            XCTAssertEqual(try leaks.value(fromLine: line), .choices(["None", "Suction flange"]), line)
        }
        XCTAssertEqual(try leaks.value(fromLine: "2,5 4"), .choices(["Mechanical seal", "Discharge flange", "Casing drain"]))
    }

    func testLabelsWithSpacesAlonePerCommaOrAsWords() throws {
        let leaks = try rules("leaks")
        let expected = AnswerValue.choices(["Mechanical seal", "Casing drain"])
        XCTAssertEqual(try leaks.value(fromLine: "Mechanical seal, casing drain"), expected)
        XCTAssertEqual(try leaks.value(fromLine: "mechanical seal casing drain"), expected)
        XCTAssertEqual(try leaks.value(fromLine: "Mechanical seal 5"), expected)
        XCTAssertEqual(try rules("noise").value(fromLine: "Cavitation (gravel noise)"), .choices(["Cavitation (gravel noise)"]))
    }

    func testWordsAreReadAsTheSameLine() throws {
        for (id, line) in [("leaks", "1,3"), ("leaks", "2 5"), ("leaks", "Mechanical seal, Casing drain"), ("noise", "humming"),
                           ("guard", "yes"), ("pressure", "4.5"), ("notes", "all fine")] {
            let rules = try rules(id)
            let words = line.split(separator: " ").map(String.init)
            XCTAssertEqual(try rules.value(fromWords: words), try rules.value(fromLine: line), "\(id): \(line)")
            XCTAssertEqual(try rules.value(fromWords: [line]), try rules.value(fromLine: line), "\(id): \(line)")
        }
    }

    func testAListRefusesAnOptionNumberOutOfRange() throws {
        assertRefused(try rules("leaks").value(fromLine: "1 9"), "there is no option 9 (options are 1 to 5)")
        assertRefused(try rules("leaks").value(fromLine: "1,0"), "there is no option 0")
    }

    func testAListRefusesAnUnknownLabelNamingIt() throws {
        assertRefused(try rules("leaks").value(fromLine: "None, Dripping"), #""Dripping" is not one of the options (1. None"#)
        assertRefused(try rules("leaks").value(fromLine: "Mechanical dripping"), #""Mechanical dripping" is not one of the options"#)
    }

    func testAOneAnswerQuestionRefusesAList() throws {
        assertRefused(try rules("noise").value(fromLine: "1,2"), "only one answer may be chosen, got 2")
        assertRefused(try rules("noise").value(fromLine: "1 2"), "only one answer may be chosen, got 2")
        assertRefused(try rules("checks").value(fromLine: "1,2,3"), "at most 2 answers may be chosen, got 3")
    }

    func testAnEmptyChoiceIsRefused() throws {
        assertRefused(try rules("leaks").value(fromLine: " , "), "choose at least one option")
    }

    func testADecimalCommaIsRefusedWithTheDottedNumber() throws {
        let pressure = try rules("pressure")
        assertRefused(try pressure.value(fromLine: "3,5"), #""3,5" is not a number — use a dot: 3.5"#)
        assertRefused(try pressure.value(fromWords: ["3,5"]), "use a dot: 3.5")
        assertRefused(try pressure.value(fromLine: "-0,25"), "use a dot: -0.25")
        assertRefused(try pressure.value(fromJSON: .string("12,75")), "use a dot: 12.75")
    }

    func testOtherCommasInANumberAreJustNotANumber() throws {
        let pressure = try rules("pressure")
        for line in ["3,5,1", "1,000.5", ",5", "3,"] {
            XCTAssertThrowsError(try pressure.value(fromLine: line), line) { error in
                let rule = (error as? AnswerError)?.rule ?? ""
                XCTAssertTrue(rule.contains("is not a number") && !rule.contains("use a dot"), rule)
            }
        }
    }

    func testATableLineIsOneJSONArray() throws {
        XCTAssertEqual(try rules("bearings").value(fromLine: #"[["1","2"],["3","4"],["5",null]]"#),
                       .table([["1", "2"], ["3", "4"], ["5", nil]]))
    }
}
