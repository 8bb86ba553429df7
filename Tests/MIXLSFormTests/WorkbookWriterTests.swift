import Foundation
@testable import MIXLSForm
import TestSupport
import XCTest

/// Workbooks MI writes: openpyxl reads them back to the same values, MI reads them back identical,
/// and LibreOffice opens them.
final class WorkbookWriterTests: XCTestCase {
    private static let sheets: [XLSXWriter.Sheet] = [
        XLSXWriter.Sheet(name: "survey", rows: [
            [.string("type"), .string("name"), .string("label::Español (es)"), .string("required")],
            [.string("text"), .string("pump"), .string("¿Bomba? «ñ» 中文"), .bool(true)],
            [],
            [.string("integer"), .string("count"), .string("  leading & trailing <spaces>  "), .bool(false)],
            [.string("line\nbreak\r"), nil, .string("literal _x0041_ stays"), .number(-0.125)],
            [.number(42), .number(1e-7), .number(12_345_678_901_234), .number(3.141592653589793)],
            [.date(XLSXDateTime(year: 2024, month: 3, day: 5)!), .date(XLSXDateTime(year: 2024, month: 3, day: 5, hour: 14, minute: 30, second: 15)!),
             .date(XLSXDateTime(serial: 0.5, date1904: false)!), .error("#N/A")],
        ], boldFirstRow: true),
        XLSXWriter.Sheet(name: "choices", rows: [[.string("list_name"), .string("name"), .string("label")],
                                                 [.string("yn"), .number(1), .string("Sí")],
                                                 [.string("yn"), .number(0), .string("No")]], boldFirstRow: true),
        XLSXWriter.Sheet(name: "Ajustes y más", rows: [[nil, .string("far"), nil], [], [nil, nil, nil, .string("D3")]]),
    ]

    private static let expectedCells: [String: [Oracle.Cell]] = [
        "survey": [
            .init(row: 1, column: 1, kind: "s", value: "type"), .init(row: 1, column: 2, kind: "s", value: "name"),
            .init(row: 1, column: 3, kind: "s", value: "label::Español (es)"), .init(row: 1, column: 4, kind: "s", value: "required"),
            .init(row: 2, column: 1, kind: "s", value: "text"), .init(row: 2, column: 2, kind: "s", value: "pump"),
            .init(row: 2, column: 3, kind: "s", value: "¿Bomba? «ñ» 中文"), .init(row: 2, column: 4, kind: "b", value: "true"),
            .init(row: 4, column: 1, kind: "s", value: "integer"), .init(row: 4, column: 2, kind: "s", value: "count"),
            .init(row: 4, column: 3, kind: "s", value: "  leading & trailing <spaces>  "), .init(row: 4, column: 4, kind: "b", value: "false"),
            .init(row: 5, column: 1, kind: "s", value: "line\nbreak\r"), .init(row: 5, column: 3, kind: "s", value: "literal _x0041_ stays"),
            .init(row: 5, column: 4, kind: "n", value: "-0.125"),
            .init(row: 6, column: 1, kind: "n", value: "42.0"), .init(row: 6, column: 2, kind: "n", value: "1e-07"),
            .init(row: 6, column: 3, kind: "n", value: "12345678901234.0"), .init(row: 6, column: 4, kind: "n", value: "3.141592653589793"),
            .init(row: 7, column: 1, kind: "d", value: "2024-03-05T00:00:00"), .init(row: 7, column: 2, kind: "d", value: "2024-03-05T14:30:15"),
            .init(row: 7, column: 3, kind: "d", value: "12:00:00"), .init(row: 7, column: 4, kind: "e", value: "#N/A"),
        ],
        "choices": [
            .init(row: 1, column: 1, kind: "s", value: "list_name"), .init(row: 1, column: 2, kind: "s", value: "name"),
            .init(row: 1, column: 3, kind: "s", value: "label"), .init(row: 2, column: 1, kind: "s", value: "yn"),
            .init(row: 2, column: 2, kind: "n", value: "1.0"), .init(row: 2, column: 3, kind: "s", value: "Sí"),
            .init(row: 3, column: 1, kind: "s", value: "yn"), .init(row: 3, column: 2, kind: "n", value: "0.0"),
            .init(row: 3, column: 3, kind: "s", value: "No"),
        ],
        "Ajustes y más": [.init(row: 1, column: 2, kind: "s", value: "far"), .init(row: 3, column: 4, kind: "s", value: "D3")],
    ]

