import Foundation
@testable import MIXLSForm
import TestSupport
import XCTest

/// Workbooks written by openpyxl (and LibreOffice), read by MI and by openpyxl, compared cell by cell.
final class WorkbookReaderTests: XCTestCase {
    func testEveryCellTypeAsOpenpyxlReadsIt() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make("types", in: folder)
        let workbook = try XLSXWorkbook(contentsOf: url)
        // openpyxl leaves Excel's _xHHHH_ escape undecoded in inline strings; Excel shows a carriage return.
        Oracle.assertSame(workbook, try Oracle.dump(url)) { sheet, cell in
            sheet == "Raw cells" && cell.row == 1 && cell.column == 6 ? Oracle.Cell(row: 1, column: 6, kind: "s", value: "A\rB") : cell
        }

        let types = try XCTUnwrap(workbook.sheet(named: "types"))
        XCTAssertEqual(types.rows.map(\.number), [1, 2, 3, 4, 5])
        XCTAssertEqual(types.rows[1][1], .string("  padded  "))
        XCTAssertEqual(types.rows[1][2], .number(42))
        XCTAssertEqual(types.rows[1][6], .bool(true))
        XCTAssertEqual(types.rows[3][1], .string("plain bold and italic"), "rich text runs concatenated")
        XCTAssertNil(types.rows[3][2], "a formula without a cached value is empty")
        let raw = try XCTUnwrap(workbook.sheet(named: "RAW CELLS"))
        XCTAssertEqual(raw.rows[0].values, [.string("ab"), .number(42), .bool(true), .error("#DIV/0!"), .string("rich inline"), .string("A\rB")])
        XCTAssertEqual(raw.rows[1].values, [.number(1), .number(2), nil, nil, .number(5)], "cells without r follow the one before")
        XCTAssertEqual(raw.rows[1].number, 2, "a row without r follows the one before")
        XCTAssertEqual(raw[XLSXCellReference("D3")!], .number(12.5))
        XCTAssertNil(raw[XLSXCellReference("C3")!], "a styled cell without a value is empty")
    }

    func testDatesInSeveralFormatsAsOpenpyxlReadsThem() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make("dates", in: folder)
        let workbook = try XLSXWorkbook(contentsOf: url)
        Oracle.assertSame(workbook, try Oracle.dump(url))
        let sheet = try XCTUnwrap(workbook.sheet(named: "Dates"))
        guard case .date(let first) = try XCTUnwrap(sheet.rows[0][2]) else { return XCTFail("B1 is not a date") }
        XCTAssertEqual([first.year, first.month, first.day, first.hour, first.minute, first.second], [2024, 3, 5, 14, 30, 15])
        XCTAssertEqual(first.date, ISO8601DateFormatter().date(from: "2024-03-05T14:30:15Z"))
        guard case .date(let time) = try XCTUnwrap(sheet.rows[4][2]) else { return XCTFail("B5 is not a time") }
        XCTAssertTrue(time.isTimeOnly)
        XCTAssertEqual(time.iso8601, "09:45:00")
        XCTAssertEqual(sheet.rows[10][2], .number(45000.5), "0.00 is not a date format")
        XCTAssertEqual(sheet.rows[11][2], .number(12), "a quoted \"day\" is not a date format")
    }

    func testThe1904DateSystem() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make("dates1904", in: folder)
        let workbook = try XLSXWorkbook(contentsOf: url)
        XCTAssertTrue(workbook.uses1904DateSystem)
        Oracle.assertSame(workbook, try Oracle.dump(url))
        guard case .date(let first) = try XCTUnwrap(workbook.sheets[0].rows[0][2]) else { return XCTFail("B1 is not a date") }
        XCTAssertEqual(first.iso8601, "2024-03-05T14:30:15")
        XCTAssertEqual(first.serial, 43_894.604340277778, accuracy: 1e-6, "stored 1,462 days fewer than in the 1900 system")
        XCTAssertEqual(first.serialIn1900System, 45_356.604340277778, accuracy: 1e-6)
        XCTAssertEqual(first, XLSXDateTime(serial: 45_356.604340277778, date1904: false), "the same moment in either system")
    }

    func testSheetsInTabOrderSparseRowsAndMergedRanges() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make("layout", in: folder)
        let workbook = try XLSXWorkbook(contentsOf: url)
        Oracle.assertSame(workbook, try Oracle.dump(url))
        XCTAssertEqual(workbook.sheetNames, ["survey", "choices", "Ajustes y más", "Ñandú & <2>", "Aaa empty"])
        XCTAssertEqual(workbook.sheet(named: "AJUSTES Y MÁS")?.name, "Ajustes y más", "names match without case")
        XCTAssertEqual(workbook.sheet(named: "ñandú & <2>")?.name, "Ñandú & <2>")
        XCTAssertNil(workbook.sheet(named: "settings"))
        XCTAssertEqual(workbook.sheet(named: "Aaa empty")?.isHidden, true)
        XCTAssertEqual(workbook.sheet(named: "Aaa empty")?.rows, [])

        let survey = workbook.sheets[0]
        XCTAssertEqual(survey.rows.map(\.number), [1, 3, 7, 12, 20], "empty rows are absent, numbers as in the file")
        XCTAssertEqual(survey.rows[2].values, [nil, nil, nil, nil, .string("far away")])
        XCTAssertEqual(survey.rows[3][28], .string("column AB"))
        XCTAssertEqual(survey.rows[3].cells.map(\.columnLetters), ["AB"])
        let merged = try XCTUnwrap(survey.mergedRange(containing: XLSXCellReference("B21")!))
        XCTAssertEqual(merged.description, "A20:C21")
        XCTAssertEqual(survey[merged.first], .string("merged value"), "a merged range's value is in its top-left cell")
        XCTAssertNil(survey[XLSXCellReference("B21")!])
        XCTAssertEqual(workbook.sheet(named: "choices")?.rows.map(\.number), [1, 2, 4])
    }

    /// The sheet declares A1:Z1048576 but holds 100 rows: the reader keeps what the rows hold.
    /// (Its speed is recorded by scripts/bench-xlsx.sh, not timed here.)
    func testADeclaredMillionRowsReadAsTheRowsThere() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make("tall", in: folder)
        let sheetXML = try ToolRun.output(URL(fileURLWithPath: "/usr/bin/unzip"), ["-p", url.path, "xl/worksheets/sheet1.xml"])
        XCTAssertTrue(sheetXML.contains(#"<dimension ref="A1:Z1048576"/>"#), "the fixture declares a million rows")
        let workbook = try XLSXWorkbook(contentsOf: url)
        Oracle.assertSame(workbook, try Oracle.dump(url))
        let sheet = workbook.sheets[0]
        XCTAssertEqual(sheet.rows.count, 100)
        XCTAssertEqual(sheet.rows.last?.number, 100)
        XCTAssertEqual(sheet.rows.map { $0.values.count }.max(), 3)
    }

    /// LibreOffice's own .xlsx writer (another producer than openpyxl, with its own styles.xml and
    /// date format codes): MI and openpyxl read its files alike.
    func testWorkbooksLibreOfficeWrote() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let converted = folder.path("libreoffice")
        try FileManager.default.createDirectory(at: converted, withIntermediateDirectories: true)
        for kind in ["layout", "dates"] {
            let original = try Oracle.make(kind, in: folder)
            let path = try Oracle.run(["xlsx", original.path, converted.path]).trimmingCharacters(in: .whitespacesAndNewlines)
            let url = URL(fileURLWithPath: path)
            XCTAssertNotEqual(try Data(contentsOf: url), try Data(contentsOf: original), "LibreOffice wrote its own file")
            let workbook = try XLSXWorkbook(contentsOf: url)
            Oracle.assertSame(workbook, try Oracle.dump(url))
            if kind == "layout" {
                XCTAssertEqual(workbook.sheet(named: "survey")?.rows.first?[3], .string("label::Español (es)"))
            } else {
                XCTAssertEqual(workbook.sheets[0].rows[0][2], .date(XLSXDateTime(year: 2024, month: 3, day: 5, hour: 14, minute: 30, second: 15)!))
            }
        }
    }

    func testReadingFromMemoryAsFromAFile() throws {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make("layout", in: folder)
        XCTAssertEqual(try XLSXWorkbook(data: Data(contentsOf: url), name: "form.xlsx"), try XLSXWorkbook(contentsOf: url))
    }

    func testCellReferences() {
        XCTAssertEqual(XLSXCellReference("AB12").map { [$0.row, $0.column] }, [12, 28])
        XCTAssertEqual(XLSXCellReference("$b$7").map { [$0.row, $0.column] }, [7, 2])
        XCTAssertEqual(XLSXCellReference("XFD1048576").map { [$0.row, $0.column] }, [1_048_576, 16_384])
        for bad in ["XFE1", "A1048577", "A0", "1A", "A", "", "A1B", "AAAA1", "A12345678", "A-1", "Ä1"] {
            XCTAssertNil(XLSXCellReference(bad), bad)
        }
        for column in [1, 26, 27, 52, 53, 702, 703, 16_384] {
            let letters = XLSXCellReference.columnLetters(column)
            XCTAssertEqual(XLSXCellReference("\(letters)1")?.column, column, letters)
        }
        XCTAssertEqual(XLSXCellReference.columnLetters(28), "AB")
        XCTAssertEqual(XLSXCellReference(row: 12, column: 28)?.description, "AB12")
        XCTAssertEqual(XLSXCellRange("C2:A1")?.description, "A1:C2")
        XCTAssertNil(XLSXCellRange("A1:B2:C3"))
    }

    /// Serial day numbers as Excel means them, the 1900 leap-year bug included.
    func testSerialDayNumbers() throws {
        func iso(_ serial: Double, _ date1904: Bool = false) -> String? {
            XLSXDateTime(serial: serial, date1904: date1904)?.iso8601
        }
        XCTAssertEqual(iso(1), "1900-01-01T00:00:00")
        XCTAssertEqual(iso(59), "1900-02-28T00:00:00")
        XCTAssertEqual(iso(61), "1900-03-01T00:00:00")
        XCTAssertEqual(iso(45_356.5), "2024-03-05T12:00:00")
        XCTAssertEqual(iso(0.75), "18:00:00", "below 1, a time of day")
        XCTAssertEqual(iso(1.999_999_999), "1900-01-02T00:00:00", "rounded to the millisecond")
        XCTAssertEqual(iso(0, true), "00:00:00")
        XCTAssertEqual(iso(1, true), "1904-01-02T00:00:00")
        XCTAssertEqual(iso(43_894, true), "2024-03-05T00:00:00")
        XCTAssertNil(iso(.nan))
        XCTAssertNil(iso(1e12))
        let date = try XCTUnwrap(XLSXDateTime(year: 1900, month: 2, day: 28))
        XCTAssertEqual(date.serial, 59)
        XCTAssertEqual(XLSXDateTime(year: 2024, month: 3, day: 5, hour: 12)?.serial, 45_356.5)
        XCTAssertNil(XLSXDateTime(year: 2023, month: 2, day: 29))
    }

    /// The text a form definition means by a cell, as XLSForm readers take it.
    func testValuesAsText() throws {
        XCTAssertEqual(XLSXValue.number(3).text, "3")
        XCTAssertEqual(XLSXValue.number(-0.5).text, "-0.5")
        XCTAssertEqual(XLSXValue.number(1e20).text, "1e+20")
        XCTAssertEqual(XLSXValue.bool(true).text, "TRUE")
        XCTAssertEqual(XLSXValue.string(" as is ").text, " as is ")
        XCTAssertEqual(XLSXValue.error("#N/A").text, "#N/A")
        XCTAssertEqual(XLSXValue.date(try XCTUnwrap(XLSXDateTime(year: 2026, month: 11, day: 26, hour: 8, minute: 5))).text,
                       "2026-11-26T08:05:00")
    }

    func testDateFormatCodes() {
        for code in ["yyyy-mm-dd", "d-mmm", "h:mm AM/PM", "[h]:mm:ss", "[$-409]mmmm d, yyyy;@", "DD/MM/YYYY", #""Fecha:" dd/mm"#] {
            XCTAssertTrue(NumberFormat.isDateFormat(code), code)
        }
        for code in ["General", "0.00", #""day" 0"#, "#,##0", "[Red]0.0", #"0 \d"#, "0_h", #"0;"yyyy""#, "@"] {
            XCTAssertFalse(NumberFormat.isDateFormat(code), code)
        }
        XCTAssertEqual(Set(NumberFormat.builtInDateIDs), Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]))
    }

    func testRelationshipTargets() {
        XCTAssertEqual(RelationshipsHandler.resolve("worksheets/sheet1.xml", relativeTo: "xl/workbook.xml"), "xl/worksheets/sheet1.xml")
        XCTAssertEqual(RelationshipsHandler.resolve("/xl/worksheets/sheet1.xml", relativeTo: "xl/workbook.xml"), "xl/worksheets/sheet1.xml")
        XCTAssertEqual(RelationshipsHandler.resolve("../xl/./sheet%201.xml", relativeTo: "xl/workbook.xml"), "xl/sheet 1.xml")
        XCTAssertEqual(RelationshipsHandler.resolve("xl/workbook.xml", relativeTo: ""), "xl/workbook.xml")
        XCTAssertEqual(XLSXWorkbook.relationshipsPath(of: "xl/workbook.xml"), "xl/_rels/workbook.xml.rels")
    }
}
