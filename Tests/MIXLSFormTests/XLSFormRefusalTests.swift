import Foundation
import MIKit
@testable import MIXLSForm
import TestSupport
import XCTest

/// What MI cannot honour refuses the whole file, one problem per cell, each naming the sheet,
/// the row, the column and what to do; what it takes but does not draw is a warning.
final class XLSFormRefusalTests: XCTestCase {
    typealias Rows = [[String?]]

    static func workbook(survey: Rows, choices: Rows? = nil, settings: Rows? = nil) throws -> Data {
        func sheet(_ name: String, _ rows: Rows) -> XLSXWriter.Sheet {
            XLSXWriter.Sheet(name: name, rows: rows.map { $0.map { $0.map(XLSXValue.string) } })
        }
        var sheets = [sheet("survey", survey)]
        if let choices { sheets.append(sheet("choices", choices)) }
        if let settings { sheets.append(sheet("settings", settings)) }
        return try XLSXWriter().data(sheets)
    }

    static func problems(survey: Rows, choices: Rows? = nil, settings: Rows? = nil, files: [String: Data] = [:]) throws -> [String] {
        do {
            let imported = try XLSForm.read(data: try workbook(survey: survey, choices: choices, settings: settings), fileName: "form.xlsx", files: files)
            XCTFail("imported \(imported.template.id), expected a refusal")
            return []
        } catch let error as XLSFormError {
            XCTAssertEqual(error.failureClass, .badData)
            return error.problems.map(\.description)
        }
    }

    static let header: [String?] = ["type", "name", "label", "relevant", "calculation", "appearance"]

    func testFunctionsMICannotEvaluate() throws {
        XCTAssertEqual(try Self.problems(survey: [Self.header,
            ["text", "site", "Site"],
            ["calculate", "owner", nil, nil, "pulldata('owners', 'name', 'site', ${site})"],
            ["text", "place", "Place", nil, nil, "search('places')"],
        ]), [
            "sheet survey, row 3, column calculation (E): pulldata() reads values from a CSV file at fill time, which MI does not; put the values in the form (a calculate, or choices)",
            "sheet survey, row 4, column appearance (F): search() looks values up in a CSV file at fill time, which MI does not; use select_one_from_file",
        ])
    }

    func testTypesMICannotHonour() throws {
        XCTAssertEqual(try Self.problems(survey: [Self.header,
            ["trigger", "go", "Go"],
            ["rank", "order", "Order"],
            ["image", "sign", "Sign here", nil, nil, "signature"],
            ["geoshape", "area", "Area"],
            ["whatever", "w", "W"],
        ]), [
            "sheet survey, row 2, column type (A): MI cannot take type trigger: MI has no trigger; use acknowledge (a yes/no MI asks) instead",
            "sheet survey, row 3, column type (A): MI cannot take type rank: MI has no ranking question; use select_multiple, or one integer question per item",
            "sheet survey, row 4, column appearance (F): MI cannot let the technician draw (signature); delete the appearance to take a photo",
            "sheet survey, row 5, column type (A): MI cannot take type geoshape: MI records single points only; use geopoint",
            "sheet survey, row 6, column type (A): unknown type \"whatever\"; MI takes acknowledge, audio, barcode, calculate, date, datetime, decimal, geopoint, image, integer, note, photo, range, text, time, video, select_one LIST, select_multiple LIST, select_one_from_file FILE.csv",
        ])
    }

    func testDuplicateNamesAndUnknownReferences() throws {
        XCTAssertEqual(try Self.problems(survey: [Self.header,
            ["text", "site", "Site"],
            ["integer", "site", "Site again"],
            ["text", "why", "Why", "${nowhere} = 'x'"],
        ]), [
            "sheet survey, row 3, column name (B): the name site is already row 2's; MI needs every question and group name to be unique in the whole form — rename one",
        ])
        // Once the names are unique, MI's own template checks run and are pointed at their cells.
        XCTAssertEqual(try Self.problems(survey: [Self.header,
            ["text", "site", "Site"],
            ["text", "why", "Why", "${nowhere} = 'x'"],
        ]), [
            "sheet survey, row 3, column relevant (D): why: at position 0 (counting from 0): there is no question named 'nowhere' in \"${nowhere} = 'x'\"",
        ])
    }

    func testDuplicateChoicesUnlessAllowed() throws {
        let survey: Rows = [["type", "name", "label"], ["select_one yn", "ok", "OK?"]]
        let choices: Rows = [["list_name", "name", "label"], ["yn", "yes", "Yes"], ["yn", "no", "No"], ["yn", "yes", "Yes again"]]
        XCTAssertEqual(try Self.problems(survey: survey, choices: choices), [
            "sheet choices, row 4, column name (B): the choice name \"yes\" is already row 2's in this list; give each choice its own name (or set allow_choice_duplicates to yes in settings)",
        ])
        let allowed = try XLSForm.read(data: try Self.workbook(survey: survey, choices: choices,
                                                               settings: [["allow_choice_duplicates"], ["yes"]]), fileName: "form.xlsx", files: [:])
        XCTAssertEqual((allowed.template.questions[0].type as? MultipleChoiceQuestion)?.names, ["yes", "no"])
        XCTAssertEqual(allowed.warnings.map(\.description), [
            "sheet choices, row 4, column name (B): the choice name \"yes\" repeats row 2's; MI keeps the first (answers store names, so two options of one name cannot be told apart)",
        ])
    }