    func testOpenpyxlReadsWhatMIWritesWithSharedOrInlineStrings() throws {
        for storage in [XLSXWriter.StringStorage.shared, .inline] {
            let folder = try TemporaryDirectory(prefix: "mixlsform")
            let url = folder.path("written.xlsx")
            try XLSXWriter(strings: storage).write(Self.sheets, to: url)
            var dump = try Oracle.dump(url)
            if storage == .inline {
                // A literal "_x0041_" is written escaped as "_x005F_x0041_", as Excel does; openpyxl decodes
                // that escape in shared strings but not in inline ones (Excel and MI decode both).
                let index = try XCTUnwrap(dump.sheets[0].cells.firstIndex { $0.row == 5 && $0.column == 3 })
                XCTAssertEqual(dump.sheets[0].cells[index].value, "literal _x005F_x0041_ stays")
                dump.sheets[0].cells[index].value = "literal _x0041_ stays"
            }
            XCTAssertEqual(dump.sheets.map(\.name), ["survey", "choices", "Ajustes y más"], "\(storage)")
            XCTAssertFalse(dump.date1904)
            for sheet in dump.sheets {
                XCTAssertEqual(sheet.cells, Self.expectedCells[sheet.name], "\(storage) \(sheet.name)")
                XCTAssertFalse(sheet.hidden)
                XCTAssertEqual(sheet.merged, [])
            }
            XCTAssertEqual(dump.sheets[0].bold, ["A1", "B1", "C1", "D1"], "\(storage): the header row is bold")
            XCTAssertEqual(dump.sheets[1].bold, ["A1", "B1", "C1"])
            XCTAssertEqual(dump.sheets[2].bold, [])

            // MI reads back what it wrote, and what openpyxl read.
            let workbook = try XLSXWorkbook(contentsOf: url)
            Oracle.assertSame(workbook, dump)
            for (written, read) in zip(Self.sheets, workbook.sheets) {
                let trimmed = written.rows.map { row in
                    var row = row
                    while let last = row.last, last == nil { row.removeLast() }
                    return row
                }
                let readRows = (0..<written.rows.count).map { index in
                    workbook.sheet(named: written.name)?.rows.first { $0.number == index + 1 }?.values ?? []
                }
                XCTAssertEqual(readRows, trimmed, written.name)
                XCTAssertEqual(read.name, written.name)
            }
        }
    }

    func testTheSameSheetsGiveTheSameBytes() throws {
        XCTAssertEqual(try XLSXWriter().data(Self.sheets), try XLSXWriter().data(Self.sheets))
    }

    /// LibreOffice (headless Calc) opens the workbook and converts its first sheet to CSV.
    func testLibreOfficeOpensWhatMIWrites() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = folder.path("form.xlsx")
        try XLSXWriter().write(Self.sheets, to: url)
        let csvPath = try Oracle.run(["csv", url.path, folder.path("csv").path]).trimmingCharacters(in: .whitespacesAndNewlines)
        let csv = try String(contentsOfFile: csvPath, encoding: .utf8)
        let lines = csv.components(separatedBy: "\n")
        XCTAssertEqual(lines.first, "type,name,label::Español (es),required", csv)
        XCTAssertEqual(lines[1], "text,pump,¿Bomba? «ñ» 中文,TRUE", csv)
        XCTAssertTrue(csv.contains("integer,count,  leading & trailing <spaces>  ,FALSE"), csv)
        XCTAssertTrue(csv.contains("42,"), csv)
        XCTAssertTrue(csv.contains("#N/A"), csv)
    }

    func testBadSheetNamesAndValuesAreRefused() {
        func refusal(_ sheets: [XLSXWriter.Sheet]) -> XLSXError? {
            do {
                _ = try XLSXWriter().data(sheets)
                return nil
            } catch {
                return error as? XLSXError
            }
        }
        XCTAssertEqual(refusal([]), .writeFailed("a workbook needs at least one sheet"))
        XCTAssertEqual(refusal([.init(name: "a/b", rows: [])]), .invalidSheetName("a/b", reason: "it contains /, which sheet names cannot"))
        XCTAssertEqual(refusal([.init(name: String(repeating: "x", count: 32), rows: [])]),
                       .invalidSheetName(String(repeating: "x", count: 32), reason: "a sheet name has 1 to 31 characters"))
        XCTAssertEqual(refusal([.init(name: "", rows: [])]), .invalidSheetName("", reason: "a sheet name has 1 to 31 characters"))
        XCTAssertEqual(refusal([.init(name: "'quoted'", rows: [])]), .invalidSheetName("'quoted'", reason: "it begins or ends with an apostrophe"))
        XCTAssertEqual(refusal([.init(name: "Survey", rows: []), .init(name: "SURVEY", rows: [])]), .duplicateSheetName("SURVEY"))
        XCTAssertEqual(refusal([.init(name: "s", rows: [[nil, .string("bell\u{7}")]])]),
                       .unwritableValue(sheet: "s", cell: "B1", reason: "the text contains the control character U+0007"))
        XCTAssertEqual(refusal([.init(name: "s", rows: [[], [.number(.infinity)]])]),
                       .unwritableValue(sheet: "s", cell: "A2", reason: "inf is not a finite number"))
        XCTAssertEqual(refusal([.init(name: "s", rows: [[.error("#OOPS")]])]),
                       .unwritableValue(sheet: "s", cell: "A1", reason: "#OOPS is not a spreadsheet error value"))
        XCTAssertEqual(refusal([.init(name: "s", rows: [[.string(String(repeating: "é", count: 32_768))]])]),
                       .unwritableValue(sheet: "s", cell: "A1", reason: "the text is longer than a cell's 32,767 characters"))
        XCTAssertNil(refusal([.init(name: "Ñandú & «más»", rows: [[.string("ok")]])]))
    }

    func testWritingToAFolderThatIsNotThere() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = folder.path("missing", "form.xlsx")
        XCTAssertThrowsError(try XLSXWriter().write(Self.sheets, to: url)) { error in
            guard case .writeFailed(let detail) = error as? XLSXError else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.hasPrefix(url.path), detail)
        }
    }
}
