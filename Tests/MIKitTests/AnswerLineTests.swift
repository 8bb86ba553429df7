import Foundation
import MIKit
import XCTest

/// The one parser for typed answers (`mi fill`'s lines and `mi answer`'s words).
extension AnswerRulesTests {
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
        assertRefused("leaks", "there is no option 9 (options are 1 to 5)") { try rules("leaks").value(fromLine: "1 9") }
        assertRefused("leaks", "there is no option 0") { try rules("leaks").value(fromLine: "1,0") }
    }

    func testAListRefusesAnUnknownLabelNamingIt() throws {
        assertRefused("leaks", #""Dripping" is not one of the options (1. None"#) { try rules("leaks").value(fromLine: "None, Dripping") }
        assertRefused("leaks", #""Mechanical dripping" is not one of the options"#) { try rules("leaks").value(fromLine: "Mechanical dripping") }
    }

    func testAOneAnswerQuestionRefusesAList() throws {
        assertRefused("noise", "only one answer may be chosen, got 2") { try rules("noise").value(fromLine: "1,2") }
        assertRefused("noise", "only one answer may be chosen, got 2") { try rules("noise").value(fromLine: "1 2") }
        assertRefused("checks", "at most 2 answers may be chosen, got 3") { try rules("checks").value(fromLine: "1,2,3") }
    }

    func testAnEmptyChoiceIsRefused() throws {
        assertRefused("leaks", "choose at least one option") { try rules("leaks").value(fromLine: " , ") }
    }

    func testADecimalCommaIsRefusedWithTheDottedNumber() throws {
        let pressure = try rules("pressure")
        assertRefused("pressure", #""3,5" is not a number — use a dot: 3.5"#) { try pressure.value(fromLine: "3,5") }
        assertRefused("pressure", "use a dot: 3.5") { try pressure.value(fromWords: ["3,5"]) }
        assertRefused("pressure", "use a dot: -0.25") { try pressure.value(fromLine: "-0,25") }
        assertRefused("pressure", "use a dot: 12.75") { try pressure.value(fromJSON: .string("12,75")) }
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
                       .cells([["1", "2"], ["3", "4"], ["5", nil]]))
    }
}
