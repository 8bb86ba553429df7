import Foundation
@testable import MIXLSForm
import TestSupport
import XCTest

/// Resources/xlsx_oracle.py: openpyxl (and LibreOffice) as the independent side of the tests.
enum Oracle {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func script() throws -> URL {
        guard let url = Bundle.module.url(forResource: "xlsx_oracle", withExtension: "py") else {
            throw Failure(description: "xlsx_oracle.py is not among the test resources")
        }
        return url
    }

    /// Runs the oracle with `arguments` and returns its standard output.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        try ToolRun.output(URL(fileURLWithPath: "/usr/bin/env"), ["python3", try script().path] + arguments)
    }

    /// A fixture workbook written by openpyxl (`make KIND`) or a hostile file (`hostile KIND`).
    static func make(_ kind: String, in folder: TemporaryDirectory, hostile: Bool = false) throws -> URL {
        let url = folder.path("\(kind).xlsx")
        try run([hostile ? "hostile" : "make", kind, url.path])
        return url
    }

    /// What openpyxl reads from `url`.
    static func dump(_ url: URL) throws -> Dump {
        let output = try run(["dump", url.path])
        return try JSONDecoder().decode(Dump.self, from: Data(output.utf8))
    }

    struct Dump: Decodable, Equatable {
        var date1904: Bool
        var sheets: [Sheet]
    }

    struct Sheet: Decodable, Equatable {
        var name: String
        var merged: [String]
        var cells: [Cell]
        /// Bold cells (openpyxl only; MI does not read fonts).
        var bold: [String]?
        var hidden: Bool
    }

    /// `[row, column, kind, value]`; the value kept as text so numbers compare as doubles.
    struct Cell: Decodable, Equatable, CustomStringConvertible {
        var row: Int
        var column: Int
        var kind: String
        var value: String

        init(row: Int, column: Int, kind: String, value: String) {
            self.row = row
            self.column = column
            self.kind = kind
            self.value = value
        }

        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            row = try container.decode(Int.self)
            column = try container.decode(Int.self)
            kind = try container.decode(String.self)
            switch kind {
            case "n": value = "\(try container.decode(Double.self))"
            case "b": value = "\(try container.decode(Bool.self))"
            default: value = try container.decode(String.self)
            }
        }

        var description: String { "\(XLSXCellReference.columnLetters(column))\(row) \(kind) \(value.debugDescription)" }
    }

    /// MI's reading in the oracle's shape.
    static func cells(of sheet: XLSXSheet) -> [Cell] {
        sheet.rows.flatMap { row in
            row.cells.map { cell in
                switch cell.value {
                case .string(let text): return Cell(row: row.number, column: cell.column, kind: "s", value: text)
                case .number(let number): return Cell(row: row.number, column: cell.column, kind: "n", value: "\(number)")
                case .bool(let bool): return Cell(row: row.number, column: cell.column, kind: "b", value: "\(bool)")
                case .date(let date): return Cell(row: row.number, column: cell.column, kind: "d", value: date.iso8601)
                case .error(let error): return Cell(row: row.number, column: cell.column, kind: "e", value: error)
                }
            }
        }
    }

    /// Asserts that MI reads `workbook` as openpyxl read `dump`: sheet names in order, hidden
    /// states, merged ranges, the date system and every cell.
    static func assertSame(_ workbook: XLSXWorkbook, _ dump: Dump, adjusting: (String, Cell) -> Cell = { $1 },
                           file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(workbook.sheetNames, dump.sheets.map(\.name), "sheet order", file: file, line: line)
        XCTAssertEqual(workbook.uses1904DateSystem, dump.date1904, "date system", file: file, line: line)
        for (sheet, expected) in zip(workbook.sheets, dump.sheets) {
            XCTAssertEqual(sheet.isHidden, expected.hidden, "\(sheet.name) hidden", file: file, line: line)
            XCTAssertEqual(sheet.mergedRanges.map(\.description).sorted(), expected.merged, "\(sheet.name) merged", file: file, line: line)
            let expectedCells = expected.cells.map { adjusting(sheet.name, $0) }
            let read = cells(of: sheet)
            XCTAssertEqual(read.count, expectedCells.count, "\(sheet.name): \(read) vs \(expectedCells)", file: file, line: line)
            for (mine, theirs) in zip(read, expectedCells) {
                XCTAssertEqual(mine, theirs, "sheet \(sheet.name)", file: file, line: line)
            }
        }
    }
}