    func testAMissingCSVAndAMissingList() throws {
        XCTAssertEqual(try Self.problems(survey: [["type", "name", "label"],
            ["select_one_from_file towns.csv", "town", "Town"],
            ["select_multiple nolist", "many", "Many"],
        ], choices: [["list_name", "name", "label"], ["yn", "yes", "Yes"]]), [
            "sheet survey, row 2, column type (A): the choices file towns.csv is missing; put it beside the XLSForm (or upload it with the XLSForm)",
            "sheet survey, row 3, column type (A): there is no list nolist on the choices sheet; add its choices, or correct the name",
        ])
        let town = try XLSForm.read(data: try Self.workbook(survey: [["type", "name", "label"], ["select_one_from_file towns.csv", "town", "Town"]]),
                                    fileName: "form.xlsx", files: ["towns.csv": Data("name,label\r\nnb,\"Nairobi, \"\"the city\"\"\"\r\nmb,Mombasa\r\n".utf8)])
        XCTAssertEqual((town.template.questions[0].type as? MultipleChoiceQuestion)?.choices,
                       [.init(name: "nb", label: "Nairobi, \"the city\""), .init(name: "mb", label: "Mombasa")])
    }

    func testVersionsAndSettings() throws {
        let survey: Rows = [["type", "name", "label"], ["text", "a", "A"]]
        XCTAssertEqual(try Self.problems(survey: survey, settings: [["form_id", "version"], ["f", "1.5"]]), [
            "sheet settings, row 2, column version (B): the version \"1.5\" is not a whole number; MI numbers versions 1, 2, 3… (a date cell, such as =NOW(), becomes yyyymmddHHMM)",
        ])
        XCTAssertEqual(try Self.problems(survey: survey, settings: [["form_id"], ["a/b"]]), [
            "sheet settings, row 2, column form_id (A): \"a/b\" cannot be a template id: it contains \"/\"",
        ])
        let dated = try XLSXWriter().data([
            XLSXWriter.Sheet(name: "survey", rows: [[.string("type"), .string("name"), .string("label")], [.string("text"), .string("a"), .string("A")]]),
            XLSXWriter.Sheet(name: "settings", rows: [[.string("version")], [.date(try XCTUnwrap(XLSXDateTime(year: 2025, month: 1, day: 2, hour: 3, minute: 4)))]]),
        ])
        let imported = try XLSForm.read(data: dated, fileName: "from-the-file-name.xlsx", files: [:])
        XCTAssertEqual(imported.template.version, 202_501_020_304)
        XCTAssertEqual(imported.template.id, "from-the-file-name")
        XCTAssertEqual(imported.template.title, "from-the-file-name")
    }

    func testGroupsThatDoNotCloseAndEveryProblemAtOnce() throws {
        XCTAssertEqual(try Self.problems(survey: [Self.header,
            ["begin group", "g", "G"],
            ["text", "a", "A"],
            ["end repeat"],
            ["begin repeat", "r", "R"],
            ["text", nil, "No name"],
            ["calculate", "c", nil, nil, "pulldata('x')"],
        ]), [
            "sheet survey, row 4, column type (A): end repeat closes begin group g of row 2; end the group first",
            "sheet survey, row 6, column name (B): the question has no name; give it a name (letters, digits, _), unique in the form",
            "sheet survey, row 7, column calculation (E): pulldata() reads values from a CSV file at fill time, which MI does not; put the values in the form (a calculate, or choices)",
            "sheet survey, row 5, column type (A): begin repeat r is never closed; add an end repeat row after its last question",
            "sheet survey, row 2, column type (A): begin group g is never closed; add an end group row after its last question",
        ])
    }

    func testNotAnXLSFormAtAll() throws {
        do {
            _ = try XLSForm.read(data: Data("type,name\n".utf8), fileName: "form.xlsx", files: [:])
            XCTFail("expected a refusal")
        } catch let error as XLSFormError {
            XCTAssertEqual(error.problems.count, 1)
            XCTAssertTrue(error.problems[0].message.contains("is not an .xlsx workbook"), error.problems[0].message)
        }
        XCTAssertEqual(try Self.problems(survey: [["name", "label"], ["a", "A"]]), [
            "sheet survey, column type: the survey sheet has no type column in its first row (headers found: name, label); add one",
        ])
    }

    func testAppearancesMIDoesNotDrawAreWarnings() throws {
        let imported = try XLSForm.read(data: try Self.workbook(survey: [Self.header,
            ["text", "a", "A", nil, nil, "multiline"],
            ["text", "b", "B", nil, nil, "multiline"],
            ["integer", "c", "C", nil, nil, "thousands-sep"],
        ]), fileName: "form.xlsx", files: [:])
        XCTAssertEqual(imported.template.questions.map(\.id), ["a", "b", "c"])
        XCTAssertEqual(imported.warnings.map(\.description), [
            "sheet survey, column appearance: appearance \"multiline\" (rows 2, 3): MI does not draw it; the questions are asked as usual",
            "sheet survey, column appearance: appearance \"thousands-sep\" (row 4): MI does not draw it; the questions are asked as usual",
        ])
    }
}
