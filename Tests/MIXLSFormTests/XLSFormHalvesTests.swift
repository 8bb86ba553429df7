import Foundation
import MIKit
@testable import MIXLSForm
import XCTest

/// A long survey is converted in two halves at once; what the import gives — the template and
/// its warnings, or the problems in their order — is what converting it in one pass gives.
final class XLSFormHalvesTests: XCTestCase {
    private static let header = ["type", "name", "label::English (en)", "label::Español (es)", "relevant", "constraint", "appearance"]

    /// `groups` groups (every other one a repeat) of `perGroup` questions, selects over the
    /// choices sheet's lists, an appearance MI does not draw in every group.
    private func survey(groups: Int = 20, perGroup: Int = 30, edit: (inout [[String?]]) -> Void = { _ in }) -> [[String?]] {
        var rows: [[String?]] = []
        var number = 0
        for group in 0..<groups {
            let kind = group % 2 == 0 ? "group" : "repeat"
            rows.append(["begin \(kind)", "g\(group)", "Group \(group)", "Grupo \(group)", nil, nil, nil])
            for index in 0..<perGroup {
                let type = ["text", "integer", "select_one yesno", "select_multiple parts", "decimal"][number % 5]
                rows.append([type, "q\(number)", "Question \(number)", "Pregunta \(number)",
                             number > 0 && number % 7 == 0 ? "${q\(number - 1)} != ''" : nil,
                             type == "integer" ? ". >= 0" : nil, index == 3 ? "quick" : nil])
                number += 1
            }
            rows.append(["end \(kind)", nil, nil, nil, nil, nil, nil])
        }
        edit(&rows)
        return rows
    }

    private func workbook(_ survey: [[String?]]) -> XLSXWorkbook {
        func sheet(_ name: String, _ rows: [[String?]]) -> XLSXSheet {
            XLSXSheet(name: name, rows: rows.enumerated().map { number, row in
                XLSXRow(number: number + 1, cells: row.enumerated().compactMap { column, text in
                    text.map { XLSXCell(column: column + 1, value: .string($0)) }
                })
            })
        }
        let choices: [[String?]] = [["list_name", "name", "label::English (en)", "label::Español (es)"],
                                    ["yesno", "yes", "Yes", "Sí"], ["yesno", "no", "No", "No"],
                                    ["parts", "seal", "Seal", "Sello"], ["parts", "valve", "Valve", "Válvula"]]
        return XLSXWorkbook(sheets: [sheet("survey", [Self.header] + survey), sheet("choices", choices),
                                     sheet("settings", [["form_id", "default_language"], ["halves", "English (en)"]])])
    }

    private func read(_ survey: [[String?]], inHalves: Bool) -> Result<XLSFormImport, XLSFormError> {
        var importer = XLSFormImporter(workbook: workbook(survey), fileName: "halves.xlsx", file: { _ in nil })
        importer.rowsReadInHalves = inHalves ? 500 : .max
        do {
            return .success(try importer.run())
        } catch let error as XLSFormError {
            return .failure(error)
        } catch {
            XCTFail("\(error)")
            return .failure(XLSFormError(file: "", problems: []))
        }
    }

    private func assertSplit(_ survey: [[String?]], file: StaticString = #filePath, line: UInt = #line) {
        let table = XLSFormTable(workbook(survey).sheets[0])
        XCTAssertNotNil(XLSFormImporter.topLevelMiddle(table, table.column("type")), "the survey is cut in halves", file: file, line: line)
    }

    func testALongSurveyConvertedInHalvesIsTheTemplateOfOnePass() throws {
        let rows = survey()
        XCTAssertGreaterThanOrEqual(rows.count, 500)
        assertSplit(rows)
        let halves = try read(rows, inHalves: true).get()
        let onePass = try read(rows, inHalves: false).get()
        XCTAssertEqual(halves.template, onePass.template)
        XCTAssertEqual(halves.warnings, onePass.warnings)
        XCTAssertEqual(halves.template.questions.count, 600)
        XCTAssertEqual(halves.template.questions.map(\.id), (0..<600).map { "q\($0)" })
        XCTAssertEqual(halves.template.questions[599].group, "g19")
        XCTAssertEqual(halves.warnings.count, 1)
        XCTAssertTrue(halves.warnings[0].message.contains("rows 6, 38,"), halves.warnings[0].message)
        XCTAssertTrue(halves.warnings[0].message.contains(", 614)"), "the second half's rows follow the first's: \(halves.warnings[0].message)")
    }

    func testProblemsInBothHalvesComeInTheOrderOfOnePass() throws {
        let rows = survey { rows in
            rows[5][0] = "rank parts"                  // a refused type, first half
            rows[40][5] = "pulldata('x', 'y', 'z', 1)" // a refused function, first half
            rows[400][1] = nil                         // a question without a name, second half
            rows[550][0] = "sketch"                    // an unknown type, second half
        }
        assertSplit(rows)
        guard case .failure(let halves) = read(rows, inHalves: true), case .failure(let onePass) = read(rows, inHalves: false) else {
            return XCTFail("the survey was imported")
        }
        XCTAssertEqual(halves, onePass)
        XCTAssertEqual(halves.problems.map(\.row), [7, 42, 402, 552])
    }

    func testANameInBothHalvesIsReportedAsOnePassReportsIt() throws {
        let rows = survey { rows in rows[580][1] = "q3" }
        assertSplit(rows)
        guard case .failure(let halves) = read(rows, inHalves: true), case .failure(let onePass) = read(rows, inHalves: false) else {
            return XCTFail("the survey was imported")
        }
        XCTAssertEqual(halves, onePass)
        XCTAssertEqual(halves.problems.count, 1)
        XCTAssertTrue(halves.problems[0].message.hasPrefix("the name q3 is already row 6's"), halves.problems[0].message)
    }

    func testGroupsThatDoNotCloseAsTheyOpenAreReadInOnePass() throws {
        // An end repeat closing a begin group: the survey is not cut, and the problems are one pass's.
        let rows = survey { rows in rows[31][0] = "end repeat" }
        let table = XLSFormTable(workbook(rows).sheets[0])
        XCTAssertNil(XLSFormImporter.topLevelMiddle(table, table.column("type")))
        guard case .failure(let halves) = read(rows, inHalves: true), case .failure(let onePass) = read(rows, inHalves: false) else {
            return XCTFail("the survey was imported")
        }
        XCTAssertEqual(halves, onePass)
        XCTAssertEqual(halves.problems.first?.row, 33)
    }
}
