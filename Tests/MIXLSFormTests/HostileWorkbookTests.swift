import Foundation
@testable import MIXLSForm
import TestSupport
import XCTest

/// Damaged and hostile files: each gives one error naming the part or cell and what is wrong; none crashes.
final class HostileWorkbookTests: XCTestCase {
    private func error(reading kind: String, limits: XLSXLimits = .default, file: StaticString = #filePath,
                       line: UInt = #line) throws -> XLSXError? {
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make(kind, in: folder, hostile: true)
        do {
            let workbook = try XLSXWorkbook(contentsOf: url, limits: limits)
            XCTFail("\(kind) was read: \(workbook.sheetNames)", file: file, line: line)
            return nil
        } catch let error as XLSXError {
            let message = error.localizedDescription
            XCTAssertFalse(message.isEmpty, file: file, line: line)
            XCTAssertFalse(message.contains("MIXLSForm."), "\(kind): \(message)", file: file, line: line)
            return error
        }
    }

    func testNotAWorkbookAtAll() throws {
        for kind in ["not-a-zip", "empty-file", "truncated-zip"] {
            XCTAssertEqual(try error(reading: kind), .notAnXLSX(file: "\(kind).xlsx"), kind)
        }
        XCTAssertThrowsError(try XLSXWorkbook(data: Data("type,name\ntext,pump\n".utf8), name: "form.csv")) { error in
            XCTAssertEqual(error as? XLSXError, .notAnXLSX(file: "form.csv"))
        }
        XCTAssertEqual(XLSXError.notAnXLSX(file: "form.csv").localizedDescription,
                       "form.csv is not an .xlsx workbook (it is not a zip archive); save it from the spreadsheet program as Excel 2007-365 (.xlsx)")
    }

    func testMissingParts() throws {
        XCTAssertEqual(try error(reading: "missing-workbook"), .missingPart("xl/workbook.xml"))
        XCTAssertEqual(try error(reading: "missing-workbook-rels"), .missingPart("xl/_rels/workbook.xml.rels"))
        XCTAssertEqual(try error(reading: "missing-sheet"), .missingPart("xl/worksheets/sheet1.xml"))
        XCTAssertEqual(try error(reading: "no-sheets"), .noSheets)
        XCTAssertEqual(try error(reading: "unknown-relationship"),
                       .badSheetEntry(sheet: "survey", detail: "its r:id rId9 is not in xl/_rels/workbook.xml.rels"))
        XCTAssertEqual(try error(reading: "duplicate-sheet-names"), .duplicateSheetName("SURVEY"))
    }

    func testOfSeveralBadSheetsTheFirstInTabOrderIsReported() throws {
        // Sheets are scanned at once; the error is still the one reading them in order meets first.
        XCTAssertEqual(try error(reading: "second-sheet-bad-cell"),
                       .badCellValue(sheet: "choices", cell: "A1", detail: "the cell is out of place in the file (in row 1, after column B)"))
        guard case .malformedXML(let part, _, _) = try error(reading: "first-sheet-malformed-third-missing") else {
            return XCTFail("not a malformed-XML error")
        }
        XCTAssertEqual(part, "xl/worksheets/sheet1.xml", "the first sheet's XML, before the third sheet's missing part")
        XCTAssertEqual(try error(reading: "third-sheet-unknown-relationship"),
                       .badSheetEntry(sheet: "settings", detail: "its r:id rId9 is not in xl/_rels/workbook.xml.rels"))
    }

    func testMalformedXMLNamesThePartAndLine() throws {
        guard case .malformedXML(let part, let line, _) = try error(reading: "malformed-sheet") else {
            return XCTFail("not a malformed-XML error")
        }
        XCTAssertEqual(part, "xl/worksheets/sheet1.xml")
        XCTAssertEqual(line, 1)
        guard case .malformedXML(let strings, _, _) = try error(reading: "malformed-shared-strings") else {
            return XCTFail("not a malformed-XML error")
        }
        XCTAssertEqual(strings, "xl/sharedStrings.xml")
        let message = try XCTUnwrap(try error(reading: "malformed-sheet")?.localizedDescription)
        XCTAssertTrue(message.hasPrefix("xl/worksheets/sheet1.xml line 1 is not well-formed XML ("), message)
    }

    func testEntityExpansionIsRefused() throws {
        XCTAssertEqual(try error(reading: "entity-expansion"), .documentTypeDeclaration(part: "xl/sharedStrings.xml"))
        // Only the prolog is searched, past a byte-order mark, declarations and comments.
        XCTAssertTrue(XMLScanner.declaresDocumentType(Data("\u{FEFF}<?xml version=\"1.0\"?>\n<!-- <x> --><!DOCTYPE x []><x/>".utf8)))
        XCTAssertFalse(XMLScanner.declaresDocumentType(Data("<?xml version=\"1.0\"?><sst><si><t>&lt;!DOCTYPE</t></si></sst>".utf8)))
    }

    func testCellsOutOfRangeAndBadValues() throws {
        XCTAssertEqual(try error(reading: "column-out-of-range"), .badCellReference(sheet: "survey", reference: "XFE1"))
        XCTAssertEqual(try error(reading: "row-out-of-range"), .badCellReference(sheet: "survey", reference: "row 1048577"))
        XCTAssertEqual(try error(reading: "cell-out-of-order"),
                       .badCellValue(sheet: "survey", cell: "A1", detail: "the cell is out of place in the file (in row 1, after column B)"))
        XCTAssertEqual(try error(reading: "bad-reference"), .badCellReference(sheet: "survey", reference: "1A"))
        XCTAssertEqual(try error(reading: "huge-shared-string-index"),
                       .badCellValue(sheet: "survey", cell: "A1", detail: "shared string number 99999999999999999999999 does not exist (the table has 2)"))
        XCTAssertEqual(try error(reading: "shared-string-index-past-end"),
                       .badCellValue(sheet: "survey", cell: "A1", detail: "shared string number 2 does not exist (the table has 2)"))
        XCTAssertEqual(try error(reading: "not-a-number"), .badCellValue(sheet: "survey", cell: "A1", detail: "\"twelve\" is not a number"))
        XCTAssertEqual(try error(reading: "not-a-boolean"),
                       .badCellValue(sheet: "survey", cell: "A1", detail: "\"yes\" is not a boolean (1 or 0)"))
        XCTAssertEqual(XLSXError.badCellValue(sheet: "survey", cell: "A1", detail: "\"yes\" is not a boolean (1 or 0)").localizedDescription,
                       "sheet survey, cell A1: \"yes\" is not a boolean (1 or 0)")
    }

    /// 80 MiB of spaces in an 80 KiB entry: inflating stops at the 64 MiB part limit.
    func testAZipBombStopsAtThePartLimit() throws {
        XCTAssertEqual(try error(reading: "bomb"), .partTooLarge(part: "xl/worksheets/sheet1.xml", limit: 64 << 20))
        // The same within a smaller limit, and with the zip's size fields claiming 500 bytes: the
        // bytes actually inflated are counted, not the sizes declared.
        let small = XLSXLimits(maxPartBytes: 1 << 20, maxTotalBytes: 8 << 20)
        XCTAssertEqual(try error(reading: "bomb", limits: small), .partTooLarge(part: "xl/worksheets/sheet1.xml", limit: 1 << 20))
        let lying = try error(reading: "bomb-lying-sizes", limits: small)
        switch lying {
        case .partTooLarge(part: "xl/worksheets/sheet1.xml", _), .unreadablePart(part: "xl/worksheets/sheet1.xml", _): break
        default: XCTFail("\(String(describing: lying))")
        }
    }

    func testTheWholeWorkbookLimit() throws {
        let limits = XLSXLimits(maxPartBytes: 1 << 20, maxTotalBytes: 1 << 20)
        XCTAssertEqual(try error(reading: "two-large-sheets", limits: limits), .workbookTooLarge(limit: 1 << 20))
        let folder = try TemporaryDirectory(prefix: "mixlsform")
        let url = try Oracle.make("two-large-sheets", in: folder, hostile: true)
        XCTAssertEqual(try XLSXWorkbook(contentsOf: url).sheetNames, ["survey", "two"], "within the default limits it reads")
    }

    func testDamagedCompressedData() throws {
        guard case .unreadablePart(let part, _) = try error(reading: "corrupt-deflate") else {
            return XCTFail("damaged deflate data was not refused")
        }
        XCTAssertEqual(part, "xl/worksheets/sheet1.xml")
    }
}
